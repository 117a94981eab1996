"""Once per server, in the background: what the first trainings need, ready before they start.

On a fresh install (BENCHMARKS.md, "A class starts in seconds", has the times) compiling the fused
backend's loops (numba) takes tens of seconds, a first fit also imports torch's and
scikit-learn's lazy modules, and UMAP's numba code needs compiling too. So:

* small graphs train on the torch backend (``ui.runs.backend_for``), which compiles
  nothing: a click on Train at once trains Les Misérables in seconds once the imports
  below are done, and the same seed gives the same numbers whenever it is clicked;
* the imports happen in the script thread that starts the warm-up, after the server's first page
  is drawn (``ui.parts.finish``), never in a background thread (concurrent imports of one package
  can hand a thread a half-initialised module);
* a child process (``python -m goat_core.precompile --umap --with-parent``) compiles the fused
  loops and UMAP's into numba's disk cache, away from the server's interpreter (a compile in a thread
  would hold the interpreter's lock and slow every page); its ``k/n name`` lines are the
  progress the sidebar and the Train page show;
* once the child has compiled the training loop, this process loads it from the cache (about
  a second), and a training on the fused path (larger graphs, other variants) no longer waits.

No ``st.*`` call happens in the background thread; pages read :class:`WarmUp`'s fields.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import streamlit as st

import goat_core
from goat_core.precompile import STEPS

from .worker import background_priority

ROOT = Path(__file__).resolve().parents[1]
# the child reports "k/n" once k of its steps are done: the training loop is cached from this one on
TRAINING_STEP = list(STEPS).index("training loop") + 1


@dataclass
class Snapshot:
    """What the pages show: the step the compile is at, and whether the fused path is ready."""

    done: int
    total: int
    step: str
    elapsed: float
    fused_ready: bool
    finished: bool
    problem: str | None


class WarmUp:
    """The server's warm-up: imports in this process, the compile in a child process."""

    def __init__(self, command: list[str] | None = None):
        self.command = command or [sys.executable, "-m", "goat_core.precompile", "--umap", "--with-parent"]
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.done, self.total, self.step = 0, 0, "starting"
        self.imports_ready = threading.Event()
        self.fused_ready = threading.Event()  # the fused training loop is loaded in this process
        self.finished = threading.Event()  # the child is done (or failed)
        self.problem: str | None = None
        self.ended_at: float | None = None
        self.thread = threading.Thread(target=self._run, name="goat-warm-up", daemon=True)

    def start(self) -> WarmUp:
        """Import ahead here, in the calling (script) thread, then follow the compile in a thread.

        Imports stay out of background threads: two threads importing one package at the same time
        can hand one of them a partially initialised module (seen here: pandas, while a job's first
        fit imported scikit-learn and a page drew a table)."""
        try:
            _tiny_fit("torch")  # torch's and scikit-learn's lazy imports, before the first Train
            import numba  # noqa: F401 - what goat_core.backends.fused needs, so the thread imports that module only
            import pandas  # noqa: F401 - the pages' tables
            import scipy.linalg.cython_blas  # noqa: F401
            import threadpoolctl  # noqa: F401
        finally:
            self.imports_ready.set()
        self.thread.start()
        return self

    def snapshot(self) -> Snapshot:
        with self.lock:
            end = self.ended_at if self.ended_at is not None else time.monotonic()
            return Snapshot(self.done, self.total, self.step, end - self.started, self.fused_ready.is_set(),
                            self.finished.is_set(), self.problem)

    def wait_fused(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the fused loops; True once they are ready (or the
        compile failed: the fused path then compiles in this process, as without a warm-up)."""
        return self.fused_ready.wait(timeout)

    # ------------------------------------------------------------------ the background thread
    def _run(self) -> None:
        background_priority()
        child = self._spawn()
        if child is None:
            self._finish()
            return
        assert child.stdout is not None
        for line in child.stdout:
            self._progress(line)
        code = child.wait()
        if code != 0:
            with self.lock:
                self.problem = (f"the compile step failed (exit code {code}); the fused path compiles on "
                                "first use")
        self._load_fused()
        self._finish()

    def _spawn(self) -> subprocess.Popen | None:
        # the child imports goat_core from this checkout, as the server does
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path)
        try:
            return subprocess.Popen(self.command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
        except OSError as err:
            with self.lock:
                self.problem = (f"could not start the compile step ({err}); the fused path compiles "
                                "on first use")
            return None

    def _progress(self, line: str) -> None:
        head, _, rest = line.strip().partition(" ")
        done, _, total = head.partition("/")
        if not (done.isdigit() and total.isdigit()):
            return
        with self.lock:
            self.done, self.total = int(done), int(total)
            self.step = rest.rsplit(" ", 1)[0] if rest else ""
        if int(done) >= TRAINING_STEP and not self.fused_ready.is_set():
            self._load_fused()

    def _load_fused(self) -> None:
        """Load the compiled training loop from numba's disk cache into this process."""
        if self.fused_ready.is_set():
            return
        try:
            _tiny_fit("fused")
        finally:
            self.fused_ready.set()

    def _finish(self) -> None:
        self.fused_ready.set()
        with self.lock:
            self.ended_at = time.monotonic()
        self.finished.set()


def _tiny_fit(backend: str) -> None:
    """A one-epoch fit with a validation AUC: what a first training imports and loads."""
    graph = goat_core.parse_edge_list(b"a b\nb c\nc a\nc d\n", file="<warm-up>")
    goat_core.Goat(dim=4, neighborhood=2, epochs=1, batch_size=4, seed=0, validation_fraction=0.0,
                   backend=backend).fit(graph, validation=(np.array([[0, 1]]), np.array([[0, 3]])))


@st.cache_resource(show_spinner=False)
def warm_up() -> WarmUp:
    """The server's one warm-up, started on the first page load."""
    return WarmUp().start()


def describe(snap: Snapshot) -> str:
    """One line for the sidebar: where the fused loops' compile is."""
    if snap.problem:
        return f"Compiled training loops: {snap.problem}."
    if snap.finished:
        return f"Compiled training loops: ready (built in {snap.elapsed:.0f} s)."
    step = f"step {snap.done + 1}/{snap.total}, {snap.step}" if snap.total else "starting"
    ready = " — the fused path is ready" if snap.fused_ready else ""
    return (f"Compiling the fused training loops in the background ({step}, {snap.elapsed:.0f} s){ready}. "
            "Small graphs train now on the torch path.")


def sidebar_status() -> None:
    """The compile's progress in the sidebar, polled every 2 s while it runs (a fragment: the page
    itself is not rerun); once it is over, one full rerun stops the polling."""
    if warm_up().finished.is_set():
        snap = warm_up().snapshot()
        if snap.problem:
            st.sidebar.caption(describe(snap))
        return

    @st.fragment(run_every=2.0)
    def poll() -> None:
        snap = warm_up().snapshot()
        st.caption(describe(snap))
        if snap.finished:
            st.rerun(scope="app")

    with st.sidebar:
        poll()
