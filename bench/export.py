"""How long an Export click takes: one figure to SVG and to PNG through kaleido and Chromium.

    .venv/bin/python bench/export.py [--repeats 3] [--nodes 77 1005]

Renders the whole-graph network figure of Les Misérables (77 nodes) and of Email (1,005
nodes, WebGL) the way the app's Export buttons do (``goat_core.views.export.figure_bytes``),
``--repeats`` times each, and reports the median seconds and the file sizes. Kaleido starts a
browser per call, so each number includes that start. Writes ``bench/results/export.json`` (or
``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import machine, median  # noqa: E402

GRAPHS = {77: "lesmis", 1005: "email"}


def network(name: str):
    from goat_core import load_graph, views
    from goat_core.analysis import layouts

    graph = load_graph(name)
    pos = layouts.layout(graph, seed=0)
    return views.network_figure(pos, graph.src, graph.dst, graph.names, graph.degrees(),
                                groups=graph.labels.codes if graph.labels else None,
                                group_names=graph.labels.classes if graph.labels else (), seed=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nodes", type=int, nargs="+", default=list(GRAPHS), choices=list(GRAPHS))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "export.json")
    args = parser.parse_args()
    from goat_core.views import export

    config = {"app": "GOAT Explorer", "graph": "bench", "seed": 0, "run": {"dim": 64, "epochs": 40}}
    rows = []
    for nodes in args.nodes:
        fig = network(GRAPHS[nodes])
        for fmt in export.FORMATS:
            times, size = [], 0
            for _ in range(args.repeats):
                start = time.perf_counter()
                size = len(export.figure_bytes(fig, fmt, config))
                times.append(time.perf_counter() - start)
            row = {"graph": GRAPHS[nodes], "nodes": nodes, "format": fmt, "median_s": round(median(times), 2),
                   "times_s": [round(t, 2) for t in times], "bytes": size}
            rows.append(row)
            print(f"| {row['graph']} ({nodes} nodes) | {fmt.upper()} | {row['median_s']:.2f} s "
                  f"| {size / 1024:.0f} KiB |")
    result = {"machine": machine(), "repeats": args.repeats, "rows": rows}
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
