"""Figure builders: arrays and names in, figures out; invariants a reader of the figure relies on."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

from goat_core import Goat, load_graph, views

from ..conftest import FAST

EVIL = "<b onmouseover=alert(1)>x</b>"


@pytest.fixture(scope="module")
def goat():
    return Goat(**FAST, seed=3).fit(load_graph("lesmis"))


def test_attention_bars_sorted_with_shared_marked():
    fig = views.attention_bars(["a", "b", "c"], [0.2, 0.5, 0.3], shared=["c"], node="s", partner="t")
    bar = fig.data[0]
    assert list(bar.x) == [0.5, 0.3, 0.2]
    assert list(bar.y) == ["b", views.STAR + "c", "a"]
    assert bar.marker.color[1] == views.SHARED_COLOR and bar.marker.color[0] != views.SHARED_COLOR


def test_alignment_outlines_are_the_max_pooled_cells():
    A = np.array([[0.0, 5.0, 1.0],
                  [4.0, 0.0, 2.0]])
    fig = views.alignment_heatmap(A, ["u0", "u1"], ["v0", "v1", "v2"], [0.5, 0.5], [1 / 3] * 3)
    boxes = {(round((s.x0 + s.x1) / 2), round((s.y0 + s.y1) / 2), s.line.color) for s in fig.layout.shapes}
    rows = {(x, y) for x, y, c in boxes if c == views.SOURCE_COLOR}
    cols = {(x, y) for x, y, c in boxes if c == views.TARGET_COLOR}
    assert rows == {(1, 0), (0, 1)}  # row maxima: a_s (Eq. 3)
    assert cols == {(1, 0), (0, 1), (2, 1)}  # column maxima: a_t (Eq. 4)


def test_alignment_heatmap_keeps_the_most_attended_when_large():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(60, 50))
    ps, pt = rng.dirichlet(np.ones(60)), rng.dirichlet(np.ones(50))
    fig = views.alignment_heatmap(A, [f"s{i}" for i in range(60)], [f"t{j}" for j in range(50)], ps, pt)
    assert np.asarray(fig.data[0].z).shape == (views.MAX_MATRIX_SIDE, views.MAX_MATRIX_SIDE)
    assert fig.layout.yaxis.ticktext[0] == f"s{int(np.argmax(ps))}"
    assert "top 40×40 of 60×50" in fig.layout.title.text


def test_network_figure_carries_ids_and_highlights():
    pos = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    fig = views.network_figure(pos, np.array([0, 1, 2]), np.array([1, 2, 3]), ["a", "b", "c", EVIL],
                               np.array([1, 2, 2, 1]), groups=np.array([0, 0, 1, -1]),
                               group_names=("g0", "g1"), highlight={0: "source", 3: "target"})
    ids = sorted(c[0] for t in fig.data if t.mode == "markers" for c in t.customdata)
    assert ids == [0, 1, 2, 3]
    rings = {t.name: list(t.text) for t in fig.data if t.name in ("source", "target")}
    assert rings == {"source": ["a"], "target": [html.escape(EVIL, quote=False)]}
    shown = fig.to_plotly_json()  # customdata holds raw ids and names for the app, never rendered
    for trace in shown["data"]:
        trace.pop("customdata", None)
    assert EVIL not in json.dumps(shown, default=str)


def test_network_figure_samples_edges_by_seed():
    n, m = 50, 400
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    pos = rng.normal(size=(n, 2))
    a = views.network_figure(pos, src, dst, [str(i) for i in range(n)], np.ones(n), max_edges=100, seed=5)
    b = views.network_figure(pos, src, dst, [str(i) for i in range(n)], np.ones(n), max_edges=100, seed=5)
    assert np.array_equal(a.data[0].x, b.data[0].x, equal_nan=True)
    assert len(a.data[0].x) == 3 * 100 and "100 of 400 edges" in a.layout.title.text


@pytest.mark.parametrize("n, webgl", [(views.WEBGL_POINTS, False), (views.WEBGL_POINTS + 1, True)])
def test_large_point_sets_are_drawn_with_webgl(n, webgl):
    rng = np.random.default_rng(0)
    pos, names = rng.normal(size=(n, 2)), [str(i) for i in range(n)]
    src, dst = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    kinds = {"scattergl" if webgl else "scatter"}
    for fig in (views.network_figure(pos, src, dst, names, np.ones(n), groups=np.arange(n) % 3,
                                     group_names=("a", "b", "c"), highlight={0: "source"}),
                views.network_figure(pos, src, dst, names, np.arange(n)),
                views.embedding_scatter(pos, names, groups=np.arange(n) % 3, group_names=("a", "b", "c"),
                                        highlight={1: "target"}),
                views.persona_scatter(pos, np.arange(n), names, node="0", groups=np.arange(n) % 3,
                                      group_names=("a", "b", "c"), highlight={2: "partner A"})):
        assert {trace.type for trace in fig.data} == kinds
        ids = sorted(c[0] for t in fig.data if t.mode == "markers" for c in t.customdata)
        assert ids == list(range(n))  # clicks still name their node


def test_pyvis_page_is_offline_and_escaped():
    page = views.pyvis_html(["a", EVIL], np.array([0]), np.array([1]), np.array([1, 1]))
    assert not re.search(r"""(src|href)\s*=\s*["']https?://""", page)
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1))
    # vis-network draws labels as text: the user's name itself, not its HTML escape ...
    assert [n["label"] for n in nodes] == ["a", EVIL]
    # ... and it cannot close the page's script: the JSON carries < and > as \u003c / \u003e
    assert EVIL not in page and "</script>" not in page.split("nodes = new vis.DataSet(")[1].split(");")[0]
    assert nodes[1]["title"].startswith(f"{EVIL} | ")  # tooltips too: vis-network writes a string as text
    closer = "</script><script>alert(1)</script>"
    page = views.pyvis_html(["a", closer], np.array([0]), np.array([1]), np.array([1, 1]))
    assert closer not in page


def test_pyvis_tooltips_are_escaped_where_pyvis_writes_them_as_html():
    """A tooltip holding "href" makes pyvis write every tooltip with innerHTML: then they are escaped."""
    link = "<img src=x onerror=alert(1) href=y>"
    page = views.pyvis_html(["a", link], np.array([0]), np.array([1]), np.array([1, 1]))
    assert "popup.innerHTML = nodeData[0].title" in page  # pyvis' own popup, as it does today
    nodes = json.loads(re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1))
    assert [n["title"].split(" | ")[0] for n in nodes] == ["a", html.escape(link)]
    assert [n["label"] for n in nodes] == ["a", link]  # labels are drawn on the canvas: as written


def test_ego_view_puts_shared_neighbors_between_the_pair():
    fig = views.ego_figure("s", "t", [1, 2, 3], [3, 4], ["n1", "n2", "n3"], ["n3", "n4"],
                           [0.6, 0.3, 0.1], [0.2, 0.8], source_id=0, target_id=5)
    nodes = next(t for t in fig.data if t.mode == "markers+text" and len(t.x) == 4)
    x = dict(zip([c[1] for c in nodes.customdata], nodes.x, strict=True))
    assert x["n3"] == 0.0 and x["n1"] < 0 < x["n4"]
    sizes = dict(zip([c[1] for c in nodes.customdata], nodes.marker.size, strict=True))
    assert sizes["n4"] > sizes["n1"] > sizes["n2"]  # size follows attention
    partner = {c[1]: c[2] for t in fig.data if t.customdata for c in t.customdata}
    # a click proposes (partner, node): neighbors of s (shared too) pair with s, t's own with t
    assert partner == {"n1": 0, "n2": 0, "n3": 0, "n4": 5, "s": 5, "t": 0}


def test_partner_kinds_and_context_shift_bars():
    fig = views.partners_bar(["a", "b", "c"], [0.9, 0.8, 0.7], ["neighbor", "held out", "new"], node="s")
    assert list(fig.data[0].y) == ["a", "b (held out)", "c (new)"]
    fig = views.context_shift_bars(["x", "y", "z"], [0.7, 0.3, np.nan], [0.1, 0.2, 0.7], node="u",
                                   partner_a="A", partner_b="B")
    assert list(fig.data[0].y) == ["x", "z", "y"] and list(fig.data[0].x) == [0.7, 0.0, 0.3]


def test_training_curve_adds_auc_axis_only_when_present():
    assert len(views.training_curve([{"epoch": 1, "loss": 0.7}]).data) == 1
    fig = views.training_curve([{"epoch": 1, "loss": 0.7, "val_auc": 0.6},
                                {"epoch": 2, "loss": 0.6, "val_auc": 0.7}])
    assert len(fig.data) == 2 and fig.data[1].yaxis == "y2"


def test_scatter_views_carry_node_ids():
    coords = np.arange(8, dtype=float).reshape(4, 2)
    fig = views.embedding_scatter(coords, ["a", "b", "c", "d"], values=np.array([1, 2, 3, 4]))
    assert [c[0] for c in fig.data[0].customdata] == [0, 1, 2, 3]
    fig = views.persona_scatter(coords[:3], np.array([7, 8, 9]), [str(i) for i in range(10)], node="u",
                                groups=np.array([0] * 7 + [1, 1, 0]), group_names=("g0", "g1"),
                                highlight={8: "partner A"})
    ids = sorted(c[0] for t in fig.data if t.hoverinfo == "text" for c in t.customdata)
    assert ids == [7, 8, 9] and any(t.name == "with 8" for t in fig.data)


def test_contingency_rows_by_class_size():
    fig = views.contingency_heatmap(np.array([[1, 0], [5, 5]]), ["small", "big"])
    assert list(fig.data[0].y) == ["big", "small"]


@pytest.mark.parametrize("figure", ["attention", "drivers", "partners", "shift"])
def test_integer_ids_stay_names_and_long_names_are_shortened(figure):
    """Edge lists with integer ids ("0".."1004") must not land on a numeric axis."""
    names = ["100", "7", "800", "Ünïcödé " + "x" * 40]
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    fig = {
        "attention": lambda: views.attention_bars(names, weights, node="0", partner="1"),
        "drivers": lambda: views.drivers_bar(list(zip(names, weights, strict=True))),
        "partners": lambda: views.partners_bar(names, weights, ["new"] * 4, node="0"),
        "shift": lambda: views.context_shift_bars(names, weights, weights[::-1], node="0", partner_a="1",
                                                  partner_b="2"),
    }[figure]()
    axis = fig.layout.yaxis
    assert axis.type == "category"
    assert set(axis.tickvals) == set(fig.data[0].y)
    longest = max(axis.ticktext, key=len)
    assert len(longest) <= views.style.AXIS_LABEL_CHARS and longest.endswith("…")
    assert any("x" * 40 in y for y in fig.data[0].y)  # the whole name stays for the hover


def test_large_embedding_scatters_draw_a_seeded_sample_that_keeps_the_pair():
    n = 1200
    pos, names = np.random.default_rng(0).normal(size=(n, 2)), [f"v{i}" for i in range(n)]
    kwargs = dict(groups=np.arange(n) % 4, group_names=("a", "b", "c", "d"),
                  highlight={7: "source", 1100: "target"}, title="E", max_points=500, seed=2)
    fig = views.embedding_scatter(pos, names, **kwargs)
    drawn = sorted(c[0] for t in fig.data if t.mode == "markers" for c in t.customdata)
    assert len(drawn) == len(set(drawn)) and 500 <= len(drawn) <= 502 and {7, 1100} <= set(drawn)
    for trace in fig.data:  # every drawn point sits where its node was projected
        for (node, name), x in zip(trace.customdata, trace.x, strict=True):
            assert name == names[node] and x == pos[node, 0]
    assert "showing a sample of" in fig.layout.title.text
    again = views.embedding_scatter(pos, names, **kwargs)
    assert drawn == sorted(c[0] for t in again.data if t.mode == "markers" for c in t.customdata)
    whole = views.embedding_scatter(pos[:400], names[:400], groups=np.zeros(400, int), group_names=("a",))
    assert sorted(c[0] for t in whole.data for c in t.customdata) == list(range(400))


def test_attention_bars_carry_ids_and_show_muted_beside_the_models_attention():
    fig = views.attention_bars(["a", "b", "c"], [0.0, 0.7, 0.3], shared=["c"], node="s", partner="t",
                               ids=[10, 11, 12], muted=["a"], baseline=[0.5, 0.3, 0.2], padding=0.0)
    bars, model = fig.data
    assert list(bars.y) == ["a (muted)", "b", views.STAR + "c"]  # the model's order: bars keep their place
    assert list(bars.x) == [0.0, 0.7, 0.3] and list(model.x) == [0.5, 0.3, 0.2]
    assert [list(c) for c in bars.customdata] == [[10, "a"], [11, "b"], [12, "c"]]
    assert list(model.customdata[0]) == [10, "a"]  # a muted bar is clicked through its outline
    assert fig.layout.barmode == "overlay"
    padded = views.attention_bars(["a"], [0.6], ids=[3], padding=0.4)
    assert list(padded.data[0].customdata[-1]) == [-1, views.PADDING_LABEL]
    assert len(views.attention_bars(["a"], [1.0]).data) == 1  # no counterfactual: one trace, as before


def test_attention_replay_has_one_frame_per_epoch_on_a_fixed_axis():
    epochs = [0, 1, 2]
    s_w = np.array([[0.5, 0.5], [0.6, 0.4], [0.9, 0.1]])
    t_w = np.array([[1 / 3] * 3, [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    fig = views.attention_replay(epochs, ["a", "b"], s_w, ["x", "y", "z"], t_w, [0.5, 0.6, 0.8], source="s",
                                 target="t", current=0)
    assert [f.name for f in fig.frames] == ["0", "1", "2"]
    assert list(fig.data[0].x) == [0.5, 0.5] and list(fig.data[1].y) == ["z", "x", "y"]  # last epoch's order
    assert list(fig.frames[2].data[1].x) == [0.8, 0.1, 0.1]
    assert fig.frames[2].layout.title.text == "Epoch 2: p(edge) = 0.800"
    assert fig.layout.title.text == "Epoch 0: p(edge) = 0.500"
    assert fig.layout.xaxis.range == fig.layout.xaxis2.range  # one scale for every frame
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == ["▶ Play", "❚❚ Pause"]


def test_entropy_curve_marks_the_current_epoch():
    fig = views.entropy_curve([0, 1, 2], [1.0, 0.9, 0.8], [1.0, 0.95, 0.7], probability=[0.5, 0.6, 0.7],
                              uniform_probability=[0.5, 0.55, 0.6], source="s", target="t", current=1)
    assert [t.name for t in fig.data] == ["entropy of s's attention", "entropy of t's attention", "p(edge)",
                                          "p(edge), uniform attention"]
    assert fig.layout.shapes[0].x0 == 1
