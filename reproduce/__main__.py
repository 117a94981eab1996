"""The older configuration's runs (masked padding, fixed schedules), then RESULTS.md.

    python -m reproduce --out results            # full run (resumable; hours of CPU on 2 cores)
    python -m reproduce --quick --out /tmp/q     # CI-sized: tiny models, minutes
    python -m reproduce --report-only            # RESULTS.md alone, as python -m reproduce.report

Each finished job is stored under OUT/raw/runs/ and skipped on the next invocation, so an
interrupted run continues where it stopped. Its summaries (runs.csv, the per-table CSV/JSON and
plots) go directly under OUT; RESULTS.md is then made from the files under OUT (reproduce.report).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from . import casestudy, grid, report
from .common import ROOT, setup_env
from .experiments import plan, safe_run

SECTIONS = ("tune", "lp", "tuned", "case", "zhihu-cora", "nsens", "vgae")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reproduce", description=__doc__.splitlines()[1])
    ap.add_argument("--out", type=Path, default=ROOT / "results")
    ap.add_argument("--quick", action="store_true", help="tiny models on Email + Les Misérables")
    ap.add_argument("--jobs", type=int, default=2, help="parallel worker processes (1 thread each)")
    ap.add_argument("--sections", nargs="*", choices=SECTIONS, help=f"subset of {', '.join(SECTIONS)}")
    ap.add_argument("--seeds", nargs="*", type=int, help="only jobs with these seeds (default: all)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument(
        "--results-md",
        type=Path,
        default=None,
        help="where to write RESULTS.md (default: repo root for full runs, OUT for --quick)",
    )
    args = ap.parse_args(argv)
    setup_env()
    out = args.out
    (out / "raw").mkdir(parents=True, exist_ok=True)
    md = args.results_md or (out / "RESULTS.md" if args.quick else ROOT / "RESULTS.md")
    sections = list(args.sections or SECTIONS)
    started = time.time()
    if not args.report_only:
        if "case" in sections:
            casestudy.run(out, quick=args.quick)
        jobs = [
            j
            for j in plan(args.quick, [s for s in sections if s not in ("tune", "case")])
            if not (out / "raw" / "runs" / f"{j.key}.json").exists()
            and (not args.seeds or j.seed in args.seeds)
        ]
        print(f"{len(jobs)} jobs to run with {args.jobs} worker(s)", flush=True)
        failures = _run_jobs(jobs, out, args.jobs, md, args.quick)
        if failures:
            print(f"{failures} job(s) failed; rerun the same command to retry them", file=sys.stderr)
        if "tune" in sections:  # documentation of the choices hard-coded in experiments.py; runs last
            for name, spec in (grid.QUICK_TRIALS if args.quick else grid.TRIALS).items():
                if not (out / "raw" / "tune" / f"{name}.json").exists():
                    grid.run_trial(name, spec, out)
            if not args.quick:
                grid.run_all_draws(out)
    report.build(out, md, quick=args.quick, wall_seconds=time.time() - started)
    print(f"wrote {md} and summaries under {out}")
    return 0


def _run_jobs(jobs, out: Path, workers: int, md: Path, quick: bool) -> int:
    failures = 0
    log = out / "raw" / "jobs.log"
    if workers <= 1:
        results = (safe_run(j, out) for j in jobs)
        return _consume(results, log, out, md, quick)
    # spawn, not fork: the parent has trained models by now (the case study), and a child forked
    # from a process whose OpenMP/BLAS/worker threads were in use can hang on their locks
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(safe_run, j, out) for j in jobs]
        failures = _consume((f.result() for f in as_completed(futures)), log, out, md, quick)
    return failures


def _consume(results, log: Path, out: Path, md: Path, quick: bool) -> int:
    failures = 0
    for done, (key, err, seconds) in enumerate(results, start=1):
        line = f"{time.strftime('%H:%M:%S')} {key} {'FAILED' if err else 'ok'} {seconds:.0f}s"
        print(line, flush=True)
        with log.open("a") as fh:
            fh.write(line + "\n" + (err or ""))
        failures += err is not None
        if not quick and done % 3 == 0:  # partial tables as results arrive
            report.build(out, md, quick=quick, wall_seconds=None)
    return failures


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
