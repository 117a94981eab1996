"""The fused training step's per-pair loop, A/B: where its prefetches go.

    python bench/one_pass.py [--nodes 10000 200000 1000000] [--pairs 4096] [--repeats 5]

On the batch of ``bench/prefetch.py`` (``--pairs`` pairs of two ``--width``-row neighborhoods
drawn in proportion to a BA graph's degrees, a (nodes+1, 200) float32 table, dropout 0.5), one
segment on one thread, each variant timed back to back per repeat (medians of CPU seconds):

* ``one-pass``: ``pair_loop``, logit, loss term and gradient per pair while its rows are in
  cache (``fused.FusedPairLoss``, what training runs). The two-pass loops it was measured
  against (``bench/results/one_pass.json``: every row gathered twice) are gone (issue 34);
* ``one-pass, prefetch locality 3 / 1 / none``: the same loop built with the table rows
  prefetched into L1 too (locality 3, the setting before), into L3 only (1), or not at all;
  the loop as it is uses ``fused.PREFETCH_LOCALITY``.

Writes bench/results/one_pass.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def built(locality: int | None) -> types.ModuleType:
    """goat_core.backends.fused compiled again (not cached) with table prefetches of ``locality``
    (None: no prefetch at all, ``prefetch.without_prefetch``)."""
    from prefetch import fused_built, without_prefetch

    if locality is None:
        return without_prefetch()
    return fused_built(f"fused_l{locality}", lambda source: re.sub(
        r"\nPREFETCH_LOCALITY = \d", f"\nPREFETCH_LOCALITY = {locality}", source))


def measure(nodes: int, args) -> dict:
    import numpy as np
    from prefetch import batch
    from prefetch import step as one_pass  # fused.pair_loop, training
    from threadpoolctl import threadpool_limits

    from goat_core.backends import fused

    variants = {"one-pass": (fused, one_pass)}
    for locality in (3, 1, None):
        label = "none" if locality is None else str(locality)
        variants[f"one-pass, prefetch locality {label}"] = (built(locality), one_pass)
    weight, ids_s, ids_t, lengths = batch(nodes, args.pairs, args.width, args.seed)
    out = np.zeros_like(weight)
    times: dict[str, list[float]] = {name: [] for name in variants}
    with threadpool_limits(1, user_api="blas"):
        for module, run in variants.values():  # compile outside the timing
            run(module, weight, ids_s[:8], ids_t[:8], lengths[:8], out)
        for _ in range(args.repeats):
            for name, (module, run) in variants.items():
                times[name].append(run(module, weight, ids_s, ids_t, lengths, out))
    return {name: {"cpu_s": statistics.median(t), "us_per_pair": statistics.median(t) / args.pairs * 1e6,
                   "pairs_per_cpu_s": args.pairs / statistics.median(t)} for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="*", default=[10_000, 200_000, 1_000_000])
    parser.add_argument("--pairs", type=int, default=4096)
    parser.add_argument("--width", type=int, default=45, help="rows per neighborhood (BA m=10: ~45)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "one_pass.json")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    results = {}
    for nodes in args.nodes:
        results[nodes] = row = measure(nodes, args)
        for name, r in row.items():
            print(f"{nodes:>9,} nodes  {name:34s} {r['us_per_pair']:6.1f} us per pair "
                  f"({r['pairs_per_cpu_s']:,.0f} pairs per CPU-second)", flush=True)
    report = {"results": results, "config": {k: v for k, v in vars(args).items() if k != "out"},
              "load_average_1min": os.getloadavg()[0]}
    args.out.write_text(json.dumps(report, indent=1))
    print(f"load average {report['load_average_1min']:.1f}")


if __name__ == "__main__":
    main()
