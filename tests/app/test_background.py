"""The server's warm-up (the fused loops compiled by a child process, read as progress) and the
background jobs that fill pages in."""

from __future__ import annotations

import os
import sys
import threading

import pytest

import goat_core
from ui import jobs, warmup, worker

from .conftest import goto, train, wait_for_jobs


def child(*lines: str, code: int = 0) -> list[str]:
    """A stand-in for ``python -m goat_core.precompile``: prints ``lines``, exits with ``code``."""
    script = "".join(f"print({line!r}, flush=True)\n" for line in lines) + f"raise SystemExit({code})\n"
    return [sys.executable, "-c", script]


def test_the_warm_up_follows_the_compile_and_loads_the_fused_loop():
    lines = ("0/3 training loop 0.0", "1/3 lazy Adam 9.5", "2/3 UMAP 12.0", "3/3 done 30.1")
    warm = warmup.WarmUp(child(*lines))
    assert not warm.fused_ready.is_set()
    warm.start()
    assert warm.finished.wait(120)
    snap = warm.snapshot()
    assert (snap.done, snap.total, snap.step) == (3, 3, "done")
    assert snap.fused_ready and snap.finished and snap.problem is None and warm.imports_ready.is_set()
    assert "ready" in warmup.describe(snap)


def test_a_failed_compile_is_said_and_does_not_block_training():
    warm = warmup.WarmUp(child("0/3 training loop 0.0", code=3)).start()
    assert warm.finished.wait(120) and warm.wait_fused(0)
    assert "exit code 3" in warmup.describe(warm.snapshot())


def test_progress_lines_are_read_and_other_output_ignored():
    warm = warmup.WarmUp(["unused"])
    warm._progress("some numba warning\n")
    assert warm.snapshot().total == 0
    warm.fused_ready.set()  # the loop loaded already: the line only moves the progress
    warm._progress("2/4 scoring loops 31.5\n")
    snap = warm.snapshot()
    assert (snap.done, snap.total, snap.step) == (2, 4, "scoring loops")
    assert "step 3/4, scoring loops" in warmup.describe(snap)


def test_ranking_waits_for_the_scoring_loops_only_where_the_gram_mode_does_not_score(monkeypatch):
    """A new server compiles ranking's loops first: ranking a max-pooling GOAT of up to GRAM_MAX_NODES
    nodes (every bundled graph, whichever path trained it) needs no more; mean pooling, several draws
    and larger graphs are scored by the per-pair loops, compiled later."""
    from goat_core.backends.dispatch import GRAM_MAX_NODES
    from goat_core.precompile import STEPS
    from ui import ranking_table

    warm = warmup.WarmUp(["unused"])
    warm.fused_ready.set()
    monkeypatch.setattr(warmup, "warm_up", lambda: warm)

    def model(variant="goat", draws=1, nodes=8):  # untrained (epochs=0), on a path of ``nodes`` nodes
        graph = goat_core.parse_edge_list("".join(f"{k} {k + 1}\n" for k in range(nodes - 1)).encode())
        return goat_core.Goat(dim=4, neighborhood=2, epochs=0, variant=variant, inference_draws=draws,
                              validation_fraction=0.0, backend="torch" if variant == "goat" else "module",
                              device="cpu").fit(graph)

    gram = [model(), model(nodes=GRAM_MAX_NODES), model("global", draws=3)]
    per_pair = [model("mean-pool"), model(draws=2), model(nodes=GRAM_MAX_NODES + 1), None]
    assert list(STEPS)[0] == "ranking loops"
    warm._progress(f"1/{len(STEPS)} training loop 9.2\n")
    assert all(ranking_table.loops_ready(goat) for goat in gram)
    assert not any(ranking_table.loops_ready(goat) for goat in per_pair)
    warm._progress(f"{list(STEPS).index('scoring loops') + 1}/{len(STEPS)} UMAP 33.8\n")
    assert all(ranking_table.loops_ready(goat) for goat in gram + per_pair)


def test_jobs_run_in_turn_once_per_key_and_keep_their_result():
    store = jobs.JobStore()
    gate, order = threading.Event(), []

    def first(report):
        gate.wait(10)
        report(0.5, "half way")
        order.append("first")
        return 1

    a = store.submit("a", "first job", first)
    b = store.submit("b", "second job", lambda report: order.append("second") or 2)
    assert store.submit("a", "first job", lambda report: 99) is a  # the same key: the same job
    assert not b.done.is_set() and b.stage == "waiting for its turn"  # one worker: b waits for a
    gate.set()
    assert a.done.wait(10) and b.done.wait(10)
    assert (a.result, b.result, order) == (1, 2, ["first", "second"]) and a.ok and b.ok
    assert a.fraction == 0.5 and a.elapsed() >= 0


def test_a_failed_job_keeps_its_error_until_retried():
    store = jobs.JobStore()

    def fails(report):
        raise goat_core.ParameterError("too few edges")

    job = store.submit("x", "a job", fails)
    assert job.done.wait(10) and not job.ok and isinstance(job.error, goat_core.ParameterError)
    assert store.submit("x", "a job", lambda report: 1) is job  # kept: the page shows the error
    store.retry("x")
    again = store.submit("x", "a job", lambda report: 1)
    assert again is not job and again.done.wait(10) and again.result == 1


def test_the_scores_page_draws_everything_else_while_the_walks_run(app, monkeypatch):
    gate = threading.Event()
    monkeypatch.setattr(jobs, "worker", lambda: HeldWorker(gate))  # the walks wait for the test
    train(app, epochs=7)  # a run of its own: a new job
    goto(app, "scores")
    assert "Runs side by side" in [h.value for h in app.header]  # the end of the page is drawn
    assert app.get("progress")  # the walks' progress bar (followed by a fragment in a browser)
    assert "DeepWalk" not in list(app.dataframe[1].value["method"])
    gate.set()
    wait_for_jobs(app)
    assert list(app.dataframe[1].value["method"])[-2:] == ["DeepWalk", "node2vec"]
    assert not app.get("progress")


class HeldWorker:
    """The worker process's calls, run here once ``gate`` opens."""

    def __init__(self, gate: threading.Event):
        self.gate = gate

    def call(self, report, name, *args):
        assert self.gate.wait(60)
        return worker.CALLS[name](*args)


def doubled_with_progress(n: int) -> int:
    """Runs in the worker process (CALLS below: ``python -m ui.worker tests.app.test_background``)."""
    from ui import worker

    for k in range(n):
        worker.report(k / n, f"step {k}")
    print("a library printing", n)  # must not disturb the answers
    if n < 0:
        raise goat_core.ParameterError("n must be >= 0")
    return 2 * n


CALLS = {"doubled": doubled_with_progress}


def test_the_worker_process_runs_a_call_and_sends_its_progress_back():
    child = worker.Worker("tests.app.test_background")
    seen = []
    try:
        assert child.call(lambda f, stage: seen.append((f, stage)), "doubled", 3) == 6
        assert seen == [(0.0, "step 0"), (1 / 3, "step 1"), (2 / 3, "step 2")]
        with pytest.raises(goat_core.ParameterError, match="n must be >= 0"):  # the child's, raised here
            child.call(lambda f, stage: None, "doubled", -1)
        first = child.process.pid
        assert first != os.getpid() and child.call(lambda f, stage: None, "doubled", 1) == 2  # still alive
        child.stop()
        assert child.call(lambda f, stage: None, "doubled", 2) == 4  # started again
        assert child.process.pid != first
    finally:
        child.stop()


def test_after_a_training_the_case_studys_model_is_trained_ahead(app, monkeypatch):
    from ui import cache, runs

    store, queue = runs.RunStore(), jobs.JobStore()  # this test's own: nothing trained before it
    monkeypatch.setattr(cache, "run_store", lambda: store)
    monkeypatch.setattr(jobs, "job_store", lambda: queue)
    train(app)
    job = queue.get("case-study|0")
    assert job is not None and job.done.wait(120) and job.ok
    record = store.get(job.result)
    assert record is not None and record.seed == 0 and record.origin == "case study"
    goto(app, "case_study")  # opens on that model: nothing trained on the page
    assert not [e for e in app.get("expandable") if "Training GOAT" in str(e.proto)]
    assert len(store) == 2  # the Train page's run and the case study's: no third training
