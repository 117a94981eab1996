"""DeepWalk and node2vec on the splits GOAT is scored on, tuned on validation carve-outs.

    python -m reproduce.node2vec --out results [--data email cora2 citeseer] [--stage tune test]

Tuning: at each tuned ratio (Email 15, 55 and 95 %; Cora2 and Citeseer 90 %), seed 0's split has
20 % of its training edges carved out (negatives: non-edges of the training graph); each GRID cell
trains on the rest and is scored on the carve-out by the dot product. DeepWalk takes the best
p = q = 1 cell, node2vec the best cell of all. Test: every ratio uses the choice of its nearest
tuned ratio (ties to the smaller), trains on the split's training edges and is scored on its
held-out edges against its non-edges (the pairs GOAT is scored on), seeds 0, 1, 2.
Each trial and run is kept in results/node2vec/ (small JSON, committed); resumable.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

from goat_core.analysis.evaluation import evaluate_clustering, link_scores
from goat_core.analysis.node2vec import WALK_METHODS, dot_scores, walk_embedding
from goat_core.data.sampling import split_edges, validation_split

from .common import Timer, dataset, read_json, setup_env, write_json
from .experiments import RATIOS, SEEDS

DIR = Path("node2vec")
TUNE_RATIOS = {"email": (0.15, 0.55, 0.95), "cora2": (0.9,), "citeseer": (0.9,),
               "cora": (0.15, 0.55, 0.95), "zhihu": (0.15, 0.55, 0.95)}
TEST_RATIOS = {"email": RATIOS, "cora2": (0.9,), "citeseer": (0.9,), "cora": RATIOS, "zhihu": RATIOS}
TUNE_SEEDS = (0,)  # one carve-out per tuned ratio: a trial costs 5-20 s of CPU, the machine is shared
# The papers' walk settings (d = 128, 10 walks of length 80, one skip-gram epoch); tuned: p, q, window.
WALK = dict(dim=128, num_walks=10, walk_length=80, epochs=1)
GRID = [{"p": 1.0, "q": 1.0, "window": 5}] + [
    {"p": p, "q": q, "window": 10} for p in (0.5, 1.0, 2.0) for q in (0.5, 1.0, 2.0)]
# Cora2 and Citeseer cost three times Email per trial: DeepWalk's two cells, q alone, and the two
# opposite corners of (p, q).
GRID_SMALL = [c for c in GRID if (c["p"], c["q"]) in ((1, 1), (1, 0.5), (1, 2), (0.5, 2), (2, 0.5))]
GRIDS = {"email": GRID, "cora2": GRID_SMALL, "citeseer": GRID_SMALL, "cora": GRID_SMALL, "zhihu": GRID_SMALL}


def pct(ratio: float) -> int:
    return round(100 * ratio)


def cell_name(cell: dict) -> str:
    return f"p{cell['p']:g}-q{cell['q']:g}-w{cell['window']}"


def tune_path(out: Path, data: str, ratio: float, cell: dict, seed: int) -> Path:
    return out / DIR / "tune" / f"{data}{pct(ratio)}-{cell_name(cell)}-s{seed}.json"


def run_path(out: Path, method: str, data: str, ratio: float, seed: int) -> Path:
    return out / DIR / "runs" / f"{method}-{data}{pct(ratio)}-s{seed}.json"


def _score(train, pos: np.ndarray, neg: np.ndarray, config: dict, seed: int, node_labels=None) -> dict:
    """AUC/AP of the dot-product scores, and k-means NMI/AMI of the same embedding against
    ``node_labels`` when given (Email's departments, as GOAT's clustering is scored)."""
    labels = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    with Timer() as t:
        emb = walk_embedding(train, **WALK, **config, seed=seed)
    found = {**link_scores(labels, dot_scores(emb, np.concatenate([pos, neg]))), "seconds": t.seconds}
    if node_labels is not None:
        scores = evaluate_clustering(emb, node_labels, seed)
        found["cluster"] = {k: v for k, v in scores.items() if k != "predicted"}
    return found


def run_trial(out: Path, data: str, ratio: float, cell: dict, seed: int) -> dict:
    split = split_edges(dataset(data), ratio, seed)
    val = validation_split(split.train, 0.2, seed)  # negatives: non-edges of the training graph
    found = _score(val.train, val.test_pos, val.test_neg, cell, seed)
    row = {"dataset": data, "train_ratio": ratio, "seed": seed, "cell": cell, "walk": WALK,
           "val_auc": found["auc"], "val_ap": found["ap"], "seconds": found["seconds"],
           "fit_edges": int(val.train.num_edges), "val_edges": int(len(val.test_pos))}
    write_json(tune_path(out, data, ratio, cell, seed), row)
    print(f"tune {data} {pct(ratio)}% {cell_name(cell)} s{seed}: val AUC {row['val_auc']:.4f}, "
          f"{row['seconds']:.0f}s", flush=True)
    return row


def choice(out: Path, data: str, ratio: float) -> dict[str, dict]:
    """method -> {"cell", "val_auc"}: the best mean validation AUC over the tuning seeds
    (DeepWalk among the p = q = 1 cells); {} until the trials exist."""
    means = []
    for cell in GRIDS[data]:
        found = [read_json(p) for s in TUNE_SEEDS if (p := tune_path(out, data, ratio, cell, s)).exists()]
        if len(found) == len(TUNE_SEEDS):
            means.append((float(np.mean([r["val_auc"] for r in found])), cell))
    if len(means) < len(GRIDS[data]):
        return {}
    walk_only = [m for m in means if m[1]["p"] == m[1]["q"] == 1]
    best = {"deepwalk": max(walk_only, key=lambda m: m[0]), "node2vec": max(means, key=lambda m: m[0])}
    return {k: {"cell": cell, "val_auc": auc} for k, (auc, cell) in best.items()}


def nearest(data: str, ratio: float) -> float:
    return min(TUNE_RATIOS[data], key=lambda r: (round(abs(r - ratio), 6), r))


def run_test(out: Path, method: str, data: str, ratio: float, seed: int) -> dict:
    tuned_at = nearest(data, ratio)
    cell = choice(out, data, tuned_at)[method]["cell"]
    graph = dataset(data)
    split = split_edges(graph, ratio, seed)  # the split GOAT is scored on
    found = _score(split.train, split.test_pos, split.test_neg, cell, seed, graph.labels)
    row = {"method": method, "dataset": data, "train_ratio": ratio, "seed": seed, "tuned_at": tuned_at,
           "config": {**WALK, **cell}, "auc": found["auc"], "ap": found["ap"], "seconds": found["seconds"],
           "train_edges": int(split.train.num_edges), "test_edges": int(len(split.test_pos)),
           **({"cluster": found["cluster"]} if "cluster" in found else {})}
    write_json(run_path(out, method, data, ratio, seed), row)
    print(f"{method} {data} {pct(ratio)}% s{seed} ({cell_name(cell)}): AUC {row['auc']:.4f} "
          f"AP {row['ap']:.4f}, {row['seconds']:.0f}s", flush=True)
    return row


def stage_tune(out: Path, datasets) -> None:
    for data in datasets:
        for ratio in TUNE_RATIOS[data]:
            for seed in TUNE_SEEDS:
                for cell in GRIDS[data]:
                    if not tune_path(out, data, ratio, cell, seed).exists():
                        run_trial(out, data, ratio, cell, seed)


def stage_test(out: Path, datasets, ratios=None, seeds=SEEDS, cluster: bool = False) -> None:
    """The tuned ratios first (where GOAT has both paddings), then the others (or ``ratios``);
    ``cluster`` also reruns recorded runs of a labelled graph that lack clustering scores."""
    for data in datasets:
        tuned, others = TUNE_RATIOS[data], [r for r in TEST_RATIOS[data] if r not in TUNE_RATIOS[data]]
        for ratio in ratios or (*tuned, *others):
            for seed in seeds:
                for method in WALK_METHODS:
                    path = run_path(out, method, data, ratio, seed)
                    if not path.exists() or (cluster and "cluster" not in read_json(path)):
                        run_test(out, method, data, ratio, seed)


# ---------------------------------------------------------------------------------------------------
# The stage's summary, printed when it ends (RESULTS.md's tables: reproduce.report)


def _runs(out: Path) -> list[dict]:
    return [read_json(p) for p in sorted((out / DIR / "runs").glob("*.json"))]


def _cell(values: list[float], expected: int = 0) -> str:
    """mean ± population sd, with "(n=k)" when fewer than ``expected`` runs exist."""
    if not values:
        return "–"
    short = f" (n={len(values)})" if len(values) < expected else ""
    return f"{np.mean(values):.1f} ± {np.std(values):.1f}{short}"


def _ours(runs, method: str, data: str, ratio: float, metric: str) -> str:
    return _cell([100 * r[metric] for r in runs
                  if (r["method"], r["dataset"]) == (method, data) and abs(r["train_ratio"] - ratio) < 1e-9],
                 expected=len(SEEDS))


def _csv_row(path: Path, method: str, key: str = "method") -> dict:
    if not path.exists():
        return {}
    with path.open() as f:
        return next((row for row in csv.DictReader(f) if row[key] == method), {})


def goat_at_90(out: Path, data: str) -> dict:
    """Section 5's GOAT summary for ``data`` (results/vgae_90.csv; {} when absent)."""
    return _csv_row(out / "vgae_90.csv", data, key="dataset")


GOAT_ZERO_90 = "GOAT, zero padding (`Goat()` defaults, early stopping)"
GOAT_ZERO_90_NOTE = ("The zero-padding GOAT row is `Goat()` with no options on the same splits: "
                     "`python -m reproduce.defaults --out results --data cora2 citeseer --ratios 0.9 "
                     "--presets validated` (each run in `results/defaults/`).")


def goat_zero_at_90(out: Path, data: str) -> tuple[str, str] | None:
    """AUC and AP cells of ``Goat()``'s defaults (zero padding) on section 5's splits, if run."""
    from .defaults import runs_of

    runs = runs_of(out, data, "validated", 0.9)
    if not runs:
        return None
    return tuple(_cell([100 * r[k] for r in runs], expected=len(SEEDS)) for k in ("auc", "ap"))


def _goat_email(out: Path, metric: str, ratios) -> list[tuple[str, list[str]]]:
    """GOAT's rows for Email: masked padding (section 1 and its tuned row, from their CSV) and the
    paper's zero padding (``Goat()``'s defaults, results/defaults/)."""
    rows = []
    csv_path = out / f"email_lp_{metric}.csv"
    for method, label in (("**ours GOAT (max pool)**", "GOAT, masked padding (section 1)"),
                          ("**ours GOAT (max pool), dropout, N, lr and inference draws chosen per ratio on "
                           "validation**", "GOAT, masked padding, tuned per ratio (section 1)")):
        found = _csv_row(csv_path, method)
        if found:
            rows.append((label, [found.get(f"{pct(r)}%", "–") for r in ratios]))
    defaults = [read_json(p) for p in sorted((out / "defaults").glob("validated-email*.json"))]
    if defaults:
        rows.append(("GOAT, zero padding (`Goat()` defaults, early stopping; Defaults section)",
                     [_cell([100 * d[metric] for d in defaults if abs(d["train_ratio"] - r) < 1e-9])
                      for r in ratios]))
    return rows


def _heuristic_email(out: Path, metric: str, ratios) -> list[tuple[str, list[str]]]:
    path = out / "heuristics" / "email.json"
    if not path.exists():
        return []
    rows = read_json(path)["rows"]

    def cells(name: str) -> list[str]:
        return [_cell([100 * x[metric] for x in rows if x["heuristic"] == name and x["ratio"] == r])
                for r in ratios]

    return [(f"{label} (training graph)", cells(name))
            for name, label in (("preferential_attachment", "preferential attachment"),
                                ("adamic_adar", "Adamic-Adar"))]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"] + [
        "| " + " | ".join(map(str, row)) + " |" for row in rows]


def _email_tables(out: Path, runs: list[dict]) -> list[str]:
    ratios = sorted({r["train_ratio"] for r in runs if r["dataset"] == "email"})
    if not ratios:
        return []
    lines = []
    for metric in ("auc", "ap"):
        rows = [[f"**{label}** (ours)"] + [_ours(runs, m, "email", r, metric) for r in ratios]
                for m, label in WALK_METHODS.items()]
        rows += [[label, *cells] for label, cells in _goat_email(out, metric, ratios)]
        rows += [[label, *cells] for label, cells in _heuristic_email(out, metric, ratios)]
        lines += [f"\nEmail, {metric.upper()} % (mean ± sd over seeds {', '.join(map(str, SEEDS))}):\n",
                  *_table(["method"] + [f"{pct(r)} %" for r in ratios], rows)]
    return lines


def _ninety_tables(out: Path, runs: list[dict]) -> list[str]:
    names = [d for d in ("cora2", "citeseer") if any(r["dataset"] == d for r in runs)]
    if not names:
        return []
    rows = []
    for data in names:
        for method, label in WALK_METHODS.items():
            rows.append([data, f"**{label}** (ours)", _ours(runs, method, data, 0.9, "auc"),
                         _ours(runs, method, data, 0.9, "ap")])
        goat = goat_at_90(out, data)
        if goat:
            rows.append([data, "GOAT, masked padding (section 5)", goat["ours GOAT AUC"],
                         goat["ours GOAT AP"]])
        zero = goat_zero_at_90(out, data)
        if zero:
            rows.append([data, GOAT_ZERO_90, *zero])
    return ["\nCora2 and Citeseer at 90 % training edges (section 5's splits). " + GOAT_ZERO_90_NOTE + "\n",
            *_table(["dataset", "method", "AUC %", "AP %"], rows)]


def _choice_table(out: Path) -> list[str]:
    rows = []
    for data, ratios in TUNE_RATIOS.items():
        for ratio in ratios:
            chosen = choice(out, data, ratio)
            if not chosen:
                continue
            grid = [np.mean([read_json(tune_path(out, data, ratio, c, s))["val_auc"] for s in TUNE_SEEDS])
                    if c in GRIDS[data] else None for c in GRID]
            rows.append([data, f"{pct(ratio)} %", cell_name(chosen["deepwalk"]["cell"]),
                         cell_name(chosen["node2vec"]["cell"])] + ["–" if v is None else f"{100 * v:.1f}"
                                                                   for v in grid])
    if not rows:
        return []
    return [f"\nValidation AUC % of every cell (seed{'s' if len(TUNE_SEEDS) > 1 else ''} "
            f"{', '.join(map(str, TUNE_SEEDS))}; the walk settings otherwise the papers': d = {WALK['dim']}, "
            f"{WALK['num_walks']} walks of length {WALK['walk_length']} per node, {WALK['epochs']} skip-gram "
            "epoch) and the cell each method took. Cora2 and Citeseer cost about three times Email per trial "
            "and were searched on six cells (– marks the others). Where node2vec took a p = q = 1 cell, its "
            "runs are DeepWalk's.\n",
            *_table(["data", "train", "DeepWalk took", "node2vec took"] + [cell_name(c) for c in GRID], rows)]


def markdown(out: Path) -> str:
    """The stage's summary beside GOAT's older rows ("" until this script has run)."""
    runs = _runs(out)
    if not runs:
        return ""
    lines = ["\n## DeepWalk and node2vec on the same splits (dot-product scores, tuned on validation)\n",
             "`python -m reproduce.node2vec --out results` (`goat_core.analysis.node2vec`: pecanpy walks on "
             "the training edges, gensim skip-gram, a pair scored by E_s·E_t as the paper scores its "
             "baselines). p, q and the window were chosen on 20 % of the training edges of seed 0's split "
             "carved out for validation (negatives: non-edges of the training graph) at Email 15, 55 and 95 %"
             " and Cora2/Citeseer 90 %; every other ratio uses its nearest tuned ratio's choice. DeepWalk = "
             "the best p = q = 1 cell, node2vec = the best cell. Each trial is in `results/node2vec/tune/`, "
             "each run in `results/node2vec/runs/`. GOAT's rows are copied from the files named in their "
             "labels (sections 1 and 5: `results/email_lp_*.csv` and `results/vgae_90.csv`, made from the "
             "per-run rows of `results/runs.csv`)."]
    lines += _email_tables(out, runs) + _ninety_tables(out, runs) + _choice_table(out)
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--data", nargs="*", default=list(TUNE_RATIOS), choices=list(TUNE_RATIOS))
    ap.add_argument("--stage", nargs="*", default=["tune", "test"], choices=["tune", "test"])
    ap.add_argument("--ratios", type=float, nargs="*", help="test only these ratios (in this order)")
    ap.add_argument("--seeds", type=int, nargs="*", default=list(SEEDS), help="test seeds")
    ap.add_argument("--cluster", action="store_true",
                    help="rerun recorded test runs of a labelled graph (Email) that lack k-means scores")
    args = ap.parse_args(argv)
    setup_env()
    if "tune" in args.stage:
        stage_tune(args.out, args.data)
    if "test" in args.stage:
        stage_test(args.out, args.data, args.ratios, args.seeds, args.cluster)
    print(markdown(args.out))


if __name__ == "__main__":
    main()
