"""What tracking attention over training costs: ``Goat.fit`` with and without ``track_pairs``.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/track_pairs.py [--repeats 5] [--pairs 5]

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
"""

from __future__ import annotations

import argparse
import json
import time

from _common import ROOT, configure_threads, machine, median


def tracked_pairs(graph, count: int) -> list[tuple[int, int]]:
    from goat_core import explore
    from goat_core.paper import GAVROCHE, MARIUS, THENARDIER

    pairs = [(MARIUS, THENARDIER), (MARIUS, GAVROCHE)] if graph.names[MARIUS] == "Marius" else \
        [explore.default_pair(graph)]
    draw = 0
    while len(pairs) < count:
        draw += 1
        pair = explore.random_pair(graph, 0, draw, edge=True)
        if pair not in pairs:
            pairs.append(pair)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["lesmis", "email"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    configure_threads(None)
    import torch

    from goat_core import Goat, load_graph, presets, split_edges
    from goat_core.tracking import AttentionTracker
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
