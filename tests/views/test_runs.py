"""Figures of runs side by side and of context spread: arrays and names in, figures out."""

from __future__ import annotations

import json

import numpy as np

from goat_core import views

EVIL = "<b onmouseover=alert(1)>x</b>"


def rendered(fig) -> str:
    """The figure as drawn: customdata (raw ids and names for the app, never rendered) left out."""
    shown = fig.to_plotly_json()
    for trace in shown["data"]:
        trace.pop("customdata", None)
    return json.dumps(shown, default=str)


def test_wins_heatmap_says_won_and_lost_per_duel():
    wins = np.array([[0, 7, 9], [2, 0, 4], [1, 5, 0]])
    fig = views.wins_heatmap(["a", "b", EVIL], wins, 10)
    text = fig.data[0].text
    assert text[0][1] == "7 won · 2 lost" and text[1][0] == "2 won · 7 lost" and text[2][2] == ""
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z[0, 1] == 0.7 and np.isnan(z[1, 1])
    assert EVIL not in rendered(fig)


def test_edge_duel_splits_the_edges_by_winner_and_carries_the_pair():
    pairs = np.array([[0, 1], [1, 2], [2, 3], [0, 3], [1, 3]])
    labels = np.array([1, 1, 1, 0, 0])
    pa, pb = np.array([0.9, 0.5, 0.2, 0.4, 0.3]), np.array([0.6, 0.5, 0.8, 0.1, 0.7])
    names = ["a", "b", EVIL, "d"]
    fig = views.edge_duel(pa, pb, pairs, labels, names, run_a="A", run_b="B", highlight=(3, 2))
    by_name = {t.name: t for t in fig.data}
    assert [c[:2] for c in by_name["edges A ranks higher"].customdata] == [[0, 1]]
    assert [c[:2] for c in by_name["edges B ranks higher"].customdata] == [[2, 3]]
    assert [c[:2] for c in by_name["edges tied"].customdata] == [[1, 2]]
    assert len(by_name["non-edges (lower is better)"].customdata) == 2
    assert by_name["edges B ranks higher"].customdata[0][2] == EVIL  # the app reads names from here
    ring = by_name["gossip pair"]  # the pair (3, 2) is the edge (2, 3), either way round
    assert (ring.x[0], ring.y[0]) == (0.2, 0.8)
    assert EVIL not in rendered(fig)
    assert "gossip pair" not in {t.name for t in views.edge_duel(pa, pb, pairs, labels, names, run_a="A",
                                                                  run_b="B", highlight=(0, 2)).data}


def test_spread_vs_degree_carries_ids_by_persona_count():
    fig = views.spread_vs_degree(np.array([0.0, 0.4, 0.9]), np.array([1, 5, 8]), np.array([1, 1, 2]),
                                 ["a", EVIL, "c"], highlight=2)
    ids = {t.name: [c[0] for c in t.customdata] for t in fig.data if t.customdata is not None}
    assert ids == {"1 persona": [0, 1], "2 personas": [2]}
    assert EVIL not in rendered(fig)
