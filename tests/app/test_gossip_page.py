"""Gossip & attend: the guard, and every way of choosing the pair (clicks through session state)."""

from __future__ import annotations

import base64
import json

import numpy as np

from .conftest import button, click_nodes, explorer, goto, new_app, open_tab, texts, train

CHART, EGO = "gossip_graph", "gossip_ego"
MARIUS, THENARDIER, GAVROCHE, VALJEAN, JAVERT = 55, 25, 48, 11, 27


def trained(at):
    train(at)
    return goto(at, "gossip")


def chart_keys(at) -> set[str]:
    return {c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")}


def panel_title(at) -> str:
    return at.header[0].value


def test_guard_until_a_run_exists(app):
    goto(app, "gossip")
    assert any("No trained model" in i for i in texts(app.info))
    assert not app.header  # nothing else drawn


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
    nbr = int(ex.run.goat.attention(only_t, THENARDIER).source_neighbors[0])
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
            if c.proto.id.endswith(("att_source", "att_target"))]
    assert len(bars) == 2
    for spec in bars:
        labels, widths = spec["data"][0]["y"], spec["data"][0]["x"]
        if isinstance(widths, dict):  # plotly sends numeric arrays as base64
            widths = np.frombuffer(base64.b64decode(widths["bdata"]), dtype=widths["dtype"])
        assert labels[-1] == "(padding)" and abs(sum(widths) - 1.0) < 1e-4  # with the pads: sums to 1
    assert any("'(padding)'" in c for c in texts(app.caption))
    assert "(padding)" in downloads["attention.csv"].decode()
