"""Training with a live progress bar and loss/AUC chart, through the shared run store.

Every training tracks the attention of a few pairs over the epochs (``Goat.fit(track_pairs=...)``):
the current gossip pair and, on Les Misérables, the case study's pairs. A pair tracked by no
run can be added later by replaying the run's training, which is seeded: the same model again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import streamlit as st

import goat_core
from goat_core import presets, views
from goat_core.analysis import picking
from goat_core.data.graph import NodeIndex
from goat_core.paper import GAVROCHE, MARIUS, THENARDIER

from . import cache, classroom, warmup
from .runs import RunRecord, run_key, with_backend

PROGRESS_KEY = "training_progress"  # (epoch, epochs) of the training under way, for "cancelled at"
STAGES = {"select": "choosing the epochs (early stopping on the carve-out; at most) · ",
          "train": ""}


class LiveProgress:
    """A ``Goat.fit`` callback drawing a progress bar and, at epoch ends, the loss/AUC chart.

    The bar is redrawn at most every ``every`` seconds and the chart every ``chart_every``
    (drawing costs more than a Les Misérables epoch). The bar update is also where a click
    elsewhere in the app interrupts the training (Streamlit stops the script at its next
    element update), which is how the Cancel button works.
    """

    def __init__(self, area, prefix: str, every: float = 0.25, chart_every: float = 1.0):
        self.bar = area.progress(0.0, text="starting…")
        self.chart = area.empty()
        self.prefix = prefix
        self.every, self.chart_every = every, chart_every
        self.last = 0.0
        self.last_chart = 0.0
        self.history: list[dict] = []
        self.val_auc: float | None = None
        self.stage = ""

    def __call__(self, progress: goat_core.Progress) -> bool:
        now = time.perf_counter()
        st.session_state[PROGRESS_KEY] = (progress.epoch, progress.epochs)
        if progress.stage != self.stage:  # early stopping's run ends; the kept model's begins
            self.stage, self.history, self.val_auc = progress.stage, [], None
        if progress.epoch_end:
            row = {"epoch": progress.epoch, "loss": progress.loss}
            if progress.val_auc is not None:
                row["val_auc"] = self.val_auc = progress.val_auc
            self.history.append(row)
        last_epoch = progress.epoch_end and progress.epoch == progress.epochs
        if now - self.last >= self.every or last_epoch:
            auc = f" · validation AUC {self.val_auc:.3f}" if self.val_auc is not None else ""
            self.bar.progress(min(progress.fraction, 1.0), text=(
                f"{STAGES.get(progress.stage, '')}epoch {progress.epoch}/{progress.epochs}"
                f" · step {progress.step}/{progress.steps_per_epoch}"
                f" · loss {progress.loss:.4f}{auc} · {progress.elapsed:.1f} s{eta(progress)}"))
            self.last = now
        if progress.epoch_end and (now - self.last_chart >= self.chart_every or last_epoch):
            self.chart.plotly_chart(classroom.styled(views.training_curve(self.history)),
                                    key=f"{self.prefix}_curve_{progress.stage}_{progress.epoch}")
            self.last_chart = now
        return True


def eta(progress: goat_core.Progress) -> str:
    """" · about N s left", from the pace so far (nothing until 2% is done: too noisy before)."""
    fraction = min(progress.fraction, 1.0)
    if fraction < 0.02 or fraction >= 1.0:
        return ""
    left = progress.elapsed * (1.0 - fraction) / fraction
    return f" · about {left:.0f} s left" if left < 120 else f" · about {left / 60:.0f} min left"


CASE_STUDY_PAIRS = ((MARIUS, THENARDIER), (MARIUS, GAVROCHE))
def path_name(goat: goat_core.Goat) -> str:
    """How a run was computed, for captions: "torch (nothing compiled)", "fused (compiled)"…"""
    backend = getattr(goat, "backend_", goat.backend)
    return {"torch": "torch (nothing compiled)", "fused": "fused (compiled loops)",
            "module": "module (plain autograd)"}.get(backend, backend)


def wait_for_compiled(params: dict, area) -> None:
    """Before a training on a compiled path: wait, with the compile's progress in ``area``, for the
    server's warm-up to have the fused loops loaded (a click elsewhere stops the wait)."""
    warm = warmup.warm_up()
    if params.get("backend") == "torch" or warm.fused_ready.is_set():
        return
    line = area.empty()
    while not warm.wait_fused(0.5):
        snap = warm.snapshot()
        step = f"step {snap.done + 1}/{snap.total}: {snap.step}, " if snap.total else ""
        line.caption(f"Waiting for the fused training loops, compiled once per install in the background "
                     f"({step}{snap.elapsed:.0f} s so far)…")
    line.empty()


def pairs_to_track(graph: goat_core.Graph, pair: tuple[int, int] | None = None) -> list[tuple[int, int]]:
    """The pairs a training in the app tracks: ``pair`` (the current gossip pair) and, on the
    paper's Les Misérables, the case study's Marius–Thenardier and Marius–Gavroche."""
    pairs = [(int(pair[0]), int(pair[1]))] if pair is not None else []
    if picking.default_pair(graph) == picking.PAPER_PAIR:  # the paper's numbering of Les Misérables
        pairs += list(CASE_STUDY_PAIRS)
    return list(dict.fromkeys(pairs))


def train(graph: goat_core.Graph, graph_fp: str, params: dict, holdout: float, area,
          prefix: str = "train", origin: str = "trained", track: Sequence[tuple[int, int]] = ()) -> RunRecord:
    """Train (or fetch from the shared store) a Goat on ``graph``; ``params`` include the seed.

    With ``holdout > 0`` a seeded share of the edges is held out: the model never sees them,
    they give the live validation AUC and the Scores page's link prediction. ``track`` are
    pairs (node ids) whose attention is recorded after every epoch (a run fetched from the
    store keeps the pairs it was trained with: see :func:`replay`).
    Raises ValueError (bad parameters, too small a graph) or TrainingCancelled. ``params`` without
    a ``backend`` get the app's (:func:`with_backend`), which the run key then names.
    """
    params = with_backend(params, graph.num_edges)
    found = cache.run_store().get(run_key(graph_fp, params, holdout))
    if found is not None:
        return RunRecord(**{**found.__dict__, "origin": "cache"})
    wait_for_compiled(params, area)
    record = fit_record(graph, graph_fp, params, holdout, LiveProgress(area, prefix), origin, track)
    st.session_state.pop(PROGRESS_KEY, None)
    return record


def fit_record(graph: goat_core.Graph, graph_fp: str, params: dict, holdout: float, callback, origin: str,
               track: Sequence[tuple[int, int]] = ()) -> RunRecord:
    """Fit ``params`` (with their backend) on ``graph`` with ``holdout`` held out, put the run in the
    shared store and return it; no Streamlit here (a background job trains with it too)."""
    goat = goat_core.Goat(**params)
    goat.resolved_device()  # every parameter checked before any work (the split takes the seed)
    split, train_graph, validation = None, graph, None
    if holdout > 0:
        try:
            split = goat_core.split_edges(graph, 1.0 - holdout, params["seed"])
        except goat_core.ParameterError as err:  # e.g. a complete graph has no non-edge to score against
            raise goat_core.ParameterError(f"{err}: set 'Hold out for validation' to 0 to train on every "
                                           "edge") from None
        train_graph, validation = split.train, (split.test_pos, split.test_neg)
    if goat.variant == "global":  # GoatGlobal has no attention to track (fit refuses track_pairs)
        track = ()
    started = time.perf_counter()
    goat.fit(train_graph, callback=callback, validation=validation,
             track_pairs=[(NodeIndex(s), NodeIndex(t)) for s, t in track])  # node ids: positions
    seconds = time.perf_counter() - started
    record = RunRecord(key=run_key(graph_fp, params, holdout), goat=goat, graph_fp=graph_fp,
                       params=dict(params), holdout=holdout, split=split, seconds=seconds, origin=origin,
                       history=list(goat.history_))
    cache.run_store().put(record)
    return record


def case_study_params(graph: goat_core.Graph, seed: int) -> dict:
    """The case study's training (the fast preset on every edge) with ``seed``, on the app's path."""
    return with_backend(dict(presets.case_study(graph.num_edges), seed=seed), graph.num_edges)


def replay(record: RunRecord, pair: tuple[int, int], area) -> tuple[RunRecord, bool]:
    """Train ``record``'s run again, seeded as it was, tracking ``pair`` besides the pairs it
    tracked: the same model with that pair's attention over training. Returns the new record
    (stored in place of the old one) and whether the model came out the same (a run saved by
    another version of the library may not). Raises TrainingCancelled."""
    old = record.goat
    tracked = [(h.source_id, h.target_id) for h in old.tracked_]
    train_graph = record.split.train if record.split is not None else old.graph_
    validation = (record.split.test_pos, record.split.test_neg) if record.split is not None else None
    goat = goat_core.Goat(**old.get_params())
    wait_for_compiled(old.get_params(), area)
    started = time.perf_counter()
    goat.fit(train_graph, callback=LiveProgress(area, "replay"), validation=validation,
             track_pairs=[(NodeIndex(s), NodeIndex(t))
                          for s, t in dict.fromkeys(tracked + [(int(pair[0]), int(pair[1]))])])
    same = bool(np.array_equal(goat.embedding_, old.embedding_))
    new = RunRecord(**{**record.__dict__, "goat": goat, "history": list(goat.history_),
                       "seconds": time.perf_counter() - started})
    if cache.run_store().get(record.key) is not None:
        cache.run_store().put(new)
    st.session_state.pop(PROGRESS_KEY, None)
    return new, same
