"""How a run's training graph relates to a graph on screen: the seeded hold-out that made it
found again, a loaded run matched to the graph it was trained on, and a pair's edge status
(trained on, held out, or no edge)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.graph import Graph
from ..data.sampling import EdgeSplit, split_edges


def recover_split(full: Graph, train: Graph, seed: int) -> EdgeSplit | None:
    """The EdgeSplit that turned ``full`` into ``train`` when ``split_edges(full, r, seed)`` made it (as the
    app trains), so a reloaded run finds its test set again; None when it cannot be matched."""
    if full.names != train.names or full.directed != train.directed:
        return None
    if not 0 < train.num_edges < full.num_edges:
        return None
    ratio = train.num_edges / full.num_edges
    try:
        split = split_edges(full, ratio, seed)
    except ValueError:
        return None
    same = (split.train.num_edges == train.num_edges and np.array_equal(split.train.src, train.src)
            and np.array_equal(split.train.dst, train.dst))
    return split if same else None


@dataclass(frozen=True)
class RunMatch:
    """The graph a loaded run belongs to, under which key, and its held-out split if found."""

    graph: Graph
    key: str
    split: EdgeSplit | None

    @property
    def holdout(self) -> float:
        return 0.0 if self.split is None else 1.0 - self.split.train.num_edges / self.graph.num_edges


def match_run(run_graph: Graph, seed: int, candidates: Sequence[tuple[Graph, str]], own_key: str) -> RunMatch:
    """Attach a loaded run (``run_graph``, ``seed``) to the first candidate it was trained on: the graph, or
    the graph minus a seeded hold-out (test edges found again); else its own graph under ``own_key``."""
    run_fp = run_graph.fingerprint()  # hashes every array: once, not per candidate
    for full, key in candidates:
        if full.fingerprint() == run_fp:
            return RunMatch(full, key, None)
        split = recover_split(full, run_graph, seed)
        if split is not None:
            return RunMatch(full, key, split)
    return RunMatch(run_graph, own_key, None)


def _edge_kind(full: Graph, train: Graph, s: int, t: int, words: tuple[str, str, str]) -> str:
    """``words``' (trained, held out, no edge): (s, t) in the graph shown, and whether the graph a model
    trained on (the same graph unless edges were held out) had it."""
    if not full.has_edge(s, t):
        return words[2]
    seen = train.has_edge(s, t) if train.num_nodes == full.num_nodes else True
    return words[0] if seen else words[1]


def edge_status(full: Graph, train: Graph, s: int, t: int) -> str:
    """The pair's status for the Gossip page: "edge", "edge, held out from training" or "no edge"."""
    return _edge_kind(full, train, s, t, ("edge", "edge, held out from training", "no edge"))


def partner_kind(full: Graph, train: Graph, u: int, v: int) -> str:
    """For a predicted partner v of u: "neighbor" (trained on), "held out" (an edge the model
    never saw) or "new" (no edge in the graph)."""
    return _edge_kind(full, train, u, v, ("neighbor", "held out", "new"))
