"""DeepWalk and node2vec: walks follow training edges, the same seed gives the same embedding (in
any thread), and on planted communities held-out within-community pairs outscore cross-community
ones."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from goat_core import parse_edge_list, split_edges
from goat_core.analysis.node2vec import (
    PRESETS,
    WALK_METHODS,
    dot_scores,
    evaluate_walk_methods,
    random_walks,
    walk_embedding,
    walks_per_node,
)
from goat_core.errors import ParameterError

from ..conftest import planted_graph

TINY = dict(dim=16, num_walks=5, walk_length=20, window=5)
ENOUGH = dict(dim=16, num_walks=10, walk_length=40, window=5, epochs=5)  # trains on 120 nodes in < 1 s


def test_walks_follow_edges_and_leave_isolated_nodes_alone():
    graph = parse_edge_list(b"a b\nb c\nc a\nc d\n", file="<hand>")
    graph = graph.subgraph_edges(np.array([True, True, True, False]))  # d keeps its node, loses its edge
    walks = random_walks(graph, p=1.0, q=1.0, num_walks=3, walk_length=6, seed=0)
    assert len(walks) == 3 * graph.num_nodes
    d = str(graph.index_of("d"))
    assert sorted(w[0] for w in walks) == sorted(str(i) for i in range(graph.num_nodes) for _ in range(3))
    for walk in walks:
        if walk[0] == d:
            assert walk == [d]
        else:
            assert len(walk) == 7  # the start and six steps
            assert all(graph.has_edge(int(u), int(v)) or graph.has_edge(int(v), int(u))
                       for u, v in zip(walk, walk[1:]))


def test_same_seed_same_embedding_in_any_thread_and_global_state_untouched():
    graph = planted_graph(groups=2, size=15, seed=1)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = walk_embedding(graph, **TINY, seed=7)
    assert np.array_equal(np.random.get_state()[1], before)  # numpy's global generator restored
    found = {}
    thread = threading.Thread(target=lambda: found.update(e=walk_embedding(graph, **TINY, seed=7)))
    thread.start()
    thread.join()
    assert np.array_equal(first, found["e"])  # the app computes it in a script thread
    assert not np.allclose(first, walk_embedding(graph, **TINY, seed=8))
    assert first.shape == (graph.num_nodes, 16)


def test_held_out_within_community_pairs_outscore_cross_community_ones():
    graph = planted_graph(groups=4, size=30, p_in=0.4, p_out=0.01, seed=2)
    split = split_edges(graph, 0.8, seed=1)
    group = graph.labels.codes
    within = split.test_pos[group[split.test_pos[:, 0]] == group[split.test_pos[:, 1]]]
    cross = split.test_neg[group[split.test_neg[:, 0]] != group[split.test_neg[:, 1]]]
    for name, config in PRESETS.items():
        emb = walk_embedding(split.train, **config, **ENOUGH, seed=0)
        scores = np.concatenate([dot_scores(emb, within), dot_scores(emb, cross)])
        labels = np.r_[np.ones(len(within)), np.zeros(len(cross))]
        assert roc_auc_score(labels, scores) > 0.9, name
    assert set(PRESETS) == set(WALK_METHODS)
    found = evaluate_walk_methods(split, {"deepwalk": {**PRESETS["deepwalk"], **ENOUGH}}, seed=0, curves=True)
    assert found["deepwalk"]["auc"] > 0.8 and 0 <= found["deepwalk"]["ap"] <= 1
    fpr, tpr = found["deepwalk"]["roc"]
    assert fpr[0] == 0.0 and tpr[-1] == 1.0


@pytest.mark.parametrize("bad, message", [({"p": 0}, "p must be a positive number, got 0"),
                                          ({"q": float("nan")}, "q must be a positive number"),
                                          ({"dim": 2.5}, "dim must be a positive integer, got 2.5"),
                                          ({"num_walks": 0}, "num_walks must be a positive integer")])
def test_bad_parameters_say_what_they_must_be(bad, message):
    with pytest.raises(ParameterError, match=message):
        walk_embedding(planted_graph(groups=2, size=5), **bad)


def test_walks_per_node_bounds_the_corpus():
    assert walks_per_node(77) == 10  # Les Misérables: the papers' 10 walks
    assert walks_per_node(10_000, 80, budget=1_000_000) == 1
    assert walks_per_node(2_500, 80, budget=1_000_000) == 5
    assert walks_per_node(10**7) == 1
