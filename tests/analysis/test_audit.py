"""The leak audit: each leak changes what it claims, the leak-free protocol is linkpred's to the
bit, the untrained model is epoch 0, and the CLI's JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from goat_core import Goat, evaluate_link_prediction
from goat_core.analysis.audit import LEAKS, audit, reversed_test_edges, unchecked_negatives
from goat_core.data.sampling import split_edges

from ..conftest import planted_graph
from ..test_cli import run_main

QUICK = dict(dim=16, neighborhood=12, lr=0.02, batch_size=32, dropout=0.2, backend="torch", seed=3)


@pytest.fixture(scope="module")
def dense():
    """Four dense communities: at 20 % training edges, most of a held-out edge's neighbors are
    reached through other held-out edges, and closing those triangles reveals the edge (the
    leak-free neighborhoods are nearly empty)."""
    return planted_graph(groups=4, size=14, p_in=0.6, p_out=0.02, seed=2)


@pytest.fixture(scope="module")
def report(dense):
    return audit(dense, 0.2, dict(QUICK, epochs=12, patience=3))


def test_json_keys_and_every_leak_named_once(report):
    assert {"leak_free", "paper_protocol", "leaks", "untrained", "params", "seed", "train_ratio"} <= set(
        report
    )
    assert [leak["name"] for leak in report["leaks"]] == list(LEAKS)
    for scores in [
        report["leak_free"],
        report["paper_protocol"],
        *report["leaks"],
        *report["untrained"].values(),
    ]:
        assert 0.0 <= scores["auc"] <= 1.0 and 0.0 <= scores["ap"] <= 1.0
    json.dumps(report, allow_nan=False)


def test_full_graph_neighborhoods_reveal_held_out_edges_and_raise_the_score(report):
    leak = next(x for x in report["leaks"] if x["name"] == "full_graph_neighborhoods")
    assert leak["exposure"] > 0.5  # most neighbors now come through held-out edges
    assert leak["auc"] > report["leak_free"]["auc"] + 0.1


def test_unchecked_negatives_let_true_edges_in(dense):
    split = split_edges(dense, 0.3, 0)
    negatives = unchecked_negatives(split.test_pos, dense.num_nodes, np.random.default_rng(0))
    assert (negatives[:, 0] == split.test_pos[:, 0]).all() and (negatives[:, 0] != negatives[:, 1]).all()
    edges = {frozenset(e) for e in zip(dense.src.tolist(), dense.dst.tolist())}
    assert any(frozenset(p) in edges for p in negatives.tolist())  # some "negatives" are edges


def test_reversed_edges_test_pairs_that_trained_the_other_way(dense):
    split = split_edges(dense, 0.55, 0)
    positives, leaked = reversed_test_edges(split, np.random.default_rng(0))
    held = len(split.test_pos)
    assert np.array_equal(positives[:held], split.test_pos)
    assert np.array_equal(positives[held : 2 * held], split.test_pos[:, ::-1])  # both directions tested
    trained = {frozenset(e) for e in zip(split.train.src.tolist(), split.train.dst.tolist())}
    assert leaked > 0 and all(frozenset(p) in trained for p in positives[2 * held :].tolist())
    q = 1 - math.sqrt(1 - 0.55)  # a direction trains with probability q: one way only, given kept
    assert leaked / split.train.num_edges == pytest.approx(2 * (1 - q) / (2 - q), abs=0.12)


def test_the_epoch_chosen_on_test_scores_at_least_the_validations(report):
    leak = next(x for x in report["leaks"] if x["name"] == "epoch_on_test")
    assert leak["auc"] >= report["leak_free"]["auc"]
    assert (
        leak["epoch"] == report["epochs"]["test"]
        and report["epochs"]["trained"] >= report["epochs"]["validation"]
    )


def test_leak_free_is_linkpreds_model_to_the_bit_and_untrained_is_epoch_zero(dense, report):
    split = split_edges(dense, 0.2, QUICK["seed"])
    params = dict(QUICK, epochs=12, patience=3)
    assert (
        evaluate_link_prediction(Goat(**params).fit(split.train), split)["auc"] == report["leak_free"]["auc"]
    )
    untrained = Goat(**dict(params, epochs=0)).fit(split.train)
    assert evaluate_link_prediction(untrained, split)["auc"] == report["untrained"]["leak_free"]["auc"]


def test_without_early_stopping_the_leak_free_model_trains_exactly_its_epochs(dense):
    params = dict(QUICK, epochs=4, validation_fraction=0.0)
    found = audit(dense, 0.5, params)
    split = split_edges(dense, 0.5, QUICK["seed"])
    assert (
        evaluate_link_prediction(Goat(**params).fit(split.train), split)["auc"] == found["leak_free"]["auc"]
    )
    assert found["epochs"]["trained"] == 4 and 1 <= found["epochs"]["test"] <= 4


def test_a_directed_graph_has_no_reversed_edge_leak(tmp_path):
    from goat_core.data.readers import read_graph_file

    path = tmp_path / "arcs.txt"
    rng = np.random.default_rng(0)
    arcs = {(int(u), int(v)) for u, v in rng.integers(0, 30, size=(160, 2)) if u != v}
    path.write_text("".join(f"{u} {v}\n" for u, v in sorted(arcs)))
    found = audit(read_graph_file(path, directed=True), 0.5, dict(QUICK, epochs=2, validation_fraction=0.0))
    leak = next(x for x in found["leaks"] if x["name"] == "reversed_edges")
    assert leak["auc"] is None and "directed" in leak["note"]
    json.dumps(found, allow_nan=False)


def test_cli_audit_json(capsys):
    code, out, _ = run_main(
        capsys,
        "audit",
        "lesmis",
        "--train-ratio",
        "0.6",
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
    )
    assert code == 0
    result = json.loads(out)
    assert set(result["untrained"]) == {"leak_free", "paper_protocol"}
    assert result["train_ratio"] == 0.6 and result["seed"] == 0 and result["params"]["dim"] == 8
    code, _, err = run_main(capsys, "audit", "lesmis", "--train-ratio", "1.5")
    assert code == 2 and "--train-ratio" in err
