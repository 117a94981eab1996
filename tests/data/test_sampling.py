"""Samplers: neighborhoods without replacement, D^0.75 noise, leak-free splits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from goat_core import ParameterError, split_edges
from goat_core.data.sampling import Adjacency, noise_distribution, sample_neighborhoods


def test_neighborhoods_are_real_neighbors_without_replacement(planted):
    adj = Adjacency.from_graph(planted)
    hood = sample_neighborhoods(adj, 5, torch.Generator().manual_seed(0))
    n = planted.num_nodes
    for u in range(n):
        real = hood.table[u, : hood.length[u]].tolist()
        assert len(real) == min(5, int(adj.degree[u]))
        assert len(set(real)) == len(real)  # without replacement
        assert set(real) <= set(adj.neighbors(u).tolist())
        assert (hood.table[u, hood.length[u]:] == n).all()  # the rest is padding


def test_small_neighborhoods_are_complete_and_draws_are_seeded(triangle_tail):
    adj = Adjacency.from_graph(triangle_tail)
    a = sample_neighborhoods(adj, 10, torch.Generator().manual_seed(1))
    b = sample_neighborhoods(adj, 10, torch.Generator().manual_seed(1))
    assert torch.equal(a.table, b.table)
    assert sorted(a.table[2, : a.length[2]].tolist()) == [0, 1, 3]


def test_large_neighborhoods_are_sampled_uniformly():
    import networkx as nx

    from goat_core.data.graph import from_networkx

    star = from_networkx(nx.star_graph(20))  # hub 0 with 20 leaves
    adj = Adjacency.from_graph(star)
    gen = torch.Generator().manual_seed(0)
    counts = np.zeros(21)
    for _ in range(400):
        hood = sample_neighborhoods(adj, 5, gen)
        counts[hood.table[0, :5].numpy()] += 1
    assert counts[0] == 0
    assert counts[1:].min() > 0.5 * counts[1:].mean()  # every leaf drawn about equally often


def test_noise_is_unigram_to_the_three_quarters(triangle_tail):
    noise = noise_distribution(Adjacency.from_graph(triangle_tail))
    deg = np.array([2, 2, 3, 2, 1], dtype=float)
    assert np.allclose(noise.numpy(), deg**0.75 / (deg**0.75).sum())


def test_split_never_leaks_test_edges(planted):
    split = split_edges(planted, 0.6, seed=3)
    train = {tuple(sorted(e)) for e in zip(split.train.src.tolist(), split.train.dst.tolist())}
    test = {tuple(sorted(e)) for e in split.test_pos.tolist()}
    assert not train & test
    assert len(train) + len(test) == planted.num_edges
    assert len(split.test_neg) == len(split.test_pos)
    for u, v in split.test_neg.tolist():
        assert u != v and not planted.has_edge(u, v)
    adj = Adjacency.from_graph(split.train)
    for u, v in split.test_pos.tolist():  # no test target in the source's training neighborhood
        assert v not in adj.neighbors(u)


def test_split_is_seeded_and_checks_its_ratio(planted):
    a, b = split_edges(planted, 0.5, 7), split_edges(planted, 0.5, 7)
    assert np.array_equal(a.test_pos, b.test_pos) and np.array_equal(a.test_neg, b.test_neg)
    for ratio in (1.0, "0.5", None, True):  # a string was "'<' not supported" from Python
        with pytest.raises(ParameterError, match="train_ratio must be a number strictly between 0 and 1"):
            split_edges(planted, ratio, 0)
    from goat_core import parse_edge_list

    tiny = parse_edge_list(b"a b\n", file="tiny.txt")
    with pytest.raises(ValueError, match="too few edges"):
        split_edges(tiny, 0.5, 0)


def test_validation_negatives_are_never_test_edges(planted):
    from goat_core.data.sampling import validation_split

    split = split_edges(planted, 0.3, seed=0)
    val = validation_split(split.train, 0.5, seed=1, full=planted)
    assert not any(planted.has_edge(u, v) for u, v in val.test_neg.tolist())
    train_keys = {tuple(e) for e in zip(val.train.src.tolist(), val.train.dst.tolist())}
    assert not train_keys & {tuple(sorted(e)) for e in val.test_pos.tolist()}


def test_a_complete_graph_says_to_hold_out_fewer_edges_or_none():
    """Issue 24: K60 with the default hold-out failed with no hint."""
    import networkx as nx

    from goat_core import Goat
    from goat_core.data.graph import from_networkx

    k60 = from_networkx(nx.complete_graph(60), source="k60.txt")
    with pytest.raises(ParameterError) as err:
        split_edges(k60, 0.8, 0)
    assert str(err.value) == (
        "k60.txt: each held-out edge is scored against a non-edge, but the graph has only 0 non-edges for "
        "354 held-out edges (every pair of nodes is an edge: a complete graph); hold out fewer edges, "
        "or none")
    with pytest.raises(ParameterError, match="early stopping: .*set validation_fraction to 0 "
                                             "\\(--validation-fraction 0\\) to train without it"):
        Goat(dim=4, epochs=1, neighborhood=4).fit(k60)


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, True])
def test_a_split_checks_its_seed_with_the_parameters_rule(planted, seed):
    """Issue 24's second sweep: a shared link's seed -1 reached the app's split, where numpy's
    ValueError ended the page; the split now says what the seed parameter says."""
    from goat_core.estimator import PARAMETERS

    with pytest.raises(ParameterError, match="seed must be an integer >= 0 and <= 9223372036854775807"):
        split_edges(planted, 0.5, seed)
    assert not PARAMETERS["seed"].check(seed)  # the same rule as the parameter's
