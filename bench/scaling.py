"""Scaling: one training epoch on Barabási–Albert graphs of 50k to 2M edges; time and peak memory.

    python bench/scaling.py --quick                 # 50k, 100k, 200k edges (a few minutes)
    nohup python bench/scaling.py > bench/results/scaling.log 2>&1 &    # up to 2M edges

Each size runs in its own process (so that its peak RSS is its own): a BA graph with m = 10
edges per new node (mean degree 20; ``--m``) from a seeded generator, then one epoch of
``run_training`` at d=200, N=100, dropout 0.5, one negative per edge (2·|E| pairs), lr 1e-3,
batch 4096 (``--batch-size``), the optimiser as ``Goat(optimizer="auto")`` picks it (lazy Adam
from goat_core.optim.LAZY_FROM_NODES on; ``--optimizer adam`` for dense Adam at every size).
Reported: epoch wall time (sampling, batching, kernels, optimizer; graph building and set-up
apart), the process's peak resident memory and the 1-minute load average after each size (the
machine is shared).
Results go to bench/results/scaling.json and a plot to bench/results/scaling.svg. The paper
reports ~7 min per epoch at 2M edges on an NVIDIA Quadro RTX 5000.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, configure_threads, machine, peak_rss_mb

FULL = [50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000]
QUICK = [50_000, 100_000, 200_000]
RESULTS = ROOT / "bench" / "results"


def barabasi_albert(edges: int, m: int, seed: int):
    """(src, dst) of a BA graph with ``m`` edges per new node and about ``edges`` edges."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = edges // m + m
    src = np.empty((n - m) * m, dtype=np.int64)
    dst = np.empty_like(src)
    ends = np.empty(2 * (n - m) * m + m, dtype=np.int64)  # every edge end so far: degree-biased
    ends[:m] = np.arange(m)
    size, k = m, 0
    for v in range(m, n):
        targets = np.unique(ends[rng.integers(0, size, 2 * m)])[:m] if v > m else np.arange(m)
        while len(targets) < m:  # rare: too many repeats among 2m draws
            targets = np.unique(np.concatenate([targets, ends[rng.integers(0, size, m)]]))[:m]
        src[k:k + m], dst[k:k + m] = targets, v  # undirected edges stored as (min, max)
        ends[size:size + m] = targets
        ends[size + m:size + 2 * m] = v
        size += 2 * m
        k += m
    return n, src, dst


def ba_graph(edges: int, m: int, seed: int):
    """The benchmark's graph: BA with ``m`` edges per new node, about ``edges`` edges."""
    import numpy as np

    from goat_core.data.graph import Graph

    n, src, dst = barabasi_albert(edges, m, seed)
    return Graph(names=tuple(map(str, range(n))), src=src, dst=dst, weight=np.ones(len(src)),
                 source=f"BA(n={n}, m={m})")


def train_one_epoch(graph, seed: int, optimizer: str, batch_size: int = 4096, device: str = "cpu"):
    """One epoch of the benchmark's configuration (module docstring) on ``graph``:
    (history, the optimiser ``optimizer`` resolved to)."""
    import torch

    from goat_core.model import Goat
    from goat_core.optim import resolve_optimizer
    from goat_core.training import run_training

    gen = torch.Generator().manual_seed(seed)
    dev = torch.device(device)
    model = Goat(graph.num_nodes, 200, "max", 0.5, gen).to(dev)
    resolved = resolve_optimizer(optimizer, graph.num_nodes)
    history = run_training(model, graph, epochs=1, batch_size=batch_size, lr=1e-3, negatives=1,
                           neighborhood=100, exclude_partner=True, generator=gen, device=dev,
                           backend="fused" if dev.type == "cpu" else "torch", optimizer=resolved)
    return history, resolved


def one(args) -> dict:
    configure_threads(args.threads, args.spin)
    import torch

    from goat_core.training import small_machine_threads

    threads = args.threads or small_machine_threads()  # as the CLI and the app set it
    if threads:
        torch.set_num_threads(threads)
    t0 = time.perf_counter()
    graph = ba_graph(args.one, args.m, args.seed)
    build_s = time.perf_counter() - t0
    history, optimizer = train_one_epoch(graph, args.seed, args.optimizer, args.batch_size, args.device)
    epoch_s, edges = history[0]["elapsed"], graph.num_edges
    peak_gpu = torch.cuda.max_memory_allocated() / 2**20 if args.device == "cuda" else None
    return {"edges": edges, "nodes": graph.num_nodes, "pairs": 2 * edges, "epoch_s": epoch_s,
            "pairs_per_s": 2 * edges / epoch_s, "peak_rss_mb": peak_rss_mb(), "peak_gpu_mb": peak_gpu,
            "graph_build_s": build_s, "loss": history[0]["loss"], "optimizer": optimizer}


def svg_plot(rows: list[dict], path: Path) -> None:
    """Epoch time and peak memory against edges, log-log, as a dependency-free SVG."""
    import math

    W, H, L, B = 640, 380, 70, 50
    xs = [math.log10(r["edges"]) for r in rows]
    x0, x1 = math.log10(4e4), math.log10(max(2.5e6, 1.25 * max(r["edges"] for r in rows)))

    def px(v):
        return L + (v - x0) / (x1 - x0) * (W - L - 70)

    def series(values, lo, hi):
        return [H - B - (math.log10(v) - lo) / (hi - lo) * (H - B - 30) for v in values]

    t_lo, t_hi = math.log10(1), math.log10(3600)
    m_lo, m_hi = math.log10(100), math.log10(max(16000, 1.25 * max(r["peak_rss_mb"] for r in rows)))
    ty = series([r["epoch_s"] for r in rows], t_lo, t_hi)
    my = series([r["peak_rss_mb"] for r in rows], m_lo, m_hi)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" '
             f'font-size="11"><rect width="100%" height="100%" fill="white"/>',
             f'<text x="{W / 2}" y="16" text-anchor="middle" font-size="13">GOAT epoch time and peak memory, '
             f'Barabási–Albert graphs (CPU, 2 cores)</text>']
    for e in (e for e in (5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7) if math.log10(e) <= x1):
        x = px(math.log10(e))
        parts.append(f'<line x1="{x}" y1="30" x2="{x}" y2="{H - B}" stroke="#eee"/>'
                     f'<text x="{x}" y="{H - B + 15}" text-anchor="middle">{e / 1e6:g}M</text>')
    for s in (1, 10, 60, 420, 3600):
        y = series([s], t_lo, t_hi)[0]
        label = f"{s // 60} min" if s >= 60 else f"{s} s"
        parts.append(f'<text x="{L - 5}" y="{y + 4}" text-anchor="end" fill="#1f77b4">{label}</text>')
    for mb in (100, 1000, 8000):
        y = series([mb], m_lo, m_hi)[0]
        parts.append(f'<text x="{W - 65}" y="{y + 4}" fill="#d62728">{mb / 1000:g} GB</text>')
    y7 = series([420], t_lo, t_hi)[0]
    parts.append(f'<line x1="{L}" y1="{y7}" x2="{W - 70}" y2="{y7}" stroke="#1f77b4" stroke-dasharray="4"/>'
                 f'<text x="{L + 4}" y="{y7 - 4}" fill="#1f77b4">paper: ~7 min at 2M (GPU)</text>')
    y8 = series([8000], m_lo, m_hi)[0]
    parts.append(f'<line x1="{L}" y1="{y8}" x2="{W - 70}" y2="{y8}" stroke="#d62728" stroke-dasharray="4"/>')
    for ys, color in ((ty, "#1f77b4"), (my, "#d62728")):
        pts = " ".join(f"{px(x):.1f},{y:.1f}" for x, y in zip(xs, ys))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts += [f'<circle cx="{px(x):.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in zip(xs, ys)]
    parts.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">edges (log scale); '
                 f'<tspan fill="#1f77b4">epoch time</tspan>, <tspan fill="#d62728">peak memory</tspan> '
                 f'(log scales)</text></svg>')
    path.write_text("\n".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50k-200k edges only")
    parser.add_argument("--sizes", type=int, nargs="*", help="edge counts (default: 50k ... 2M)")
    parser.add_argument("--m", type=int, default=10, help="BA edges per new node")
    parser.add_argument("--batch-size", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--spin", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--optimizer", default="auto", choices=("auto", "adam", "lazy-adam"))
    parser.add_argument("--out", type=Path, default=None, help="results JSON (default bench/results/)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: one size, this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args)))
        return
    sizes = args.sizes or (QUICK if args.quick else FULL)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = args.out or RESULTS / ("scaling_quick.json" if args.quick else "scaling.json")
    rows = []
    for edges in sizes:
        cmd = [sys.executable, __file__, "--one", str(edges), "--m", str(args.m), "--batch-size",
               str(args.batch_size), "--threads", str(args.threads), "--seed", str(args.seed),
               "--device", args.device, "--optimizer", args.optimizer] + (["--spin"] if args.spin else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{edges} edges: failed\n{done.stderr[-2000:]}", flush=True)
            break
        row = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{row['edges']:>9,} edges {row['nodes']:>8,} nodes: epoch {row['epoch_s']:8.1f} s "
              f"({row['pairs_per_s']:6.0f} pairs/s), peak RSS {row['peak_rss_mb']:7.0f} MB, "
              f"{row['optimizer']}, load {os.getloadavg()[0]:.1f}", flush=True)
        row["load_average_1min"] = os.getloadavg()[0]  # the machine is shared: how busy it was
        configure_threads(args.threads, args.spin)
        report = {"rows": rows, "config": {"m": args.m, "batch_size": args.batch_size, "dim": 200,
                                           "neighborhood": 100, "dropout": 0.5, "lr": 1e-3, "negatives": 1,
                                           "device": args.device, "optimizer": args.optimizer},
                  "machine": machine()}
        out.write_text(json.dumps(report, indent=1))
        svg_plot(rows, out.with_suffix(".svg"))
    print("| edges | nodes | epoch (s) | pairs/s | peak RSS (MB) |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['edges']:,} | {r['nodes']:,} | {r['epoch_s']:.1f} | {r['pairs_per_s']:.0f} | "
              f"{r['peak_rss_mb']:.0f} |")


if __name__ == "__main__":
    main()
