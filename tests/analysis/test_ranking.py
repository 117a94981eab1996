"""Ranking metrics: MRR and Hits@K against hand-computed cases and torch_geometric's definitions,
the tie convention, the negatives (non-edges sharing a node with their positive; hard ones by
resource allocation), GOAT's fast pair scores against decision_function, and linkpred's JSON."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
import torch

from goat_core import Goat
from goat_core.analysis.ranking import (
    evaluate_goat_ranking,
    goat_pair_scores,
    rank_heuristics,
    ranking_metrics,
    ranking_negatives,
    ranks,
    resource_allocation_rows,
)
from goat_core.data.graph import from_networkx
from goat_core.data.sampling import EdgeSplit, split_edges

from ..conftest import FAST, planted_graph
from ..test_cli import run_main


def test_ranks_and_metrics_by_hand_with_mean_ties():
    pos = [0.5, 0.2, 0.9]
    neg = [
        [0.1, 0.5, 0.7],  # one above, one equal: 1 + 1 + 0.5
        [0.2, 0.2, 0.2],  # all equal: the middle, 1 + 3/2
        [0.1, 0.2, 0.3],
    ]  # first
    r = ranks(pos, neg)
    assert r.tolist() == [2.5, 2.5, 1.0]
    m = ranking_metrics(r, hits_at=(1, 2, 3))
    assert m["mrr"] == pytest.approx((1 / 2.5 + 1 / 2.5 + 1) / 3)
    assert (m["hits@1"], m["hits@2"], m["hits@3"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3), 1.0)


def test_a_model_scoring_every_pair_alike_ranks_each_positive_in_the_middle():
    r = ranks(np.zeros(4), np.zeros((4, 100)))
    assert (r == 51.0).all()  # mean of optimistic (1) and pessimistic (101) ranks
    m = ranking_metrics(r)
    assert (m["hits@10"], m["hits@50"], m["hits@100"]) == (0.0, 0.0, 1.0)


def test_slots_left_out_by_valid_are_not_ranked():
    assert ranks([0.5], [[0.9, 0.9, 0.1]], valid=[[True, False, True]]).tolist() == [2.0]


def test_mrr_and_hits_agree_with_torch_geometric_without_ties():
    from torch_geometric.metrics import LinkPredHitRatio, LinkPredMRR

    rng = np.random.default_rng(0)
    pos, neg = rng.normal(size=50), rng.normal(size=(50, 30)) + 0.3
    ours = ranking_metrics(ranks(pos, neg), hits_at=(1, 10))
    scores = torch.from_numpy(np.hstack([pos[:, None], neg]))  # candidate 0 is the true one
    order = torch.argsort(scores, dim=1, descending=True)
    truth = (torch.arange(50), torch.zeros(50, dtype=torch.long))
    mrr = LinkPredMRR(k=31)
    mrr.update(order, truth)
    assert ours["mrr"] == pytest.approx(float(mrr.compute()))
    for k in (1, 10):
        hits = LinkPredHitRatio(k=k)
        hits.update(order[:, :k], truth)
        assert ours[f"hits@{k}"] == pytest.approx(float(hits.compute()))


@pytest.fixture(scope="module")
def split():
    return split_edges(planted_graph(groups=3, size=15, p_in=0.4, p_out=0.03, seed=1), 0.6, 0)


@pytest.mark.parametrize("kind", ["random", "hard"])
def test_negatives_are_non_edges_sharing_a_node_with_their_positive(split, kind):
    found = ranking_negatives(split, kind, 20)
    edges = np.vstack([np.stack(split.train.undirected_pairs(), 1), split.test_pos])
    full = {frozenset(e) for e in edges.tolist()}
    assert found.valid.all()  # 45 nodes: enough candidates for 20 each
    for (a, b), row in zip(found.positives.tolist(), found.negatives.tolist()):
        assert len({tuple(p) for p in row}) == len(row)  # distinct
        for u, w in row:
            assert (u == a and w != b) or (w == b and u != a)  # one end of the positive kept
            assert u != w and frozenset((u, w)) not in full
    again = ranking_negatives(split, kind, 20)
    assert np.array_equal(found.negatives, again.negatives)  # seeded


def test_hard_negatives_score_higher_on_resource_allocation_than_random_ones(split):
    def mean_ra(found):
        total = []
        for (a, b), row in zip(found.positives, found.negatives):
            ra_a, ra_b = resource_allocation_rows(split.train, np.array([a, b]))
            total += [ra_a[w] if u == a else ra_b[u] for u, w in row]
        return np.mean(total)

    hard, random = ranking_negatives(split, "hard", 10), ranking_negatives(split, "random", 10)
    assert mean_ra(hard) > 2 * mean_ra(random)


def test_a_positive_short_of_candidates_is_ranked_against_what_it_has():
    k5 = nx.complete_graph(5)
    k5.remove_edge(0, 1)  # the one non-edge
    graph = from_networkx(k5, source="k5")
    held = np.array([[0, 2]])  # its candidates: (0, w) and (w, 2); only (0, 1) is no edge
    train = graph.subgraph_edges(~((graph.src == 0) & (graph.dst == 2)))
    found = ranking_negatives(EdgeSplit(train, held, np.array([[0, 1]]), 0.9, 0), "random", 10)
    assert found.valid.sum() == 1 and found.negatives[0][found.valid[0]].tolist() == [[0, 1]]
    assert found.metrics(np.array([1.0, 0.0]))["mrr"] == 1.0


@pytest.mark.parametrize("kind", ["random", "hard"])
def test_asking_past_every_candidate_ranks_against_all_of_them_in_bounded_memory(split, kind):
    """K = 10**12 was a 742 TiB allocation (a MemoryError); every K past a positive's 2(n - 2) candidates
    ranks it against all of them, so the metrics are those of K = 2(n - 2)."""
    from goat_core import ParameterError
    from goat_core.analysis.ranking import MAX_RANKING_SLOTS

    n = split.train.num_nodes
    every, asked = ranking_negatives(split, kind, 2 * (n - 2)), ranking_negatives(split, kind, 10**12)
    scores = np.cos(every.pairs() @ [3.1, 0.7])
    assert every.metrics(scores) == {**asked.metrics(scores), "per_positive": 2 * (n - 2)}
    assert asked.valid.shape == every.valid.shape and asked.per_positive == 10**12
    many = EdgeSplit(split.train, np.repeat(split.test_pos, MAX_RANKING_SLOTS // 50, axis=0), split.test_neg,
                     0.6, 0)
    with pytest.raises(ParameterError, match="negatives per positive"):
        ranking_negatives(many, kind, 2 * (n - 2))


@pytest.mark.parametrize("padding, exclude", [("zero", True), ("zero", False), ("mask", True)])
def test_fast_pair_scores_are_the_models_scores(split, padding, exclude):
    goat = Goat(
        **{**FAST, "padding": padding, "exclude_partner": exclude, "neighborhood": 6}, backend="torch"
    ).fit(split.train)
    pairs = np.random.default_rng(1).integers(0, split.train.num_nodes, size=(400, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    np.testing.assert_allclose(
        goat_pair_scores(goat, pairs), goat.decision_function(pairs), rtol=1e-4, atol=1e-6
    )


def test_heuristics_are_ranked_on_the_same_negatives(split):
    found = ranking_negatives(split, "hard", 15)
    out = rank_heuristics(split, found)
    assert set(out) == {"common_neighbors", "adamic_adar", "preferential_attachment"}
    assert all(
        r["negatives"] == "hard" and r["per_positive"] == 15 and 0 < r["mrr"] <= 1 for r in out.values()
    )


def test_linkpred_json_has_the_ranking_and_the_same_auc(capsys, tmp_path):
    args = [
        "linkpred",
        "lesmis",
        "--train-ratio",
        "0.7",
        "--dim",
        "8",
        "--epochs",
        "2",
        "--neighborhood",
        "4",
        "--validation-fraction",
        "0",
        "--backend",
        "torch",
        "--json",
    ]
    code, out, _ = run_main(capsys, *args, "--ranking-negatives", "hard", "--ranking-per-positive", "30")
    assert code == 0
    result = json.loads(out)
    assert {"mrr", "hits@10", "hits@50", "hits@100", "negatives", "per_positive"} <= set(result["ranking"])
    assert (result["ranking"]["negatives"], result["ranking"]["per_positive"]) == ("hard", 30)
    code, out, _ = run_main(capsys, *args, "--ranking-per-positive", "0")
    plain = json.loads(out)
    assert "ranking" not in plain and plain["auc"] == result["auc"] and plain["ap"] == result["ap"]
    code, _, err = run_main(capsys, *args, "--ranking-per-positive", "-1")
    assert code == 2 and "--ranking-per-positive" in err


# --- the compiled paths (backends.ranking_kernels, backends.gram) ------------------------------------------


def _reference_draw(pos, full, n, k, rng, negatives, valid, filled):
    """The first implementation of ``ranking._draw_random`` (vectorised numpy), kept to check that
    the compiled draw keeps the same negatives (random ones: none chosen before)."""
    assert not filled.any()
    code = rng.integers(0, 2 * n, size=(len(pos), 2 * k + 16))
    left = code < n
    w = np.where(left, code, code - n)
    a, b = pos[:, :1], pos[:, 1:]
    u, v = np.where(left, a, w), np.where(left, w, b)
    dense = full.toarray() > 0
    allowed = (w != a) & (w != b) & ~dense[u, v]
    order = np.argsort(code, axis=1, kind="stable")
    ranked = np.take_along_axis(code, order, axis=1)
    repeat = np.zeros_like(allowed)
    np.put_along_axis(repeat, order[:, 1:], ranked[:, 1:] == ranked[:, :-1], axis=1)
    allowed &= ~repeat
    enough = allowed.sum(1) >= k
    first = allowed & (np.cumsum(allowed, axis=1) <= k)
    rows = np.flatnonzero(enough)
    picked = first[rows]
    negatives[rows] = np.stack([u[rows][picked], v[rows][picked]], axis=1).reshape(len(rows), k, 2)
    valid[rows] = True
    return np.flatnonzero(~enough)


@pytest.mark.parametrize("k", [5, 40, 200])  # 200: more than the 2n candidates some positives have
def test_the_compiled_draw_keeps_the_negatives_of_the_first_implementation(split, monkeypatch, k):
    import goat_core.analysis.ranking as ranking

    fast = ranking_negatives(split, "random", k)
    monkeypatch.setattr(ranking, "_draw_random", _reference_draw)
    slow = ranking_negatives(split, "random", k)
    assert np.array_equal(fast.negatives, slow.negatives) and np.array_equal(fast.valid, slow.valid)
    assert bool(fast.valid.all()) == (k != 200)  # 45 nodes: K = 200 leaves every positive short


@pytest.mark.parametrize("k", [3, 10, 60, 200])  # 60: some positives short of 2-hop candidates; 200: all
def test_hard_negatives_hold_the_k_highest_resource_allocations_of_every_allowed_candidate(k):
    """The compiled choice looks only at 2-hop candidates (RA > 0) and draws the rest at random; the RA
    values it keeps are those of a sort of all 2n candidates (the graph has hubs and many ties)."""
    graph = from_networkx(nx.barabasi_albert_graph(60, 2, seed=3), source="ba")
    split = split_edges(graph, 0.8, 0)
    found = ranking_negatives(split, "hard", k)
    n = graph.num_nodes
    train = np.stack(split.train.undirected_pairs(), 1)
    edges = {frozenset(e) for e in np.vstack([train, split.test_pos]).tolist()}
    for (a, b), row, valid in zip(found.positives, found.negatives, found.valid):
        ra_a, ra_b = resource_allocation_rows(split.train, np.array([a, b]))
        every = [ra_a[w] for w in range(n) if w not in (a, b) and frozenset((a, w)) not in edges]
        every += [ra_b[w] for w in range(n) if w not in (a, b) and frozenset((w, b)) not in edges]
        kept = [ra_a[w] if u == a else ra_b[u] for u, w in row[valid]]
        assert valid.sum() == min(k, len(every))
        np.testing.assert_allclose(sorted(kept, reverse=True), sorted(every, reverse=True)[:len(kept)])


def test_quickselect_finds_the_kth_smallest_among_ties():
    from goat_core.backends.ranking_kernels import _kth_smallest

    rng = np.random.default_rng(0)
    for values in (rng.integers(0, 4, 50).astype(float), rng.normal(size=97), np.arange(30, 0, -1.0),
                   rng.integers(0, 2**63, 40, dtype=np.uint64)):
        assert [_kth_smallest(values, k) for k in range(1, len(values) + 1)] == sorted(values)


def _hand_graph():
    """Degrees 1 to 6 beside N = 4 slots: pads on some sides, sampled neighborhoods on others, a
    node whose only neighbor is its partner (it speaks for itself) and an isolated node."""
    g = nx.Graph([(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (1, 2), (1, 3), (2, 3), (2, 7),
                  (3, 8), (4, 5), (5, 9), (6, 10), (7, 8), (8, 10), (9, 10)])
    g.add_edge(11, 12)  # 11 and 12 know only each other
    g.add_node(13)
    return from_networkx(g, source="hand")


@pytest.mark.parametrize("padding", ["zero", "mask"])
@pytest.mark.parametrize("exclude", [True, False])
def test_compiled_scores_are_decision_function_on_a_hand_made_graph(padding, exclude):
    graph = _hand_graph()
    goat = Goat(**{**FAST, "padding": padding, "exclude_partner": exclude, "neighborhood": 4},
                backend="torch").fit(graph)
    n = graph.num_nodes
    pairs = np.array([(s, t) for s in range(n) for t in range(n) if s != t])  # edges and non-edges
    model = goat.decision_function(pairs)  # the torch path that trained it
    np.testing.assert_allclose(goat_pair_scores(goat, pairs), model, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(goat_pair_scores(goat, pairs[::-1]), model[::-1], rtol=1e-5, atol=1e-6)
    few = pairs[:5]
    np.testing.assert_allclose(goat_pair_scores(goat, few), goat.decision_function(few), rtol=1e-5, atol=1e-6)


def test_the_per_pair_loop_for_large_graphs_agrees_with_the_gram_mode(split, monkeypatch):
    from goat_core.backends import dispatch

    goat = Goat(**{**FAST, "padding": "zero", "neighborhood": 6}, backend="torch").fit(split.train)
    pairs = np.random.default_rng(2).integers(0, split.train.num_nodes, size=(300, 2))
    compiled = goat_pair_scores(goat, pairs)
    monkeypatch.setattr(dispatch, "GRAM_MAX_NODES", 8)  # as if the graph were too large for G
    np.testing.assert_allclose(goat_pair_scores(goat, pairs), compiled, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("variant", ["mean-pool", "global"])
def test_other_variants_are_scored_by_decision_function(split, variant):
    goat = Goat(**{**FAST, "variant": variant, "epochs": 1}).fit(split.train)
    pairs = np.array([[0, 1], [2, 30], [40, 5]])
    assert np.array_equal(goat_pair_scores(goat, pairs), goat.decision_function(pairs))


@pytest.mark.parametrize("padding", ["zero", "mask"])
def test_ranking_metrics_are_those_of_decision_function(split, padding):
    goat = Goat(**{**FAST, "padding": padding, "neighborhood": 6}, backend="torch").fit(split.train)
    for kind in ("random", "hard"):
        found = ranking_negatives(split, kind, 25)
        fast = evaluate_goat_ranking(goat, found)
        assert fast == pytest.approx(found.evaluate(goat.decision_function))
        pairs, order = found.scoring_order()
        assert np.array_equal(found.pairs()[order][:, ::-1].min(1), pairs.min(1))  # the same pairs


def test_tied_scores_rank_each_positive_in_the_middle_on_the_compiled_path():
    ring = from_networkx(nx.cycle_graph(12), source="ring")  # every node: two neighbors, no pads
    held = np.array([[0, 6], [3, 9]])  # chords, not in the training graph
    goat = Goat(**{**FAST, "neighborhood": 2, "epochs": 1}, backend="torch").fit(ring)
    with torch.no_grad():  # one embedding for every node: every alignment 1, every score exactly 1
        goat.model_.embedding.weight[:-1] = torch.nn.functional.one_hot(torch.tensor(0), 16).float()
    found = ranking_negatives(EdgeSplit(ring, held, np.array([[0, 1]]), 0.9, 0), "random", 8)
    assert found.valid.all()
    scores = np.empty(len(found.pairs()), dtype=np.float32)
    pairs, order = found.scoring_order()
    scores[order] = goat_pair_scores(goat, pairs)
    assert (scores == 1.0).all() and (goat.decision_function(found.pairs()) == 1.0).all()
    out = evaluate_goat_ranking(goat, found)
    assert out["mrr"] == pytest.approx(1 / 5.0) and out["hits@10"] == 1.0  # rank 1 + 8/2
