"""Teaching aids in the app: the case study's quiz, projector mode on every page, figure export."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from goat_core import load_graph, presets
from goat_core.paper import GAVROCHE, MARIUS, THENARDIER
from goat_core.views.export import NBSP
from goat_core.views.style import PROJECTOR_FONT
from ui import cache, navigation, state
from ui.runs import run_key, with_backend

from .conftest import APP, explorer, goto, texts, train

PAGES = [p.name for p in navigation.PAGES]
SVG_NS = "{http://www.w3.org/2000/svg}"


def case_record():
    """The case study's run (trained by the page, fetched from the shared store)."""
    graph = load_graph("lesmis")
    params = with_backend(dict(presets.case_study(graph.num_edges), seed=0), graph.num_edges)  # app's path
    record = cache.run_store().get(run_key(graph.fingerprint(), params, 0.0))
    assert record is not None
    return record


def top_neighbor(record, partner: int) -> int:
    att = record.goat.attention(MARIUS, partner)
    return int(np.asarray(att.source_neighbors)[np.argmax(att.source_attention)])


def attention_charts(at: AppTest) -> list[str]:
    return [c.key for c in at.get("plotly_chart") if c.key and c.key.startswith("case_att")]


def keys(at: AppTest) -> list[str]:
    return [c.key for c in at.get("plotly_chart")]


def score(at: AppTest) -> str:
    return next(m for m in texts(at.markdown) if m.startswith("**Quiz score"))


def test_quiz_guess_reveal_score_and_reset(app):
    goto(app, "case_study")
    assert len(app.radio) == 2 and [r.value for r in app.radio] == [None, None]
    assert score(app).startswith("**Quiz score: 0 of 0 right** (2 of 2")
    assert not attention_charts(app)  # hidden until revealed
    record = case_record()
    right, top_g = top_neighbor(record, THENARDIER), top_neighbor(record, GAVROCHE)
    app.radio(key="quiz_pick_25").set_value(right).run()
    app.button(key="quiz_reveal_25").click().run()
    assert not app.exception
    assert [s for s in texts(app.success) if s.startswith("Right!")]
    assert record.goat.graph_.names[right] in texts(app.success)[0]
    assert attention_charts(app) == ["case_att_s_25", "case_att_t_25"]  # the first pair's, both sides
    assert app.radio(key="quiz_pick_25").disabled
    assert score(app).startswith("**Quiz score: 1 of 1 right**")
    assert "case_shift" not in keys(app)  # the shift shows both answers: after both reveals
    att = record.goat.attention(MARIUS, GAVROCHE)
    wrong = next(int(n) for n in np.asarray(att.source_neighbors) if int(n) != top_g)
    app.radio(key="quiz_pick_48").set_value(wrong).run()
    app.button(key="quiz_reveal_48").click().run()
    errors = texts(app.error)
    assert errors and errors[0].startswith("Not this time:")
    assert f"the most attended is **{record.goat.graph_.names[top_g]}**" in errors[0]
    assert score(app).startswith("**Quiz score: 1 of 2 right** (0 of 2")
    assert len(attention_charts(app)) == 4 and "case_shift" in keys(app)
    app.button(key="quiz_reset").click().run()
    assert score(app).startswith("**Quiz score: 0 of 0 right**")
    assert [r.value for r in app.radio] == [None, None] and not any(r.disabled for r in app.radio)
    assert not attention_charts(app) and "case_shift" not in keys(app)


def test_reveal_without_a_guess_shows_the_answer(app):
    goto(app, "case_study")
    app.button(key="quiz_reveal_48").click().run()
    top = top_neighbor(case_record(), GAVROCHE)
    name = load_graph("lesmis").names[top]
    assert any(i.startswith("No guess this time") and name in i for i in texts(app.info))
    assert score(app).startswith("**Quiz score: 0 of 1 right**")


def projector_css(at: AppTest) -> bool:
    return any("goat-projector" in h.proto.body for h in at.get("html"))


def fonts(at: AppTest) -> list[int | None]:
    return [json.loads(c.proto.spec)["layout"].get("font", {}).get("size") for c in at.get("plotly_chart")]


def test_projector_mode_on_every_page(app):
    """Every chart of every page grows in projector mode and shrinks back without it.

    The toggle's state is set as a click sets it; the CSS is checked on a first run below and
    on every page by the browser test.
    """
    train(app)
    for page in PAGES:
        goto(app, page)
        before = fonts(app)
        assert before and all(f is None or f < PROJECTOR_FONT for f in before), page
        app.session_state[state.PROJECTOR_KEY] = True
        app.run()
        assert not app.exception
        assert fonts(app) == [PROJECTOR_FONT] * len(before), page
        for chart in app.get("plotly_chart"):
            assert json.loads(chart.proto.spec)["layout"]["paper_bgcolor"] == "#FFFFFF", page
        app.session_state[state.PROJECTOR_KEY] = False
        app.run()
        assert fonts(app) == before, page


@pytest.mark.parametrize("how", ["toggle", "shared link"])
def test_projector_css_and_figures_from_the_first_run(how):
    at = AppTest.from_file(APP, default_timeout=120)
    if how == "toggle":
        at.session_state[state.PROJECTOR_KEY] = True
    else:
        at.query_params["graph"] = "lesmis"
        at.query_params["projector"] = "1"
    at.run()
    assert not at.exception
    assert at.toggle(key=state.PROJECTOR_KEY).value is True and projector_css(at)
    assert fonts(at)[0] == PROJECTOR_FONT
    plain = AppTest.from_file(APP, default_timeout=120).run()
    assert not projector_css(plain) and plain.toggle(key=state.PROJECTOR_KEY).value is False
    assert fonts(plain)[0] != PROJECTOR_FONT


@pytest.mark.parametrize("page", ["graph", "gossip", "scores"])
def test_every_chart_has_svg_and_png_exports(app, page):
    train(app)
    goto(app, page)
    charts = app.get("plotly_chart")
    names = [b.proto.label for b in app.get("download_button")]
    assert charts and names.count("SVG") == len(charts) and names.count("PNG") == len(charts)


def test_an_exported_figure_carries_the_runs_configuration(app, downloads):
    train(app)
    goto(app, "gossip")
    exported = sorted(n for n in downloads if n.startswith("goat-") and n.endswith(".svg"))
    assert "goat-gossip-graph.svg" in exported, exported
    root = ET.fromstring(downloads["goat-gossip-graph.svg"])
    config = json.loads(root.find(f"{SVG_NS}metadata").text)
    run = explorer(app).run
    assert config["run"]["dim"] == run.params["dim"] == 16 and config["run"]["holdout"] == 0.15
    assert config["seed"] == 0 and config["pair"] == ["Marius", "Thenardier"]
    assert config["graph"].startswith("Les Misérables (77 nodes")
    caption = " ".join("".join(e.itertext()) for e in root.iter(f"{SVG_NS}text")).replace(NBSP, " ")
    assert "dim=16" in caption and "Marius ↔ Thenardier" in caption


def test_export_buttons_say_when_browser_path_names_no_browser(app, monkeypatch, tmp_path):
    """Issue 24: the buttons stayed enabled and a click failed with an empty message."""
    missing = tmp_path / "chromium"
    monkeypatch.setenv("BROWSER_PATH", str(missing))
    train(app)
    goto(app, "gossip")
    buttons = [b.proto for b in app.get("download_button") if b.proto.label in ("SVG", "PNG")]
    assert buttons and all(b.disabled for b in buttons)
    assert all(f"BROWSER_PATH names {missing}, which does not exist" in texts_of(b.help) for b in buttons)
    monkeypatch.delenv("BROWSER_PATH")
    goto(app, "gossip")
    assert not any(b.proto.disabled for b in app.get("download_button") if b.proto.label == "SVG")


def texts_of(markdown: str) -> str:
    return markdown.replace("\\", "")


def chart_figure(at, key_prefix: str):
    import plotly.graph_objects as go

    charts = at.get("plotly_chart")
    chart = next(c for c in charts if re.sub(r"_\d+$", "", c.proto.id.rsplit("-", 1)[-1]) == key_prefix)
    return go.Figure(json.loads(chart.proto.spec))


@pytest.mark.parametrize("link", [{"projector": "1"}, {"names": "1"}], ids=["projector", "names toggle"])
@pytest.mark.parametrize("page, chart", [("gossip", "gossip_graph"), ("graph", "graph_network"),
                                         ("case_study", "case_graph")])
def test_network_views_name_the_key_nodes_without_overlap(link, page, chart):
    from goat_core.views import labels

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"graph": "lesmis", **link})
    at.run()
    train(at)
    goto(at, page)
    fig = chart_figure(at, chart)
    names = [t for t in fig.data if isinstance(t.meta, dict) and "node_labels" in t.meta]
    assert len(names) == 1 and "Marius" in names[0].text and len(names[0].text) >= 6
    boxes = labels.drawn_boxes(fig)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_without_projector_or_toggle_the_network_views_name_only_the_pair(app):
    train(app)
    goto(app, "gossip")
    fig = chart_figure(app, "gossip_graph")
    assert not [t for t in fig.data if isinstance(t.meta, dict) and "node_labels" in t.meta]
    assert {"Marius", "Thenardier"} <= {name for t in fig.data if t.mode == "markers+text" for name in t.text}
