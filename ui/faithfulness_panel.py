"""The Gossip & attend page's "Does attention explain the score?" panel, beside the attention bars:
each neighbor's attention weight against the drop in score when it is muted
(:mod:`goat_core.analysis.faithfulness`), their rank correlations, and a sentence saying what they mean."""

from __future__ import annotations

import streamlit as st

import goat_core
from goat_core import NodeIndex, views
from goat_core.analysis.faithfulness import Faithfulness, explain, faithfulness

from . import parts
from .gossip import PairView
from .parts import md
from .runs import RunRecord
from .state import Explorer


@st.cache_data(show_spinner=False, max_entries=64)
def pair_faithfulness(run_key: str, source: int, target: int, _goat: goat_core.Goat) -> Faithfulness:
    """One forward pass per neighbor, batched: cached per run and pair."""
    return faithfulness(_goat, NodeIndex(source), NodeIndex(target))


def panel(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    st.subheader("Does attention explain the score?")
    if run.goat.variant == "global":
        st.info("GoatGlobal has no attention to explain.")
        return
    s, t = ex.pair
    found = pair_faithfulness(run.key, int(s), int(t), run.goat)
    e = found.effects
    left, right = st.columns([3, 2])
    fig = views.faithfulness_scatter(found.names, e.weights, e.effects, e.sides, source=found.source,
                                     target=found.target)
    parts.chart(left, fig, key="faith_scatter")
    rho = "—" if found.spearman is None else f"{found.spearman:.2f}"
    right.metric("Spearman ρ (attention vs effect)", rho)
    right.metric("Kendall τ", "—" if found.kendall is None else f"{found.kendall:.2f}")
    right.markdown(md(explain(found)))
    st.caption("Each point is a neighbor: its attention (x; a shared neighbor's two sides added) and how "
               "much the score r_s·r_t drops when it is muted, as a click on its bar does (y). The model's "
               "own attention, whatever is muted above.")
