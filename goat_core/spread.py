"""Context spread: how far apart a node's context representations are, for every node.

GOAT gives a node u one representation r_u^(v) per gossip partner v (its neighbors, under the
model's fixed neighborhood draw). A node whose representations all point one way speaks with
one voice; one whose representations spread out speaks differently to different partners.

- ``spread[u]`` = the mean cosine distance 1 - cos(r_u^(v), r_u^(w)) over the pairs of u's
  contexts, from at most ``max_contexts`` partners (a seeded sample of its neighbors); 0 for a
  node with fewer than 2 partners (one context cannot spread). In [0, 2]. Computed for every
  node at once: with unit vectors x_i, Σ_{i≠j} x_i·x_j = |Σ_i x_i|² - m.
- ``personas[u]`` = how many clusters the contexts form: average-linkage clustering on cosine
  distance, cut into k = 2 .. ``max_personas`` clusters, keeping the k with the best silhouette;
  1 when u has fewer than ``MIN_CONTEXTS`` contexts, or when the best silhouette is below
  ``SILHOUETTE`` (0.5: Kaufman & Rousseeuw's threshold of a "reasonable structure").

GoatGlobal has one representation per node (E_u): its spread is 0 everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from .errors import ParameterError
from .sampling import Adjacency

if TYPE_CHECKING:
    from .estimator import Goat

MAX_CONTEXTS = 32  # partners per node: the spread of 32 contexts is already a stable mean of 496 pairs
MAX_PERSONAS = 4
MIN_CONTEXTS = 4  # fewer contexts than this: one persona (a silhouette of 2 clusters of 3 means little)
SILHOUETTE = 0.5


@dataclass(frozen=True)
class ContextSpread:
    """Per node (arrays of length n): spread, persona clusters, contexts used, degree."""

    spread: np.ndarray  # (n,) mean pairwise cosine distance of the contexts, 0 below 2 contexts
    personas: np.ndarray  # (n,) int, clusters among the contexts (1 = one voice)
    contexts: np.ndarray  # (n,) int, contexts measured: min(degree, max_contexts)
    degree: np.ndarray  # (n,) int, degree in the model's training graph
    silhouette: np.ndarray  # (n,) best silhouette over k >= 2 (nan where not tried)

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


def mean_cosine_distance(owners: np.ndarray, vectors: np.ndarray, num_nodes: int) -> np.ndarray:
    """Per owner, the mean of 1 - cos over the ordered pairs of its vectors (0 below 2)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.maximum(norms, 1e-12)
    sums = np.zeros((num_nodes, vectors.shape[1]))
    np.add.at(sums, owners, unit)
    m = np.bincount(owners, minlength=num_nodes).astype(np.float64)
    pairs = m * (m - 1)
    mean_cos = np.divide((sums ** 2).sum(axis=1) - m, pairs, out=np.ones(num_nodes), where=pairs > 0)
    return np.clip(1.0 - mean_cos, 0.0, 2.0)


def silhouette(distances: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette of a clustering from its square distance matrix (a point alone in its
    cluster scores 0, as scikit-learn's)."""
    k = int(labels.max()) + 1
    onehot = np.eye(k)[labels]  # (m, k)
    counts = onehot.sum(axis=0)  # (k,)
    mean_to = distances @ onehot  # (m, k) sum of distances to each cluster
    own = counts[labels]
    a = mean_to[np.arange(len(labels)), labels] / np.maximum(own - 1, 1)
    others = np.where(onehot > 0, np.inf, mean_to / counts)
    b = others.min(axis=1)
    s = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def persona_count(vectors: np.ndarray, max_personas: int = MAX_PERSONAS,
                  threshold: float = SILHOUETTE) -> tuple[int, float]:
    """(clusters, best silhouette) of one node's contexts, by the rule in the module's text."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist, squareform

    if len(vectors) < MIN_CONTEXTS:
        return 1, float("nan")
    condensed = np.clip(pdist(vectors, metric="cosine"), 0.0, 2.0)
    if not np.all(np.isfinite(condensed)) or condensed.max() <= 1e-9:
        return 1, float("nan")  # identical (or zero) vectors: one voice
    tree = linkage(condensed, method="average")
    square = squareform(condensed)
    best_k, best = 1, -1.0
    for k in range(2, min(max_personas, len(vectors) - 1) + 1):
        labels = fcluster(tree, k, criterion="maxclust") - 1
        if labels.max() + 1 < 2:
            continue
        score = silhouette(square, labels)
        if score > best:
            best_k, best = int(labels.max()) + 1, score
    return (best_k if best >= threshold else 1), best


def context_spread(goat: Goat, max_contexts: int = MAX_CONTEXTS, seed: int = 0,
                   max_personas: int = MAX_PERSONAS) -> ContextSpread:
    """Spread and persona clusters of every node's context representations (see the module)."""
    if not (isinstance(max_contexts, int) and max_contexts >= 2):
        raise ParameterError(f"max_contexts must be an integer >= 2, got {max_contexts!r}")
    if not (isinstance(max_personas, int) and max_personas >= 2):
        raise ParameterError(f"max_personas must be an integer >= 2, got {max_personas!r}")
    goat._check_fitted()
    adj = Adjacency.from_graph(goat.graph_)
    n = adj.num_nodes
    owners, partners = sample_partners(adj, max_contexts, seed)
    with torch.no_grad():  # (contexts, d): r_owner while gossiping with partner, the fixed draw
        reps = goat._representations(owners, partners)
    spread = mean_cosine_distance(owners, reps, n)
    contexts = np.bincount(owners, minlength=n)
    personas = np.ones(n, dtype=np.int64)
    best = np.full(n, np.nan)
    starts = np.concatenate([[0], np.cumsum(contexts)])  # owners come grouped, in node order
    for u in np.flatnonzero(contexts >= MIN_CONTEXTS):
        personas[u], best[u] = persona_count(reps[starts[u]:starts[u + 1]], max_personas)
    return ContextSpread(spread=spread, personas=personas, contexts=contexts,
                         degree=adj.degree.numpy().astype(np.int64), silhouette=best)
