"""One optimiser step on a large embedding table: dense Adam against lazy (row-sparse) Adam.

    python bench/optimizer_step.py [--nodes 20000 100000 200000 1000000] [--batch-size 4096]

The table is (n+1, 200) float32, as ``bench/scaling.py`` trains it (BA graphs, m = 10: n nodes
for 10·n edges). A batch's gradient touches the rows of its pairs' sampled neighborhoods:
``batch`` pairs x 2 sides x ``--slots`` rows, drawn in proportion to a BA graph's degrees
(node i of n has degree about m·sqrt(n / i)), so that hubs repeat as they do in training.

What a training step costs after the per-pair loops, wall seconds on this process's two worker
threads (as training runs it), median of ``--repeats`` steps:

* **dense** (what training runs since the fourteenth session): ``goat_core.optim.TableAdam``
  reading the two segments' gradient buffers (each touched by the rows of its half of the
  batch) through its ``SegmentGradient`` and merging them row by row as it updates, on two threads;
* **dense via torch** (before): the buffers merged into the dense gradient first
  (``fused._dense_rows``), then ``torch.optim.Adam(fused=True)`` on one thread;
* **lazy**: the touched rows read out of the two buffers (``fused._touched_rows``), then
  ``goat_core.optim.LazyAdam`` with its rows split between the threads;
* **lazy, one thread**: the same, everything on the calling thread (the code before the
  twelfth session).

Also the optimiser steps alone on a gradient built beforehand (dense: TableAdam on two threads
and torch's fused Adam on one; lazy Adam on two threads and on one), and CPU seconds. Writes
bench/results/optimizer_step.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from functools import partial

from _common import ROOT, machine


def touched_rows(n: int, batch: int, slots: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    degree = 10 * np.sqrt(n / np.arange(1, n + 1))
    ids = rng.choice(n, size=batch * 2 * slots, p=degree / degree.sum())
    return np.unique(ids)


def time_steps(step, repeats: int, setup=None) -> tuple[float, float]:
    """(CPU, wall) seconds of ``step()``, medians over ``repeats``; ``setup()`` runs untimed first."""
    cpu, wall = [], []
    for _ in range(repeats):
        if setup is not None:
            setup()
        c0, w0 = time.process_time(), time.perf_counter()
        step()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def one(n: int, args) -> dict:
    import numpy as np
    import torch

    from goat_core.backends import fused
    from goat_core.backends.workers import runner
    from goat_core.optim import LazyAdam, TableAdam

    torch.set_num_threads(1)  # as the CLI sets it on this 2-core machine
    threads, in_order = runner(torch.device("cpu"), 2), (lambda tasks: [task() for task in tasks])
    halves = [touched_rows(n, args.batch_size // 2, args.slots, args.seed + k) for k in range(2)]
    rng = np.random.default_rng(args.seed)
    bufs, fresh = [], []
    for rows in halves:  # a segment's buffer: its touched rows hold gradients, the rest is stale
        buf = rng.standard_normal((n + 1, 200), dtype=np.float32)
        mark = np.ones(n + 1, np.uint8)
        mark[rows] = 2
        bufs.append(buf), fresh.append(mark)
    w = np.zeros((n + 1, 200), np.float32)
    dense_w = torch.zeros(n + 1, 200, requires_grad=True)
    adam = torch.optim.Adam([dense_w], lr=1e-3, fused=True)
    table_w = torch.zeros(n + 1, 200, requires_grad=True)
    table_adam = TableAdam([table_w], lr=1e-3, run=threads)
    lazy_w = torch.zeros(n + 1, 200, requires_grad=True)
    lazy, lazy_one = LazyAdam([lazy_w], lr=1e-3, run=threads), LazyAdam([lazy_w], lr=1e-3)
    first = bufs[0].copy()

    def setup():  # as training: zero_grad(set_to_none) frees the last gradient's buffer first
        dense_w.grad = lazy_w.grad = table_w.grad = None
        bufs[0][:] = first  # _dense_rows builds in segment 0's buffer

    def torch_dense_step(build=True):
        if build:
            dense_w.grad = fused._dense_rows(bufs, fresh, threads)
        adam.step()

    def dense_step():  # what the fused loss's forward and backward leave in the sink
        table_adam.sink.hold(table_w, bufs, fresh)
        table_adam.sink.release(1.0)
        table_adam.step()

    def lazy_step(optimizer=lazy, run=threads, build=True):
        if build:
            lazy_w.grad = fused._touched_rows(w, bufs, fresh, run)
        optimizer.step()

    steps = {"dense": dense_step, "torch_dense": torch_dense_step, "lazy": lazy_step,
             "lazy_one_thread": partial(lazy_step, lazy_one, in_order),
             "dense_adam_alone": table_adam.step,
             "torch_adam_alone": partial(torch_dense_step, build=False),
             "lazy_adam_alone": partial(lazy_step, build=False),
             "lazy_adam_alone_one_thread": partial(lazy_step, lazy_one, build=False)}
    timed = {}
    for name, step in steps.items():
        if "alone" in name:  # the gradients built once, outside the timing
            setup()
            dense_w.grad = fused._dense_rows(bufs, fresh, threads)
            table_w.grad = dense_w.grad.clone()
            lazy_w.grad = fused._touched_rows(w, bufs, fresh, threads)
            timed[name] = time_steps(step, args.repeats)
        else:
            setup(), step()  # state and buffers allocated outside the timing
            timed[name] = time_steps(step, args.repeats, setup)
    touched = int(np.count_nonzero((fresh[0] == 2) | (fresh[1] == 2)))
    return {"nodes": n, "touched_rows": touched, "touched_fraction": touched / (n + 1),
            **{f"{k}_wall_s": wall for k, (_, wall) in timed.items()},
            **{f"{k}_cpu_s": cpu for k, (cpu, _) in timed.items()}, "load_average_1min": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[20_000, 100_000, 200_000, 1_000_000])
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--slots", type=int, default=45, help="rows per side of a pair (BA m=10: ~45)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = [one(n, args) for n in args.nodes]
    out = ROOT / "bench" / "results" / "optimizer_step.json"
    out.write_text(json.dumps({"rows": rows, "config": vars(args), "machine": machine()}, indent=1))
    print("wall ms per step after the loops (gradient from the two segments' buffers + optimiser step):")
    print("| nodes | rows touched by a batch | dense (merged in the update) | dense via torch | lazy (two "
          "threads) | lazy (one thread) | Adam alone: dense / torch / lazy two threads / lazy one | load |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ms = {k[:-7]: v * 1e3 for k, v in r.items() if k.endswith("_wall_s")}
        print(f"| {r['nodes']:,} | {r['touched_rows']:,} ({r['touched_fraction']:.0%}) | {ms['dense']:.1f} | "
              f"{ms['torch_dense']:.1f} | {ms['lazy']:.1f} | {ms['lazy_one_thread']:.1f} | "
              f"{ms['dense_adam_alone']:.1f} / {ms['torch_adam_alone']:.1f} / {ms['lazy_adam_alone']:.1f} / "
              f"{ms['lazy_adam_alone_one_thread']:.1f} | {r['load_average_1min']:.1f} |")


if __name__ == "__main__":
    main()
