"""Dense Adam against lazy (row-sparse) Adam on Email: is the quality the same?

    python -m reproduce.optimizer --out results [--ratios 0.55] [--seeds 0 1 2]

Each run is ``Goat(optimizer=...)`` with every other option at its default (the validated
configuration: early stopping on 20 % of the split's training edges, then trained on all of
them), fitted on the split's training edges and scored on its held-out edges (leak-free).
Email has 1,005 nodes, so ``optimizer="auto"`` takes dense Adam there; this check is what
lets "auto" take lazy Adam on large tables. Each run is kept in ``results/optimizer/``
(small JSON, committed) and skipped when it exists; the summary goes to
``results/optimizer/summary.json``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from goat_core import Goat, evaluate_link_prediction, split_edges

from .common import Timer, dataset, read_json, setup_env, write_json

OPTIMIZER_DIR = "optimizer"
COMPARED = ("adam", "lazy-adam")


def run_name(optimizer: str, ratio: float, seed: int) -> str:
    return f"{optimizer}-email{round(ratio * 100)}-s{seed}"


def run_one(optimizer: str, ratio: float, seed: int, out: Path) -> dict:
    split = split_edges(dataset("email"), ratio, seed)
    goat = Goat(optimizer=optimizer, seed=seed, device="cpu")
    with Timer() as t:
        goat.fit(split.train)
    scores = evaluate_link_prediction(goat, split)
    row = {"run": run_name(optimizer, ratio, seed), "optimizer": goat.optimizer_, "train_ratio": ratio,
           "seed": seed, "params": goat.get_params(), "auc": scores["auc"], "ap": scores["ap"],
           "epochs_trained": len(goat.history_), "early_stopping": goat.early_stopping_,
           "seconds": t.seconds}
    write_json(out / OPTIMIZER_DIR / f"{row['run']}.json", row)
    print(f"{row['run']}: AUC {scores['auc']:.4f} AP {scores['ap']:.4f}, {len(goat.history_)} epochs, "
          f"{t.seconds:.0f}s", flush=True)
    return row


def summary(out: Path) -> list[dict]:
    found = [read_json(p) for p in sorted((out / OPTIMIZER_DIR).glob("*-email*-s*.json"))]
    rows = []
    for ratio in sorted({r["train_ratio"] for r in found}):
        for optimizer in COMPARED:
            runs = sorted((r for r in found if r["optimizer"] == optimizer and r["train_ratio"] == ratio),
                          key=lambda r: r["seed"])
            if runs:
                auc, ap = [100 * r["auc"] for r in runs], [100 * r["ap"] for r in runs]
                rows.append({"optimizer": optimizer, "train_ratio": ratio, "seeds": [r["seed"] for r in runs],
                             "auc_mean": float(np.mean(auc)), "auc_sd": float(np.std(auc)),
                             "ap_mean": float(np.mean(ap)), "ap_sd": float(np.std(ap)),
                             "per_seed_auc": [round(a, 2) for a in auc],
                             "epochs": [r["epochs_trained"] for r in runs],
                             "seconds": float(np.mean([r["seconds"] for r in runs]))})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| optimizer | train % | test AUC (mean ± sd) | AP | AUC per seed | epochs trained "
             "| s per run |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['optimizer']} | {r['train_ratio']:.0%} | {r['auc_mean']:.2f} ± {r['auc_sd']:.2f} | "
              f"{r['ap_mean']:.2f} ± {r['ap_sd']:.2f} | {' '.join(f'{a:.2f}' for a in r['per_seed_auc'])} | "
              f"{' '.join(map(str, r['epochs']))} | {r['seconds']:.0f} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--ratios", type=float, nargs="*", default=[0.55])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    args = ap.parse_args(argv)
    setup_env()
    for ratio in args.ratios:
        for seed in args.seeds:
            for optimizer in COMPARED:
                if not (args.out / OPTIMIZER_DIR / f"{run_name(optimizer, ratio, seed)}.json").exists():
                    run_one(optimizer, ratio, seed, args.out)
    rows = summary(args.out)
    write_json(args.out / OPTIMIZER_DIR / "summary.json", rows)
    print(markdown(rows))


if __name__ == "__main__":
    main()
