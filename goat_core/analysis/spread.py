"""Context spread: each node's mean cosine distance between its context representations r_u^(v), one per
partner (0 below 2; 0 for GoatGlobal), and its persona clusters: spherical k-means, the best silhouette
among clusterings of ``MIN_PERSONA`` contexts a cluster, ``SEPARATION`` apart (a partner left out of u's
message makes a lone "persona"; the silhouette is blind to scale)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..data.sampling import Adjacency
from ..errors import ParameterError
from .representations import representations

if TYPE_CHECKING:
    from ..estimator import Goat

MAX_CONTEXTS = 32  # partners per node: the spread of 32 contexts is already a stable mean of 496 pairs
MAX_PERSONAS = 4
MIN_CONTEXTS = 4  # fewer contexts than this: one persona (a silhouette of 2 clusters of 3 means little)
MIN_PERSONA = 2  # a persona is a voice kept for at least 2 partners: a lone context is not one
SEPARATION = 0.5  # personas differ by at least this mean cosine distance (60 degrees) across clusters
SILHOUETTE = 0.5


@dataclass(frozen=True)
class ContextSpread:
    """Per node (arrays of length n): spread, persona clusters, contexts used, degree."""

    spread: np.ndarray  # (n,) mean pairwise cosine distance of the contexts, 0 below 2 contexts
    personas: np.ndarray  # (n,) int, clusters among the contexts (1 = one voice)
    contexts: np.ndarray  # (n,) int, contexts measured: min(degree, max_contexts)
    degree: np.ndarray  # (n,) int, degree in the model's training graph
    silhouette: np.ndarray  # (n,) best qualifying silhouette, k >= 2 (-1: none qualified; nan: not tried)

    def ranking(self, limit: int | None = None) -> np.ndarray:
        """Node ids by decreasing spread (ties: higher degree first, then lower id)."""
        order = np.lexsort((np.arange(len(self.spread)), -self.degree, -self.spread))
        return order if limit is None else order[:limit]


def sample_partners(adj: Adjacency, max_contexts: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(owners, partners): up to ``max_contexts`` neighbors of every node, without replacement,
    grouped by owner: one random key per adjacency entry and a sort, no loop over nodes."""
    indptr, indices = adj.indptr.numpy(), adj.indices.numpy()
    deg = np.diff(indptr)
    owner = np.repeat(np.arange(adj.num_nodes), deg)
    keys = np.random.default_rng(seed).random(len(indices))
    order = np.lexsort((keys, owner))
    rank = np.arange(len(indices)) - indptr[owner]  # position within the owner's run, after the sort
    keep = order[rank < max_contexts]
    return owner[keep], indices[keep]


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-12)


def mean_cosine_distance(owners: np.ndarray, vectors: np.ndarray, num_nodes: int) -> np.ndarray:
    """Per owner, the mean of 1 - cos over the ordered pairs of its vectors (0 below 2)."""
    from scipy.sparse import csr_matrix

    unit = unit_rows(np.asarray(vectors, dtype=np.float32))  # float32: 3M contexts at a million edges
    member = csr_matrix((np.ones(len(owners), dtype=np.float32), (owners, np.arange(len(owners)))),
                        shape=(num_nodes, len(owners)))
    sums = np.asarray(member @ unit, dtype=np.float64)  # (n, d): Σ of each owner's unit vectors
    m = np.bincount(owners, minlength=num_nodes).astype(np.float64)
    pairs = m * (m - 1)
    mean_cos = np.divide((sums ** 2).sum(axis=1) - m, pairs, out=np.ones(num_nodes), where=pairs > 0)
    return np.clip(1.0 - mean_cos, 0.0, 2.0)


def silhouettes(distances: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """(G,) mean silhouettes of G clusterings from (G, m, m) distances and (G, m) labels in 0..k-1: a lone
    point scores 0 (as scikit-learn's), fewer than 2 non-empty clusters -1 (never kept)."""
    onehot = np.eye(k)[labels]  # (G, m, k)
    counts = onehot.sum(axis=1)  # (G, k)
    to = distances @ onehot  # (G, m, k): summed distance of each point to each cluster
    own = np.take_along_axis(counts, labels, axis=1)  # (G, m)
    a = np.take_along_axis(to, labels[..., None], axis=2)[..., 0] / np.maximum(own - 1, 1)
    mean_to = to / np.maximum(counts, 1)[:, None, :]
    b = np.where((onehot > 0) | (counts[:, None, :] == 0), np.inf, mean_to).min(axis=2)
    b = np.where(np.isfinite(b), b, a)  # no other cluster: scored -1 below, whatever s is
    s = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0).mean(axis=1)
    return np.where((counts > 0).sum(axis=1) >= 2, s, -1.0)


def spherical_kmeans(unit: np.ndarray, k: int, iterations: int = 10) -> np.ndarray:
    """(G, m) labels of k clusters of each of G sets of m unit vectors (G, m, d): a
    deterministic farthest-point start (no random draw), then Lloyd steps on cosine."""
    g, m, _ = unit.shape
    sim = unit @ unit.transpose(0, 2, 1)  # (G, m, m)
    rows = np.arange(g)
    chosen = [np.argmin(sim.sum(axis=2), axis=1)]  # the point least like the others
    nearest = sim[rows, chosen[0]]  # (G, m) similarity to the closest chosen centre
    for _ in range(1, k):
        chosen.append(np.argmin(nearest, axis=1))
        nearest = np.maximum(nearest, sim[rows, chosen[-1]])
    centres = unit[rows[:, None], np.stack(chosen, axis=1)]  # (G, k, d)
    labels = np.zeros((g, m), dtype=np.int64)
    for _ in range(iterations):
        labels = np.argmax(unit @ centres.transpose(0, 2, 1), axis=2)  # (G, m)
        sums = np.eye(k)[labels].transpose(0, 2, 1) @ unit  # (G, k, d)
        empty = np.linalg.norm(sums, axis=2, keepdims=True) < 1e-12
        centres = np.where(empty, centres, unit_rows(sums))
    return labels


def persona_counts(unit: np.ndarray, max_personas: int = MAX_PERSONAS,
                   threshold: float = SILHOUETTE) -> tuple[np.ndarray, np.ndarray]:
    """(clusters (G,), best silhouette (G,)) of G nodes' contexts (G, m, d) of unit vectors, by
    the rule in the module's text (m >= MIN_CONTEXTS)."""
    g, m, _ = unit.shape
    distances = np.clip(1.0 - unit @ unit.transpose(0, 2, 1), 0.0, 2.0)
    best_k, best = np.ones(g, dtype=np.int64), np.full(g, -1.0)
    for k in range(2, min(max_personas, m - 1) + 1):
        labels = spherical_kmeans(unit, k)
        onehot = np.eye(k)[labels]  # (G, m, k)
        sizes = onehot.sum(axis=1)  # (G, k)
        found = (sizes > 0).sum(axis=1)  # non-empty clusters
        lone = ((sizes > 0) & (sizes < MIN_PERSONA)).any(axis=1)
        across = 1.0 - onehot @ onehot.transpose(0, 2, 1)  # (G, m, m): 1 where two clusters differ
        apart = (distances * across).sum(axis=(1, 2)) / np.maximum(across.sum(axis=(1, 2)), 1)
        score = np.where(lone | (apart < SEPARATION), -1.0, silhouettes(distances, labels, k))
        better = score > best
        best_k, best = np.where(better, found, best_k), np.where(better, score, best)
    flat = distances.max(axis=(1, 2)) <= 1e-6  # identical contexts (up to float32 rounding): one voice
    return np.where((best >= threshold) & ~flat, best_k, 1), np.where(flat, np.nan, best)


def persona_count(vectors: np.ndarray, max_personas: int = MAX_PERSONAS,
                  threshold: float = SILHOUETTE) -> tuple[int, float]:
    """(clusters, best silhouette) of one node's contexts (m, d)."""
    if len(vectors) < MIN_CONTEXTS:
        return 1, float("nan")
    counts, best = persona_counts(unit_rows(np.asarray(vectors, dtype=np.float64))[None], max_personas,
                                  threshold)
    return int(counts[0]), float(best[0])


def grouped_personas(reps: np.ndarray, contexts: np.ndarray,
                     max_personas: int = MAX_PERSONAS) -> tuple[np.ndarray, np.ndarray]:
    """Persona clusters of every node from ``reps`` (grouped by node, ``contexts[u]`` each), nodes with the
    same number of contexts clustered together as one (G, m, d) batch."""
    n = len(contexts)
    personas, best = np.ones(n, dtype=np.int64), np.full(n, np.nan)
    starts = np.concatenate([[0], np.cumsum(contexts)])[:-1]
    unit = unit_rows(np.asarray(reps, dtype=np.float32))
    for m in np.unique(contexts[contexts >= MIN_CONTEXTS]):
        nodes = np.flatnonzero(contexts == m)
        batch = unit[starts[nodes][:, None] + np.arange(m)]  # (G, m, d)
        personas[nodes], best[nodes] = persona_counts(batch, max_personas)
    return personas, best


def context_spread(goat: Goat, max_contexts: int = MAX_CONTEXTS, seed: int = 0,
                   max_personas: int = MAX_PERSONAS) -> ContextSpread:
    """Spread and persona clusters of every node's context representations (see the module)."""
    for name, value in (("max_contexts", max_contexts), ("max_personas", max_personas)):
        if not (isinstance(value, int) and value >= 2):
            raise ParameterError(f"{name} must be an integer >= 2, got {value!r}")
    goat._check_fitted()
    adj = Adjacency.from_graph(goat.graph_)
    n = adj.num_nodes
    owners, partners = sample_partners(adj, max_contexts, seed)
    with torch.no_grad():  # (contexts, d): r_owner while gossiping with partner, the fixed draw
        reps = representations(goat.model_, goat.embedding_, goat.neighborhoods_, owners, partners,
                               goat.exclude_partner, goat.padding, goat.device_)
    spread = mean_cosine_distance(owners, reps, n)
    contexts = np.bincount(owners, minlength=n)
    personas, best = grouped_personas(reps, contexts, max_personas)
    return ContextSpread(spread=spread, personas=personas, contexts=contexts,
                         degree=adj.degree.numpy().astype(np.int64), silhouette=best)
