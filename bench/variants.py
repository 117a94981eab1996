"""Each variant on each compute path it has: one training epoch on Email 55 %, pairs per second.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/variants.py [--repeats 3]

The configuration is the paper's for Email (d = 200, N = 100, dropout 0.8, batch 256; lr 1e-3).
``Goat(backend="auto")`` picks the fastest path that computes each variant; this shows the
alternatives it passed over. The first fit of a process also loads the compiled loop, so the
median of ``--repeats`` fits is reported. Writes bench/results/variants.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PATHS = {"goat": ("fused", "torch", "module"), "mean-pool": ("fused", "module"), "global": ("module",)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import torch

    from goat_core import Goat, load_graph, split_edges
    from goat_core.backends.dispatch import resolve_backend
    from goat_core.training import small_machine_threads

    threads = small_machine_threads()
    if threads:
        torch.set_num_threads(threads)
    graph = split_edges(load_graph("email"), 0.55, 0).train
    rows = []
    for variant, backends in PATHS.items():
        for backend in backends:
            rates = []
            for seed in range(args.repeats + 1):  # the first fit loads the compiled loop: not counted
                start = time.perf_counter()
                Goat(dim=200, neighborhood=100, dropout=0.8, lr=1e-3, epochs=1, batch_size=256,
                     variant=variant, backend=backend, seed=seed, padding="mask",
                     validation_fraction=0.0).fit(graph)  # one timed epoch, as recorded
                if seed:
                    rates.append(2 * graph.num_edges / (time.perf_counter() - start))
            chosen = resolve_backend("auto", variant, torch.device("cpu")) == backend
            rows.append({"variant": variant, "backend": backend, "pairs_per_s": statistics.median(rates),
                         "auto_on_cpu": chosen})
            print(rows[-1], flush=True)
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "results" / "variants.json").write_text(json.dumps(rows, indent=2))
    print("| variant | backend | pairs/s (median) | auto's choice on CPU |\n|---|---|---|---|")
    for r in rows:
        mark = "✓" if r["auto_on_cpu"] else ""
        print(f"| {r['variant']} | {r['backend']} | {r['pairs_per_s']:,.0f} | {mark} |")


if __name__ == "__main__":
    main()
