"""Optional computations that fill a page in: background work with progress, cached by content.

DeepWalk and node2vec baselines (10-15 s on Email) and UMAP projections (a first fit compiles
for 15-20 s) used to hold their page until done; their numba compiles also held the server's
interpreter lock, so they run in a child process (:mod:`ui.worker`). Now a page submits them here and draws
everything else at once; a small fragment follows the job's progress (no rerun of the page)
and, when it ends, reruns the page once so that the result takes its place.

One worker thread runs the jobs in turn: on a 2-core machine a second one would only take a
core from the sessions' own work. Jobs are shared by sessions and kept by key (the run key and
what was asked), so a second session, a refresh or another tab finds the result done. No
``st.*`` call happens in the worker: a job writes its progress into plain fields that the
fragment reads.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

import goat_core
from goat_core.analysis.node2vec import PRESETS, walks_per_node

from . import cache, parts, training
from .runs import run_key
from .worker import Worker, background_priority, split_parts

Report = Callable[[float, str], None]  # (fraction done, what is happening)
RANKING_KINDS = ("random", "hard")  # the Scores page ranks every method on both kinds of negatives


@dataclass
class Job:
    """One background computation: its progress while it runs, then its result or its error."""

    key: str
    label: str
    fraction: float = 0.0
    stage: str = "waiting for its turn"
    result: Any = None
    error: BaseException | None = None
    submitted: float = field(default_factory=time.monotonic)
    finished_at: float | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def report(self, fraction: float, stage: str) -> None:
        self.fraction, self.stage = min(max(float(fraction), 0.0), 1.0), stage

    @property
    def ok(self) -> bool:
        return self.done.is_set() and self.error is None

    def elapsed(self) -> float:
        end = self.finished_at if self.finished_at is not None else time.monotonic()
        return end - self.submitted


class JobStore:
    """Jobs by key, run one at a time by one worker thread; a bounded LRU of finished ones."""

    def __init__(self, capacity: int = 64):
        self.capacity = capacity
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.lock = threading.Lock()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="goat-job")

    def get(self, key: str) -> Job | None:
        with self.lock:
            return self.jobs.get(key)

    def submit(self, key: str, label: str, work: Callable[[Report], Any]) -> Job:
        """The job ``key``: the one already submitted (running, done, or failed: see
        :meth:`retry`), else a new one that runs ``work(report)``."""
        with self.lock:
            job = self.jobs.get(key)
            if job is not None:
                self.jobs.move_to_end(key)
                return job
            job = self.jobs[key] = Job(key, label)
            self._forget_old()
        self.worker.submit(self._run, job, work)
        return job

    def forget(self, key: str) -> None:
        """Forget a job that has ended, so that the next :meth:`submit` of ``key`` runs anew."""
        with self.lock:
            job = self.jobs.get(key)
            if job is not None and job.done.is_set():
                del self.jobs[key]

    def retry(self, key: str) -> None:
        """Forget a failed job, so that the next :meth:`submit` runs it again."""
        with self.lock:
            job = self.jobs.get(key)
            if job is not None and job.done.is_set() and job.error is not None:
                del self.jobs[key]

    def _forget_old(self) -> None:
        finished = [k for k, j in self.jobs.items() if j.done.is_set()]
        while len(self.jobs) > self.capacity and finished:
            del self.jobs[finished.pop(0)]

    @staticmethod
    def _run(job: Job, work: Callable[[Report], Any]) -> None:
        background_priority()
        job.report(0.0, "starting")
        try:
            job.result = work(job.report)
        except BaseException as err:  # kept for the page: a GoatError as one line, a bug re-raised there
            job.error = err
        finally:
            job.finished_at = time.monotonic()
            job.done.set()


@st.cache_resource(show_spinner=False)
def job_store() -> JobStore:
    return JobStore()


def follow(job: Job, every: float = 1.0) -> None:
    """A progress bar that follows ``job`` without rerunning the page (a fragment polled every
    ``every`` seconds); once the job is over, the whole page runs again to show its result."""

    @st.fragment(run_every=every)
    def poll() -> None:
        if job.done.is_set():
            st.rerun(scope="app")
        st.progress(job.fraction, text=f"{job.label}: {job.stage} · {job.elapsed():.0f} s")

    poll()


def show_error(job: Job, where=st) -> None:
    """A failed job: the library's one-line message with a button to try again; a bug is re-raised
    (Streamlit shows its traceback)."""
    error = job.error
    if not isinstance(error, goat_core.GoatError):
        raise error if error is not None else RuntimeError(f"{job.label} failed")
    where.error(f"{job.label} failed: {parts.error_line(error)}")
    if where.button("Try again", key=f"retry_{job.key}"):
        job_store().retry(job.key)
        st.rerun()


# --------------------------------------------------------------------------- the jobs pages submit


@st.cache_resource(show_spinner=False)
def worker() -> Worker:
    """The server's child process for the numba-heavy calls (started on the first one)."""
    return Worker()


def walk_baselines(run_key: str, split: goat_core.EdgeSplit) -> Job:
    """DeepWalk and node2vec (``PRESETS``, seeded by the run's split) on the run's held-out edges,
    one method after the other, in the worker process; fewer walks per node on large graphs keep
    the skip-gram's corpus near a million tokens. The result: method name -> scores and curves."""
    walks = walks_per_node(split.train.num_nodes)
    configs = {name: {**config, "num_walks": walks} for name, config in PRESETS.items()}
    child, wire_split = worker(), split_parts(split)

    def work(report: Report) -> dict:
        out: dict = {}
        for k, (name, config) in enumerate(configs.items()):
            report(k / len(configs), f"{name}: random walks, then the skip-gram")
            scores = child.call(report, "walk_scores", wire_split, {name: config}, split.seed, RANKING_KINDS)
            out.update(scores)
        report(1.0, "done")
        return out

    return job_store().submit(f"walks|{run_key}", "DeepWalk and node2vec", work)


def umap(key: str, seed: int, points) -> Job:
    """The UMAP projection of the point set ``key`` (in the worker process), stored with the other
    projections once done."""
    child = worker()

    def work(report: Report):
        coords = child.call(report, "umap_projection", points, seed)
        cache.projection_store().put((key, "umap", seed), coords)
        return coords

    return job_store().submit(f"umap|{key}|{seed}", f"UMAP of {len(points):,} points", work)


def case_study_run(seed: int) -> Job:
    """The case study's model for ``seed``, trained ahead (about a second on the torch path) once a
    session has trained its own: the Case study page then opens without training."""

    graph = cache.bundled_graph("lesmis")  # here: Streamlit's caches belong to the script thread
    fp = graph.fingerprint()

    def work(report: Report) -> str:
        params = training.case_study_params(graph, seed)
        key = run_key(fp, params, 0.0)
        if cache.run_store().get(key) is None:
            report(0.0, "training")
            training.fit_record(graph, fp, params, 0.0, None, "case study", training.CASE_STUDY_PAIRS)
        return key

    return job_store().submit(f"case-study|{seed}", "The case study's model", work)
