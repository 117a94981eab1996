"""Pairs and nodes to show (``goat_core.analysis.picking``)."""

from __future__ import annotations

from goat_core import parse_edge_list
from goat_core.analysis import picking

from ..conftest import planted_graph


def test_default_pair(lesmis):
    assert picking.default_pair(lesmis) == (55, 25)  # Marius, Thenardier
    g = planted_graph()
    s, t = picking.default_pair(g)
    assert g.degrees()[s] == g.degrees().max() and g.has_edge(s, t)


def test_random_pairs_are_seeded_edges_and_non_edges(lesmis):
    edges = [picking.random_pair(lesmis, 7, k, edge=True) for k in range(5)]
    assert edges == [picking.random_pair(lesmis, 7, k, edge=True) for k in range(5)]
    assert all(lesmis.has_edge(*p) for p in edges) and len(set(edges)) > 1
    non = [picking.random_pair(lesmis, 7, k, edge=False) for k in range(5)]
    assert all(not lesmis.has_edge(*p) and p[0] != p[1] for p in non)


def test_find_nodes_matches_either_unicode_spelling():
    graph = parse_edge_list("Zo\u00eb b\nb c\n".encode(), file="<find>")
    assert picking.find_nodes(graph, "Zoe\u0308") == picking.find_nodes(graph, "Zo\u00eb") == [0]


def test_find_nodes_ranks_exact_then_case_then_prefix_then_substring():
    graph = parse_edge_list(b"Anna anna\nannabel Hanna\n17 170\n170 1\n", file="<find>")
    names = graph.names
    found = [names[i] for i in picking.find_nodes(graph, "anna")]
    assert found == ["anna", "Anna", "annabel", "Hanna"]
    assert [names[i] for i in picking.find_nodes(graph, "17")] == ["17", "170"]  # ids are names
    assert picking.find_nodes(graph, "  ") == [] and picking.find_nodes(graph, "zzz") == []
    assert len(picking.find_nodes(graph, "a", limit=2)) == 2
