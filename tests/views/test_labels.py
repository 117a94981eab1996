"""Names on the network views for a room: the pair, its shared neighbors and the hubs, no two overlapping."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from goat_core import NodeIndex, load_graph, views
from goat_core.analysis import layouts, picking
from goat_core.views import labels
from goat_core.views.style import for_projector

MARIUS, THENARDIER, GAVROCHE = map(NodeIndex, (55, 25, 48))  # positions, not names


def overlapping(boxes: list[labels.Box]) -> list[tuple[int, int]]:
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2) if a.overlaps(b)]


def names_trace(fig):
    found = [t for t in fig.data if isinstance(t.meta, dict) and "node_labels" in t.meta]
    assert len(found) == 1
    return found[0]


@pytest.fixture(scope="module")
def lesmis():
    graph = load_graph("lesmis")
    return graph, layouts.layout(graph, 0)


def test_key_nodes_are_the_pair_then_shared_neighbors_then_hubs(lesmis):
    graph, _ = lesmis
    keys = picking.key_nodes(graph, (MARIUS, THENARDIER), hubs=5)
    mine, theirs = (set(picking.neighbors(graph, v).tolist()) for v in (MARIUS, THENARDIER))
    shared = mine & theirs
    assert keys[:2] == [MARIUS, THENARDIER]
    assert set(keys[2:2 + len(shared)]) == shared
    hubs = [int(v) for v in np.argsort(-graph.degrees(), kind="stable")[:5]]
    assert set(hubs) <= set(keys) and len(keys) == len(set(keys))


def test_greedy_placement_never_overlaps_and_skips_what_does_not_fit():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 300, size=(60, 2))  # crowded: 60 names on 300 x 300 px
    names = [f"node number {k}" for k in range(60)]
    spots = labels.place(xy, [6.0] * 60, names, 14, required=2)
    boxes = [labels.text_box(x, y, 6.0, n, 14, s) for (x, y), n, s in zip(xy, names, spots, strict=True) if s]
    assert boxes and not overlapping(boxes)
    assert None in spots  # some had to be left out
    assert spots[0] is not None and spots[1] is not None  # the pair is named, over other nodes if it must


@pytest.mark.parametrize("projected", [False, True], ids=["normal", "projector"])
def test_the_whole_graph_names_the_pair_and_no_two_names_overlap(lesmis, projected):
    graph, pos = lesmis
    keys = picking.key_nodes(graph, (MARIUS, THENARDIER))
    fig = views.network_figure(pos, graph.src, graph.dst, graph.names, graph.degrees(), labels=keys,
                               highlight={MARIUS: "source", THENARDIER: "target"})
    if projected:
        fig = for_projector(fig)
    trace = names_trace(fig)
    assert {"Marius", "Thenardier"} <= set(trace.text) and len(trace.text) >= 6
    assert not overlapping(labels.drawn_boxes(fig))
    assert all(t.mode == "markers" for t in fig.data if t.name in ("source", "target"))  # rings unnamed
    if projected:
        assert trace.textfont.size == pytest.approx(labels.LABEL_SIZE * 1.5)


def test_without_labels_the_view_is_unchanged(lesmis):
    graph, pos = lesmis
    fig = views.network_figure(pos, graph.src, graph.dst, graph.names, graph.degrees(),
                               highlight={MARIUS: "source"})
    assert not [t for t in fig.data if isinstance(t.meta, dict) and "node_labels" in t.meta]
    assert next(t for t in fig.data if t.name == "source").mode == "markers+text"


def test_the_ego_view_in_projector_mode_names_without_overlap(lesmis):
    graph, _ = lesmis
    from goat_core import Goat

    goat = Goat(dim=8, neighborhood=40, epochs=1, validation_fraction=0.0, backend="torch", seed=0).fit(graph)
    att = goat.attention(MARIUS, THENARDIER)
    fig = views.ego_figure(att.source, att.target, att.source_neighbors, att.target_neighbors,
                           att.source_names, att.target_names, att.source_attention, att.target_attention,
                           source_id=MARIUS, target_id=THENARDIER, placed_names=True)
    fig = for_projector(fig)
    trace = names_trace(fig)
    assert {"Marius", "Thenardier"} <= set(trace.text)
    assert not overlapping(labels.drawn_boxes(fig))


def inside_the_plot(fig) -> bool:
    """Every drawn name lies inside the frame the figure shows (the axes' ranges are that frame)."""
    trace = names_trace(fig)
    meta = trace.meta["node_labels"]
    frame = labels.frame(meta, fig.layout.height)
    x0, x1, y0, y1 = meta["extent"]
    dx, dy = (x1 - x0) * meta["pad"], (y1 - y0) * meta["pad"]
    assert list(fig.layout.xaxis.range) == pytest.approx([x0 - dx, x1 + dx])
    assert list(fig.layout.yaxis.range) == pytest.approx([y0 - dy, y1 + dy])
    return all(box.inside(frame) for box in labels.drawn_boxes(fig))


def test_the_case_studys_three_nodes_are_all_named_in_projector_mode(lesmis):
    """The case study rings Marius and both partners: each is named, Gavroche too."""
    graph, pos = lesmis
    keys = picking.key_nodes(graph, (MARIUS, THENARDIER, GAVROCHE))
    fig = for_projector(views.network_figure(
        pos, graph.src, graph.dst, graph.names, graph.degrees(), labels=keys, height=560,  # the page's
        highlight={MARIUS: "focus", THENARDIER: "partner A", GAVROCHE: "partner B"}))
    assert {"Marius", "Thenardier", "Gavroche"} <= set(names_trace(fig).text)
    assert not overlapping(labels.drawn_boxes(fig)) and inside_the_plot(fig)


def test_no_name_runs_past_the_edge_of_the_ego_view(lesmis):
    """The ego view's outer arcs end at the plot's sides: their names go beside them, inside the
    plot, or are left out; none is cut off by the plot's edge."""
    graph, _ = lesmis
    from goat_core import Goat

    goat = Goat(dim=8, neighborhood=40, epochs=1, validation_fraction=0.0, backend="torch", seed=0).fit(graph)
    att = goat.attention(MARIUS, THENARDIER)
    fig = for_projector(views.ego_figure(
        att.source, att.target, att.source_neighbors, att.target_neighbors, att.source_names,
        att.target_names, att.source_attention, att.target_attention, source_id=MARIUS,
        target_id=THENARDIER, placed_names=True))
    assert inside_the_plot(fig) and not overlapping(labels.drawn_boxes(fig))
    assert len(names_trace(fig).text) >= 12  # most of both neighborhoods still named


def test_on_a_webgl_graph_the_names_are_webgl_too():
    """Above WEBGL_POINTS nodes the points are drawn on a WebGL canvas, which covers SVG traces: an
    SVG text trace of names was invisible on a 10k-node upload (seen in the browser). The names
    are then drawn by a WebGL text trace, over the points."""
    import networkx as nx

    from goat_core.data.graph import from_networkx

    graph = from_networkx(nx.barabasi_albert_graph(views.WEBGL_POINTS + 500, 2, seed=0))
    pos = layouts.layout(graph, 0)
    keys = picking.key_nodes(graph, (NodeIndex(0), NodeIndex(1)))
    fig = views.network_figure(pos, graph.src, graph.dst, graph.names, graph.degrees(), labels=keys)
    named = [t for t in fig.data if t.name == "names"]
    assert len(named) == 1 and named[0].type == "scattergl" and len(named[0].text) >= 2
    assert all(t.type == "scattergl" for t in fig.data if t.name != "names")  # the same canvas
    small = views.network_figure(pos[:50], graph.src[:0], graph.dst[:0], graph.names[:50],
                                 graph.degrees()[:50], labels=[0, 1])
    assert [t.type for t in small.data if t.name == "names"] == ["scatter"]
