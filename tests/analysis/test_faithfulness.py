"""Faithfulness: weights against leave-one-out effects on a hand-made pair whose effects are known,
the degenerate cases (a side's only neighbor, constant weights, pads) as NaN-free JSON, the sample's
distribution, the course over training, and the CLI."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest
import torch

from goat_core import Goat, GoatState, ParameterError
from goat_core.analysis.faithfulness import (
    faithfulness,
    faithfulness_over_training,
    faithfulness_sample,
    summarize,
)
from goat_core.data.graph import from_networkx

from ..conftest import FAST, planted_graph
from ..test_cli import run_main


def hand_made(vectors: dict[str, tuple[float, float]], padding: str = "mask") -> Goat:
    """s has neighbors a, b, d; t has one, c. Embeddings set by hand (2-d)."""
    graph = from_networkx(nx.Graph([("s", "a"), ("s", "b"), ("s", "d"), ("t", "c")]), source="hand")
    table = torch.zeros(graph.num_nodes + 1, 2)
    for name, vec in vectors.items():
        table[graph.names.index(name)] = torch.tensor(vec)
    params = dict(dim=2, neighborhood=5, padding=padding, backend="module", device="cpu")
    hood = Goat(**params).inference_neighborhoods(graph)
    return Goat.from_state(
        params, GoatState(graph=graph, embedding=table, neighborhoods=hood, history=[]), device="cpu"
    )


KNOWN = {
    "a": (2.0, 0.0),
    "b": (1.0, 0.0),
    "d": (-1.0, 0.0),
    "c": (1.0, 0.0),
    "s": (0.0, 1.0),
    "t": (0.0, 1.0),
}


def test_effects_of_a_hand_made_pair_are_the_known_ones():
    found = faithfulness(hand_made(KNOWN), "s", "t")
    # r_t = E_c; s attends softmax(E_a·E_c, E_b·E_c, E_d·E_c) = softmax(2, 1, -1); score = Σ p_i (E_i·E_c)
    p = np.exp([2.0, 1.0, -1.0]) / np.exp([2.0, 1.0, -1.0]).sum()
    score = float(p @ [2.0, 1.0, -1.0])

    def without(k):  # the others share the muted one's attention
        keep = [i for i in range(3) if i != k]
        q = np.exp(np.array([2.0, 1.0, -1.0])[keep])
        return float(q @ np.array([2.0, 1.0, -1.0])[keep] / q.sum())

    rows = {r["node"]: r for r in found.to_dict()["effects"]}
    assert found.effects.score == pytest.approx(score, rel=1e-5)
    for k, name in enumerate("abd"):
        assert rows[name]["weight"] == pytest.approx(p[k], rel=1e-5)
        assert rows[name]["effect"] == pytest.approx(score - without(k), rel=1e-4, abs=1e-6)
        assert rows[name]["side"] == "source"
    assert rows["c"]["effect"] is None and rows["c"]["weight"] == pytest.approx(1.0)  # t's only neighbor
    # weights rank a > b > d, effects a > d > b (muting d, which aligns negatively, raises the score less
    # than muting b lowers it... by hand: 0.872, -0.224, -0.097): ρ = 1 - 6·2/(3·8) = 0.5, τ = (2 - 1)/3
    assert rows["a"]["effect"] > rows["d"]["effect"] > rows["b"]["effect"]
    assert (found.spearman, found.kendall) == (pytest.approx(0.5), pytest.approx(1 / 3))


def test_effects_are_what_the_mute_feature_gives(tmp_path):
    goat = Goat(**FAST, backend="torch").fit(planted_graph(groups=2, size=12, seed=4))
    s, t = goat.graph_.names[0], goat.graph_.names[1]
    found = faithfulness(goat, s, t).to_dict()
    base = goat.attention(s, t).score
    for row in found["effects"]:
        if row["effect"] is not None:
            assert row["effect"] == pytest.approx(
                base - goat.attention(s, t, mute=[row["node"]]).score, abs=1e-5
            )


def test_constant_weights_give_no_correlation_and_a_note():
    flat = dict(KNOWN, a=(1.0, 0.0), d=(1.0, 0.0))  # every alignment with c is 1: equal attention
    found = faithfulness(hand_made(flat), "s", "t")
    assert found.spearman is None and found.kendall is None and "same attention weight" in found.note
    json.dumps(found.to_dict(), allow_nan=False)


def test_a_pair_with_one_mutable_neighbor_has_no_correlation():
    graph = from_networkx(nx.Graph([("s", "a"), ("s", "b"), ("t", "a")]), source="one")
    params = dict(dim=2, neighborhood=4, padding="zero", backend="module", device="cpu")
    table = torch.tensor([[0.5, 0.1], [0.2, 0.9], [1.0, 0.0], [0.3, 0.3], [0.0, 0.0]])
    hood = Goat(**params).inference_neighborhoods(graph)
    goat = Goat.from_state(
        params, GoatState(graph=graph, embedding=table, neighborhoods=hood, history=[]), device="cpu"
    )
    found = faithfulness(goat, "s", "t")
    rows = {r["node"]: r for r in found.to_dict()["effects"]}
    assert set(rows) == {"a", "b"}  # pads are no neighbors
    assert rows["a"]["side"] == "both" and rows["a"]["effect"] is None  # t's only neighbor
    assert found.spearman is None and "only 1 neighbor" in found.note
    json.dumps(found.to_dict(), allow_nan=False)


@pytest.fixture(scope="module")
def trained():
    return Goat(**FAST, backend="torch").fit(planted_graph(groups=3, size=10, seed=5))


def test_the_sample_is_seeded_and_summarised(trained):
    one, two = faithfulness_sample(trained, count=12, seed=1), faithfulness_sample(trained, count=12, seed=1)
    assert one == two and len(one["pairs"]) == 12
    defined = [r["spearman"] for r in one["pairs"] if r["spearman"] is not None]
    assert one["spearman"]["defined"] == len(defined) and one["spearman"]["median"] == pytest.approx(
        float(np.median(defined))
    )
    assert summarize([None, None])["median"] is None
    json.dumps(one, allow_nan=False)
    for seed in (-1, 2**63, 1.5, True):  # -1 was numpy's "expected non-negative integer" traceback
        with pytest.raises(ParameterError, match="seed must be an integer >= 0"):
            faithfulness_sample(trained, count=3, seed=seed)


def test_over_training_replays_the_same_model(trained):
    s, t = trained.graph_.names[0], trained.graph_.names[3]
    found = faithfulness_over_training(trained, [(s, t)])
    history = found["pairs"][0]["history"]
    assert found["same_model"] and [r["epoch"] for r in history] == list(range(len(trained.history_) + 1))
    now = faithfulness(trained, s, t)
    last = history[-1]
    assert last["score"] == pytest.approx(now.effects.score, abs=1e-6)
    assert (last["spearman"] is None and now.spearman is None) or math.isclose(last["spearman"], now.spearman)


def test_cli_attention_faithfulness_and_the_sample_verb(capsys, tmp_path):
    run = tmp_path / "run"
    code, _, _ = run_main(
        capsys,
        "train",
        "lesmis",
        "--out",
        str(run),
        "--dim",
        "8",
        "--epochs",
        "2",
        "--neighborhood",
        "6",
        "--validation-fraction",
        "0",
        "--backend",
        "torch",
        "--json",
    )
    assert code == 0
    code, out, _ = run_main(capsys, "attention", str(run), "Marius", "Cosette", "--faithfulness", "--json")
    f = json.loads(out)["faithfulness"]
    assert {"spearman", "kendall", "effects"} <= set(f)
    assert {"node", "weight", "effect"} <= set(f["effects"][0])
    code, out, _ = run_main(capsys, "faithfulness", str(run), "--pairs", "5", "--json")
    sample = json.loads(out)
    assert code == 0 and len(sample["pairs"]) == 5 and {"median", "defined"} <= set(sample["spearman"])
