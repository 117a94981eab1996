"""The alignment A = S Tᵀ of one pair: the loops' blocked kernel against OpenBLAS's sgemm.

    python bench/alignment.py [--repeats 20000]     # bench/results/alignment.json

One thread, float32, d = 200, S and T cache-resident; for each (|N_s|, |N_t|) the wall
microseconds of one product (median of 5 timings of ``--repeats`` products in a compiled loop)
with ``np.dot(S[:ls], T[:lt].T)`` (numba's call into scipy's BLAS: OpenBLAS sgemm, as the loops
did before) and with ``goat_core.backends.fused._align`` (as they do now), and their GFLOP/s (2·ls·lt·d
per product). The sizes span an epoch's pairs: neighborhoods of a few rows up to N = 100, with
mean widths about 50 and 38 at 1M-2M edges (``bench/epoch_work.py``).

The JSON also has each product's time and GFLOP/s by the process's CPU time, which hold up when
other work shares the cores.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _common import ROOT, machine, median

SIZES = [(4, 3), (12, 9), (23, 17), (45, 45), (50, 38), (64, 64), (100, 100)]


def compiled_loops():
    import numba as nb
    import numpy as np
    import scipy.linalg.cython_blas  # noqa: F401 - numba's np.dot needs it loaded

    from goat_core.backends.fused import _FAST, _align

    @nb.njit(fastmath=_FAST)
    def blas(S, T, ls, lt, repeats):
        total = 0.0
        for _ in range(repeats):
            total += np.dot(S[:ls], T[:lt].T)[0, 0]
        return total

    @nb.njit(fastmath=_FAST)
    def blocked(S, T, ls, lt, repeats):
        total = 0.0
        for _ in range(repeats):
            total += _align(S, T, ls, lt)[0, 0]
        return total

    return {"OpenBLAS sgemm (np.dot)": blas, "fused._align": blocked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "alignment.json")
    args = parser.parse_args()
    import numpy as np
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    S, T = (rng.standard_normal((100, 200)).astype(np.float32) for _ in range(2))
    loops = compiled_loops()
    rows = []
    with threadpool_limits(1):
        for ls, lt in SIZES:
            row = {"ls": ls, "lt": lt}
            for name, loop in loops.items():
                loop(S, T, ls, lt, 10)  # compiled, caches warm
                walls, cpus = [], []
                for _ in range(5):
                    start, cpu = time.perf_counter(), time.process_time()
                    loop(S, T, ls, lt, args.repeats)
                    walls.append((time.perf_counter() - start) / args.repeats)
                    cpus.append((time.process_time() - cpu) / args.repeats)
                flop = 2 * ls * lt * S.shape[1]
                row[name] = {"us": median(walls) * 1e6, "gflops": flop / median(walls) / 1e9,
                             "cpu_us": median(cpus) * 1e6, "cpu_gflops": flop / median(cpus) / 1e9}
            rows.append(row)
    names = list(loops)
    print(f"| ls × lt | {names[0]} | {names[1]} | speed-up | GFLOP/s by CPU time: sgemm, _align |\n"
          "|---|---|---|---|---|")
    for row in rows:
        a, b = row[names[0]], row[names[1]]
        print(f"| {row['ls']} × {row['lt']} | {a['us']:.2f} µs ({a['gflops']:.0f} GFLOP/s) | "
              f"{b['us']:.2f} µs ({b['gflops']:.0f} GFLOP/s) | {a['us'] / b['us']:.2f}× | "
              f"{a['cpu_gflops']:.0f}, {b['cpu_gflops']:.0f} |")
    result = {"d": S.shape[1], "repeats": args.repeats, "machine": machine(), "rows": rows}
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
