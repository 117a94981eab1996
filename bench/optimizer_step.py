"""One optimiser step on a large embedding table: dense Adam against lazy (row-sparse) Adam.

    python bench/optimizer_step.py [--nodes 20000 100000 200000 1000000] [--batch-size 4096]

The table is (n+1, 200) float32, as ``bench/scaling.py`` trains it (BA graphs, m = 10: n nodes
for 10·n edges). A batch's gradient touches the rows of its pairs' sampled neighborhoods:
``batch`` pairs x 2 sides x ``--slots`` rows, drawn in proportion to a BA graph's degrees
(node i of n has degree about m·sqrt(n / i)), so that hubs repeat as they do in training.
Timed: ``torch.optim.Adam(fused=True)`` on the dense gradient, and ``goat_core.optim.LazyAdam``
on the sparse one (the touched rows), median of ``--repeats`` steps each, in CPU seconds of
this process (``time.process_time``: what the step costs, less sensitive than wall time to
other jobs on a shared machine) and wall seconds. Writes bench/results/optimizer_step.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def touched_rows(n: int, batch: int, slots: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    degree = 10 * np.sqrt(n / np.arange(1, n + 1))
    ids = rng.choice(n, size=batch * 2 * slots, p=degree / degree.sum())
    return np.unique(ids)


def time_steps(step, repeats: int) -> tuple[float, float]:
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        step()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def one(n: int, args) -> dict:
    import torch

    from goat_core.optim import LazyAdam

    torch.set_num_threads(1)  # as the CLI sets it on this 2-core machine
    rows = torch.from_numpy(touched_rows(n, args.batch_size, args.slots, args.seed))
    gen = torch.Generator().manual_seed(args.seed)
    values = torch.randn(len(rows), 200, generator=gen)
    dense_w = torch.zeros(n + 1, 200, requires_grad=True)
    dense_grad = torch.zeros(n + 1, 200)
    dense_grad[rows] = values
    adam = torch.optim.Adam([dense_w], lr=1e-3, fused=True)
    lazy_w = torch.zeros(n + 1, 200, requires_grad=True)
    sparse_grad = torch.sparse_coo_tensor(rows.unsqueeze(0), values, (n + 1, 200), is_coalesced=True,
                                          check_invariants=False)
    lazy = LazyAdam([lazy_w], lr=1e-3)

    def dense_step():
        dense_w.grad = dense_grad
        adam.step()

    def lazy_step():
        lazy_w.grad = sparse_grad
        lazy.step()

    dense_step(), lazy_step()  # state allocated outside the timing
    dense_cpu, dense_wall = time_steps(dense_step, args.repeats)
    lazy_cpu, lazy_wall = time_steps(lazy_step, args.repeats)
    return {"nodes": n, "touched_rows": len(rows), "touched_fraction": len(rows) / (n + 1),
            "dense_cpu_s": dense_cpu, "dense_wall_s": dense_wall, "lazy_cpu_s": lazy_cpu,
            "lazy_wall_s": lazy_wall, "load_average_1min": os.getloadavg()[0]}


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
    out.write_text(json.dumps({"rows": rows, "config": vars(args)}, indent=1))
    print("| nodes | rows touched by a batch | dense Adam step (CPU s) | lazy Adam step (CPU s) | load |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['nodes']:,} | {r['touched_rows']:,} ({r['touched_fraction']:.0%}) | "
              f"{r['dense_cpu_s'] * 1e3:.1f} ms | {r['lazy_cpu_s'] * 1e3:.1f} ms | "
              f"{r['load_average_1min']:.1f} |")


if __name__ == "__main__":
    main()
