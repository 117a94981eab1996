"""The Scores page's "Runs side by side": GOAT's variants trained on the current run's split.

Every other variant (and padding) is trained with the current run's parameters and seed on the
very same training edges (``run.split.train``), then all of them score the same held-out edges
and non-edges (:func:`goat_core.analysis.compare.compare_runs`). The runs are kept in the session
(``Explorer.side_by_side``, by the base run's key) and in the shared run store, under a key
that names the base run, so another session comparing the same run gets them at once.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

import goat_core
from goat_core import views
from goat_core.analysis.compare import Comparison, compare_runs, run_name, variant_params

from . import cache, navigation, parts, state, training
from .runs import RunRecord, with_backend
from .state import Explorer

CHART = "compare_duel"
CHOICES = tuple(variant_params({"padding": "zero"}, goat_core.VARIANTS, goat_core.PADDINGS))


def own_name(run: RunRecord) -> str:
    return run_name(run.goat.variant, run.goat.padding)


def configs(run: RunRecord, chosen: list[str]) -> dict[str, dict]:
    """Name -> parameters for the chosen runs, the current run's own name first."""
    base = {k: v for k, v in run.params.items() if k != "backend"}  # each variant takes the app's own path
    edges = run.goat.graph_.num_edges + (len(run.split.test_pos) if run.split is not None else 0)
    params = {name: with_backend(p, edges)
              for name, p in variant_params(base, goat_core.VARIANTS, goat_core.PADDINGS).items()}
    params[own_name(run)] = dict(run.params)
    return {name: params[name] for name in [own_name(run)] + [c for c in chosen if c != own_name(run)]}


def train_variants(ex: Explorer, run: RunRecord, chosen: list[str]) -> dict[str, RunRecord]:
    """Train what is missing (live progress, one bar per run); the current run is reused."""
    assert run.split is not None  # the section only offers training with a held-out split
    kept = ex.side_by_side.setdefault(run.key, {own_name(run): run})
    store = cache.run_store()
    todo = {n: p for n, p in configs(run, chosen).items() if n not in kept}
    with st.status(f"Training {len(todo)} run(s) on the same {run.split.train.num_edges:,} training edges…",
                   expanded=True) as status:
        for name, params in todo.items():
            key = side_key(run, name)
            found = store.get(key)
            if found is None:
                status.write(f"**{parts.md(name)}**")
                training.wait_for_compiled(params, status)
                goat = goat_core.Goat(**params)
                started = time.perf_counter()
                goat.fit(run.split.train, callback=training.LiveProgress(status, f"compare_{name}"),
                         validation=(run.split.test_pos, run.split.test_neg))  # as the Train page: live AUC
                found = RunRecord(key=key, goat=goat, graph_fp=run.graph_fp, params=dict(params),
                                  holdout=run.holdout, split=run.split, seconds=time.perf_counter() - started,
                                  origin="side by side", history=list(goat.history_))
                store.put(found)
            kept[name] = found
        status.update(label="Runs trained", state="complete", expanded=False)
    st.session_state.pop(training.PROGRESS_KEY, None)
    return kept


def stored(ex: Explorer, run: RunRecord, names: list[str]) -> dict[str, RunRecord]:
    """This session's runs beside ``run``, with those the shared store holds (trained before this
    refresh, or by another session): a refresh or a link finds the comparison as it was."""
    kept = ex.side_by_side.setdefault(run.key, {own_name(run): run})
    for name in names:
        found = kept.get(name) or cache.run_store().get(side_key(run, name))
        if found is not None:
            kept[name] = found
    return kept


def side_key(run: RunRecord, name: str) -> str:
    return f"{run.key}|side-by-side|{name}"


@st.cache_data(show_spinner=False, max_entries=16)
def comparison(key: str, names: tuple[str, ...], _split: goat_core.EdgeSplit,
               _records: dict[str, RunRecord]) -> Comparison:
    return compare_runs(_split, {name: _records[name].goat for name in names})


def section(ex: Explorer, run: RunRecord) -> None:
    """The whole section: the chooser and button, then the table, the matrix and the duel."""
    clicked = state.take_edge_click(ex, CHART)  # before anything is drawn: the sidebar shows the new pair
    st.header("Runs side by side")
    if run.split is None:
        st.caption("Needs a run trained with held-out edges (see above).")
        return
    mine = own_name(run)
    st.caption(f"GOAT's variants trained with this run's settings and seed ({run.seed}) on the same "
               f"{run.split.train.num_edges:,} training edges, scored on the same held-out edges and "
               "non-edges. "
               "Scores of different variants live on different scales, so each run ranks the test pairs and "
               "a held-out edge is **won** by the run that ranks it higher (rank percentile; equal = a tie). "
               "mean-pool is the authors' code (tanh + mean pooling); global is GoatGlobal (E_s·E_t); zero / "
               "mask is the padding.")
    others = [c for c in CHOICES if c != mine]
    kept = stored(ex, run, others)
    # every other run at first; chosen beside another run: keep what this one offers
    wanted = st.session_state.get("compare_runs", others)
    st.session_state["compare_runs"] = [c for c in wanted if c in others]
    chosen = st.multiselect(f"Train beside this run ({mine})", others, key="compare_runs",
                            help=f"Each takes about as long as this run did ({run.seconds:.1f} s).")
    missing = [c for c in chosen if c not in kept]
    if st.button(f"Train {len(missing)} run(s) side by side" if missing else "Every chosen run is trained",
                 key="compare_train", type="primary", disabled=not missing, icon=":material/compare_arrows:"):
        try:
            train_variants(ex, run, chosen)
        except goat_core.GoatError as err:  # cancelled, diverged, bad parameters: one line
            parts.show_error(err)
            return
        st.rerun()  # draw the section again from the top: the button now says every run is trained
    names = tuple(n for n in [mine] + chosen if n in kept)
    if len(names) < 2:
        st.info("Train at least one other run to compare this one with.")
        return
    found = comparison(f"{run.key}|{names}", names, run.split, kept)
    results(ex, found, kept, mine, clicked)


def results(ex: Explorer, found: Comparison, kept: dict[str, RunRecord], mine: str,
            clicked: tuple[int, int] | None) -> None:
    wins = found.wins()
    rows = [{"run": name + (" (this run)" if name == mine else ""), "AUC": found.auc[k], "AP": found.ap[k],
             "edges won (all duels)": int(wins[k].sum()), "epochs": len(kept[name].goat.history_),
             "seconds": kept[name].seconds} for k, name in enumerate(found.names)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="compare_table",
                 column_config={"AUC": st.column_config.NumberColumn(format="%.3f"),
                                "AP": st.column_config.NumberColumn(format="%.3f"),
                                "seconds": st.column_config.NumberColumn(format="%.1f")})
    left, right = st.columns([2, 3])
    parts.chart(left, views.wins_heatmap(found.names, wins, found.num_edges), key="compare_wins")
    left.caption(f"{found.num_edges} held-out edges: each cell is how many of them the row's run ranks above "
                 "the column's; the rest of a duel is ties.")
    with right:
        duel(ex, found, mine, clicked)


def duel(ex: Explorer, found: Comparison, mine: str, clicked: tuple[int, int] | None) -> None:
    names = list(found.names)
    a_col, b_col = st.columns(2)
    parts.valid_choice("compare_a", names, mine)
    run_a = a_col.selectbox("Run A (x)", names, key="compare_a")
    rest = [n for n in names if n != run_a]
    parts.valid_choice("compare_b", rest, rest[0])
    run_b = b_col.selectbox("Run B (y)", rest, key="compare_b")
    i, j = found.index(run_a), found.index(run_b)
    fig = views.edge_duel(found.percentiles[i], found.percentiles[j], found.pairs, found.labels,
                          ex.names, run_a=run_a, run_b=run_b, highlight=ex.pair)
    parts.chart(st, fig, key=state.chart_key(ex, CHART), on_select="rerun", selection_mode="points")
    if clicked is not None:
        s, t = (ex.names[v] for v in clicked)
        kind = "a held-out edge" if ex.graph.has_edge(*clicked) else "a non-edge"
        st.success(f"Gossip pair: {parts.md(s)} ↔ {parts.md(t)} ({kind}: no run here trained on it).")
        st.page_link(navigation.GOSSIP_PAGE, label="Open it on Gossip & attend", icon=":material/forum:")
    else:
        st.caption("Above the diagonal, run B ranks the pair higher than run A does. Click an edge to make "
                   "it the gossip pair, then open it on Gossip & attend.")
