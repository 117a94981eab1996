"""Evaluation metrics on inputs whose answers are known."""

from __future__ import annotations

import re

import numpy as np
import pytest

from goat_core import ParameterError
from goat_core.analysis.evaluation import contingency, evaluate_clustering, link_scores
from goat_core.analysis.projection import project
from goat_core.data.graph import NodeLabels


def test_perfect_and_random_clusterings():
    codes = np.repeat(np.arange(3), 10)
    labels = NodeLabels(codes=codes, classes=("a", "b", "c"))
    separated = np.eye(3)[codes] * 10 + np.random.default_rng(0).normal(0, 0.01, (30, 3))
    perfect = evaluate_clustering(separated, labels, seed=0)
    assert perfect["nmi"] > 0.99 and perfect["ami"] > 0.99 and perfect["k"] == 3
    noise = evaluate_clustering(np.random.default_rng(1).normal(size=(30, 3)), labels, seed=0)
    assert noise["ami"] < 0.3


def test_every_seed_the_parameter_allows_clusters_and_projects():
    """KMeans, PCA and UMAP take seeds below 2**32: a larger one (the parameter allows up to 2**63 - 1)
    was scikit-learn's InvalidParameterError after training; below 2**32 the seed goes in as it is."""
    from sklearn.cluster import KMeans

    codes = np.repeat(np.arange(3), 10)
    labels = NodeLabels(codes=codes, classes=("a", "b", "c"))
    points = np.random.default_rng(1).normal(size=(30, 3))
    small = evaluate_clustering(points, labels, seed=7)["predicted"]
    assert np.array_equal(small, KMeans(n_clusters=3, n_init=10, random_state=7).fit_predict(points))
    for seed in (2**32, 2**63 - 1):
        again = [evaluate_clustering(points, labels, seed=seed)["predicted"] for _ in range(2)]
        assert np.array_equal(*again)
        assert project(points, "pca", seed=seed).shape == (30, 2)
    with pytest.raises(ParameterError, match="seed must be an integer >= 0"):
        evaluate_clustering(points, labels, seed=-1)


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


@pytest.mark.parametrize("codes, classes, words", [
    ([0, 0, 0, -1], ("a",), "3 labelled node(s) in 1 class(es): clustering scores need at least two classes"),
    ([-1, 0, -1, -1], ("a", "b"), "1 labelled node(s) in 1 class(es)"),
    ([0, 1, 2, 2], ("a", "b", "c"), "3 classes for 4 labelled nodes"),
])
def test_clustering_scores_that_would_mean_nothing_are_refused(codes, classes, words):
    """Issue 24: one class (or one labelled node) reported NMI = AMI = 1.0 without a word."""
    labels = NodeLabels(codes=np.array(codes), classes=classes, source="l.txt")
    with pytest.raises(ParameterError, match=re.escape(f"l.txt: {words}")):
        evaluate_clustering(np.random.default_rng(0).normal(size=(4, 3)), labels, seed=0)


def test_too_many_classes_are_refused_before_any_k_means(monkeypatch):
    from goat_core.analysis import evaluation

    k = evaluation.MAX_CLASSES + 1
    labels = NodeLabels(codes=np.repeat(np.arange(k), 2), classes=tuple(map(str, range(k))), source="l.txt")
    monkeypatch.setattr(evaluation, "cluster_embeddings", lambda *a: pytest.fail("k-means ran"))
    with pytest.raises(ParameterError, match=f"l.txt: {k:,} classes: clustering scores at most"):
        evaluate_clustering(np.zeros((2 * k, 2)), labels, seed=0)
