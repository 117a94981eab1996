"""Scores page: runs side by side on the same split; Embeddings and Graph pages: context spread."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from goat_core.analysis.compare import compare_runs
from goat_core.analysis.spread import context_spread
from ui.runs import backend_for

from .conftest import button, explorer, goto, plain, texts, train

CHOSEN = ["global", "mean-pool · mask"]  # the app's fast preset pads with masks: this run is goat · mask


def numbers(value) -> np.ndarray:
    """A Plotly array from a chart's JSON: a list, or base64 ``{"dtype", "bdata"}`` (Plotly 6)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value, dtype=float)


def chart(at, key: str) -> dict:
    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith(key)).proto.spec)


def side_by_side(at):
    """Train the Les Misérables run, then GoatGlobal and mean-pool beside it on the Scores page."""
    train(at)
    goto(at, "scores")
    at.multiselect(key="compare_runs").set_value(CHOSEN).run()
    # AppTest shares the server's run store between tests, as browser sessions share it: an
    # earlier test may have trained these very runs, and then they are fetched, not trained again
    if not any(b.label == "Every chosen run is trained" for b in at.button):
        button(at, "Train 2 run(s) side by side").click().run()
    assert not at.exception, at.exception
    assert any(b.label == "Every chosen run is trained" for b in at.button)
    return at


def test_runs_are_trained_on_the_same_split_and_compared_edge_by_edge(app):
    side_by_side(app)
    ex = explorer(app)
    run = ex.run
    kept = ex.side_by_side[run.key]
    assert set(kept) == {"goat · mask", *CHOSEN}
    for name in CHOSEN:  # the same training edges, the same seed, only the variant differs
        other = kept[name]
        np.testing.assert_array_equal(other.goat.graph_.src, run.split.train.src)
        np.testing.assert_array_equal(other.goat.graph_.dst, run.split.train.dst)
        assert {k: v for k, v in other.params.items() if k not in ("variant", "backend")} == \
            {k: v for k, v in run.params.items() if k not in ("variant", "backend")}
        assert other.params["backend"] == backend_for(ex.graph.num_edges, other.params["variant"])
    table = app.dataframe[-1].value  # the last table: this section's
    assert list(table["run"]) == ["goat · mask (this run)", *CHOSEN]
    auc_metric = float(next(m.value for m in app.metric if m.label == "AUC (GOAT)"))
    assert table["AUC"][0] == pytest.approx(auc_metric, abs=5e-4)  # this run's AUC on the same split
    found = compare_runs(run.split, {n: kept[n].goat for n in ["goat · mask", *CHOSEN]})
    np.testing.assert_allclose(table["AUC"], found.auc)
    wins = found.wins()
    heat = chart(app, "compare_wins")["data"][0]
    assert heat["text"][0][1] == f"{wins[0, 1]} won · {wins[1, 0]} lost"
    assert wins[0, 1] + wins[1, 0] + found.ties()[0, 1] == len(run.split.test_pos)
    duel = chart(app, f"compare_duel_{ex.click_round}")
    edges = sum(len(t.get("customdata") or []) for t in duel["data"] if t["name"].startswith("edges"))
    assert edges == len(run.split.test_pos)
    # kept in the session: nothing left to train
    app.run()
    assert button(app, "Every chosen run is trained").disabled


def test_a_click_on_an_edge_makes_it_the_gossip_pair(app):
    side_by_side(app)
    ex = explorer(app)
    s, t = (int(v) for v in ex.run.split.test_pos[3])
    assert ex.pair != (s, t)
    point = {"curve_number": 2, "point_number": 0, "point_index": 0,
             "customdata": [s, t, ex.names[s], ex.names[t]]}
    app.session_state[f"compare_duel_{ex.click_round}"] = {"selection": {"points": [point]}}
    app.run()
    assert not app.exception, app.exception
    assert explorer(app).pair == (s, t)
    said = f"Gossip pair: {ex.names[s]} ↔ {ex.names[t]} (a held-out edge"
    assert any(said in m for m in texts(app.success))
    assert any(link.proto.page.endswith("gossip.py") or "gossip" in link.proto.page
               for link in app.get("page_link"))
    ringed = [tr for tr in chart(app, f"compare_duel_{explorer(app).click_round}")["data"]
              if tr["name"] == "gossip pair"]
    assert len(ringed) == 1
    goto(app, "gossip")
    assert plain(app.header[0].value) == f"{ex.names[s]} ↔ {ex.names[t]}"


def test_context_spread_is_ranked_drawn_and_colours_the_graph(app):
    train(app)
    run = explorer(app).run
    expected = context_spread(run.goat, seed=0)
    goto(app, "embeddings")
    table = app.dataframe[-1].value
    assert (table["contexts"] >= 4).all() and table["spread"].is_monotonic_decreasing
    top = explorer(app).names.index(table["node"][0])
    assert table["spread"][0] == pytest.approx(expected.spread[top])
    assert table["personas"][0] == expected.personas[top]
    best = max((u for u in range(77) if expected.contexts[u] >= 4), key=lambda u: expected.spread[u])
    assert top == best
    app.slider(key="spread_min").set_value(10).run()
    assert (app.dataframe[-1].value["degree"] >= 10).all()
    # a click on the spread chart shows that node's personas
    ex = explorer(app)
    app.session_state[f"spread_scatter_{ex.click_round}"] = {"selection": {"points": [
        {"curve_number": 0, "point_number": 0, "point_index": 0, "customdata": [top, ex.names[top]]}]}}
    app.run()
    assert app.session_state["persona_node"] == top
    # the graph coloured by it
    goto(app, "graph")
    app.selectbox(key="graph_colour").set_value("context spread").run()
    assert not app.exception
    nodes = json.loads(app.get("plotly_chart")[0].proto.spec)["data"][1]
    assert nodes["marker"]["showscale"] is True
    np.testing.assert_allclose(numbers(nodes["marker"]["color"]), expected.spread, rtol=1e-6)


def test_goat_global_has_no_spread_to_show(app):
    train(app, variant="global")
    goto(app, "embeddings")
    assert any("GoatGlobal" in i for i in texts(app.info))
    goto(app, "graph")
    assert "context spread" not in app.selectbox(key="graph_colour").options


def test_on_a_large_graph_the_spread_waits_for_a_click(app, monkeypatch):
    from goat_core import presets

    train(app)
    monkeypatch.setattr(presets, "LARGE_GRAPH_EDGES", 100)  # Les Misérables' 254 edges count as large
    goto(app, "embeddings")
    assert "context spread" not in app.selectbox(key="emb_colour").options
    heads = [h.value for h in app.header]
    assert heads[-1] == "Context spread" and len(app.dataframe) == 0
    button(app, "Compute the context spread").click().run()
    assert not app.exception
    table = app.dataframe[-1].value
    assert list(table.columns) == ["rank", "node", "spread", "personas", "degree", "contexts"]
    app.run()  # asked once for this run: it stays
    assert len(app.dataframe) == 1


def test_another_run_keeps_its_own_side_by_side(app):
    side_by_side(app)
    first = explorer(app).run.key
    train(app, variant="global")  # a GoatGlobal run: its own name leaves the choices
    goto(app, "scores")
    assert not app.exception
    assert "global" not in app.multiselect(key="compare_runs").options
    assert app.multiselect(key="compare_runs").value == ["goat · mask", "goat · zero", "mean-pool · mask",
                                                         "mean-pool · zero"]  # every other run, at first
    ex = explorer(app)  # the new run has nothing beside it (at most itself, as the store holds it)
    assert set(ex.side_by_side.get(ex.run.key, {})) <= {"global"} and first in ex.side_by_side
    assert set(ex.side_by_side[first]) == {"goat · mask", *CHOSEN}
    assert any("Train at least one other run" in i for i in texts(app.info))


def test_a_refresh_finds_the_runs_side_by_side_in_the_store(app):
    """The runs beside this one are kept in the shared store: a refresh (a new session on the link)
    shows the comparison again without a click."""
    from .test_links import link_of, reopen

    side_by_side(app)
    before = app.dataframe[-1].value
    other = reopen(link_of(app), "scores")
    assert set(explorer(other).side_by_side[explorer(other).run.key]) == {"goat · mask", *CHOSEN}
    after = other.dataframe[-1].value
    assert list(after["run"]) == list(before["run"]) and list(after["AUC"]) == list(before["AUC"])
