"""The leak audit: one model per seed scored leak-free, under the paper's four leaks (:data:`LEAKS`) at once
and one at a time, and untrained; ``epoch_on_test`` trains on past the validation's epoch. How each leak is
made and what its ``exposure`` measures: docs/evaluation.md."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..backends.dispatch import GramCache, resolve_backend
from ..data.graph import Graph
from ..data.sampling import EdgeSplit, Neighborhoods, sample_non_edges, split_edges
from ..errors import ParameterError
from ..fitting import choose_epochs
from ..training import EarlyStopping, Progress, score_pairs
from .evaluation import link_scores
from .replay import Model, snapshot, train_watching

LEAKS: dict[str, str] = {
    "full_graph_neighborhoods": (
        "Neighborhoods drawn from the full graph: a held-out edge's other end can sit in the sampled "
        "neighborhood, so the model sees the answer while it scores the pair."),
    "unchecked_negatives": (
        "Negatives are a random partner of the edge's first node, never checked: some are real edges, "
        "and each negative shares a node with its positive."),
    "reversed_edges": (
        "The split is made per direction: (u, v) trains while (v, u) is tested, so part of the test set "
        "are edges the model trained on."),
    "epoch_on_test": (
        "The epoch kept is the one that scores best on the test pairs: the test set chooses the model "
        "it then grades."),
}
LEAK_TITLES = {"full_graph_neighborhoods": "full-graph neighborhoods",
               "unchecked_negatives": "unchecked negatives", "reversed_edges": "reversed edges",
               "epoch_on_test": "epoch chosen on test"}


@dataclass(frozen=True)
class TestPairs:
    """One protocol's held-out pairs: positives and negatives, (k, 2) node indices each."""

    positives: np.ndarray
    negatives: np.ndarray

    def pairs(self) -> np.ndarray:
        return np.concatenate([self.positives, self.negatives]).astype(np.int64)

    def labels(self) -> np.ndarray:
        return np.concatenate([np.ones(len(self.positives)), np.zeros(len(self.negatives))])


def unchecked_negatives(positives: np.ndarray, num_nodes: int, rng: np.random.Generator) -> np.ndarray:
    """(u, w) for each positive (u, v): w drawn uniformly among the nodes other than u, never
    checked to be a non-edge (the authors' paired random node)."""
    u = np.asarray(positives, dtype=np.int64).reshape(-1, 2)[:, 0]
    w = rng.integers(0, num_nodes - 1, size=len(u))
    return np.stack([u, w + (w >= u)], axis=1)  # skip u itself: a node cannot gossip with itself


def reversed_test_edges(split: EdgeSplit, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """(positives, how many are reversed training edges) of a per-direction split training on
    ``split.train``; ours at R is one (each direction kept with q = 1 - √(1 - R)): no second training."""
    q = 1.0 - math.sqrt(1.0 - split.train_ratio)  # each direction trains with probability q
    both = q / (2.0 - q)  # P(both directions train | at least one does)
    src, dst = split.train.src, split.train.dst
    one_way = rng.random(len(src)) >= both
    forward = rng.random(len(src)) < 0.5  # which direction trained: the other one tests
    leaked = np.stack([np.where(forward, dst, src), np.where(forward, src, dst)], axis=1)[one_way]
    held = np.asarray(split.test_pos, dtype=np.int64)
    return np.concatenate([held, held[:, ::-1], leaked]).astype(np.int64), int(len(leaked))


def _held_out_share(graph: Graph, split: EdgeSplit, table: torch.Tensor, exclude_partner: bool) -> float:
    """The share of the neighbors drawn for the held-out edges' ends (the partner left out when the
    model leaves it out) that are reached through a held-out edge: what full-graph draws reveal."""
    pos, pad = np.asarray(split.test_pos, dtype=np.int64), graph.num_nodes
    held = np.unique(graph._keys(pos[:, 0], pos[:, 1]))
    seen = real = 0
    for ends, partners in ((pos[:, 0], pos[:, 1]), (pos[:, 1], pos[:, 0])):
        rows = table.numpy()[ends]  # (P, N)
        keep = rows != pad
        if exclude_partner:
            keep &= rows != partners[:, None]
        heads = np.repeat(ends, rows.shape[1])
        keys = graph._keys(heads, np.where(keep, rows, 0).ravel()).reshape(rows.shape)
        seen += int((np.isin(keys, held) & keep).sum())
        real += int(keep.sum())
    return seen / real if real else 0.0


def audit(graph: Graph, train_ratio: float, params: dict | None = None,
          callback: Callable[[Progress], bool | None] | None = None) -> dict:
    """Train GOAT (``params``: ``Goat``'s, seed included) once on a leak-free split of ``graph`` and score
    it under each protocol: what ``python -m goat_core audit --json`` prints."""
    return audit_models(graph, train_ratio, params, callback).report


@dataclass(frozen=True)
class Audited:
    """The audit's report with its split and models: ``chosen`` (leak-free, as ``linkpred`` trains),
    ``untrained`` (epoch 0), ``test`` and ``paper`` (the epochs the test pairs chose)."""

    report: dict
    split: EdgeSplit
    models: dict


def audit_models(graph: Graph, train_ratio: float, params: dict | None = None,
                 callback: Callable[[Progress], bool | None] | None = None) -> Audited:
    """:func:`audit`, keeping the split and the models it scored (for more measurements on them)."""
    from ..estimator import Goat

    goat = Goat(**(params or {}))
    device = goat.resolved_device()  # every parameter checked, before any work
    if graph.num_nodes < 3:
        raise ParameterError(f"{graph.source}: the audit needs at least 3 nodes")
    started = time.perf_counter()
    split = split_edges(graph, train_ratio, goat.seed)
    rng = np.random.default_rng([goat.seed, 27])
    plain = TestPairs(split.test_pos, split.test_neg)
    protocols = _protocols(graph, split, plain, rng)
    full_hood = goat.inference_neighborhoods(graph)

    chosen, stopping = goat.epochs, None
    backend = resolve_backend(goat.backend, goat.variant, device)
    if goat.validation_fraction > 0 and goat.epochs > 0:  # early stopping, as fit does it
        stopping = choose_epochs(goat.get_params(), split.train, device=device, backend=backend,
                                 callback=callback, shard=(0, 1), wrap=None)
        chosen = stopping["best_epoch"]
    kept: dict[str, torch.Tensor] = {}
    best = {"test": EarlyStopping(goat.patience), "paper": EarlyStopping(goat.patience)}
    gram = GramCache()
    paper = protocols["paper_protocol"]

    def watch(model: Model, hood: Neighborhoods, epoch: int) -> bool:
        if epoch == 0:
            kept["untrained"] = model.embedding.weight.detach().cpu().clone()
        if epoch == chosen:
            kept["chosen"] = model.embedding.weight.detach().cpu().clone()
        if epoch == 0:
            return goat.epochs == 0
        for name, pairs, draw in (("test", plain, hood), ("paper", paper, full_hood)):
            scores = score_pairs(model, pairs.pairs(), draw, goat.exclude_partner, device, backend, gram,
                                 padding=goat.padding)
            if best[name].update(epoch, link_scores(pairs.labels(), scores)["auc"]):
                kept[name] = model.embedding.weight.detach().cpu().clone()
        if epoch < chosen:
            return False
        if goat.validation_fraction == 0:
            return epoch >= goat.epochs
        return all(stopping.exhausted(epoch) for stopping in best.values())

    watched = train_watching(goat, split.train, max(goat.epochs, chosen), watch, callback=callback)
    hood = goat.inference_neighborhoods(split.train)
    models = {name: snapshot(goat, split.train, w, hood, watched.backend, device)
              for name, w in kept.items()}
    models.setdefault("test", models["chosen"])
    models.setdefault("paper", models["chosen"])
    epochs = {"validation": chosen, "test": best["test"].epoch or chosen,
              "paper": best["paper"].epoch or chosen, "trained": watched.epochs}
    report = _report(goat, graph, split, protocols, models, epochs, stopping, time.perf_counter() - started)
    return Audited(report, split, models)


def _protocols(graph: Graph, split: EdgeSplit, plain: TestPairs, rng: np.random.Generator) -> dict:
    """Every protocol's test pairs, drawn once: the leak-free ones, each leak's, the paper's."""
    n = graph.num_nodes
    out: dict[str, Any] = {"leak_free": plain,
           "unchecked_negatives": TestPairs(plain.positives, unchecked_negatives(plain.positives, n, rng))}
    if graph.directed:
        reversed_pos, leaked = plain.positives, 0
    else:
        reversed_pos, leaked = reversed_test_edges(split, rng)
        known = set(graph._keys(graph.src, graph.dst).tolist())
        negatives = sample_non_edges(split.train, len(reversed_pos), rng, exclude=known)
        out["reversed_edges"] = TestPairs(reversed_pos, negatives)
    out["paper_protocol"] = TestPairs(reversed_pos, unchecked_negatives(reversed_pos, n, rng))
    out["leaked_reversed"] = leaked
    return out


def _scores(goat, pairs: TestPairs) -> dict:
    return link_scores(pairs.labels(), goat.decision_function(pairs.pairs()))


def _report(goat, graph: Graph, split: EdgeSplit, protocols: dict, models: dict, epochs: dict,
            stopping: dict | None, elapsed: float) -> dict:
    plain, paper = protocols["leak_free"], protocols["paper_protocol"]
    chosen, untrained = models["chosen"], models["untrained"]
    leaky = chosen.with_inference_graph(graph)
    unchecked = protocols["unchecked_negatives"].negatives
    leaks = [
        {"name": "full_graph_neighborhoods", **_scores(leaky, plain),
         "exposure": _held_out_share(graph, split, leaky.neighborhoods_.table, goat.exclude_partner)},
        {"name": "unchecked_negatives", **_scores(chosen, protocols["unchecked_negatives"]),
         "exposure": float(np.isin(graph._keys(unchecked[:, 0], unchecked[:, 1]),
                                   graph._keys(graph.src, graph.dst)).mean())},
    ]
    if "reversed_edges" in protocols:
        rev = protocols["reversed_edges"]
        leaks.append({"name": "reversed_edges", **_scores(chosen, rev),
                      "exposure": protocols["leaked_reversed"] / len(rev.positives)})
    else:
        leaks.append({"name": "reversed_edges", "auc": None, "ap": None, "exposure": 0.0,
                      "note": "a directed graph: (v, u) is another edge, not a leak"})
    leaks.append({"name": "epoch_on_test", **_scores(models["test"], plain), "epoch": epochs["test"]})
    for row in leaks:
        row["about"] = LEAKS[row["name"]]
    return {
        "leak_free": _scores(chosen, plain),
        "paper_protocol": {**_scores(models["paper"].with_inference_graph(graph), paper),
                           "epoch": epochs["paper"]},
        "leaks": leaks,
        "untrained": {"leak_free": _scores(untrained, plain),
                      "paper_protocol": _scores(untrained.with_inference_graph(graph), paper)},
        "params": goat.get_params(), "seed": goat.seed, "train_ratio": split.train_ratio,
        "epochs": epochs, "early_stopping": stopping, "test_edges": int(len(plain.positives)),
        "paper_test_edges": int(len(paper.positives)), "train_edges": int(split.train.num_edges),
        "elapsed": elapsed,
    }
