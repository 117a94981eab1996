"""Which nodes and pairs to show: the pair a view opens on, random edges and non-edges, a
node's neighbors, the nodes a room should be able to name, and nodes found by name."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data.graph import Graph, nfc
from ..data.sampling import sample_non_edges

PAPER_PAIR = (55, 25)  # Marius, Thenardier in the paper's Les Misérables numbering


def default_pair(graph: Graph) -> tuple[int, int]:
    """The pair a view opens on: the paper's Marius–Thenardier on Les Misérables, else the
    highest-degree node with its highest-degree neighbor."""
    paper_id = graph.node_attrs.get("paper_id") if graph.node_attrs else None
    if paper_id is not None and graph.num_nodes == 77 and graph.names[PAPER_PAIR[0]] == "Marius":
        return PAPER_PAIR
    deg = graph.degrees()
    s = int(np.argmax(deg))
    src, dst = graph.undirected_pairs()
    nbrs = np.concatenate([dst[src == s], src[dst == s]])
    return s, int(nbrs[np.argmax(deg[nbrs])]) if len(nbrs) else int(s == 0)  # no neighbor: any other node


def random_pair(graph: Graph, seed: int, draw: int, edge: bool = True) -> tuple[int, int]:
    """A random edge (``edge=True``) or verified non-edge; draw k of seed s is always the same."""
    rng = np.random.default_rng([seed, draw, int(edge)])
    if edge:
        k = int(rng.integers(graph.num_edges))
        return int(graph.src[k]), int(graph.dst[k])
    s, t = sample_non_edges(graph, 1, rng)[0]
    return int(s), int(t)


def neighbors(graph: Graph, node: int) -> np.ndarray:
    """Undirected neighbors of ``node`` (sorted ids)."""
    src, dst = graph.undirected_pairs()
    return np.unique(np.concatenate([dst[src == node], src[dst == node]]))


def key_nodes(graph: Graph, focus: Sequence[int], hubs: int = 10, shared: int = 12) -> list[int]:
    """The nodes a room should name, in order: ``focus`` (the pair, or the case study's three), the
    neighbors ``focus[0]`` shares with the others (at most ``shared``), the ``hubs`` highest-degree."""
    focus = [int(v) for v in focus]
    deg = graph.degrees()
    common: list[int] = []
    if focus:
        mine = set(neighbors(graph, focus[0]).tolist())
        for other in focus[1:]:
            common += [int(v) for v in neighbors(graph, other) if int(v) in mine]
    common = sorted(dict.fromkeys(v for v in common if v not in focus), key=lambda v: (-deg[v], v))[:shared]
    top = [int(v) for v in np.argsort(-deg, kind="stable")[:hubs]]
    return list(dict.fromkeys(focus + common + top))


def find_nodes(graph: Graph, query: str, limit: int = 20) -> list[int]:
    """Up to ``limit`` nodes matching ``query`` (in NFC), best first: the exact name, then equal ignoring
    case, starting with it, containing it (integer-id graphs: by id)."""
    query = nfc(query.strip())
    if not query:
        return []
    folded = query.casefold()
    ranked: list[tuple[int, int, int]] = []
    for i, name in enumerate(graph.names):
        low = name.casefold()
        if folded in low:
            rank = 0 if name == query else 1 if low == folded else 2 if low.startswith(folded) else 3
            ranked.append((rank, len(name), i))
    ranked.sort()
    return [i for _, _, i in ranked[:limit]]
