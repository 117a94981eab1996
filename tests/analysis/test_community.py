"""Communities (``goat_core.analysis.community``)."""

from __future__ import annotations

import numpy as np

from goat_core.analysis import community

from ..conftest import planted_graph


def test_communities_cover_every_node(lesmis):
    found = community.communities(lesmis, seed=0)
    assert (found.codes >= 0).all() and len(found.classes) == found.codes.max() + 1
    assert np.array_equal(found.codes, community.communities(lesmis, seed=0).codes)
    sizes = np.bincount(found.codes)
    assert list(sizes) == sorted(sizes, reverse=True)


def test_communities_find_planted_groups():
    from sklearn.metrics import normalized_mutual_info_score

    graph = planted_graph(groups=4, size=40, p_in=0.3, p_out=0.005)
    found = community.communities(graph, seed=3)
    assert normalized_mutual_info_score(graph.labels.codes, found.codes) > 0.9
