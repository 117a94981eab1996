"""The Scores page's ranking metrics: each held-out edge ranked against 100 negatives of its own
(:mod:`goat_core.analysis.ranking`), random or hard, for GOAT, its global embeddings, the heuristics and,
once the background job has them, DeepWalk and node2vec, all on the same negatives."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import goat_core
from goat_core.analysis.baselines import HEURISTICS
from goat_core.analysis.node2vec import WALK_METHODS
from goat_core.analysis.ranking import (
    DEFAULT_PER_POSITIVE,
    HITS_AT,
    RANKING_NEGATIVES,
    evaluate_goat_ranking,
    rank_heuristics,
    ranking_negatives,
    ranks_without_pair_loop,
)
from goat_core.precompile import STEPS

from . import warmup
from .runs import RunRecord

# The warm-up's compile child reports "k/n" once k of its steps are done: ranking's compiled loops
# (the hard and random negatives, the heuristics, the Gram mode) are in numba's disk cache from the
# first on; the per-pair scoring loops (mean pooling, graphs too large for the Gram mode) from the second.
RANKING_READY_AT = list(STEPS).index("ranking loops") + 1
SCORING_READY_AT = list(STEPS).index("scoring loops") + 1

NUMBER = st.column_config.NumberColumn(format="%.3f")
ABOUT = {"random": "drawn uniformly among the non-edges that share a node with the edge",
         "hard": "the non-edges sharing a node with the edge that resource allocation (a neighborhood "
                 "heuristic) finds most plausible, as in HeaRT"}


@st.cache_data(show_spinner=False, max_entries=16)
def ranking(run_key: str, kind: str, _goat: goat_core.Goat, _split: goat_core.EdgeSplit) -> dict[str, dict]:
    """Method -> MRR and Hits@K on the run's held-out edges against ``kind`` negatives."""
    negatives = ranking_negatives(_split, kind, DEFAULT_PER_POSITIVE)
    out = {"GOAT": evaluate_goat_ranking(_goat, negatives),
           "global E": negatives.evaluate(_goat.global_scores)}
    out.update({HEURISTICS[name]: r for name, r in rank_heuristics(_split, negatives).items()})
    return out


def rows(found: dict[str, dict]) -> list[dict]:
    return [{"method": name, "MRR": r["mrr"], **{f"Hits@{k}": r[f"hits@{k}"] for k in HITS_AT}}
            for name, r in found.items()]


def loops_ready(goat: goat_core.Goat | None) -> bool:
    """Whether ranking ``goat`` (None: any model) can start without compiling: the warm-up's child has
    cached the loops it takes (or the warm-up is over, failed included: then they compile here, as
    without a warm-up)."""
    gram = goat is not None and ranks_without_pair_loop(goat)
    snap = warmup.warm_up().snapshot()
    return snap.finished or snap.done >= (RANKING_READY_AT if gram else SCORING_READY_AT)


def section(run: RunRecord, walked: dict) -> None:
    """The choice of negatives and the table (walk methods join once their job is done). On a fresh
    server the table waits, without holding the page, for the warm-up to compile ranking's loops."""
    assert run.split is not None
    st.subheader("Ranking: each held-out edge against its own negatives")
    kind = st.radio("Negatives", RANKING_NEGATIVES, horizontal=True, key="scores_ranking_kind")
    if not loops_ready(run.goat):
        _wait_for_loops(run.goat)
        return
    found = dict(ranking(run.key, kind, run.goat, run.split))
    found.update({WALK_METHODS[name]: r["ranking"][kind] for name, r in walked.items() if "ranking" in r})
    numbers = {c: NUMBER for c in ["MRR", *(f"Hits@{k}" for k in HITS_AT)]}
    st.dataframe(pd.DataFrame(rows(found)), hide_index=True, key="scores_ranking_table",
                 column_config=numbers)
    st.caption(f"Each of the {next(iter(found.values()))['positives']:,} held-out edges is ranked among "
               f"{DEFAULT_PER_POSITIVE} negatives {ABOUT[kind]}. MRR is the mean of 1/rank, Hits@K the share "
               "ranked in the top K; a tie counts half (a model scoring every pair alike ranks each edge in "
               "the middle).")


def _wait_for_loops(goat: goat_core.Goat) -> None:
    """A line in place of the table while the loops compile, polled every 2 s (a fragment: the page
    itself is not rerun); once they are ready, one full rerun draws the table."""

    @st.fragment(run_every=2.0)
    def poll() -> None:
        if loops_ready(goat):
            st.rerun(scope="app")
        snap = warmup.warm_up().snapshot()
        step = f"step {snap.done + 1} of {snap.total}, {snap.step}" if snap.total else "starting"
        st.info(f"The ranking table comes once its compiled loops are built in the background on this new "
                f"server ({step}, {snap.elapsed:.0f} s); the rest of the page is ready.")

    poll()
