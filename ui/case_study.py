"""The Case study page's model: the paper's Les Misérables case study trained with the sidebar's
seed (or fetched: trained ahead after the session's own training, or by another session), and
the hand-over of its pairs to Gossip & attend."""

from __future__ import annotations

import numpy as np
import streamlit as st

import goat_core
from goat_core import views
from goat_core.analysis import quiz
from goat_core.paper import MARIUS, THENARDIER

from . import cache, classroom, jobs, navigation, parts, state, training
from .runs import RunRecord, run_key
from .state import Explorer


def model(ex: Explorer, graph: goat_core.Graph, seed: int) -> RunRecord:
    """The case study's run for ``seed``: waits for the one trained ahead, else trains it here with
    live progress (about 2 s); a failure is one line and ends the page."""
    fp = graph.fingerprint()
    params = training.case_study_params(graph, seed)
    key = run_key(fp, params, 0.0)
    ahead = jobs.job_store().get(f"case-study|{seed}")  # trained ahead once the session trained its own
    if ahead is not None and not ahead.done.is_set() and cache.run_store().get(key) is None:
        with st.spinner(f"Training GOAT on Les Misérables (seed {seed}, about a second)…"):
            ahead.done.wait(120)
    try:
        if cache.run_store().get(key) is not None:
            return training.train(graph, fp, params, 0.0, st.container(), prefix="case", origin="case study")
        with st.status(f"Training GOAT on Les Misérables (seed {seed}, about 2 s)…", expanded=True) as status:
            record = training.train(graph, fp, params, 0.0, status, prefix="case", origin="case study",
                                    track=training.CASE_STUDY_PAIRS)
            status.update(label=f"Trained in {record.seconds:.1f} s (seed {seed})", state="complete",
                          expanded=False)
            return record
    except goat_core.GoatError as err:
        parts.show_error(err)
        parts.stop(ex)
        raise  # not reached: stop() ends the page


def partner_step(record: RunRecord, partner: int, about: dict) -> None:
    """Marius with ``partner``: the class guesses his most attended neighbor, then (once revealed)
    the attention on their shared neighbors, both sides' bars and a sentence."""
    att = record.goat.attention(MARIUS, partner)
    names = record.goat.graph_.names
    if classroom.quiz_step(quiz.top_neighbor_question(att), str(partner), record.key) is None:
        return  # the attention stays hidden until revealed
    mass = att.shared_mass()
    ms, us, mt, ut = mass.source, mass.source_uniform, mass.target, mass.target_uniform
    c = st.columns(3)
    c[0].metric("Shared neighbors", len(att.shared))
    c[1].metric("Marius's attention on them", f"{ms:.0%}", f"{ms - us:+.0%} vs uniform")
    c[2].metric(f"{names[partner]}'s attention on them", f"{mt:.0%}", f"{mt - ut:+.0%} vs uniform")
    a, b = st.columns(2)
    parts.chart(a, views.attention_bars(att.source_names, att.source_attention, att.shared, node="Marius",
                                        partner=names[partner], color=views.SOURCE_COLOR, top=12),
                key=f"case_att_s_{partner}", about=about)
    parts.chart(b, views.attention_bars(att.target_names, att.target_attention, att.shared,
                                        node=names[partner], partner="Marius", color=views.TARGET_COLOR,
                                        top=12), key=f"case_att_t_{partner}", about=about)
    top_s = att.source_names[int(np.argmax(att.source_attention))]
    top_t = att.target_names[int(np.argmax(att.target_attention))]
    st.markdown(f"Shared neighbors ({views.STAR.strip()}): {', '.join(att.shared) or 'none'}. Marius's "
                f"strongest attention goes to **{top_s}**, {names[partner]}'s to **{top_t}**; edge "
                f"probability σ(r·r) = **{att.probability:.2f}**.")


def explore_button(ex: Explorer, graph: goat_core.Graph, record: RunRecord) -> None:
    """Make the case study's graph, run and first pair the session's, then open Gossip & attend."""
    if st.button("Explore these pairs yourself", key="case_explore", type="primary",
                 icon=":material/arrow_forward:"):
        if ex.graph_fp != record.graph_fp:
            state.set_graph(ex, graph, "lesmis")
        ex.runs[record.graph_fp] = record
        state.set_pair(ex, MARIUS, THENARDIER)
        st.switch_page(navigation.GOSSIP_PAGE)
