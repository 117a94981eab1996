"""Teaching aids: projector mode, figure export with the run's configuration, the case study's quiz.

Projector mode is one sidebar toggle (mirrored in the URL as ``projector=1``): larger text
through injected CSS and every chart drawn through :func:`goat_core.views.style.for_projector`
by :func:`ui.parts.chart`. Export renders a figure only when its download button is clicked
(a deferred download): nothing is drawn as an image on an ordinary rerun.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import plotly.graph_objects as go
import streamlit as st

from goat_core.analysis import picking
from goat_core.analysis.quiz import TopNeighborQuestion, Verdict
from goat_core.views import export
from goat_core.views.style import escape_markdown, for_projector

from . import state

PROJECTOR_CSS = """<style>/* goat-projector */
html { font-size: 21px; }
.stMainBlockContainer { max-width: none; }
.stMainBlockContainer p, .stMainBlockContainer li { font-size: 1.2rem !important; line-height: 1.5;
  font-weight: 500; }
.stMainBlockContainer h1 { font-size: 2.6rem !important; }
.stMainBlockContainer h2 { font-size: 2rem !important; }
/* metric labels: a size that fits six to a row, wrapped between words, never cut with "…" */
[data-testid="stMetricLabel"] p { font-size: 1rem !important; }
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * { white-space: normal !important;
  overflow: visible !important; text-overflow: clip !important; height: auto !important;
  word-break: normal !important; overflow-wrap: normal !important; }
</style>"""
QUIZ_KEY = "quiz"  # session state: (run key, {step: Verdict}) of the case study's quiz


# --------------------------------------------------------------------------- projector mode


def projector_on() -> bool:
    return bool(st.session_state.get(state.PROJECTOR_KEY, False))


def projector_toggle() -> None:
    """The sidebar switch; when on, the page's text grows (the charts grow in parts.chart)."""
    st.sidebar.toggle("Projector mode", key=state.PROJECTOR_KEY, help=(
        "For a classroom: larger text, larger figures with thicker lines, black on white. "
        "Shared links keep it on."))
    if projector_on():
        st.html(PROJECTOR_CSS)


def names_toggle() -> None:
    """The sidebar switch that names the key nodes on network views (always on in projector mode)."""
    st.sidebar.toggle("Name the key nodes", key=state.NAMES_KEY, disabled=projector_on(), help=(
        "On the network views: the gossip pair, its shared neighbors and the hubs, named where their "
        "names do not overlap. Always on in projector mode, where nobody can hover."))


def names_on() -> bool:
    return projector_on() or bool(st.session_state.get(state.NAMES_KEY, False))


def key_nodes(graph, focus) -> list[int] | None:
    """The nodes network views name (``picking.key_nodes``), or None when names are off."""
    return picking.key_nodes(graph, focus) if names_on() else None


def styled(fig: go.Figure) -> go.Figure:
    """``fig`` as this session shows it (projected or not)."""
    return for_projector(fig) if projector_on() else fig


# --------------------------------------------------------------------------- figure export


@st.cache_resource(show_spinner=False)
def _export_problem(browser_path: str | None) -> str | None:
    """Looks for a browser on disk: once per server and ``BROWSER_PATH`` value."""
    return export.renderer_problem()


def export_menu(where, fig: go.Figure, key: str, about: Mapping) -> None:
    """An "Export" popover under a chart: SVG and PNG, each made when its button is clicked."""
    stem = "goat-" + re.sub(r"_\d+$", "", key).replace("_", "-")
    problem = _export_problem(os.environ.get("BROWSER_PATH"))
    with where.popover("Export", icon=":material/download:", help="This figure as SVG or PNG, with the "
                       "run's configuration in its caption and its metadata"):
        if problem:
            st.caption(escape_markdown(problem))
        for fmt in export.FORMATS:
            st.download_button(
                fmt.upper(), data=lambda fmt=fmt: export.figure_bytes(fig, fmt, about),
                file_name=f"{stem}.{fmt}", mime=export.FORMATS[fmt], key=f"{key}_export_{fmt}",
                on_click="ignore", disabled=problem is not None, icon=":material/image:",
                help=escape_markdown(problem) if problem else f"This figure as {fmt.upper()}, with the run's "
                                                              "configuration")


# --------------------------------------------------------------------------- the quiz


def _verdicts(run_key: str) -> dict[str, Verdict]:
    """This session's answers for the run ``run_key`` (a new run starts a new quiz)."""
    saved = st.session_state.get(QUIZ_KEY)
    if saved is None or saved[0] != run_key:
        for step in saved[1] if saved is not None else ():
            st.session_state.pop(pick_key(step), None)
        saved = st.session_state[QUIZ_KEY] = (run_key, {})
    return saved[1]


def pick_key(step: str) -> str:
    return f"quiz_pick_{step}"


def _reveal(run_key: str, step: str, question: TopNeighborQuestion) -> None:
    _verdicts(run_key)[step] = question.check(st.session_state.get(pick_key(step)))


def reset_quiz() -> None:
    saved = st.session_state.get(QUIZ_KEY)
    if saved is not None:
        for step in saved[1]:
            st.session_state.pop(pick_key(step), None)
        saved[1].clear()


def quiz_step(question: TopNeighborQuestion, step: str, run_key: str) -> Verdict | None:
    """Guess, then reveal: the verdict once revealed (the page then shows the attention), else None."""
    verdict = _verdicts(run_key).get(step)
    node, partner = escape_markdown(question.node), escape_markdown(question.partner)
    st.radio(f"**Your guess:** which neighbor will {node} attend to most while gossiping with {partner}?",
             question.options, format_func=lambda v: escape_markdown(question.name(v)), index=None,
             horizontal=True, key=pick_key(step), disabled=verdict is not None)
    if verdict is None:
        st.button("Reveal the attention", key=f"quiz_reveal_{step}", type="primary",
                  icon=":material/visibility:", on_click=_reveal, args=(run_key, step, question))
        return None
    answer = escape_markdown(question.name(verdict.answer))
    top = f"**{answer}** ({verdict.answer_weight:.0%} of {node}'s attention)"
    if verdict.guess is None:
        st.info(f"No guess this time. The most attended neighbor: {top}.", icon=":material/visibility:")
    elif verdict.correct:
        st.success(f"Right! {node} attends most to {top}.", icon=":material/check_circle:")
    else:
        guess = escape_markdown(question.name(verdict.guess))
        st.error(f"Not this time: {guess} gets {verdict.guess_weight:.0%} (rank {verdict.guess_rank} of "
                 f"{verdict.options}); the most attended is {top}.", icon=":material/cancel:")
    return verdict


def quiz_score(run_key: str, steps: int) -> int:
    """The score so far and a button that starts the quiz again; returns how many are revealed."""
    verdicts = _verdicts(run_key)
    right = sum(v.correct for v in verdicts.values())
    left, right_col = st.columns([3, 1], vertical_alignment="center")
    left.markdown(f"**Quiz score: {right} of {len(verdicts)} right** ({steps - len(verdicts)} of {steps} "
                  "questions still to reveal)")
    right_col.button("Reset the quiz", key="quiz_reset", icon=":material/restart_alt:", on_click=reset_quiz)
    return len(verdicts)
