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


def test_tracked_attention_round_trips(tmp_path):
    goat = Goat(**FAST, seed=2).fit(load_graph("lesmis"), track_pairs=[("Marius", "Thenardier"), (11, 27)])
    again = Goat.load(goat.save(tmp_path / "run"), device="cpu")
    assert len(again.tracked_) == 2
    for s, t in (("Marius", "Thenardier"), ("Valjean", "Javert")):
        before, after = goat.attention_history(s, t), again.attention_history(s, t)
        assert after.rows() == before.rows()
        for key, values in before.series().items():  # entropies: the same up to summation order
            assert np.allclose(after.series()[key], values, rtol=0, atol=1e-12), key
        assert after.source_names == before.source_names
        assert np.array_equal(after.source_neighbors, before.source_neighbors)
    assert again.attention_history("Marius", "Thenardier").rows()[-1]["source_attention"] == \
        again.attention("Marius", "Thenardier").to_dict()["source_attention"]
    tensors = torch.load(tmp_path / "run" / "weights.pt", weights_only=True)
    assert tuple(tensors["tracked_pairs"].shape) == (2, 2)
    assert tensors["tracked_epochs"].tolist() == list(range(6))
    state = again.state()
    assert Goat.from_state(again.get_params(), state).attention_history(25, 55).source == "Thenardier"


def test_runs_without_tracked_attention_still_load(tmp_path):
    Goat(**FAST).fit(load_graph("lesmis")).save(tmp_path)  # as every run saved before tracking
    tensors = torch.load(tmp_path / "weights.pt", weights_only=True)
    assert not any(key.startswith("tracked_") for key in tensors)
    again = Goat.load(tmp_path)
    assert again.tracked_ == () and again.attention_history("Marius", "Thenardier") is None


@pytest.mark.parametrize("change, words", [
    (lambda t: t.update(tracked_0_source_attention=t["tracked_0_source_attention"][:-1]),
     "source_attention must be finite numbers of shape"),
    (lambda t: t["tracked_0_target_attention"].__setitem__((0, 0), float("nan")),
     "target_attention must be finite"),
    (lambda t: t["tracked_0_source_attention"].mul_(2.0),
     "source attention must be non-negative and sum to 1"),
    (lambda t: t.update(tracked_pairs=torch.tensor([[55, 500]])), "tracked_pairs holds ids outside"),
    (lambda t: t.update(tracked_pairs=torch.tensor([[55, 55]])), "a node paired with itself"),
    (lambda t: t.update(tracked_epochs=torch.tensor([0, 2, 1, 3, 4, 5])),
     "tracked_epochs must be increasing"),
    (lambda t: t.pop("tracked_0_scores"), "KeyError: 'tracked_0_scores'"),
    (lambda t: t.pop("tracked_pairs"), "tracked attention without tracked_pairs"),
    (lambda t: t.update(tracked_0_source_neighbors=t["tracked_0_source_neighbors"] + 1000),
     "source_neighbors must hold node ids"),
    (lambda t: t.update(tracked_0_padding=[[0.0, 0.0]]), "AttributeError"),  # not a tensor
])
def test_malformed_tracked_attention_is_a_clear_error(tmp_path, change, words):
    Goat(**FAST).fit(load_graph("lesmis"), track_pairs=[("Marius", "Thenardier")]).save(tmp_path)
    tensors = torch.load(tmp_path / "weights.pt", weights_only=True)
    change(tensors)
    torch.save(tensors, tmp_path / "weights.pt")
    with pytest.raises(GraphFormatError, match="inconsistent run: ") as info:
        Goat.load(tmp_path)
    assert words in str(info.value) and "\n" not in str(info.value)
