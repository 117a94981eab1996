"""Evaluation metrics on inputs whose answers are known."""

from __future__ import annotations

import numpy as np

from goat_core.evaluation import contingency, evaluate_clustering, link_scores
from goat_core.graph import NodeLabels
from goat_core.projection import project


def test_perfect_and_random_clusterings():
    codes = np.repeat(np.arange(3), 10)
    labels = NodeLabels(codes=codes, classes=("a", "b", "c"))
    separated = np.eye(3)[codes] * 10 + np.random.default_rng(0).normal(0, 0.01, (30, 3))
    perfect = evaluate_clustering(separated, labels, seed=0)
    assert perfect["nmi"] > 0.99 and perfect["ami"] > 0.99 and perfect["k"] == 3
    noise = evaluate_clustering(np.random.default_rng(1).normal(size=(30, 3)), labels, seed=0)
    assert noise["ami"] < 0.3


def test_unlabelled_nodes_are_left_out():
    codes = np.array([0, 0, 1, 1, -1])
    emb = np.array([[0, 0], [0, 0.1], [5, 5], [5, 5.1], [100, 100]], dtype=float)
    result = evaluate_clustering(emb, NodeLabels(codes=codes, classes=("x", "y")), seed=0)
    assert result["labelled_nodes"] == 4 and result["nmi"] > 0.99


def test_link_scores_and_contingency():
    assert link_scores(np.array([1, 1, 0, 0]), np.array([0.9, 0.8, 0.1, 0.2]))["auc"] == 1.0
    assert link_scores(np.array([1, 1, 0, 0]), np.array([0.1, 0.2, 0.9, 0.8]))["auc"] == 0.0
    table = contingency(np.array([0, 0, 1]), np.array([1, 1, 0]))
    assert table.tolist() == [[0, 2], [1, 0]]


def test_pca_projection_is_deterministic():
    emb = np.random.default_rng(0).normal(size=(20, 5))
    a, b = project(emb, "pca", seed=0), project(emb, "pca", seed=0)
    assert a.shape == (20, 2) and np.array_equal(a, b)
