"""What software prefetch gives the fused per-pair loops on a large table (CPU time, A/B).

    python bench/prefetch.py [--nodes 200000] [--pairs 4096] [--repeats 5]

Builds the fused loops twice from ``goat_core/backends/fused.py``: as they are (``_prefetch_next`` and
``_prefetch_rows`` before each pair) and with those calls removed. Both run the same batch on a
(nodes+1, 200) float32 table: ``--pairs`` pairs whose two neighborhoods hold ``--width`` rows
each, drawn in proportion to a BA graph's degrees (node i of n: about 10·sqrt(n / i)), dropout
0.5. Each repeat times a training pass (one segment, one thread) of both builds back to back;
reported are the medians of CPU seconds (``time.process_time``, less sensitive than wall time to
other jobs on a shared machine) and pairs per CPU-second. Writes bench/results/prefetch_NODES.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def fused_built(name: str, edit: Callable[[str], str]) -> types.ModuleType:
    """goat_core.backends.fused compiled again (not cached) from its source as ``edit`` rewrites it."""
    source = edit((ROOT / "goat_core" / "backends" / "fused.py").read_text())
    source = source.replace("cache=True", "cache=False")
    source = source.replace("from .masks", "from goat_core.backends.masks")
    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 - our own source file
    return module


def without_prefetch() -> types.ModuleType:
    """goat_core.backends.fused with the prefetch calls taken out of the loops (not cached)."""
    def strip(source: str) -> str:
        source = re.sub(r"\n\s+_prefetch_next\(weight, ids_s, ids_t, .*\)", "", source)
        return re.sub(r"\n\s+_prefetch_rows\(out, ids_[st]\[b\], .*\)", "", source)
    return fused_built("fused_without_prefetch", strip)


def batch(nodes: int, pairs: int, width: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    degree = 10 * np.sqrt(nodes / np.arange(1, nodes + 1))
    ids = rng.choice(nodes, size=(2, pairs, width), p=degree / degree.sum())
    weight = rng.standard_normal((nodes + 1, 200), dtype=np.float32) * 0.05
    weight[nodes] = 0.0
    lengths = np.full(pairs, width, np.int64)
    return weight, ids[0].copy(), ids[1].copy(), lengths


def step(fused, weight, ids_s, ids_t, lengths, out) -> float:
    """CPU seconds of one training pass of ``fused.pair_loop`` (logit, loss term and gradient per
    pair, dropout 0.5) over the batch, one segment."""
    import numpy as np

    from goat_core.backends.masks import threshold_for

    B = ids_s.shape[0]
    threshold, exact = threshold_for(0.5)
    s2, pad, key = 1.0 / (exact * exact), weight.shape[0] - 1, np.uint64(12345)
    labels = (np.arange(B) % 2).astype(weight.dtype)
    pair_weights = np.ones(B, weight.dtype)
    logits, losses = np.empty(B, weight.dtype), np.empty(B)
    fresh = np.full(weight.shape[0], 1, np.uint8)
    start = time.process_time()
    fused.pair_loop(weight, ids_s, ids_t, lengths, lengths, pad, key, threshold, s2, 0, B, False, logits,
                    labels, pair_weights, 1.0 / B, losses, out, fresh)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=200_000)
    parser.add_argument("--pairs", type=int, default=4096)
    parser.add_argument("--width", type=int, default=45, help="rows per neighborhood (BA m=10: ~45)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import numpy as np
    from threadpoolctl import threadpool_limits

    from goat_core.backends import fused

    plain = without_prefetch()
    weight, ids_s, ids_t, lengths = batch(args.nodes, args.pairs, args.width, args.seed)
    out = np.empty_like(weight)
    times: dict[str, list[float]] = {"prefetch": [], "no prefetch": []}
    with threadpool_limits(1, user_api="blas"):
        for module in (fused, plain):  # compile both outside the timing
            step(module, weight, ids_s[:8], ids_t[:8], lengths[:8], out)
        for _ in range(args.repeats):
            times["prefetch"].append(step(fused, weight, ids_s, ids_t, lengths, out))
            times["no prefetch"].append(step(plain, weight, ids_s, ids_t, lengths, out))
    result = {name: {"cpu_s": statistics.median(t), "pairs_per_cpu_s": args.pairs / statistics.median(t)}
              for name, t in times.items()}
    result["config"] = vars(args)
    result["load_average_1min"] = os.getloadavg()[0]
    (ROOT / "bench" / "results" / f"prefetch_{args.nodes}.json").write_text(json.dumps(result, indent=1))
    for name in times:
        print(f"{name:12s} {result[name]['cpu_s'] * 1e3:8.1f} ms CPU per batch "
              f"({result[name]['pairs_per_cpu_s']:,.0f} pairs per CPU-second)")
    print(f"load average {result['load_average_1min']:.1f}")


if __name__ == "__main__":
    main()
