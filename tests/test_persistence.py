"""Runs save to a directory and load back, without pickle, with identical answers."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from goat_core import Goat, GraphFormatError, load_graph

from .conftest import FAST


def test_save_load_gives_identical_answers(tmp_path):
    graph = load_graph("lesmis")
    goat = Goat(**FAST, seed=4).fit(graph)
    goat.save(tmp_path / "run")
    again = Goat.load(tmp_path / "run", device="cpu")
    assert again.get_params() == {**goat.get_params(), "device": "cpu"}
    assert again.graph_.names == graph.names
    a, b = goat.attention("Marius", "Thenardier"), again.attention("Marius", "Thenardier")
    assert a.to_dict() == b.to_dict()
    assert np.array_equal(a.alignment, b.alignment)
    pairs = np.array([[0, 11], [55, 25], [48, 76]])
    assert np.array_equal(goat.predict_proba(pairs), again.predict_proba(pairs))
    assert np.array_equal(goat.node_embeddings("context"), again.node_embeddings("context"))
    assert np.array_equal(again.graph_.labels.codes, graph.labels.codes)
    assert np.array_equal(again.graph_.node_attrs["paper_id"], np.arange(77))


def test_inference_draws_survive_save_and_load(tmp_path):
    goat = Goat(**{**FAST, "neighborhood": 3}, seed=4, inference_draws=3).fit(load_graph("lesmis"))
    goat.save(tmp_path / "run")
    again = Goat.load(tmp_path / "run", device="cpu")
    pairs = np.array([[0, 11], [55, 25], [48, 76], [11, 48]])
    assert again.inference_draws == 3
    assert np.array_equal(goat.predict_proba(pairs), again.predict_proba(pairs))


def test_extra_metadata_round_trips(tmp_path):
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path, extra={"split": {"train_ratio": 0.85, "seed": 2}})
    assert Goat.load(tmp_path).run_info_ == {"split": {"train_ratio": 0.85, "seed": 2}}


def test_run_directory_holds_json_and_tensors_only(tmp_path):
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["params"]["dim"] == 16 and config["graph"]["nodes"] == 77
    tensors = torch.load(tmp_path / "weights.pt", weights_only=True)  # refuses pickled objects
    assert set(tensors) >= {"embedding", "src", "dst", "hood_table"}


def test_broken_runs_are_clear_errors(tmp_path):
    with pytest.raises(GraphFormatError, match="config.json is missing"):
        Goat.load(tmp_path)
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path)
    (tmp_path / "weights.pt").write_bytes(b"not a torch file")
    with pytest.raises(GraphFormatError, match="unreadable run"):
        Goat.load(tmp_path)


def test_inconsistent_runs_are_clear_errors(tmp_path):
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path)
    nodes = json.loads((tmp_path / "nodes.json").read_text())
    (tmp_path / "nodes.json").write_text(json.dumps({"names": nodes["names"][:-1]}))
    with pytest.raises(GraphFormatError, match="inconsistent run: .*expected"):
        Goat.load(tmp_path)
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    (tmp_path / "config.json").write_text(json.dumps({"format_version": 1, "params": {"dim": 16}}))
    with pytest.raises(GraphFormatError, match="inconsistent run: KeyError"):
        Goat.load(tmp_path)


def test_the_compute_path_is_saved_and_runs_saved_before_it_still_load(tmp_path):
    goat = Goat(**FAST).fit(load_graph("lesmis"))
    goat.save(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["params"]["backend"] == "auto" and config["backend"] == goat.backend_
    pairs = np.array([[0, 11], [55, 25]])
    del config["backend"], config["params"]["backend"]  # as written before the parameter existed
    (tmp_path / "config.json").write_text(json.dumps(config))
    old = Goat.load(tmp_path)
    assert old.backend == "auto" and old.backend_ == goat.backend_
    assert np.array_equal(old.decision_function(pairs), goat.decision_function(pairs))


def test_a_config_that_is_not_an_object_is_a_clear_error(tmp_path):
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path)
    (tmp_path / "config.json").write_text("[1, 2, 3]")
    with pytest.raises(GraphFormatError, match="must each hold a JSON object"):
        Goat.load(tmp_path)


def test_state_round_trips_through_from_state():
    goat = Goat(**FAST).fit(load_graph("lesmis"))
    again = Goat.from_state(goat.get_params(), goat.state())
    pairs = np.array([[0, 11], [55, 25], [48, 76]])
    assert np.array_equal(again.decision_function(pairs), goat.decision_function(pairs))
    assert again.backend_ == goat.backend_ and again.history_ == goat.history_
