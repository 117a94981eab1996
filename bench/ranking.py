"""What ranking each held-out edge against 100 negatives costs, beside ``linkpred``'s AUC scoring.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/ranking.py [--ratios 0.15 0.55 0.95] [--repeats 3]

Email at each ratio: GOAT with the default parameters, trained for one epoch (the scoring's cost
does not depend on the weights' values) on the split's training edges. Timed, medians of
``--repeats`` after a warm-up, wall-clock and this process's CPU time (one thread):

- ``auc_scoring``: ``evaluate_link_prediction`` on a fresh copy of the model (its Gram matrix
  computed inside, as in ``linkpred``): what ``linkpred`` spends scoring today;
- ``negatives_random`` / ``negatives_hard``: drawing 100 negatives per held-out edge;
- ``ranking_goat``: scoring the positives and their negatives (``goat_pair_scores``: the compiled
  path's Gram mode, ``goat_core.backends.gram``, over the model's cached Gram matrix) and the ranks;
- ``ranking_total``: random negatives and the GOAT ranking on a fresh copy of the model (its Gram
  matrix computed inside, where ``linkpred`` reuses the AUC's): what ``linkpred`` adds by default;
- ``heuristics_hard``: the three heuristics ranked on the hard negatives (the Scores page, RESULTS).

Target (issue 27): ``ranking_total`` within 2x ``auc_scoring``. Writes bench/results/ranking.json.

    .venv/bin/python bench/ranking.py --gram-mode 200 [--ratios 0.55]

instead times ``ranking_goat`` on the first 200 held-out edges and their random negatives twice:
in the compiled path's Gram mode (as above) and with it off (``dispatch.GRAM_MAX_NODES`` 0: the
compiled per-pair loop), the measure by which the Gram mode stays (issue 34). Writes
bench/results/gram_mode_ranking.json.

    .venv/bin/python bench/ranking.py --edge-lists FILE [FILE ...] [--repeats 3]

instead times drawing the random and the hard negatives (100 per held-out edge), and ranking the
three heuristics on each, on every edge list
split as the app splits it (the fast preset's hold-out, seed 0): the Scores page's two choices on a
large upload (``bench/app_scale.py`` writes such files). Writes bench/results/negatives_at_scale.json.
"""

from __future__ import annotations

import argparse
import json
import time

from _common import ROOT, configure_threads, machine, median


def timed(fn, repeats: int) -> dict:
    fn()  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return {"wall_s": median(wall), "cpu_s": median(cpu)}


def bench_ratio(ratio: float, repeats: int) -> dict:
    from goat_core import Goat, evaluate_link_prediction, load_graph, split_edges
    from goat_core.analysis.ranking import evaluate_goat_ranking, rank_heuristics, ranking_negatives

    split = split_edges(load_graph("email"), ratio, 0)
    goat = Goat(epochs=1, validation_fraction=0.0, seed=0).fit(split.train)
    state, params = goat.state(), goat.get_params()

    def auc_scoring():
        evaluate_link_prediction(Goat.from_state(params, state, device="cpu"), split)

    random = ranking_negatives(split, "random", 100)
    hard = ranking_negatives(split, "hard", 100)
    out = {
        "ratio": ratio,
        "test_edges": int(len(split.test_pos)),
        "ranked_pairs": int(len(random.pairs())),
        "auc_scoring": timed(auc_scoring, repeats),
        "negatives_random": timed(lambda: ranking_negatives(split, "random", 100), repeats),
        "negatives_hard": timed(lambda: ranking_negatives(split, "hard", 100), repeats),
        "ranking_goat": timed(lambda: evaluate_goat_ranking(goat, random), repeats),
        "ranking_total": timed(
            lambda: evaluate_goat_ranking(Goat.from_state(params, state, device="cpu"),
                                          ranking_negatives(split, "random", 100)), repeats
        ),
        "heuristics_hard": timed(lambda: rank_heuristics(split, hard), repeats),
    }
    out["ratio_total_to_auc_cpu"] = out["ranking_total"]["cpu_s"] / out["auc_scoring"]["cpu_s"]
    out["ratio_total_to_auc_wall"] = out["ranking_total"]["wall_s"] / out["auc_scoring"]["wall_s"]
    return out


def gram_mode(ratio: float, positives: int, repeats: int) -> dict:
    """``ranking_goat`` on the first ``positives`` held-out edges, in the Gram mode and without it."""
    from goat_core import Goat, load_graph, split_edges
    from goat_core.analysis.ranking import RankingNegatives, evaluate_goat_ranking, ranking_negatives
    from goat_core.backends import dispatch

    split = split_edges(load_graph("email"), ratio, 0)
    goat = Goat(epochs=1, validation_fraction=0.0, seed=0).fit(split.train)
    found = ranking_negatives(split, "random", 100)
    some = RankingNegatives(found.positives[:positives], found.negatives[:positives], found.valid[:positives],
                            found.kind, found.per_positive)
    out = {"ratio": ratio, "ranked_pairs": int(len(some.pairs())), "gram_mode": timed(
        lambda: evaluate_goat_ranking(goat, some), repeats)}
    gram_max = dispatch.GRAM_MAX_NODES
    dispatch.GRAM_MAX_NODES = 0  # no graph is small enough: the per-pair loop scores every pair
    out["per_pair_loop"] = timed(lambda: evaluate_goat_ranking(goat, some), repeats)
    dispatch.GRAM_MAX_NODES = gram_max
    out["speedup_cpu"] = out["per_pair_loop"]["cpu_s"] / out["gram_mode"]["cpu_s"]
    return out


def negatives_at_scale(path: str, repeats: int) -> dict:
    """Random and hard negatives on the app's split of the edge list ``path``."""
    from goat_core import presets, split_edges
    from goat_core.analysis.ranking import rank_heuristics, ranking_negatives
    from goat_core.data.readers import read_graph_file

    graph = read_graph_file(path)
    split = split_edges(graph, 1 - presets.fast(graph.num_edges)["holdout"], 0)
    out = {"file": path, "nodes": graph.num_nodes, "edges": graph.num_edges,
           "test_edges": len(split.test_pos)}
    for kind in ("random", "hard"):
        out[f"negatives_{kind}"] = timed(lambda kind=kind: ranking_negatives(split, kind, 100), repeats)
        negatives = ranking_negatives(split, kind, 100)
        out[f"heuristics_{kind}"] = timed(lambda found=negatives: rank_heuristics(split, found), repeats)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ratios", type=float, nargs="+", default=[0.15, 0.55, 0.95])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--gram-mode", type=int, default=0, metavar="POSITIVES",
                    help="time the Gram mode against the per-pair loop on this many held-out edges")
    ap.add_argument("--edge-lists", nargs="+", default=[], metavar="FILE",
                    help="time random and hard negatives on each edge list's split instead")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    configure_threads(1)
    import torch

    torch.set_num_threads(1)
    name = ("negatives_at_scale.json" if args.edge_lists else "gram_mode_ranking.json" if args.gram_mode
            else "ranking.json")
    args.out = args.out or str(ROOT / "bench" / "results" / name)
    rows = []
    for path in args.edge_lists:
        rows.append(negatives_at_scale(path, args.repeats))
        print(json.dumps(rows[-1]), flush=True)
    for ratio in [] if args.edge_lists else args.ratios:
        rows.append(gram_mode(ratio, args.gram_mode, args.repeats) if args.gram_mode else
                    bench_ratio(ratio, args.repeats))
        print(json.dumps(rows[-1]), flush=True)
    with open(args.out, "w") as f:
        json.dump({"machine": machine(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
