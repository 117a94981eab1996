"""What tracking attention over training costs: ``Goat.fit`` with and without ``track_pairs``.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/track_pairs.py [--repeats 5] [--pairs 5]
    .venv/bin/python bench/track_pairs.py --scaling 0 16 64 256 1024 5852   # the cap (issue 24)

Each graph trains with the app's fast preset (``presets.fast``: Les Misérables d = 64, N = 100,
40 epochs, batch 64; Email N = 30, 5 epochs, batch 512), holding out the preset's share of the
edges for the live validation AUC, as the Train page does. The tracked pairs are the paper's two
(Marius with Thenardier and with Gavroche) on Les Misérables, the app's default pair on Email,
then seeded random edges up to ``--pairs``. Fits with and without tracking alternate repeat by
repeat (after one warm-up fit each), so both see the same machine; the medians are compared.
On a shared machine that difference is noise-bound, so the time spent inside the tracker's
``record`` (every epoch end and epoch 0) is also summed, as a share of its fit's time: what
tracking itself costs. Target: the tracked history costs at most 10 % of training time.
Writes bench/results/track_pairs.json.

``--scaling K ...`` measures what many tracked pairs cost (``analysis.tracking.MAX_TRACKED_PAIRS``): one
fit of Les Misérables with the fast preset per K, each in a fresh process, its time and its peak
memory (the process's maximum resident set), K pairs being edges then non-edges (5,852 = every
ordered pair). Writes bench/results/track_pairs_scaling.json.
"""

from __future__ import annotations

import argparse
import json
import time

from _common import ROOT, configure_threads, machine, median


def tracked_pairs(graph, count: int) -> list[tuple[int, int]]:
    """``count`` pairs as positions (``NodeIndex``): the case study's or the default pair, then
    seeded random edges, then (past every edge, both ways) any other ordered pairs."""
    from goat_core import NodeIndex
    from goat_core.analysis import picking
    from goat_core.paper import GAVROCHE, MARIUS, THENARDIER

    pairs = [(MARIUS, THENARDIER), (MARIUS, GAVROCHE)] if graph.names[MARIUS] == "Marius" else \
        [picking.default_pair(graph)]
    pairs = [(int(s), int(t)) for s, t in pairs][:count]
    draw = 0
    while len(pairs) < min(count, graph.num_edges):
        draw += 1
        pair = picking.random_pair(graph, 0, draw, edge=True)
        if pair not in pairs:
            pairs.append(pair)
    if len(pairs) < count:
        seen = set(pairs)
        n = graph.num_nodes
        others = [(s, t) for s in range(n) for t in range(n) if s != t and (s, t) not in seen]
        pairs += others[:count - len(pairs)]
    return [(NodeIndex(s), NodeIndex(t)) for s, t in pairs]


def scaling_one(count: int) -> dict:
    """One fit of Les Misérables (fast preset, the Train page's hold-out) tracking ``count`` pairs."""
    import resource

    import torch

    from goat_core import Goat, load_graph, presets, split_edges
    from goat_core.analysis import tracking
    from goat_core.training import small_machine_threads

    threads = small_machine_threads()
    if threads:
        torch.set_num_threads(threads)
    tracking.MAX_TRACKED_PAIRS = 10**9  # what the cap keeps users from is what is measured here
    graph = load_graph("lesmis")
    params = presets.fast(graph.num_edges)
    holdout = params.pop("holdout")
    split = split_edges(graph, 1.0 - holdout, 0)
    pairs = tracked_pairs(graph, count) if count else None
    Goat(**{**params, "epochs": 1}, seed=0).fit(split.train)  # warm-up: the compiled loop, lazy imports
    from goat_core.analysis.tracking import AttentionTracker

    record, spent = AttentionTracker.record, [0.0]

    def timed_record(self, epoch):  # the tracker's whole cost: one forward of the tracked pairs
        begin = time.perf_counter()
        record(self, epoch)
        spent[0] += time.perf_counter() - begin

    AttentionTracker.record = timed_record
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    goat = Goat(**params, seed=0).fit(split.train, validation=(split.test_pos, split.test_neg),
                                      track_pairs=pairs)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"pairs": count, "epochs": params["epochs"], "fit_s": elapsed, "record_s": spent[0],
            "record_share": spent[0] / elapsed, "peak_rss_mb": peak / 1024,
            "peak_rise_mb": (peak - before) / 1024, "tracked": len(goat.tracked_)}


def scaling(counts: list[int]) -> None:
    import subprocess
    import sys

    rows = []
    for count in counts:  # a fresh process each: peak memory is the process's own
        out = subprocess.run([sys.executable, __file__, "--scaling-one", str(count)], capture_output=True,
                             text=True, check=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
    from goat_core.analysis.tracking import MAX_TRACKED_PAIRS

    result = {"machine": machine(), "cap": MAX_TRACKED_PAIRS, "rows": rows}
    (ROOT / "bench" / "results" / "track_pairs_scaling.json").write_text(json.dumps(result, indent=2))
    base = rows[0]["fit_s"] if rows and rows[0]["pairs"] == 0 else None
    print("| tracked pairs | fit | vs none | inside the tracker | peak memory (rise during the fit) |")
    print("|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['fit_s'] / base:.2f}x" if base else "-"
        print(f"| {r['pairs']:,} | {r['fit_s']:.2f} s | {ratio} | {r['record_s']:.2f} s "
              f"({100 * r['record_share']:.0f} %) | {r['peak_rss_mb']:.0f} MB "
              f"(+{r['peak_rise_mb']:.0f} MB) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["lesmis", "email"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--scaling", type=int, nargs="+", help="tracked-pair counts: time and peak memory")
    parser.add_argument("--scaling-one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    configure_threads(None)
    if args.scaling_one is not None:
        print(json.dumps(scaling_one(args.scaling_one)))
        return
    if args.scaling:
        scaling(args.scaling)
        return
    import torch

    from goat_core import Goat, load_graph, presets, split_edges
    from goat_core.analysis.tracking import AttentionTracker
    from goat_core.training import small_machine_threads

    record = AttentionTracker.record
    spent = [0.0]

    def timed_record(self, epoch):  # the tracker's whole cost: one forward of the tracked pairs
        start = time.perf_counter()
        record(self, epoch)
        spent[0] += time.perf_counter() - start

    AttentionTracker.record = timed_record

    threads = small_machine_threads()
    if threads:
        torch.set_num_threads(threads)
    rows = []
    for name in args.graphs:
        graph = load_graph(name)
        params = presets.fast(graph.num_edges)
        holdout = params.pop("holdout")
        split = split_edges(graph, 1.0 - holdout, 0)
        validation = (split.test_pos, split.test_neg)
        pairs = tracked_pairs(graph, args.pairs)
        times: dict[str, list[float]] = {"plain": [], "tracked": []}
        shares, rows_per_pair = [], 0
        for repeat in range(args.repeats + 1):  # repeat 0 warms up (compiled loop, lazy imports)
            for kind in ("plain", "tracked") if repeat % 2 == 0 else ("tracked", "plain"):
                spent[0] = 0.0
                start = time.perf_counter()
                goat = Goat(**params, seed=0).fit(split.train, validation=validation,
                                                  track_pairs=pairs if kind == "tracked" else None)
                elapsed = time.perf_counter() - start
                if kind == "tracked":
                    rows_per_pair = len(goat.tracked_[0].epochs)
                if repeat:
                    times[kind].append(elapsed)
                    if kind == "tracked":
                        shares.append(spent[0] / elapsed)
        plain, tracked = median(times["plain"]), median(times["tracked"])
        row = {"graph": name, "edges": graph.num_edges, "train_edges": split.train.num_edges,
               "params": params, "holdout": holdout, "pairs": len(pairs),
               "epochs": params["epochs"], "rows_per_pair": rows_per_pair,
               "plain_s": plain, "tracked_s": tracked, "overhead": tracked / plain - 1.0,
               "record_share": median(shares), "record_share_max": max(shares),
               "plain_all": times["plain"], "tracked_all": times["tracked"]}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("params",)}), flush=True)
    result = {"machine": machine(), "repeats": args.repeats, "rows": rows}
    out = ROOT / "bench" / "results" / "track_pairs.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print("| graph | edges (train) | epochs | tracked pairs | without tracking | with tracking | difference "
          "| inside the tracker |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['graph']} | {r['train_edges']:,} | {r['epochs']} | {r['pairs']} | "
              f"{r['plain_s']:.2f} s | {r['tracked_s']:.2f} s | {100 * r['overhead']:+.1f} % | "
              f"{100 * r['record_share']:.2f} % "
              f"(max {100 * r['record_share_max']:.2f} %) |")


if __name__ == "__main__":
    main()
