"""Which whole-graph layout scales: networkx's spring layout against igraph's C layouts.

    .venv/bin/python bench/layouts.py [--nodes 1000 5000 20000 200000] [--budget 120]

On Barabási–Albert graphs (m = 5, seeded, as ``bench/app_scale.py`` uploads them) it times each
layout and scores it by the **edge-length ratio**: the mean length of an edge divided by the mean
distance between random node pairs (lower = neighbors drawn closer together than strangers;
1 = no better than random positions). A layout whose previous size took longer than
``--budget`` seconds is not run at larger sizes (its time grows at least linearly). Writes
``bench/results/layouts.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.app_scale import barabasi_albert_edges  # noqa: E402


def spring_networkx(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges.tolist())
    pos = nx.spring_layout(graph, seed=seed)
    return np.array([pos[i] for i in range(n)])


def _igraph(n: int, edges: np.ndarray):
    import igraph as ig

    return ig.Graph(n=n, edges=edges.tolist())


def fr_igraph(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    import random

    random.seed(seed)  # igraph draws its start from Python's RNG
    return np.asarray(_igraph(n, edges).layout_fruchterman_reingold(niter=500, grid="auto").coords)


def drl_igraph(n: int, edges: np.ndarray, seed: int) -> np.ndarray:
    import random

    random.seed(seed)
    return np.asarray(_igraph(n, edges).layout_drl().coords)


LAYOUTS = {"networkx spring": spring_networkx, "igraph Fruchterman–Reingold (grid)": fr_igraph,
           "igraph DrL": drl_igraph}


def edge_length_ratio(pos: np.ndarray, edges: np.ndarray, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(pos), size=(2, 20_000))
    random_pairs = np.linalg.norm(pos[a] - pos[b], axis=1).mean()
    sample = edges[rng.integers(0, len(edges), size=20_000)]
    return float(np.linalg.norm(pos[sample[:, 0]] - pos[sample[:, 1]], axis=1).mean() / random_pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1_000, 5_000, 20_000, 200_000])
    parser.add_argument("--budget", type=float, default=120.0)
    args = parser.parse_args()
    rows, skipped = [], set()
    for n in args.nodes:
        edges = barabasi_albert_edges(5 * n)
        n_real = int(edges.max()) + 1
        for name, layout in LAYOUTS.items():
            if name in skipped:
                rows.append({"nodes": n_real, "edges": len(edges), "layout": name, "seconds": None})
                continue
            t0 = time.perf_counter()
            pos = layout(n_real, edges, 0)
            seconds = time.perf_counter() - t0
            rows.append({"nodes": n_real, "edges": len(edges), "layout": name, "seconds": seconds,
                         "edge_length_ratio": edge_length_ratio(pos, edges)})
            print(rows[-1], flush=True)
            if seconds > args.budget:
                skipped.add(name)
    dest = ROOT / "bench" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "layouts.json").write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=2))
    print("| nodes | edges | layout | time | edge-length ratio |\n|---|---|---|---|---|")
    for r in rows:
        time_cell = "skipped (previous size over budget)" if r["seconds"] is None else f"{r['seconds']:.2f} s"
        ratio = f"{r['edge_length_ratio']:.3f}" if r["seconds"] is not None else "—"
        print(f"| {r['nodes']:,} | {r['edges']:,} | {r['layout']} | {time_cell} | {ratio} |")


if __name__ == "__main__":
    main()
