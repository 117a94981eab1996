"""Projector mode's figures: everything larger and black on white, the data untouched."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import views
from goat_core.views.style import EDGE_COLOR, PROJECTOR_EDGE_COLOR, PROJECTOR_FONT, for_projector

RNG = np.random.default_rng(0)
NAMES = ["a", "b", "c", "d", "e"]


def figures():
    pos = RNG.random((5, 2))
    return {
        "network": views.network_figure(pos, np.array([0, 1, 2]), np.array([1, 2, 3]), NAMES,
                                        np.array([1, 2, 2, 1, 0]), highlight={0: "source", 1: "target"}),
        "bars": views.attention_bars(NAMES, RNG.random(5), ["a"], node="s", partner="t"),
        "heatmap": views.alignment_heatmap(RNG.random((3, 4)), NAMES[:3], NAMES[1:], RNG.random(3),
                                           RNG.random(4)),
        "curve": views.training_curve([{"epoch": 1, "loss": 0.9}, {"epoch": 2, "loss": 0.5}]),
    }


@pytest.mark.parametrize("name", list(figures()))
def test_fonts_grow_and_the_data_stays(name):
    fig = figures()[name]
    shown = for_projector(fig)
    assert (fig.layout.font.size or 12) < shown.layout.font.size == PROJECTOR_FONT
    assert shown.layout.paper_bgcolor == "#FFFFFF" and shown.layout.font.color == "#000000"
    if fig.layout.height:
        assert shown.layout.height > fig.layout.height
    for before, after in zip(fig.data, shown.data, strict=True):  # same traces, same clicks
        assert before.type == after.type
        assert getattr(before, "customdata", None) == getattr(after, "customdata", None) or np.array_equal(
            before.customdata, after.customdata)
    assert fig.layout.paper_bgcolor is None  # the original is not changed


def test_markers_and_lines_grow_and_edges_darken():
    fig = figures()["network"]
    shown = for_projector(fig)
    edges_before, edges_after = fig.data[0], shown.data[0]
    assert edges_before.line.color == EDGE_COLOR and edges_after.line.color == PROJECTOR_EDGE_COLOR
    assert edges_after.line.width > edges_before.line.width
    nodes = [k for k, t in enumerate(fig.data) if t.marker is not None and t.marker.size is not None]
    assert nodes
    for k in nodes:
        assert np.all(np.asarray(shown.data[k].marker.size) > np.asarray(fig.data[k].marker.size))
    labels = [k for k, t in enumerate(fig.data) if t.textfont is not None and t.textfont.size]
    assert labels and all(shown.data[k].textfont.size > fig.data[k].textfont.size for k in labels)
