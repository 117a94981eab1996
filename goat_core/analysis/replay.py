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
from ..fitting import build_module
from ..model import Goat as GoatModule
from ..model import GoatGlobal
from ..optim import resolve_optimizer
from ..state import GoatState
from ..training import Progress, run_training

if TYPE_CHECKING:  # annotations only
    from ..estimator import Goat

# watch(model, inference draw, epoch) -> True to stop after this epoch
Model = GoatModule | GoatGlobal
Watch = Callable[[Model, Neighborhoods, int], bool | None]


@dataclass(frozen=True)
class Watched:
    """What :func:`train_watching` leaves: the last epoch trained and one history row per epoch."""

    epochs: int
    history: list[dict]
    backend: str
    device: torch.device


def train_watching(goat: Goat, graph: Graph, epochs: int, watch: Watch,
                   callback: Callable[[Progress], bool | None] | None = None) -> Watched:
    """Train ``goat``'s module on ``graph`` for up to ``epochs`` from its seed (``fit``'s final stage),
    calling ``watch(model, inference draw, epoch)`` at epoch 0 and after each; True from it ends
    training."""
    device = goat.resolved_device()
    backend = resolve_backend(goat.backend, goat.variant, device)
    generator = torch.Generator().manual_seed(goat.seed)
    model = build_module(goat.get_params(), graph.num_nodes, generator).to(device)  # fit's own module
    hood = goat.inference_neighborhoods(graph)
    if watch(model, hood, 0) or epochs == 0:
        return Watched(0, [], backend, device)

    history = run_training(model, graph, epochs=epochs, batch_size=goat.batch_size, lr=goat.lr,
                           negatives=goat.negatives, neighborhood=goat.neighborhood,
                           exclude_partner=goat.exclude_partner, generator=generator, padding=goat.padding,
                           device=device, backend=backend, callback=callback, shard=(0, 1), wrap=None,
                           optimizer=resolve_optimizer(goat.optimizer, graph.num_nodes),
                           stop=lambda epoch: watch(model, hood, epoch))
    return Watched(len(history), history, backend, device)


def snapshot(goat: Goat, graph: Graph, weights: torch.Tensor, hood: Neighborhoods, backend: str,
             device: torch.device | str = "cpu") -> Goat:
    """A fitted Goat with ``goat``'s parameters and the embedding table ``weights`` (a copy kept by
    ``watch``): the model ``fit`` returns after that many epochs."""
    from ..estimator import Goat as GoatClass

    state = GoatState(graph=graph, embedding=weights, neighborhoods=hood, history=[], backend=backend)
    return GoatClass.from_state(goat.get_params(), state, device=str(device))
