"""Layouts and the parts of a graph a view draws (``goat_core.analysis.layouts``)."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import parse_edge_list
from goat_core.analysis import layouts

from ..conftest import planted_graph


def test_layout_is_seeded_and_bounded(lesmis):
    a, b = layouts.layout(lesmis, 4), layouts.layout(lesmis, 4)
    assert np.array_equal(a, b) and a.shape == (77, 2) and np.abs(a).max() == pytest.approx(1.0)
    big = planted_graph(groups=3, size=80, p_in=0.1, p_out=0.01)  # > 200 nodes: the spring path
    c, d = layouts.layout(big, 1), layouts.layout(big, 2)
    assert not np.allclose(c, d) and np.array_equal(c, layouts.layout(big, 1))


def test_ego_subgraph(lesmis):
    nodes, src, dst = layouts.ego_subgraph(lesmis, 11, limit=10)  # Valjean, degree 36
    assert nodes[0] == 11 and len(nodes) == 10
    assert src.max() < 10 and dst.max() < 10
    assert all(lesmis.has_edge(int(nodes[a]), int(nodes[b])) for a, b in zip(src, dst, strict=True))


def test_large_layouts_are_seeded_without_touching_global_random_state():
    import random

    from ..conftest import planted_graph

    graph = planted_graph(groups=10, size=30, p_in=0.2, p_out=0.01, seed=3)  # 300 nodes: igraph's layout
    before = random.getstate()
    first = layouts.layout(graph, 7)
    assert random.getstate() == before
    random.seed(12345)  # whatever the global state, the same seed gives the same picture
    assert np.array_equal(first, layouts.layout(graph, 7))
    assert np.abs(first).max() == pytest.approx(1.0)


def test_overview_keeps_every_node_up_to_the_limit_else_the_hubs():
    star = b"".join(f"hub {i}\n".encode() for i in range(30)) + b"0 1\n1 2\n"
    graph = parse_edge_list(star, file="<star>")
    whole = layouts.overview(graph, 100)
    assert whole.complete and len(whole.src) == graph.num_edges
    part = layouts.overview(graph, 3)
    assert not part.complete and len(part.nodes) == 3
    assert graph.index_of("hub") in part.nodes.tolist()  # the highest degree stays
    kept = set(part.nodes.tolist())
    for a, b in zip(part.src.tolist(), part.dst.tolist(), strict=True):  # only edges among drawn nodes
        u, v = int(part.nodes[a]), int(part.nodes[b])
        assert u in kept and v in kept and graph.has_edge(u, v)
    pos = layouts.layout_edges(len(part.nodes), part.src, part.dst, seed=1)
    assert pos.shape == (3, 2) and np.abs(pos).max() <= 1.0 + 1e-9
    assert np.array_equal(pos, layouts.layout_edges(len(part.nodes), part.src, part.dst, seed=1))


def test_ego_subgraph_is_the_center_and_its_top_neighbors_with_their_edges():
    graph = parse_edge_list(b"a b\na c\na d\nb c\nc d\nd e\n", file="<ego>")
    nodes, src, dst = layouts.ego_subgraph(graph, graph.index_of("a"), limit=3)
    names = [graph.names[i] for i in nodes]
    assert names[0] == "a" and len(names) == 3 and "e" not in names
    edges = {frozenset((names[s], names[d])) for s, d in zip(src.tolist(), dst.tolist(), strict=True)}
    assert all(graph.has_edge(graph.index_of(x), graph.index_of(y)) for x, y in map(tuple, edges))
