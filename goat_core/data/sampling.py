"""Samplers: neighborhoods (first-order, without replacement), D^0.75 negatives, edge splits.

Neighborhoods are a table ``(n, N)`` of neighbor ids, left-aligned, padded with the pad id
``n``, plus the count of real entries per node. The table is redrawn from a
``torch.Generator`` (one draw per epoch in training, one fixed draw for inference), so the
same seed always gives the same neighborhoods.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import torch

from ..errors import ParameterError
from .graph import Graph

MAX_SEED = 2**63 - 1  # the seed parameter's largest value (a torch generator takes int64)


@dataclass(frozen=True)
class Adjacency:
    """Undirected CSR adjacency (the paper's D counts both directions)."""

    indptr: torch.Tensor  # (n + 1,) int64
    indices: torch.Tensor  # (2m',) int64, neighbors grouped by node
    num_nodes: int

    @classmethod
    def from_graph(cls, graph: Graph) -> Adjacency:
        src, dst = graph.undirected_pairs()
        heads = np.concatenate([src, dst])
        tails = np.concatenate([dst, src])
        order = np.lexsort((tails, heads))
        counts = np.bincount(heads, minlength=graph.num_nodes)
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return cls(torch.from_numpy(indptr), torch.from_numpy(tails[order].copy()), graph.num_nodes)

    @property
    def degree(self) -> torch.Tensor:
        return self.indptr[1:] - self.indptr[:-1]

    def neighbors(self, node: int) -> np.ndarray:
        return self.indices[self.indptr[node]:self.indptr[node + 1]].numpy()


@dataclass(frozen=True)
class Neighborhoods:
    """``table[u, :length[u]]`` are u's sampled neighbors; the rest is the pad id n."""

    table: torch.Tensor  # (n, N) int64
    length: torch.Tensor  # (n,) int64

    def to(self, device: torch.device | str) -> Neighborhoods:
        return Neighborhoods(self.table.to(device), self.length.to(device))


def sample_neighborhoods(adj: Adjacency, size: int, generator: torch.Generator) -> Neighborhoods:
    """Up to ``size`` neighbors per node, without replacement, uniformly at random.

    One random key per adjacency entry, a sort by (node, key), and the first ``size`` of
    each node's run: O(m log m), no Python loop over nodes.
    """
    n, deg = adj.num_nodes, adj.degree
    total = adj.indices.shape[0]
    keys = torch.rand(total, generator=generator, dtype=torch.float64)
    owner = torch.repeat_interleave(torch.arange(n), deg)
    order = torch.argsort(owner.double() * 2.0 + keys)  # keys < 1 keep nodes apart
    rank = torch.arange(total) - adj.indptr[owner]  # position within the node's run
    keep = rank < size
    table = torch.full((n, size), n, dtype=torch.int64)
    # Sorted position p belongs to node owner[p] (the sort keeps node runs in place).
    table[owner[keep], rank[keep]] = adj.indices[order[keep]]
    return Neighborhoods(table=table, length=deg.clamp(max=size))


def noise_distribution(adj: Adjacency, power: float = 0.75) -> torch.Tensor:
    """Unigram D(u)^0.75, normalised (isolated nodes are never drawn)."""
    weights = adj.degree.double() ** power
    return weights / weights.sum()


def check_seed(seed: object) -> None:
    """The seed parameter's rule (parameters.PARAMETERS), for a seed given on its own: numpy would
    refuse a negative one in its own words, and after work."""
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= int(seed) <= MAX_SEED:
        raise ParameterError(f"seed must be an integer >= 0 and <= {MAX_SEED}, got {seed!r}")


def seed_32(seed: int) -> int:
    """``seed`` where a library takes seeds below 2**32 only (scikit-learn, UMAP): itself when it is one
    (the same numbers as always), else one drawn from it, so that every seed the parameter allows works."""
    check_seed(seed)
    return int(seed) if seed < 2**32 else int(np.random.SeedSequence(int(seed)).generate_state(1)[0])


def draw_negatives(noise: torch.Tensor, count: int, generator: torch.Generator) -> torch.Tensor:
    if count == 0:  # negatives=0, training on the edges alone (torch.multinomial refuses 0 samples)
        return torch.empty(0, dtype=torch.long)
    return torch.multinomial(noise, count, replacement=True, generator=generator)


@dataclass(frozen=True)
class EdgeSplit:
    """A leak-free link-prediction split: the training graph never sees a test edge."""

    train: Graph
    test_pos: np.ndarray  # (k, 2) held-out edges
    test_neg: np.ndarray  # (k, 2) verified non-edges of the full graph
    train_ratio: float
    seed: int


def split_edges(graph: Graph, train_ratio: float, seed: int, full: Graph | None = None) -> EdgeSplit:
    """Keep ``train_ratio`` of the edges for training; test on the rest vs as many non-edges.

    ``full``: when ``graph`` is itself a training graph (a validation split carved from it),
    negatives must be non-edges of the full graph too, or a held-out test edge could be
    labelled negative.
    """
    if isinstance(train_ratio, bool) or not isinstance(train_ratio, Real) or not 0.0 < train_ratio < 1.0:
        raise ParameterError(f"train_ratio must be a number strictly between 0 and 1, got {train_ratio!r}")
    check_seed(seed)
    m = graph.num_edges
    n_train = int(round(train_ratio * m))
    if n_train < 1 or m - n_train < 1:
        raise ParameterError(
            f"{graph.source}: too few edges ({m}) to split at train_ratio={train_ratio}; "
            "need at least one training and one test edge"
        )
    rng = np.random.default_rng(seed)
    perm = rng.permutation(m)
    mask = np.zeros(m, dtype=bool)
    mask[perm[:n_train]] = True
    test_pos = np.stack([graph.src[~mask], graph.dst[~mask]], axis=1)
    known = set(full._keys(full.src, full.dst).tolist()) if full is not None else None
    test_neg = sample_non_edges(graph, len(test_pos), rng, exclude=known)
    return EdgeSplit(graph.subgraph_edges(mask), test_pos, test_neg, train_ratio, seed)


def sample_non_edges(graph: Graph, count: int, rng: np.random.Generator,
                     exclude: set[int] | None = None) -> np.ndarray:
    """``count`` distinct node pairs that are not edges of ``graph`` (nor self-pairs, nor
    pairs whose key is in ``exclude``)."""
    n = graph.num_nodes
    edges = set(graph._keys(graph.src, graph.dst).tolist()) | (exclude or set())
    possible = n * (n - 1) // (1 if graph.directed else 2) - len(edges)
    if count > possible:
        full = " (every pair of nodes is an edge: a complete graph)" if possible <= 0 else ""
        raise ParameterError(f"{graph.source}: each held-out edge is scored against a non-edge, but the "
                             f"graph has only {max(possible, 0)} non-edges for {count} held-out edges{full}; "
                             "hold out fewer edges, or none")
    chosen: dict[int, tuple[int, int]] = {}
    while len(chosen) < count:
        u = np.asarray(rng.integers(0, n, size=2 * (count - len(chosen)) + 16))
        v = np.asarray(rng.integers(0, n, size=u.shape[0]))
        keys = graph._keys(u, v)
        for a, b, key in zip(u.tolist(), v.tolist(), keys.tolist()):
            if a != b and key not in edges and key not in chosen:
                chosen[key] = (a, b)
                if len(chosen) == count:
                    break
    return np.array(list(chosen.values()), dtype=np.int64).reshape(-1, 2)


def validation_split(train: Graph, fraction: float, seed: int, full: Graph | None = None) -> EdgeSplit:
    """Carve a validation set from training edges, for tuning without touching test edges.

    Validation negatives are non-edges of ``train``: a held-out test edge may be drawn as one,
    as it would be by anyone who cannot see the test set. Passing the ``full`` graph excludes
    every full-graph edge instead, which tells the choice which test pairs are edges: leave it
    out for model selection.
    """
    return split_edges(train, 1.0 - fraction, seed, full=full)
