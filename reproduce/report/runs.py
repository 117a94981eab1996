"""Raw runs in, rows out: loading the per-run JSON files and aggregating them (mean ± sd over seeds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..common import read_json

MAIN = lambda s: s not in ("nsens", "tuned")  # noqa: E731 - lp, vgae, quick: the paper's fixed config


TUNED = lambda s: s == "tuned"  # noqa: E731 - Email GOAT, dropout/N/lr chosen per ratio (validation)


TUNED_LABEL = "ours GOAT (max pool), dropout, N, lr and inference draws chosen per ratio on validation"


TUNED_ONE_DRAW_LABEL = "the same tuned models scored on one inference draw"


NAMES = {"goat": "GOAT (max pool)", "global": "GoatGlobal", "mean-pool": "GOAT mean-pool (authors' code)"}


def load_runs(out: Path, folder: Path = Path("raw") / "runs") -> list[dict]:
    """One flat row per run record in OUT/FOLDER/*.json."""
    return [run_row(read_json(path)) for path in sorted((out / folder).glob("*.json"))]


def run_row(r: dict) -> dict:
    """A run record flattened: its job, parameters, scores and (if run) clustering scores."""
    job = r["job"]
    row = {
        "key": r["key"],
        "section": job["section"],
        "dataset": job["data"],
        "ratio": job["ratio"],
        "variant": job["variant"],
        "seed": job["seed"],
        "overrides": job["overrides"],
        "neighborhood": r["params"]["neighborhood"],
        "epochs": r["params"]["epochs"],
        "lr": r["params"]["lr"],
        "dropout": r["params"]["dropout"],
        "dim": r["params"]["dim"],
        "train_edges": r["train_edges"],
        "test_edges": r["test_edges"],
        "fit_seconds": r["fit_seconds"],
        "seconds_per_epoch": r["seconds_per_epoch"],
        **{f"{k}": v for k, v in r["lp"].items()},
        **{f"untrained_{k}": v for k, v in r["untrained_lp"].items()},
        # scores of the model's first inference draw alone (= lp where it has one draw only)
        **{f"one_draw_{k}": v for k, v in r.get("lp_one_draw", r["lp"]).items()},
    }
    for name, res in r.get("baselines", {}).items():
        row[f"{name}_auc"], row[f"{name}_ap"] = res["auc"], res["ap"]
    for prefix in ("cluster", "untrained_cluster"):
        for kind, res in r.get(prefix, {}).items():
            row[f"{prefix}_{kind}_nmi"], row[f"{prefix}_{kind}_ami"] = res["nmi"], res["ami"]
    return row


def _agg(rows, metric, **where):
    vals = [
        r[metric]
        for r in rows
        if metric in r and all((r[k] == v if not callable(v) else v(r[k])) for k, v in where.items())
    ]
    return (100 * float(np.mean(vals)), 100 * float(np.std(vals)), len(vals)) if vals else None
