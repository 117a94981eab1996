"""Link-prediction heuristics on a training graph, the baselines GOAT has to beat: common neighbors,
Adamic-Adar and preferential attachment, common neighbors counted in a compiled loop."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ..data.graph import Graph
from ..data.sampling import EdgeSplit
from .evaluation import held_out_pairs, link_result

HEURISTICS = {"common_neighbors": "common neighbors", "adamic_adar": "Adamic-Adar",
              "preferential_attachment": "preferential attachment"}


def undirected_adjacency(num_nodes: int, src: np.ndarray, dst: np.ndarray) -> sp.csr_matrix:
    """Symmetric 0/1 CSR adjacency of the edges src-dst (direction ignored, as GOAT's D)."""
    ones = np.ones(2 * len(src))
    adj = sp.csr_matrix((ones, (np.concatenate([src, dst]), np.concatenate([dst, src]))),
                        shape=(num_nodes, num_nodes))
    adj.data[:] = 1.0  # reciprocal directed edges collapse to one neighbor
    return adj


def csr_arrays(adjacency: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, indices) of a CSR matrix, rows sorted, as the int64 the compiled loops take."""
    adjacency.sort_indices()
    return adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int64)


def heuristic_scores(graph: Graph, pairs: ArrayLike) -> dict[str, np.ndarray]:
    """Scores of (k, 2) node-index ``pairs`` under each heuristic, from ``graph``'s edges."""
    from ..backends.ranking_kernels import common_neighbor_sums  # numba: compiled (or loaded) on first use

    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    indptr, indices = csr_arrays(undirected_adjacency(graph.num_nodes, *graph.undirected_pairs()))
    degree = np.diff(indptr).astype(np.float64)
    inv_log = 1.0 / np.log(np.maximum(degree, 2.0))  # a common neighbor has degree >= 2 anyway
    common, adamic = np.empty(len(pairs)), np.empty(len(pairs))
    common_neighbor_sums(pairs, indptr, indices, inv_log, common, adamic)
    return {"common_neighbors": common, "adamic_adar": adamic,
            "preferential_attachment": degree[pairs[:, 0]] * degree[pairs[:, 1]]}


def evaluate_heuristics(split: EdgeSplit, curves: bool = False) -> dict[str, dict]:
    """AUC and AP of every heuristic on a split's held-out edges against its non-edges, the
    pairs ``evaluate_link_prediction`` scores GOAT on; ``curves`` adds ROC and PR points."""
    pairs, labels = held_out_pairs(split)
    scores = heuristic_scores(split.train, pairs)
    return {name: link_result(labels, values, curves) for name, values in scores.items()}
