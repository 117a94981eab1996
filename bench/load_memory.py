"""Memory and time to load an edge list through the table path (pandas' C parser in chunks).

    .venv/bin/python bench/load_memory.py [--edges 100000 1000000 5000000] [--ids integer text]

Barabási–Albert edge lists with integer ids (as ``bench/app_scale.py`` uploads them), and the
same graphs with text ids ("n17"), are written to /tmp. Each (size, ids, path) is measured in a
fresh Python process: the peak resident memory (``ru_maxrss``) above what the process held
after its imports (pandas included: the app has it loaded), and the wall time of
``goat_core.parse_edge_list`` on the file's bytes. ``--paths columnar`` (the only path since
issue 33; the name kept so that older checkouts run with the same command). Target (issue "Training at
scale"): loading at most 10x the file's size. Writes bench/results/load_memory.json: the machine
(CPU, date, load) and a row per (size, ids, path).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
import pandas  # noqa: F401 - imported before the baseline: the app and the CLI have it loaded
from goat_core.data import readers
raw = open({path!r}, "rb").read()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
for _ in range({repeats}):  # the first call's peak is the memory figure; later calls only time it again
    t0 = time.perf_counter()
    parsed = readers.parse_edge_list(raw, "ba.txt")
    times.append(time.perf_counter() - t0)
    peak = peak if times[1:] else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(times[0], min(times), (peak - base) / 1024, parsed.num_nodes, parsed.num_edges)
"""


def text_ids(path: Path) -> Path:
    """The same edge list with text ids: "n17" for 17."""
    out = path.with_name(path.stem + "_text.txt")
    if not out.exists():
        with open(path) as src, open(out, "w") as dst:
            for line in src:
                u, v = line.split()
                dst.write(f"n{u} n{v}\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[100_000, 1_000_000, 5_000_000])
    parser.add_argument("--data", type=Path, default=Path("/tmp/goat-app-scale"))
    parser.add_argument("--ids", nargs="+", choices=("integer", "text"), default=["integer", "text"])
    parser.add_argument("--paths", nargs="+", choices=("columnar",), default=["columnar"],
                        help="columnar: parse_edge_list (the one table path)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="calls in one process; best_seconds is the fastest")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "load_memory.json")
    args = parser.parse_args()
    from bench._common import machine
    from bench.app_scale import write_edge_list

    args.data.mkdir(parents=True, exist_ok=True)
    rows = []
    for edges, ids in ((e, i) for e in args.edges for i in args.ids):
        path = write_edge_list(edges, args.data)
        if ids == "text":
            path = text_ids(path)
        file_mb = path.stat().st_size / 2**20
        for kind in args.paths:
            code = CHILD.format(root=str(ROOT), path=str(path), repeats=args.repeats)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            seconds, best, peak_mb, nodes, kept = out.stdout.split()
            rows.append({"edges": edges, "ids": ids, "file_mb": file_mb, "path": kind,
                         "seconds": float(seconds), "best_seconds": float(best),
                         "peak_mb_above_imports": float(peak_mb),
                         "times_file": float(peak_mb) / file_mb,
                         "nodes": int(nodes), "edges_kept": int(kept)})
            print(rows[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": machine(), "rows": rows}, indent=2))
    print("| edges | ids | file | path | time | peak memory above imports | × file |\n" + "|---" * 7 + "|")
    for r in rows:
        print(f"| {r['edges']:,} | {r['ids']} | {r['file_mb']:.1f} MB | {r['path']} | {r['seconds']:.2f} s "
              f"| {r['peak_mb_above_imports']:.0f} MB | {r['times_file']:.1f}× |")


if __name__ == "__main__":
    main()
