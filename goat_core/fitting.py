"""How ``Goat.fit`` trains, from its parameters (a ``get_params()`` dict): a fresh module from
the seed, the fixed inference draw answers use, tracked pairs recorded along the way, and early
stopping's choice of the number of epochs. The loop itself is :func:`.training.run_training`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch

from .analysis.tracking import AttentionTracker
from .data.graph import Graph
from .data.sampling import Adjacency, Neighborhoods, sample_neighborhoods, split_edges
from .errors import ParameterError
from .model import Goat, GoatGlobal
from .optim import resolve_optimizer
from .training import best_epoch, run_training

# watch(model, inference draw, epoch) -> True to stop after this epoch (the replay's look at every epoch)
Watch = Callable[[Goat | GoatGlobal, Neighborhoods, int], bool | None]


def build_module(params: Mapping[str, Any], num_nodes: int,
                 generator: torch.Generator | None) -> Goat | GoatGlobal:
    """The ``variant``'s module for ``num_nodes`` nodes, initialised from ``generator``."""
    if params["variant"] == "global":
        return GoatGlobal(num_nodes, params["dim"], params["dropout"], generator)
    pooling = "mean" if params["variant"] == "mean-pool" else "max"
    return Goat(num_nodes, params["dim"], pooling, params["dropout"], generator)


def inference_neighborhoods(params: Mapping[str, Any], graph: Graph) -> Neighborhoods:
    """The fixed draw answers use, from ``graph`` (seeded apart from training, so answers are
    repeatable): what ``fit`` keeps as ``neighborhoods_``."""
    generator = torch.Generator().manual_seed(params["seed"] + 1)
    return sample_neighborhoods(Adjacency.from_graph(graph), params["neighborhood"], generator)


def extra_draw(seed: int, graph: Graph, size: int, k: int) -> Neighborhoods:
    """Inference draw k >= 1 (``inference_draws`` > 1: scores average over draws), seeded from
    (seed, k): the same model gives the same scores, saved and loaded or not."""
    draw_seed = int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0] >> 1)
    return sample_neighborhoods(Adjacency.from_graph(graph), size, torch.Generator().manual_seed(draw_seed))


def train_fresh(params: Mapping[str, Any], graph: Graph, epochs: int,
                validation: tuple[np.ndarray, np.ndarray] | None = None, patience: int | None = None,
                stage: str = "train", track: np.ndarray | None = None, watch: Watch | None = None,
                **run: Any) -> tuple[Goat | GoatGlobal, Neighborhoods, list[dict], AttentionTracker | None]:
    """A fresh module trained on ``graph`` from the seed: (model, inference draw, history, the tracker of
    the pairs ``track`` or None). ``watch(model, draw, epoch)`` looks at epoch 0 and after every epoch (True
    ends training: the replay). ``run``: device, backend, callback, shard, wrap."""
    generator = torch.Generator().manual_seed(params["seed"])
    model = build_module(params, graph.num_nodes, generator).to(run["device"])
    hood = inference_neighborhoods(params, graph)
    tracker = None
    if watch is not None:
        if watch(model, hood, 0) or epochs == 0:
            return model, hood, [], tracker
        run = dict(run, stop=lambda epoch: watch(model, hood, epoch))
    if track is not None and len(track) and isinstance(model, Goat):  # records at every epoch end
        tracker = AttentionTracker(model, track, hood, graph.names, params["exclude_partner"],
                                   params["padding"], run["device"])
        tracker.record(0)
        run = dict(run, callback=tracker.wrap(run["callback"]))
    history = run_training(
        model, graph, epochs=epochs, batch_size=params["batch_size"], lr=params["lr"],
        negatives=params["negatives"], neighborhood=params["neighborhood"],
        exclude_partner=params["exclude_partner"], generator=generator, padding=params["padding"],
        validation=validation, inference_hood=hood, patience=patience, stage=stage,
        optimizer=resolve_optimizer(params["optimizer"], graph.num_nodes), **run,
    )
    return model, hood, history, tracker


def choose_epochs(params: Mapping[str, Any], graph: Graph, **run: Any) -> dict:
    """Early stopping: train on (1 - validation_fraction) of the edges and stop after ``patience`` epochs
    without a better AUC on the carve-out; the best epoch is how long the final model trains."""
    try:
        carve = split_edges(graph, 1.0 - params["validation_fraction"], params["seed"])
    except ParameterError as err:
        raise ParameterError(f"early stopping: {err}: set validation_fraction to 0 "
                             "(--validation-fraction 0) to train without it") from None
    _, _, history, _ = train_fresh(params, carve.train, params["epochs"],
                                   validation=(carve.test_pos, carve.test_neg), patience=params["patience"],
                                   stage="select", **run)
    return {"best_epoch": best_epoch(history), "epochs_tried": len(history),
            "val_auc": [row["val_auc"] for row in history],
            "validation_edges": int(len(carve.test_pos)), "fraction": params["validation_fraction"]}
