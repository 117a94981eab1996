"""Hyper-parameter search on a validation split carved from the training edges (never test edges).

Each trial trains on 80 % of a split's training edges and records the validation AUC after every
epoch, so one trial answers "how many epochs" as well as "which lr / dropout / negatives".

    python -m reproduce.tune --out results [--trials NAME ...] [--quick]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from goat_core import Goat
from goat_core.sampling import split_edges, validation_split

from .common import Timer, dataset, read_json, setup_env, write_json

BASE = dict(
    dim=200, neighborhood=100, dropout=0.8, lr=1e-3, batch_size=256, negatives=1, variant="goat", device="cpu"
)

# name -> (dataset, train ratio, overrides, epochs)
TRIALS = {
    "email55-goat-lr1e-3-do0.8": ("email", 0.55, {}, 15),
    "email55-goat-lr3e-3-do0.8": ("email", 0.55, {"lr": 3e-3}, 10),
    "email55-goat-lr1e-3-do0.5": ("email", 0.55, {"dropout": 0.5}, 12),
    "email55-goat-lr1e-3-do0.8-neg3": ("email", 0.55, {"negatives": 3}, 8),
    "email55-goat-lr1e-4-do0.8": ("email", 0.55, {"lr": 1e-4}, 12),
    "email15-goat-lr1e-3-do0.8": ("email", 0.15, {}, 25),
    "email95-goat-lr1e-3-do0.8": ("email", 0.95, {}, 12),
    "email55-mean-lr1e-3-do0.8": ("email", 0.55, {"variant": "mean-pool"}, 15),
    "email55-global-lr1e-3-do0.8": ("email", 0.55, {"variant": "global"}, 40),
    "email55-global-lr1e-2-do0.8": ("email", 0.55, {"variant": "global", "lr": 1e-2}, 30),
    "email55-global-lr1e-3-do0.5": ("email", 0.55, {"variant": "global", "dropout": 0.5}, 40),
    "email55-global-lr1e-2-do0.5": ("email", 0.55, {"variant": "global", "lr": 1e-2, "dropout": 0.5}, 20),
    "email55-global-lr1e-2-do0.0": ("email", 0.55, {"variant": "global", "lr": 1e-2, "dropout": 0.0}, 20),
    "email55-global-lr3e-3-do0.5": ("email", 0.55, {"variant": "global", "lr": 3e-3, "dropout": 0.5}, 25),
    "email15-goat-lr3e-3-do0.8": ("email", 0.15, {"lr": 3e-3}, 60),
    "email15-goat-lr1e-2-do0.8": ("email", 0.15, {"lr": 1e-2}, 40),
    "email95-goat-lr3e-3-do0.8": ("email", 0.95, {"lr": 3e-3}, 8),
    "email55-goat-lr3e-3-do0.5": ("email", 0.55, {"lr": 3e-3, "dropout": 0.5}, 8),
    "email15-goat-lr3e-3-do0.5": ("email", 0.15, {"lr": 3e-3, "dropout": 0.5}, 50),
    "email15-goat-lr3e-3-do0.8-neg3": ("email", 0.15, {"lr": 3e-3, "negatives": 3}, 40),
    "email15-goat-lr3e-3-do0.8-bs64": ("email", 0.15, {"lr": 3e-3, "batch_size": 64}, 30),
    "email15-global-lr1e-3-do0.5": ("email", 0.15, {"variant": "global", "dropout": 0.5}, 200),
    "email15-global-lr3e-3-do0.5": ("email", 0.15, {"variant": "global", "lr": 3e-3, "dropout": 0.5}, 150),
    "email95-goat-lr3e-3-do0.5": ("email", 0.95, {"lr": 3e-3, "dropout": 0.5}, 6),
    "cora15-goat-lr3e-3-do0.5": ("cora", 0.15, {"lr": 3e-3, "dropout": 0.5}, 300),
    "cora95-goat-lr3e-3-do0.5": ("cora", 0.95, {"lr": 3e-3, "dropout": 0.5}, 60),
    "cora95-global-lr1e-3-do0.5": ("cora", 0.95, {"variant": "global", "dropout": 0.5}, 200),
    "zhihu55-goat-lr1e-3-do0.65": ("zhihu", 0.55, {"dropout": 0.65, "neighborhood": 250}, 10),
}
QUICK_TRIALS = {"quick-email55-goat": ("email", 0.55, {"dim": 32, "neighborhood": 20}, 2)}


def run_trial(name: str, spec, out: Path, seed: int = 0) -> dict:
    data, ratio, overrides, epochs = spec
    graph = dataset(data)
    split = split_edges(graph, ratio, seed)
    val = validation_split(split.train, 0.2, seed, full=graph)
    params = {**BASE, **overrides, "epochs": epochs, "seed": seed}
    goat = Goat(**params)
    with Timer() as t:
        goat.fit(val.train, validation=(val.test_pos, val.test_neg))
    hist = goat.history_
    best = max(hist, key=lambda r: r["val_auc"])
    row = {
        "trial": name,
        "dataset": data,
        "train_ratio": ratio,
        "seed": seed,
        "params": params,
        "history": hist,
        "best_epoch": best["epoch"],
        "best_val_auc": best["val_auc"],
        "final_val_auc": hist[-1]["val_auc"],
        "seconds": t.seconds,
        "val_edges": int(len(val.test_pos)),
        "fit_edges": int(val.train.num_edges),
    }
    write_json(out / "raw" / "tune" / f"{name}.json", row)
    print(
        f"{name}: best val AUC {best['val_auc']:.4f} at epoch {best['epoch']}, "
        f"last {hist[-1]['val_auc']:.4f}, {t.seconds:.0f}s",
        flush=True,
    )
    return row


def summarise(out: Path) -> list[dict]:
    rows = []
    for path in sorted((out / "raw" / "tune").glob("*.json")):
        r = read_json(path)
        p = r["params"]
        rows.append(
            {
                "trial": r["trial"],
                "dataset": r["dataset"],
                "train_ratio": r["train_ratio"],
                "variant": p["variant"],
                "lr": p["lr"],
                "dropout": p["dropout"],
                "negatives": p["negatives"],
                "neighborhood": p["neighborhood"],
                "batch_size": p["batch_size"],
                "epochs_run": len(r["history"]),
                "best_epoch": r["best_epoch"],
                "best_val_auc": round(r["best_val_auc"], 4),
                "final_val_auc": round(r["final_val_auc"], 4),
                "val_auc_by_epoch": " ".join(f"{h['val_auc']:.3f}" for h in r["history"]),
                "seconds": round(r["seconds"], 1),
            }
        )
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    ap.add_argument("--trials", nargs="*", help="trial names (default: all)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    setup_env()
    trials = QUICK_TRIALS if args.quick else TRIALS
    for name in args.trials or list(trials):
        if (args.out / "raw" / "tune" / f"{name}.json").exists():
            print(f"{name}: done already")
            continue
        run_trial(name, trials[name], args.out)


if __name__ == "__main__":
    main()
