"""Runs side by side: the same held-out pairs, rank percentiles, wins, losses and ties."""

from __future__ import annotations

import json

import numpy as np
import pytest

import goat_core
from goat_core.analysis.compare import (
    compare_runs,
    compare_scores,
    rank_percentiles,
    run_name,
    variant_params,
)
from goat_core.errors import ParameterError

from ..conftest import FAST


def test_variant_params_names_each_run_once_and_keeps_the_base():
    base = dict(FAST, seed=3)
    runs = variant_params(base, ("goat", "global", "mean-pool"), ("zero", "mask"))
    assert list(runs) == ["goat · zero", "goat · mask", "global", "mean-pool · zero", "mean-pool · mask"]
    assert runs["global"]["padding"] == "mask"  # the base's: GoatGlobal never pads
    assert all(p["seed"] == 3 and p["dim"] == FAST["dim"] for p in runs.values())
    mean_zero = runs["mean-pool · zero"]
    assert mean_zero["variant"] == "mean-pool" and mean_zero["padding"] == "zero"
    assert run_name("global", "zero") == "global"
    with pytest.raises(ParameterError):
        variant_params(base, (), ("zero",))


def test_rank_percentiles_share_ties_and_end_at_one():
    p = rank_percentiles(np.array([0.1, 5.0, 0.1, -2.0]))
    assert p.tolist() == [0.625, 1.0, 0.625, 0.25]


def test_hand_made_scores_give_the_expected_wins():
    pairs = np.array([[0, 1], [1, 2], [2, 3], [0, 3], [1, 3], [0, 2]])
    labels = np.array([1, 1, 1, 0, 0, 0])
    # a puts the edges at percentiles 6/6, 5/6, 1/6; b (on another scale) at 4/6, 5/6, 6/6
    scores = {"a": np.array([6.0, 5.0, 1.0, 2.0, 3.0, 4.0]),
              "b": np.array([40.0, 50.0, 60.0, 10.0, 20.0, 30.0])}
    c = compare_scores(pairs, labels, scores)
    assert c.names == ("a", "b") and c.num_edges == 3
    assert c.wins().tolist() == [[0, 1], [1, 0]]  # a wins the first edge, b the third
    assert c.ties()[0, 1] == 1  # the second is 5th in both
    assert c.auc[1] == 1.0 and c.auc[0] == pytest.approx(2 / 3)
    summary = c.to_dict()
    assert summary["wins"] == {"a": {"b": 1}, "b": {"a": 1}} and summary["ties"]["a"]["b"] == 1
    assert [r["name"] for r in summary["runs"]] == ["a", "b"]


def test_every_held_out_edge_is_a_win_a_loss_or_a_tie(planted):
    split = goat_core.split_edges(planted, 0.8, 0)
    runs = {name: goat_core.Goat(**params).fit(split.train)
            for name, params in variant_params(dict(FAST, seed=0), ("goat", "global", "mean-pool")).items()}
    c = compare_runs(split, runs)
    assert c.num_edges == len(split.test_pos) and c.pairs.shape == (2 * len(split.test_pos), 2)
    np.testing.assert_array_equal(c.pairs[:c.num_edges], split.test_pos)
    wins, ties = c.wins(), c.ties()
    for a in range(len(c.names)):
        assert ties[a, a] == c.num_edges
        for b in range(len(c.names)):
            if a != b:
                assert wins[a, b] + wins[b, a] + ties[a, b] == c.num_edges
    for k, name in enumerate(c.names):  # each run's AUC is its own evaluation's
        assert c.auc[k] == pytest.approx(goat_core.evaluate_link_prediction(runs[name], split)["auc"])
    assert ((c.percentiles > 0) & (c.percentiles <= 1)).all()


def test_a_run_of_another_graph_is_refused(planted, triangle_tail):
    split = goat_core.split_edges(planted, 0.8, 0)
    other = goat_core.Goat(**dict(FAST, epochs=1)).fit(triangle_tail)
    with pytest.raises(ParameterError, match="5 nodes"):
        compare_runs(split, {"other": other})


def test_cli_compare_trains_each_variant_on_one_split_and_reports_wins():
    from ..test_cli import TRAIN, cli

    out = json.loads(cli("compare", "lesmis", "--train-ratio", "0.8", "--variants", "goat", "global",
                         "--padding", "zero", "mask", *TRAIN, "--validation-fraction", "0", "--json").stdout)
    assert [r["name"] for r in out["runs"]] == ["goat · zero", "goat · mask", "global"]
    assert [(r["variant"], r["padding"]) for r in out["runs"]] == [("goat", "zero"), ("goat", "mask"),
                                                                    ("global", "zero")]
    edges = out["test_edges"]
    assert edges == out["test_non_edges"] == round(254 * 0.2)
    for a in out["wins"]:
        for b, won in out["wins"][a].items():
            assert won + out["wins"][b][a] + out["ties"][a][b] == edges
    assert all(0 <= r["auc"] <= 1 and r["epochs_trained"] == 3 for r in out["runs"])
    assert out["seed"] == 0 and out["params"]["dim"] == 16 and "variant" not in out["params"]
    bad = cli("compare", "lesmis", "--train-ratio", "0.8", "--variants", "nope", check=False)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
