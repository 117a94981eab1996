"""Link-prediction heuristics: exact values on a hand-made graph, networkx's on a random one, and
the planted-community outcome (common neighbors find within-group edges; degrees tell nothing)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from goat_core import parse_edge_list, split_edges
from goat_core.analysis.baselines import HEURISTICS, evaluate_heuristics, heuristic_scores

from ..conftest import planted_graph


def test_scores_on_a_hand_made_graph():
    # a-b, a-c, b-c, c-d, d-e: a and d share c (degree 3); a and b share c
    graph = parse_edge_list(b"a b\na c\nb c\nc d\nd e\n", file="<hand>")
    ix = graph.index_of
    pairs = [[ix("a"), ix("d")], [ix("a"), ix("b")], [ix("a"), ix("e")]]
    found = heuristic_scores(graph, pairs)
    assert found["common_neighbors"].tolist() == [1, 1, 0]
    assert np.allclose(found["adamic_adar"], [1 / math.log(3), 1 / math.log(3), 0.0])
    assert found["preferential_attachment"].tolist() == [2 * 2, 2 * 2, 2 * 1]


def test_the_same_numbers_as_networkx():
    g = nx.gnm_random_graph(120, 500, seed=3)
    graph = parse_edge_list("".join(f"{u} {v}\n" for u, v in g.edges()).encode(), file="<gnm>")
    h = nx.relabel_nodes(g, {int(name): i for i, name in enumerate(graph.names)})
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, graph.num_nodes, (300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    found = heuristic_scores(graph, pairs)
    ebunch = [(int(u), int(v)) for u, v in pairs]
    assert found["common_neighbors"].tolist() == [len(list(nx.common_neighbors(h, u, v))) for u, v in ebunch]
    assert np.allclose(found["adamic_adar"], [s for *_, s in nx.adamic_adar_index(h, ebunch)])
    assert found["preferential_attachment"].tolist() == [s for *_, s in nx.preferential_attachment(h, ebunch)]


def test_common_neighbors_find_planted_edges():
    split = split_edges(planted_graph(groups=4, size=30, p_in=0.4, p_out=0.01), 0.8, seed=1)
    found = evaluate_heuristics(split, curves=True)
    assert set(found) == set(HEURISTICS)
    assert found["common_neighbors"]["auc"] > 0.8 and found["adamic_adar"]["auc"] > 0.8
    # every planted node has about the same degree: preferential attachment has nothing to go on
    assert abs(found["preferential_attachment"]["auc"] - 0.5) < 0.15
    fpr, tpr = found["preferential_attachment"]["roc"]
    assert fpr[0] == 0.0 and tpr[-1] == 1.0
