"""What a network view draws: seeded coordinates for a graph's nodes, and the part of a large graph a view
can hold (the hubs, or one node's ego network)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..data.graph import Graph
from .picking import neighbors

_IGRAPH_RNG = threading.Lock()  # igraph's random generator is process-wide: one seeded layout at a time


def layout(graph: Graph, seed: int = 0) -> np.ndarray:
    """(n, 2) coordinates in [-1, 1], seeded: Kamada-Kawai from a spring layout for small connected graphs,
    else igraph's grid Fruchterman-Reingold (``bench/layouts.py``: far faster at 20k nodes, as good)."""
    import networkx as nx

    src, dst = graph.undirected_pairs()
    if graph.num_nodes <= 200:
        g = nx.Graph()
        g.add_nodes_from(range(graph.num_nodes))
        g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
        if nx.is_connected(g):  # small: stress-based, evenly spread
            start = nx.spring_layout(g, seed=seed, weight=None)
            pos = nx.kamada_kawai_layout(g, pos=start, weight=None)
            coords = np.array([pos[i] for i in range(graph.num_nodes)], dtype=float).reshape(-1, 2)
            return _unit_box(coords)
    return layout_edges(graph.num_nodes, src, dst, seed)


def layout_edges(num_nodes: int, src: np.ndarray, dst: np.ndarray, seed: int = 0) -> np.ndarray:
    """(num_nodes, 2) Fruchterman-Reingold coordinates in [-1, 1] of the graph ``src``-``dst``."""
    import igraph

    g = igraph.Graph(n=num_nodes, edges=np.stack([np.asarray(src), np.asarray(dst)], axis=1).tolist())
    iterations = 500 if num_nodes <= 50_000 else 200  # 200k nodes: 15 s at 500
    with seeded_igraph(seed):
        coords = g.layout_fruchterman_reingold(niter=iterations, grid="auto").coords
    return _unit_box(np.asarray(coords, dtype=float).reshape(-1, 2))


@contextmanager
def seeded_igraph(seed: int) -> Iterator[None]:
    """igraph's random generator is process-wide: seed it for one call, one call at a time."""
    import random

    import igraph

    with _IGRAPH_RNG:
        igraph.set_random_number_generator(random.Random(seed))
        try:
            yield
        finally:
            igraph.set_random_number_generator(random)


@dataclass(frozen=True)
class Overview:
    """What a whole-graph view draws: ``nodes`` (every one up to the limit, else the highest-degree plus
    those the caller must show) and their edges, ``src``/``dst`` indexing into ``nodes``."""

    nodes: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    total_nodes: int
    total_edges: int

    @property
    def complete(self) -> bool:
        return len(self.nodes) == self.total_nodes


def overview(graph: Graph, max_nodes: int, keep: Sequence[int] = ()) -> Overview:
    """At most ``max_nodes`` nodes (plus ``keep``) for a whole-graph view: every node of a graph
    that small, else the highest-degree ones (ties by id), so that the hubs and their links stay."""
    if graph.num_nodes <= max_nodes:
        nodes = np.arange(graph.num_nodes, dtype=np.int64)
    else:
        top = np.argsort(-graph.degrees(), kind="stable")[:max_nodes]
        nodes = np.unique(np.concatenate([top, np.asarray(keep, dtype=np.int64)])).astype(np.int64)
    src, dst = induced_edges(graph, nodes)
    return Overview(nodes, src, dst, graph.num_nodes, graph.num_edges)


def ego_subgraph(graph: Graph, center: int, limit: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(node ids, src, dst) of ``center`` and up to ``limit - 1`` of its highest-degree neighbors; src and
    dst index into the node ids."""
    deg = graph.degrees()
    nbrs = neighbors(graph, center)
    nbrs = nbrs[np.argsort(-deg[nbrs], kind="stable")][: max(limit - 1, 0)]
    nodes = np.concatenate([[center], nbrs]).astype(np.int64)
    src, dst = induced_edges(graph, nodes)
    return nodes, src, dst


def induced_edges(graph: Graph, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The undirected edges among ``nodes``, as positions in ``nodes``."""
    local = np.full(graph.num_nodes, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    src, dst = graph.undirected_pairs()
    ls, ld = local[src], local[dst]
    inside = (ls >= 0) & (ld >= 0)
    return ls[inside], ld[inside]


def _unit_box(coords: np.ndarray) -> np.ndarray:
    coords = coords - coords.mean(axis=0) if coords.size else coords
    span = np.abs(coords).max() if coords.size else 1.0
    return coords / (span or 1.0)
