"""A Goat's training run again from its seed, with a look at the model after every epoch (the leak audit's
epoch choice, faithfulness over training): the model after epoch k is the one ``fit`` returns for k epochs,
and ``watch`` only reads it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..backends.dispatch import resolve_backend
from ..data.graph import Graph
from ..data.sampling import Neighborhoods
from ..fitting import Watch, train_fresh
from ..model import Goat as GoatModule
from ..model import GoatGlobal
from ..persistence import GoatState
from ..training import Progress

if TYPE_CHECKING:  # annotations only
    from ..estimator import Goat

Model = GoatModule | GoatGlobal


@dataclass(frozen=True)
class Watched:
    """What :func:`train_watching` leaves: the last epoch trained and one history row per epoch."""

    epochs: int
    history: list[dict]
    backend: str
    device: torch.device


def train_watching(goat: Goat, graph: Graph, epochs: int, watch: Watch,
                   callback: Callable[[Progress], bool | None] | None = None) -> Watched:
    """Train ``goat``'s module on ``graph`` for up to ``epochs`` from its seed, as ``fit``'s final stage
    does (:func:`.fitting.train_fresh`), with ``watch`` looking at every epoch."""
    device = goat.resolved_device()
    backend = resolve_backend(goat.backend, goat.variant, device)
    _, _, history, _ = train_fresh(goat.get_params(), graph, epochs, watch=watch, device=device,
                                   backend=backend, callback=callback, shard=(0, 1), wrap=None)
    return Watched(len(history), history, backend, device)


def snapshot(goat: Goat, graph: Graph, weights: torch.Tensor, hood: Neighborhoods, backend: str,
             device: torch.device | str = "cpu") -> Goat:
    """A fitted Goat with ``goat``'s parameters and the embedding table ``weights`` (a copy kept by
    ``watch``): the model ``fit`` returns after that many epochs."""
    from ..estimator import Goat as GoatClass

    state = GoatState(graph=graph, embedding=weights, neighborhoods=hood, history=[], backend=backend)
    return GoatClass.from_state(goat.get_params(), state, device=str(device))
