"""reproduce.node2vec and reproduce.vgae, shrunk: tuning picks within each method's cells, runs are
kept as JSON, and RESULTS.md's sections put them beside GOAT's committed rows."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from goat_core import split_edges
from goat_core.analysis.node2vec import dot_scores
from reproduce import node2vec, vgae
from reproduce.common import read_json

from .conftest import planted_graph

RESULTS = Path(__file__).resolve().parents[1] / "results"


@pytest.fixture
def tiny_node2vec(monkeypatch, tmp_path, data_dir):
    """Email at 55 % only, two cells, tiny walks; GOAT's and the heuristics' committed files beside."""
    monkeypatch.setattr(node2vec, "TUNE_RATIOS", {"email": (0.55,)})
    monkeypatch.setattr(node2vec, "TEST_RATIOS", {"email": (0.55,)})
    cells = [{"p": 1.0, "q": 1.0, "window": 3}, {"p": 1.0, "q": 0.5, "window": 3}]
    monkeypatch.setattr(node2vec, "GRID", cells)
    monkeypatch.setattr(node2vec, "GRIDS", {"email": cells})
    monkeypatch.setattr(node2vec, "WALK", dict(dim=8, num_walks=2, walk_length=10, epochs=1))
    for name in ("email_lp_auc.csv", "email_lp_ap.csv"):
        shutil.copy(RESULTS / name, tmp_path / name)
    shutil.copytree(RESULTS / "defaults", tmp_path / "defaults")
    shutil.copytree(RESULTS / "heuristics", tmp_path / "heuristics")
    node2vec.main(["--out", str(tmp_path), "--data", "email", "--seeds", "0", "1"])
    return tmp_path


def test_node2vec_tunes_then_tests_on_the_split_goat_is_scored_on(tiny_node2vec):
    out = tiny_node2vec
    chosen = node2vec.choice(out, "email", 0.55)
    assert chosen["deepwalk"]["cell"]["p"] == chosen["deepwalk"]["cell"]["q"] == 1
    assert chosen["node2vec"]["val_auc"] >= chosen["deepwalk"]["val_auc"]  # its cells include DeepWalk's
    for method in ("deepwalk", "node2vec"):
        runs = [read_json(node2vec.run_path(out, method, "email", 0.55, s)) for s in (0, 1)]
        assert all(r["config"]["p"] == chosen[method]["cell"]["p"] and r["tuned_at"] == 0.55 for r in runs)
        assert all(0.5 < r["auc"] <= 1 for r in runs)
        assert runs[0]["test_edges"] == len(split_edges(node2vec.dataset("email"), 0.55, 0).test_pos)
    text = node2vec.markdown(out)
    with (out / "email_lp_auc.csv").open() as f:
        goat = next(row for row in csv.DictReader(f) if row["method"] == "**ours GOAT (max pool)**")["55%"]
    row = next(line for line in text.splitlines() if line.startswith("| GOAT, masked padding (section 1)"))
    assert goat in row
    assert any(line.startswith("| GOAT, zero padding") for line in text.splitlines())
    assert any(line.startswith("| preferential attachment (training graph)") for line in text.splitlines())
    assert "| **DeepWalk** (ours) |" in text and "| email | 55 % | p1-q1-w3 |" in text


def test_nearest_tuned_ratio_breaks_ties_to_the_smaller():
    assert node2vec.nearest("email", 0.35) == 0.15
    assert node2vec.nearest("email", 0.75) == 0.55
    assert node2vec.nearest("email", 0.85) == 0.95
    assert node2vec.nearest("cora2", 0.9) == 0.9


def test_vgae_separates_planted_communities_and_repeats_with_its_seed():
    graph = planted_graph(groups=4, size=30, p_in=0.4, p_out=0.01, seed=2)
    split = split_edges(graph, 0.8, seed=1)
    pairs = np.concatenate([split.test_pos, split.test_neg])
    labels = np.r_[np.ones(len(split.test_pos)), np.zeros(len(split.test_neg))]
    for variational in (False, True):
        z = vgae.embed(split.train, variational, seed=0, epochs=100)
        assert roc_auc_score(labels, dot_scores(z, pairs)) > 0.8
    assert np.array_equal(z, vgae.embed(split.train, True, seed=0, epochs=100))
    assert not np.array_equal(z, vgae.embed(split.train, True, seed=1, epochs=100))


def test_vgae_runs_are_kept_and_reported(monkeypatch, tmp_path, data_dir):
    monkeypatch.setattr(vgae, "DATASETS", ("lesmis",))
    monkeypatch.setattr(vgae, "SETTINGS", dict(hidden=8, latent=4, lr=0.01, epochs=20))
    vgae.main(["--out", str(tmp_path), "--data", "lesmis", "--seeds", "0"])
    for model in vgae.MODELS:
        row = read_json(vgae.run_path(tmp_path, model, "lesmis", 0))
        assert row["features"] == "identity" and 0 <= row["auc"] <= 1 and row["settings"]["epochs"] == 20
    text = vgae.markdown(tmp_path)
    assert "| lesmis | **GAE**, no features (ours, n=1) |" in text
    assert "| lesmis | **VGAE**, no features (ours, n=1) |" in text


def test_goat_defaults_on_the_same_splits_join_the_vgae_table(monkeypatch, tmp_path, data_dir):
    from reproduce import defaults

    monkeypatch.setattr(vgae, "DATASETS", ("lesmis",))
    monkeypatch.setattr(vgae, "SETTINGS", dict(hidden=8, latent=4, lr=0.01, epochs=20))
    vgae.main(["--out", str(tmp_path), "--data", "lesmis", "--seeds", "0"])
    assert node2vec.GOAT_ZERO_90 not in vgae.markdown(tmp_path)  # not run yet: no row
    row = defaults.run_one("validated", 0.9, 0, tmp_path, data="lesmis")
    assert row["data"] == "lesmis" and row["params"]["padding"] == "zero"
    text = vgae.markdown(tmp_path)
    assert f"| lesmis | {node2vec.GOAT_ZERO_90} | {100 * row['auc']:.1f} ± 0.0 (n=1) |" in text
    assert defaults.markdown(tmp_path) == ""  # the Defaults section's table is Email's alone
