"""Communities of a graph (Leiden, modularity), as node labels the views colour by."""

from __future__ import annotations

import numpy as np

from ..data.graph import Graph, NodeLabels
from .layouts import seeded_igraph


def communities(graph: Graph, seed: int = 0) -> NodeLabels:
    """Leiden communities (modularity, igraph, two iterations), largest first, as labels "community 0", ...:
    far faster than Louvain at 100k-1M edges, as high a modularity (BENCHMARKS.md, the app at scale)."""
    import igraph

    src, dst = graph.undirected_pairs()
    g = igraph.Graph(n=graph.num_nodes, edges=np.stack([src, dst], axis=1).tolist())
    with seeded_igraph(seed):
        found = g.community_leiden(objective_function="modularity", n_iterations=2)
        membership = np.asarray(found.membership, dtype=np.int64)
    sizes = np.bincount(membership)
    first = np.full(len(sizes), graph.num_nodes)
    np.minimum.at(first, membership, np.arange(graph.num_nodes))
    order = sorted(range(len(sizes)), key=lambda c: (-sizes[c], first[c]))  # largest first, then by id
    rank = np.empty(len(sizes), dtype=np.int64)
    rank[order] = np.arange(len(sizes))
    return NodeLabels(codes=rank[membership], classes=tuple(f"community {c}" for c in range(len(sizes))),
                      source=f"Leiden communities (seed {seed})")
