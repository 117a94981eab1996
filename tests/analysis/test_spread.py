"""Context spread: how far apart each node's context representations are, and their clusters."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import goat_core
from goat_core.analysis.spread import (
    MIN_CONTEXTS,
    context_spread,
    mean_cosine_distance,
    persona_count,
    sample_partners,
    silhouettes,
)
from goat_core.data.graph import from_networkx
from goat_core.data.sampling import Adjacency

from ..conftest import FAST


def test_mean_cosine_distance_matches_the_pairwise_definition():
    rng = np.random.default_rng(0)
    owners = np.array([0, 0, 0, 1, 2, 2])
    vectors = rng.normal(size=(6, 5))
    got = mean_cosine_distance(owners, vectors, 4)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    first = unit[:3] @ unit[:3].T
    assert got[0] == pytest.approx(1 - (first.sum() - 3) / 6)
    assert got[2] == pytest.approx(1 - unit[4] @ unit[5])
    assert got[1] == 0.0 and got[3] == 0.0  # one context, none: nothing to spread


def test_silhouette_matches_scikit_learn():
    from scipy.spatial.distance import pdist, squareform
    from sklearn.metrics import silhouette_score

    rng = np.random.default_rng(1)
    points = np.concatenate([rng.normal(0, 1, (6, 3)), rng.normal(4, 1, (5, 3)), rng.normal(-4, 1, (1, 3))])
    labels = np.array([0] * 6 + [1] * 5 + [2])
    square = squareform(pdist(points))
    ours = silhouettes(square[None], labels[None], 3)[0]
    assert ours == pytest.approx(silhouette_score(square, labels, metric="precomputed"))
    assert silhouettes(square[None], np.zeros((1, 12), dtype=np.int64), 2)[0] == -1.0  # one cluster


def test_two_clear_directions_are_two_personas_and_noise_is_one():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=8), rng.normal(size=8)
    two = np.stack([a + 0.05 * rng.normal(size=8) for _ in range(5)] + [b + 0.05 * rng.normal(size=8)
                                                                         for _ in range(5)])
    assert persona_count(two)[0] == 2
    assert persona_count(np.tile(a, (6, 1)))[0] == 1  # identical contexts
    close = np.stack([a + 0.05 * rng.normal(size=8) for _ in range(5)] + [a + 0.3 + 0.01 * rng.normal(size=8)
                                                                          for _ in range(5)])
    assert persona_count(close)[0] == 1  # two tight clusters 14 degrees apart: one voice
    lone = np.concatenate([two[:5], two[5:6]])
    assert persona_count(lone)[0] == 1  # one context alone is not a persona
    assert persona_count(two[:MIN_CONTEXTS - 1])[0] == 1  # too few contexts to cluster


def test_sample_partners_is_seeded_and_capped(planted):
    adj = Adjacency.from_graph(planted)
    owners, partners = sample_partners(adj, 3, seed=5)
    deg = adj.degree.numpy()
    np.testing.assert_array_equal(np.bincount(owners, minlength=planted.num_nodes), np.minimum(deg, 3))
    assert all(planted.has_edge(int(u), int(v)) for u, v in zip(owners, partners, strict=True))
    again = sample_partners(adj, 3, seed=5)
    np.testing.assert_array_equal(partners, again[1])
    assert not np.array_equal(partners, sample_partners(adj, 3, seed=6)[1])


def test_degree_one_nodes_have_zero_spread_and_global_has_none(triangle_tail):
    goat = goat_core.Goat(**FAST).fit(triangle_tail)
    found = context_spread(goat)
    leaf = triangle_tail.index_of("4")
    assert found.degree[leaf] == 1 and found.spread[leaf] == 0.0 and found.personas[leaf] == 1
    assert (found.spread[found.degree >= 2] > 0).all()
    np.testing.assert_array_equal(found.contexts, found.degree)
    flat = context_spread(goat_core.Goat(**dict(FAST, variant="global")).fit(triangle_tail))
    assert np.allclose(flat.spread, 0.0, atol=1e-6) and (flat.personas == 1).all()
    with pytest.raises(goat_core.ParameterError, match="max_contexts"):
        context_spread(goat, max_contexts=1)


def bridged_communities(seed: int) -> tuple[goat_core.Graph, int]:
    """Two planted communities of 15 with no edge between them, and node 30 linked to 5 of each."""
    g = nx.planted_partition_graph(2, 15, 0.5, 0.0, seed=seed)
    rng = np.random.default_rng(seed)
    for v in list(rng.choice(15, 5, replace=False)) + list(15 + rng.choice(15, 5, replace=False)):
        g.add_edge(30, int(v))
    graph = from_networkx(g, source="bridge")
    return graph, graph.index_of("30")


@pytest.mark.parametrize("seed", [0, 1])
def test_a_bridge_between_two_communities_spreads_more_than_any_interior_node(seed):
    graph, bridge = bridged_communities(seed)
    goat = goat_core.Goat(**dict(FAST, epochs=30, seed=seed)).fit(graph)
    found = context_spread(goat, seed=seed)
    interior = np.array([u for u in range(graph.num_nodes)
                         if u != bridge and found.contexts[u] >= MIN_CONTEXTS])
    assert found.spread[bridge] > found.spread[interior].max()
    assert found.personas[bridge] >= 2
    assert (found.personas[interior] == 1).mean() >= 0.9  # inside a community: one voice
    # its two-cluster cut is the two communities: one persona per community
    from scipy.cluster.hierarchy import fcluster, linkage

    partners, reps = goat.context_representations(goat_core.NodeIndex(bridge))
    cut = fcluster(linkage(reps, "average", metric="cosine"), 2, criterion="maxclust")
    community = np.array([int(graph.names[p]) >= 15 for p in partners])
    assert len(set(zip(cut.tolist(), community.tolist(), strict=True))) == 2
    assert bridge in found.ranking(3)
