"""Time and memory of the readers docs/formats.md quotes a speed for, on files the tools write.

    .venv/bin/python bench/reader_speed.py [--cases dot-igraph matrix-2k ...] [--repeats 3]

Each file is written once to /tmp by the tool named (a Barabási–Albert graph, 2 edges a node, names
"n17"), then read ``--repeats`` times, each in a fresh Python process: the wall time of
``goat_core.read_graph_file`` and the peak resident memory above the process's imports. One line a
case: the fastest and slowest time, the peak memory, the file's size and the graph read. Writes
bench/results/reader_speed.json (the machine, its load and the rows).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench._common import machine  # noqa: E402

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
import networkx, pandas  # noqa: F401 - imported before the baseline, as the app has them loaded
from goat_core import read_graph_file
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
graph = read_graph_file({path!r})
seconds = time.perf_counter() - t0
peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
print(seconds, peak, graph.num_nodes, graph.num_edges)
"""


def named(n: int) -> nx.Graph:
    return nx.relabel_nodes(nx.barabasi_albert_graph(n, 2, seed=0), lambda v: f"n{v}")


def write_igraph_dot(path: Path, n: int) -> None:
    import igraph as ig

    ig.Graph.from_networkx(named(n)).write_dot(str(path))  # one statement a line, "name" attributes


def write_matrix(path: Path, n: int) -> None:
    nx.to_pandas_adjacency(named(n), dtype=int).to_csv(path)


CASES = {  # name: (file name, writer)
    "dot-igraph-10k": ("g.dot", lambda p: write_igraph_dot(p, 10_000)),
    "dot-networkx-10k": ("g.dot", lambda p: nx.nx_pydot.write_dot(named(10_000), p)),
    "gml-networkx-10k": ("g.gml", lambda p: nx.write_gml(named(10_000), p)),
    "graphml-networkx-10k": ("g.graphml", lambda p: nx.write_graphml(named(10_000), p)),
    "gexf-networkx-10k": ("g.gexf", lambda p: nx.write_gexf(named(10_000), p)),
    "matrix-2k": ("m.csv", lambda p: write_matrix(p, 2_000)),
    "matrix-10k": ("m.csv", lambda p: write_matrix(p, 10_000)),
}


def measure(case: str, repeats: int) -> dict:
    name, write = CASES[case]
    path = Path("/tmp/goat-reader-speed") / case / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        write(path)
    runs = []
    for _ in range(repeats):
        child = CHILD.format(root=str(ROOT), path=str(path))
        out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True,
                             env={**os.environ, "GOAT_OFFLINE": "1"})
        runs.append([float(x) for x in out.stdout.split()])
    seconds = sorted(r[0] for r in runs)
    return {"case": case, "file_mb": path.stat().st_size / 2**20, "fastest_s": seconds[0],
            "slowest_s": seconds[-1], "peak_mb": max(r[1] for r in runs), "nodes": int(runs[0][2]),
            "edges": int(runs[0][3])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "reader_speed.json")
    args = parser.parse_args()
    rows = []
    for case in args.cases:
        row = measure(case, args.repeats)
        rows.append(row)
        print(f"{case:22} {row['fastest_s']:6.2f}–{row['slowest_s']:.2f} s  peak {row['peak_mb']:7.0f} MB  "
              f"file {row['file_mb']:6.1f} MB  {row['nodes']:,} nodes, {row['edges']:,} edges", flush=True)
    args.out.write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
