"""The library's defaults, measured as a user meets them: ``Goat()`` with no options on Email.

    python -m reproduce.defaults --out results [--ratios 0.55] [--seeds 0 1 2]
    python -m reproduce.defaults --out results --data cora2 citeseer --ratios 0.9 --presets validated

Each run is ``python -m goat_core linkpred email --train-ratio R --seed S`` (the validated
preset): the number of epochs is chosen by early stopping on 20 % of the split's training edges
(negatives: non-edges of the training graph), then trained on all of them, and scored on the
split's held-out edges. Beside it, ``--preset paper`` (Table 2: lr 1e-4, 20 epochs). Each run
is kept in ``results/defaults/`` (small JSON, committed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from goat_core import Goat, evaluate_link_prediction, presets, split_edges
from goat_core.analysis.evaluation import evaluate_clustering

from .common import Timer, dataset, read_json, setup_env, write_json

DEFAULTS_DIR = "defaults"
PRESETS = ("validated", "paper")


def run_name(preset: str, ratio: float, seed: int, data: str = "email") -> str:
    return f"{preset}-{data}{round(ratio * 100)}-s{seed}"


def params_of(preset: str) -> dict:
    if preset == "validated":
        return {}  # Goat()'s defaults
    return {k: v for k, v in presets.paper("email").items() if k != "holdout"}


def run_one(preset: str, ratio: float, seed: int, out: Path, data: str = "email") -> dict:
    graph = dataset(data)
    split = split_edges(graph, ratio, seed)
    goat = Goat(**params_of(preset), seed=seed, device="cpu")
    with Timer() as t:
        goat.fit(split.train)
    scores = evaluate_link_prediction(goat, split)
    row_cluster = clustering(goat, graph)
    row = {"run": run_name(preset, ratio, seed, data), "data": data, "preset": preset, "train_ratio": ratio,
           "seed": seed,
           "params": goat.get_params(), "auc": scores["auc"], "ap": scores["ap"],
           "epochs_trained": len(goat.history_), "early_stopping": goat.early_stopping_,
           "seconds": t.seconds, **row_cluster}
    write_json(out / DEFAULTS_DIR / f"{row['run']}.json", row)
    chosen = f", early stopping chose {len(goat.history_)} epochs" if goat.early_stopping_ else ""
    print(f"{row['run']}: AUC {scores['auc']:.4f} AP {scores['ap']:.4f}{chosen}, {t.seconds:.0f}s",
          flush=True)
    return row


def clustering(goat: Goat, graph) -> dict:
    """k-means (k = the number of classes) on the model's context and global embeddings, scored
    against the graph's labels (Email's 42 departments); {} for a graph without labels."""
    if graph.labels is None:
        return {}
    found = {kind: evaluate_clustering(goat.node_embeddings(kind), graph.labels, goat.seed)
             for kind in ("context", "global")}
    return {"cluster": {kind: {k: v for k, v in scores.items() if k != "predicted"}
                        for kind, scores in found.items()}}


def runs_of(out: Path, data: str, preset: str = "validated", ratio: float | None = None) -> list[dict]:
    """The recorded runs of one dataset (files before ``data`` was recorded are Email's)."""
    found = [read_json(p) for p in sorted((out / DEFAULTS_DIR).glob("*.json"))]
    return [r for r in found if r.get("data", "email") == data and r["preset"] == preset
            and (ratio is None or abs(r["train_ratio"] - ratio) < 1e-9)]


def summary(out: Path) -> list[dict]:
    rows = []
    found = [r for preset in PRESETS for r in runs_of(out, "email", preset)]
    for preset in PRESETS:
        for ratio in sorted({r["train_ratio"] for r in found}):
            runs = [r for r in found if r["preset"] == preset and r["train_ratio"] == ratio]
            if runs:
                aucs = [100 * r["auc"] for r in runs]
                rows.append({"preset": preset, "train_ratio": ratio, "seeds": len(runs),
                             "auc_mean": float(np.mean(aucs)), "auc_sd": float(np.std(aucs)),
                             "per_seed": [round(a, 1) for a in aucs],
                             "epochs": [r["epochs_trained"] for r in runs],
                             "minutes": float(np.mean([r["seconds"] for r in runs])) / 60})
    return rows


def markdown(out: Path) -> str:
    """The stage's table (Email), printed when it ends ("" before any run); RESULTS.md's tables of
    these runs are made by reproduce.report."""
    rows = summary(out)
    if not rows:
        return ""
    lines = ["\n## Defaults: what `Goat()` and the CLI give with no options\n",
             "Email, test AUC on the split's held-out edges (leak-free), one run per seed. *validated* is "
             "`Goat()` (d = 200, lr 3e-3, dropout 0.8, N = 100, zero padding, epochs chosen by early "
             "stopping on 20 % of the training edges, patience 10, then trained on all of them); "
             "*paper* is `--preset paper` (Table 2: lr 1e-4, 20 epochs). "
             "`python -m reproduce.defaults --out results`; each run in `results/defaults/`.\n",
             "| preset | train % | test AUC (mean ± sd) | per seed | epochs trained | minutes per run |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['preset']} | {r['train_ratio']:.0%} | {r['auc_mean']:.1f} ± {r['auc_sd']:.1f} | "
              f"{' '.join(f'{a:.1f}' for a in r['per_seed'])} | {' '.join(map(str, r['epochs']))} | "
              f"{r['minutes']:.1f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--ratios", type=float, nargs="*", default=[0.55])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--presets", nargs="*", default=list(PRESETS), choices=PRESETS)
    ap.add_argument("--data", nargs="*", default=["email"], help="datasets (the section's table is Email's)")
    ap.add_argument("--cluster", action="store_true",
                    help="also rerun recorded runs of a labelled graph that lack clustering scores")
    args = ap.parse_args(argv)
    setup_env()
    for data in args.data:
        for ratio in args.ratios:
            for seed in args.seeds:
                for preset in args.presets:
                    path = args.out / DEFAULTS_DIR / f"{run_name(preset, ratio, seed, data)}.json"
                    if not path.exists() or (args.cluster and "cluster" not in read_json(path)):
                        run_one(preset, ratio, seed, args.out, data)
    print(markdown(args.out))


if __name__ == "__main__":
    main()
