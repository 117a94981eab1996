"""Gossip & attend: every way of choosing the pair (clicks through session state), the tabs and the
counterfactuals (its guard: tests/app/test_pages.py)."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from goat_core import NodeIndex

from .conftest import button, click_nodes, explorer, goto, new_app, open_tab, texts, train

CHART, EGO = "gossip_graph", "gossip_ego"
MARIUS, THENARDIER, GAVROCHE, VALJEAN, JAVERT = map(NodeIndex, (55, 25, 48, 11, 27))  # positions, not names


def trained(at):
    train(at)
    return goto(at, "gossip")


def chart_keys(at) -> set[str]:
    """The charts' keys without the click round of clickable charts ("att_source_3": "att_source")."""
    return {re.sub(r"_\d+$", "", c.proto.id.rsplit("-", 1)[-1]) for c in at.get("plotly_chart")}


def panel_title(at) -> str:
    return at.header[0].value


def test_opens_on_the_papers_pair(app):
    trained(app)
    assert panel_title(app) == "Marius ↔ Thenardier"
    p = float(next(m.value for m in app.metric if m.label.startswith("Edge probability")))
    assert 0.0 < p < 1.0
    assert app.selectbox(key="pair_source").value == "Marius"


def test_click_one_node_then_another(app):
    trained(app)
    click_nodes(app, CHART, VALJEAN)
    ex = explorer(app)
    assert ex.pending == VALJEAN and ex.pair == (MARIUS, THENARDIER)  # waiting for the partner
    assert any("First node: Valjean" in m for m in texts(app.markdown))
    click_nodes(app, CHART, JAVERT)
    assert explorer(app).pair == (VALJEAN, JAVERT) and explorer(app).pending is None
    assert panel_title(app) == "Valjean ↔ Javert"
    assert app.selectbox(key="pair_source").value == "Valjean"
    assert app.selectbox(key="pair_target").value == "Javert"
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    rings = {t["name"]: t["text"] for t in spec["data"] if t.get("name") in ("source", "target")}
    assert rings == {"source": ["Valjean"], "target": ["Javert"]}


def click_ego(at, node: int):
    """A click on a point of the pair's ego view: its customdata is [id, name, partner]."""
    ex = explorer(at)
    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(f"{EGO}_{ex.click_round}"))
    fig = json.loads(chart.proto.spec)
    data = next(d for trace in fig["data"] for d in trace.get("customdata") or [] if d[0] == node)
    at.session_state[f"{EGO}_{ex.click_round}"] = {"selection": {"points": [{"customdata": data}]}}
    return at.run()


def test_ego_view_click_makes_a_neighbor_the_partner(app):
    trained(app)
    app.session_state["gossip_view"] = "ego"
    app.run()
    assert any(f"{EGO}_" in c.proto.id for c in app.get("plotly_chart"))
    ex = explorer(app)
    att = ex.run.goat.attention(MARIUS, THENARDIER)
    only_t = next(int(v) for v in att.target_neighbors if v not in set(att.source_neighbors.tolist())
                  and v not in (MARIUS, THENARDIER))
    click_ego(app, only_t)  # a neighbor of t only: it gossips with t
    assert explorer(app).pair == (THENARDIER, only_t)
    assert panel_title(app) == f"Thenardier ↔ {ex.names[only_t]}"
    click_ego(app, only_t)  # now it is t: a click on t swaps the pair
    assert explorer(app).pair == (only_t, THENARDIER)
    nbr = int(ex.run.goat.attention(NodeIndex(only_t), THENARDIER).source_neighbors[0])
    click_ego(app, nbr)  # a neighbor of s gossips with s
    assert explorer(app).pair == (only_t, nbr) and not app.exception


def test_shift_click_of_two_nodes(app):
    trained(app)
    click_nodes(app, CHART, GAVROCHE, MARIUS)
    assert explorer(app).pair == (GAVROCHE, MARIUS)
    assert panel_title(app) == "Gavroche ↔ Marius"


def test_clicking_the_same_node_twice_waits(app):
    trained(app)
    click_nodes(app, CHART, VALJEAN)
    click_nodes(app, CHART, VALJEAN)
    assert explorer(app).pending == VALJEAN and explorer(app).pair == (MARIUS, THENARDIER)


def test_pickers_swap_and_self_pair(app):
    trained(app)
    app.selectbox(key="pair_source").set_value("Cosette").run()
    assert panel_title(app) == "Cosette ↔ Thenardier"
    button(app, "Swap").click().run()
    assert panel_title(app) == "Thenardier ↔ Cosette"
    app.selectbox(key="pair_target").set_value("Thenardier").run()
    assert any("cannot gossip with itself" in w for w in texts(app.warning))
    assert panel_title(app) == "Thenardier ↔ Cosette"
    assert app.selectbox(key="pair_target").value == "Cosette"


def test_random_edge_and_non_edge_are_seeded(app):
    trained(app)
    button(app, "Random edge").click().run()
    ex = explorer(app)
    first = ex.pair
    assert ex.graph.has_edge(*first)
    button(app, "Random non-edge").click().run()
    assert not ex.graph.has_edge(*ex.pair)
    assert next(m.value for m in app.metric if m.label == "In the graph") == "no edge"
    again = trained(new_app())
    button(again, "Random edge").click().run()
    assert explorer(again).pair == first  # same seed, same draw


def test_every_tab_renders_only_when_open(app, downloads):
    trained(app)
    assert {"att_source", "att_target"} <= chart_keys(app) and "att_alignment" not in chart_keys(app)
    csv = downloads["attention.csv"].decode().splitlines()
    assert csv[0] == "side,node,partner,neighbor,attention,shared"
    sides = [line.split(",")[0] for line in csv[1:]]
    assert {"source", "target"} == set(sides)
    assert abs(sum(float(line.split(",")[4]) for line in csv[1:] if line.startswith("source")) - 1) < 1e-5
    for label, keys in [("Alignment matrix", {"att_alignment"}),
                        ("Context shift", {"shift_bars", "shift_personas"}),
                        ("Drivers & top partners", {"att_drivers", "topk_chart"})]:
        open_tab(app, "gossip_tabs", label)
        assert keys <= chart_keys(app) and "att_source" not in chart_keys(app)


def test_context_shift_compares_two_partners(app):
    trained(app)
    open_tab(app, "gossip_tabs", "Context shift")
    app.selectbox(key="shift_partner").set_value(GAVROCHE).run()
    assert any("With **Thenardier**, Marius attends more to" in m for m in texts(app.markdown))
    moved = float(next(m.value for m in app.metric if m.label == "Attention moved (0–1)"))
    assert 0.0 < moved <= 1.0


def test_top_partners_unseen_only(app):
    trained(app)
    open_tab(app, "gossip_tabs", "Drivers & top partners")
    app.checkbox(key="topk_new").check().run()
    spec = json.loads([c for c in app.get("plotly_chart") if c.proto.id.endswith("topk_chart")][0].proto.spec)
    labels = spec["data"][0]["y"]
    assert len(labels) == 10 and all(label.endswith(("(new)", "(held out)")) for label in labels)
    goat, graph = explorer(app).run.goat, explorer(app).graph
    held_out = [n for n in labels if n.endswith("(held out)")]
    for label in held_out:  # a held-out edge is in the graph but not in what the model saw
        v = graph.names.index(label.removesuffix(" (held out)"))
        assert graph.has_edge(MARIUS, v) and not goat.graph_.has_edge(MARIUS, v)


def test_zero_padding_shows_the_pads_share_as_its_own_bar(app, downloads):
    train(app, padding="zero", neighborhood=30)
    goto(app, "gossip")
    bars = [json.loads(c.proto.spec) for c in app.get("plotly_chart")
            if re.search(r"att_(source|target)_\d+$", c.proto.id)]
    assert len(bars) == 2
    for spec in bars:
        labels, widths = spec["data"][0]["y"], spec["data"][0]["x"]
        if isinstance(widths, dict):  # plotly sends numeric arrays as base64
            widths = np.frombuffer(base64.b64decode(widths["bdata"]), dtype=widths["dtype"])
        assert labels[-1] == "(padding)" and abs(sum(widths) - 1.0) < 1e-4  # with the pads: sums to 1
    assert any("'(padding)'" in c for c in texts(app.caption))
    assert "(padding)" in downloads["attention.csv"].decode()


# --------------------------------------------------------------------------- attention over training


def metric_value(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def chart_spec(at, key: str) -> dict:
    chart = next(c for c in at.get("plotly_chart") if re.search(rf"-{key}(_\d+)?$", c.proto.id))
    return json.loads(chart.proto.spec)


def test_over_training_scrubs_the_tracked_pairs_attention(app):
    trained(app)  # the Train page tracks the current pair (Marius, Thenardier) and the case study's
    goat = explorer(app).run.goat
    assert {(h.source_id, h.target_id) for h in goat.tracked_} == {(MARIUS, THENARDIER), (MARIUS, GAVROCHE)}
    history = goat.attention_history(MARIUS, THENARDIER)
    open_tab(app, "gossip_tabs", "Over training")
    slider = app.select_slider(key="replay_epoch")
    assert slider.options == [str(e) for e in range(9)] and slider.value == 8  # 8 epochs and epoch 0
    final = goat.attention(MARIUS, THENARDIER).probability
    assert metric_value(app, "Edge probability at this epoch") == f"{final:.3f}"
    assert metric_value(app, "Entropy of Marius's attention") == f"{history.source_entropy[-1]:.3f}"
    bars = chart_spec(app, "replay_bars")
    assert [f["name"] for f in bars["frames"]] == [str(e) for e in range(9)]
    assert bars["layout"]["title"]["text"].startswith("Epoch 8: p(edge) = ")
    slider.set_value(0).run()  # scrub back to the untrained model
    assert metric_value(app, "Edge probability at this epoch") == f"{history.probability[0]:.3f}"
    start = float(metric_value(app, "Entropy of Thenardier's attention"))
    assert start == pytest.approx(history.target_entropy[0], abs=1e-3) and start > 0.95  # close to uniform
    assert chart_spec(app, "replay_bars")["layout"]["title"]["text"].startswith("Epoch 0: p(edge) = ")
    assert chart_spec(app, "replay_entropy")["layout"]["shapes"][0]["x0"] == 0


def test_a_pair_not_tracked_is_replayed_into_the_same_model(app):
    trained(app)
    before = explorer(app).run.goat
    app.selectbox(key="pair_source").set_value("Valjean").run()
    app.selectbox(key="pair_target").set_value("Javert").run()
    open_tab(app, "gossip_tabs", "Over training")
    assert any("was not recorded" in i for i in texts(app.info)) and not app.select_slider
    button(app, "Replay the training with this pair tracked").click().run()
    assert not app.exception
    after = explorer(app).run.goat
    assert after is not before and np.array_equal(after.embedding_, before.embedding_)  # seeded: the same
    assert after.attention_history(VALJEAN, JAVERT) is not None
    assert after.attention_history(MARIUS, THENARDIER) is not None  # the pairs tracked before stay
    assert app.select_slider(key="replay_epoch").value == 8


def test_the_case_study_trains_with_its_pairs_tracked(app):
    goto(app, "case_study")
    button(app, "Explore these pairs yourself").click().run()
    goat = explorer(app).run.goat
    assert goat.attention_history(MARIUS, THENARDIER) is not None
    assert goat.attention_history(MARIUS, GAVROCHE) is not None
    goto(app, "gossip")
    open_tab(app, "gossip_tabs", "Over training")
    assert app.select_slider(key="replay_epoch").value == 40  # the case study's preset: 40 epochs


# --------------------------------------------------------------------------- counterfactuals


def click_bar(at, side: str, node: int):
    """What a click on one bar of an attention chart sends back (customdata = [id, name])."""
    ex = explorer(at)
    point = {"curve_number": 0, "point_number": 0, "point_index": 0, "customdata": [node, ex.names[node]]}
    at.session_state[f"att_{side}_{ex.click_round}"] = {"selection": {"points": [point]}}
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_click_on_a_bar_mutes_that_neighbor_and_a_second_unmutes_it(app):
    trained(app)
    goat = explorer(app).run.goat
    plain = goat.attention(MARIUS, THENARDIER)
    top = int(plain.source_neighbors[int(np.argmax(plain.source_attention))])
    name = explorer(app).names[top]
    click_bar(app, "source", top)
    expected = goat.attention(MARIUS, THENARDIER, mute=[NodeIndex(top)])
    assert explorer(app).muted == (top,)
    p = next(m for m in app.metric if m.label.startswith("Edge probability"))
    assert p.value == f"{expected.probability:.3f}"
    assert p.delta == f"{expected.probability - plain.probability:+.3f} vs the model's"
    assert any(f"Muted: **{name}**" in m for m in texts(app.markdown))
    bars = chart_spec(app, "att_source")
    assert len(bars["data"]) == 2  # the counterfactual, and the model's attention outlined
    assert any(label.endswith(f"{name} (muted)") for label in bars["data"][0]["y"])
    click_bar(app, "source", top)  # a second click unmutes
    assert explorer(app).muted == ()
    assert metric_value(app, "Edge probability σ(r_s·r_t)") == f"{plain.probability:.3f}"
    click_bar(app, "target", int(plain.target_neighbors[0]))
    button(app, "Unmute all").click().run()
    assert explorer(app).muted == () and len(chart_spec(app, "att_source")["data"]) == 1


def test_muting_the_last_neighbor_of_a_side_is_refused_with_a_warning(app):
    trained(app)
    app.selectbox(key="pair_source").set_value("Napoleon").run()  # Napoleon's only neighbor: Myriel
    app.selectbox(key="pair_target").set_value("Valjean").run()
    click_bar(app, "source", explorer(app).names.index("Myriel"))
    assert explorer(app).muted == ()
    assert any("leaves Napoleon no neighbor to attend to" in w for w in texts(app.warning))


def test_uniform_attention_shows_what_attention_adds(app):
    trained(app)
    goat = explorer(app).run.goat
    plain, uniform = goat.attention(MARIUS, THENARDIER), goat.attention(MARIUS, THENARDIER, uniform=True)
    adds = f"attention adds {plain.score - uniform.score:+.3f} to the score"
    assert any(adds in c for c in texts(app.caption))
    app.toggle(key="att_uniform").set_value(True).run()
    assert next(m.value for m in app.metric if m.label == "Score r_s·r_t") == f"{uniform.score:.3f}"
    assert any("A counterfactual (uniform attention)" in c for c in texts(app.caption))
    widths = chart_spec(app, "att_source")["data"][0]["x"]
    if isinstance(widths, dict):
        widths = np.frombuffer(base64.b64decode(widths["bdata"]), dtype=widths["dtype"])
    assert np.allclose(widths, 1 / len(plain.source_names))
