"""The equations on one pair: the float64 recomputation lands on the model's own score under
every pooling and padding, the pads are counted, and each step has its text."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, views
from goat_core.analysis.equations import pair_equations, step_text

from ..conftest import FAST


@pytest.mark.parametrize("variant", ["goat", "mean-pool"])
@pytest.mark.parametrize("padding", ["zero", "mask"])
def test_recomputed_score_is_the_models(planted, variant, padding):
    goat = Goat(**dict(FAST, variant=variant, padding=padding, neighborhood=12)).fit(planted)
    for s, t in [(0, 1), (3, 60), (17, 18)]:
        eq = pair_equations(goat, s, t)
        assert abs(eq.score - eq.model_score) < 1e-4
        assert abs(eq.p_s.sum() + eq.pad_share_s - 1) < 1e-9 and abs(eq.p_t.sum() + eq.pad_share_t - 1) < 1e-9
        att = goat.attention(s, t)
        assert np.allclose(eq.p_s, att.source_attention, atol=1e-5)
        assert np.allclose(eq.p_t, att.target_attention, atol=1e-5)
        assert np.allclose(eq.r_s, att.r_source, atol=1e-5)
        if padding == "mask":
            assert eq.pads_s == eq.pads_t == 0 and eq.pad_share_s == 0.0


def test_zero_pads_are_counted_and_win_negative_rows(planted):
    goat = Goat(**dict(FAST, padding="zero", neighborhood=40)).fit(planted)  # every side has pads
    eq = pair_equations(goat, 0, 1)
    assert eq.pads_s == 40 - len(eq.S) and eq.pads_t == 40 - len(eq.T) and eq.pad_share_s > 0
    assert np.all(eq.a_s >= 0.0)  # the other side's pads offer 0 to every row
    negative = (eq.A.max(1) < 0)
    assert np.array_equal(eq.row_winner == -1, negative)


def test_max_pooling_winners_hold_the_maxima(planted):
    goat = Goat(**dict(FAST, padding="mask")).fit(planted)
    eq = pair_equations(goat, 5, 6)
    assert np.allclose(eq.a_s, eq.A[np.arange(len(eq.a_s)), eq.row_winner])
    assert np.allclose(eq.a_t, eq.A[eq.col_winner, np.arange(len(eq.a_t))])


def test_every_step_has_a_formula_numbers_and_a_figure(planted):
    goat = Goat(**FAST).fit(planted)
    eq = pair_equations(goat, 0, 1)
    for step in views.STEPS:
        formula, numbers = step_text(eq, step)
        assert formula and numbers
        fig = views.pooling_figure(eq.A, eq.source_names, eq.target_names, eq.a_s, eq.a_t, eq.p_s, eq.p_t,
                                   eq.row_winner, eq.col_winner, step=step)
        outlined = len(fig.layout.shapes)
        assert outlined == (0 if step in ("alignment", "score") else
                            len(eq.a_s) if step == "row maxima" else
                            len(eq.a_t) if step == "column maxima" else len(eq.a_s) + len(eq.a_t))
    assert f"{eq.score:.4f}" in step_text(eq, "score")[1]
    with pytest.raises(ValueError, match="step must be one of"):
        views.pooling_figure(eq.A, eq.source_names, eq.target_names, eq.a_s, eq.a_t, eq.p_s, eq.p_t,
                             eq.row_winner, eq.col_winner, step="magic")


def test_names_are_escaped_in_text_and_figures():
    import networkx as nx

    from goat_core.data.graph import from_networkx

    g = nx.Graph([("<b>x</b>", "*y*"), ("*y*", "z"), ("z", "<b>x</b>"), ("z", "w")])
    goat = Goat(**dict(FAST, neighborhood=3)).fit(from_networkx(g, source="odd"))
    eq = pair_equations(goat, "<b>x</b>", "*y*")
    assert "<b>" not in step_text(eq, "alignment")[1]
    fig = views.vectors_heatmap({"<b>x</b>": eq.r_s}, [0, 1], title="S: <b>x</b>'s neighbors")
    assert "<b>" not in fig.layout.title.text and "<b>" not in "".join(fig.layout.yaxis.ticktext)
