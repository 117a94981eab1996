"""Synthetic raw runs covering every RESULTS.md section, for the report's golden test.

``python -m tests.golden_report`` rewrites tests/fixtures/RESULTS.golden.md (only do that when a
change to the report's output is intended)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from reproduce.common import write_json

FIXTURES = Path(__file__).with_name("fixtures")
ROOT = Path(__file__).resolve().parents[1]
GOLDEN = FIXTURES / "RESULTS.golden.md"
GENERATED = "2026-01-01 00:00:00"
HARDWARE = {"cpu": "x86_64", "cores_visible": 2, "torch_threads_per_process": 1, "torch": "2.0",
            "python": "3.11.0", "device": "cpu"}


def _lp(rng: random.Random) -> dict:
    return {"auc": round(rng.uniform(0.5, 0.99), 4), "ap": round(rng.uniform(0.5, 0.99), 4),
            "global_auc": round(rng.uniform(0.5, 0.99), 4), "global_ap": round(rng.uniform(0.5, 0.99), 4)}


def _cluster(rng: random.Random) -> dict:
    return {k: {"nmi": round(rng.uniform(0.1, 0.7), 4), "ami": round(rng.uniform(0.1, 0.6), 4)}
            for k in ("context", "global")}


def _trial(out: Path, name: str, ratio: float, seed: int, hist: list, config: dict) -> None:
    best = max(range(len(hist)), key=hist.__getitem__)
    write_json(out / "raw" / "tune" / f"{name}.json", {
        "trial": name, "dataset": "email", "train_ratio": ratio, "seed": seed, "seconds": 12.5,
        "params": {"variant": "goat", "negatives": 1, "batch_size": 256, **config},
        "history": [{"epoch": e + 1, "val_auc": v} for e, v in enumerate(hist)],
        "best_epoch": best + 1, "best_val_auc": hist[best], "final_val_auc": hist[-1]})


def write_raw(out: Path) -> None:
    """Raw runs for every section, tuning/draws trials, case study and investigations."""
    from reproduce import tune
    from reproduce.experiments import RATIOS

    rng = random.Random(0)
    specs = []
    for variant in ("goat", "global", "mean-pool"):
        for ratio in RATIOS:
            for seed in (0, 1, 2) if ratio != 0.25 else (0, 1):
                specs.append(("lp", "email", ratio, variant, seed, 100))
    for data in ("cora", "zhihu"):
        for ratio in (0.15, 0.55, 0.95):
            for variant in ("goat", "global"):
                n = 250 if data == "zhihu" else 100
                specs += [("zhihu-cora", data, ratio, variant, s, n) for s in (0, 1, 2)]
    for ratio in (0.15, 0.55, 0.95):
        specs += [("nsens", "email", ratio, "goat", 0, n) for n in (25, 50, 200)]
    for data in ("cora2", "citeseer"):
        specs += [("vgae", data, 0.9, v, s, 100) for v in ("goat", "global") for s in (0, 1, 2)]
    for ratio in RATIOS:
        specs += [("tuned", "email", ratio, "goat", s, 100) for s in (0, 1, 2)]
    for i, (section, data, ratio, variant, seed, n) in enumerate(specs):
        key = f"{section}-{data}-{variant}-{ratio}-{seed}-{n}"
        run = {
            "key": key,
            "job": {"section": section, "data": data, "ratio": ratio, "variant": variant, "seed": seed,
                    "overrides": {"neighborhood": n} if section == "nsens" else {}},
            "params": {"neighborhood": n, "epochs": 3 + i % 5, "lr": 3e-3, "dropout": 0.8, "dim": 200,
                       "inference_draws": 1},
            "train_edges": 1000 + i, "test_edges": 500, "fit_seconds": round(rng.uniform(1, 100), 2),
            "seconds_per_epoch": round(rng.uniform(0.1, 9), 3),
            "lp": _lp(rng), "untrained_lp": _lp(rng),
            "baselines": {"common_neighbors": {"auc": rng.uniform(0.5, 0.9), "ap": rng.uniform(0.5, 0.9)},
                          "adamic_adar": {"auc": rng.uniform(0.5, 0.9), "ap": rng.uniform(0.5, 0.9)}},
            "cluster": _cluster(rng), "untrained_cluster": _cluster(rng),
        }
        if section == "tuned":
            run["lp_one_draw"] = _lp(rng)
        write_json(out / "raw" / "runs" / f"{key}.json", run)
    # grid trials (one truncated, i.e. still rising) and draws trials
    for ratio in (0.15, 0.55):
        for c, config in enumerate(tune.GRID):
            for seed in (0, 1, 2):
                hist = [round(rng.uniform(0.6, 0.9), 4) for _ in range(5)]
                if c == 0 and ratio == 0.55:
                    hist = sorted(hist)
                _trial(out, tune.grid_name(ratio, config, seed), ratio, seed, hist, config)
        for seed in (0, 1, 2):
            write_json(out / "raw" / "tune" / f"{tune.draws_name(ratio, seed)}.json", {
                "val_auc": {str(k): round(rng.uniform(0.7, 0.8), 4) for k in tune.DRAW_COUNTS},
                "nodes_over_N": 3 + seed,
                "params": {"dropout": 0.8, "neighborhood": 100, "lr": 3e-3, "epochs": 13}})
    _trial(out, "lr-check", 0.55, 0, [0.7, 0.75, 0.74], {"dropout": 0.8, "neighborhood": 100, "lr": 3e-3})
    for name in ("casestudy.json", "investigate_leak.json", "investigate_clustering.json"):
        shutil.copy(ROOT / "results" / name, out / name)


def build_golden(out: Path, md: Path, monkeypatch=None) -> str:
    """Build RESULTS.md from the synthetic runs with the clock and hardware frozen."""
    import time

    from reproduce import report
    from reproduce.report import document

    write_raw(out)
    saved = (time.strftime, document.hardware)
    strftime = lambda fmt, *a: GENERATED  # noqa: E731
    if monkeypatch is not None:
        monkeypatch.setattr(time, "strftime", strftime)
        monkeypatch.setattr(document, "hardware", lambda: dict(HARDWARE))
    else:
        time.strftime, document.hardware = strftime, lambda: dict(HARDWARE)
    try:
        report.build(out, md, quick=False, wall_seconds=12.0)
    finally:
        if monkeypatch is None:
            time.strftime, document.hardware = saved
    return md.read_text()


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        text = build_golden(Path(tmp), Path(tmp) / "RESULTS.md")
    FIXTURES.mkdir(exist_ok=True)
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN} ({len(text)} chars)")
