"""The reproduction script's quick path: tables have the promised shape and GOAT learns something."""

from __future__ import annotations

import csv
import re

import pytest

from reproduce import grid, report
from reproduce.common import read_json, write_json
from reproduce.experiments import plan, run_job
from reproduce.report.studies import OLDER_ROWS


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory, data_dir):
    import os

    os.environ["GOAT_DATA_DIR"] = str(data_dir)
    out = tmp_path_factory.mktemp("reproduce")
    jobs = [j for j in plan(quick=True) if j.variant in ("goat", "global")]
    for job in jobs:
        run_job(job, out)
    report.build(out, out / "RESULTS.md", quick=True)
    return out, jobs


def test_quick_plan_is_small_and_keyed():
    jobs = plan(quick=True)
    assert 1 <= len(jobs) <= 6
    assert len({j.key for j in jobs}) == len(jobs)
    assert all(j.overrides["dim"] <= 32 for j in jobs)


def test_goat_beats_its_untrained_self(quick_out):
    out, jobs = quick_out
    run = read_json(out / "raw" / "runs" / f"{next(j for j in jobs if j.variant == 'goat').key}.json")
    assert 0.5 < run["untrained_lp"]["auc"] < run["lp"]["auc"] <= 1.0
    assert set(run["baselines"]) == {"common_neighbors", "adamic_adar", "preferential_attachment"}
    assert {"context", "global"} <= set(run["cluster"])
    assert 0.0 <= run["cluster"]["context"]["nmi"] <= 1.0


def test_tables_have_paper_rows_and_ratio_columns(quick_out):
    out, _ = quick_out
    with (out / "email_lp_auc.csv").open() as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["method", "15%", "25%", "35%", "45%", "55%", "65%", "75%", "85%", "95%"]
    labels = [r[0] for r in rows[1:]]
    assert labels[0].startswith("paper GOAT") and rows[1][1] == "78.9"
    ours = next(r for r in rows if r[0].startswith("**ours GOAT"))
    assert ours[5] != "not run" and ours[1] == "not run"
    assert float(ours[5].split(" ± ")[0]) > 50
    md = (out / "RESULTS.md").read_text()
    assert "Quick mode" in md and re.search(r"^## \d+\. The older configuration", md, re.MULTILINE)
    older = next(line for line in md.splitlines() if line.startswith(f"| {OLDER_ROWS[0][0]} |"))
    assert older.split(" | ")[5] == ours[5]  # the 55 % cell, from runs.csv as from the raw runs
    assert "${" not in md  # every field of the notes' template is filled (or said not run)


def test_tuned_runs_report_one_draw_beside_their_draws(quick_out):
    out, jobs = quick_out
    job = next(j for j in jobs if j.section == "tuned")
    run = read_json(out / "raw" / "runs" / f"{job.key}.json")
    assert run["params"]["inference_draws"] == 4 and run["lp"]["auc"] != run["lp_one_draw"]["auc"]
    with (out / "email_lp_auc.csv").open() as fh:
        rows = {r[0]: r for r in csv.reader(fh)}
    assert rows[f"**{report.TUNED_LABEL}**"][5] == f"{100 * run['lp']['auc']:.1f} ± 0.0 (n=1)"
    assert rows[report.TUNED_ONE_DRAW_LABEL][5] == f"{100 * run['lp_one_draw']['auc']:.1f} ± 0.0 (n=1)"


def _trial(out, name, history):
    best = max(range(len(history)), key=history.__getitem__)
    write_json(out / "raw" / "tune" / f"{name}.json", {
        "trial": name, "history": [{"epoch": e + 1, "val_auc": v} for e, v in enumerate(history)],
        "best_epoch": best + 1, "best_val_auc": history[best]})


def test_longer_grid_trials_supersede_truncated_ones(tmp_path):
    config = grid.GRID[0]
    for seed in (0, 1, 2):
        _trial(tmp_path, grid.grid_name(0.55, config, seed), [0.6, 0.7, 0.8])  # still rising
    assert grid.truncated(tmp_path) == [(0.55, config)]
    assert grid.grid_trials(tmp_path, 0.55, config)[0]["best_val_auc"] == 0.8
    for seed in (0, 1):
        _trial(tmp_path, grid.grid_name(0.55, config, seed) + "-x2", [0.6, 0.7, 0.8, 0.9, 0.85, 0.8])
    assert grid.truncated(tmp_path) == [(0.55, config)]  # the long run counts once all seeds have it
    _trial(tmp_path, grid.grid_name(0.55, config, 2) + "-x2", [0.6, 0.7, 0.8, 0.9, 0.85, 0.8])
    assert grid.truncated(tmp_path) == []
    assert [r["best_epoch"] for r in grid.grid_trials(tmp_path, 0.55, config)] == [4, 4, 4]


def test_draws_choice_is_the_fewest_within_tolerance(tmp_path):
    aucs = {0.55: [0.800, 0.810, 0.81495, 0.815, 0.8150], 0.15: [0.7] * 5}
    for ratio, values in aucs.items():
        for seed in (0, 1, 2):
            write_json(tmp_path / "raw" / "tune" / f"{grid.draws_name(ratio, seed)}.json", {
                "val_auc": {str(k): v for k, v in zip(grid.DRAW_COUNTS, values)}, "nodes_over_N": 3,
                "params": {"dropout": 0.8, "neighborhood": 50, "lr": 3e-3, "epochs": 5}})
    chosen = {c["ratio"]: c["draws"] for c in grid.select_draws(tmp_path)}
    assert chosen == {0.15: 1, 0.55: 4}
    assert grid.summarise(tmp_path) == []  # the trial table lists grid and other trials only


def test_the_quick_command_runs_end_to_end(tmp_path, data_dir):
    """`python -m reproduce --quick` as documented: case study, jobs on two worker processes
    (which once hung when forked from a parent that had trained), trials, report."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "GOAT_DATA_DIR": str(data_dir), "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, "-m", "reproduce", "--quick", "--out", str(tmp_path)], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    md = (tmp_path / "RESULTS.md").read_text()
    assert re.search(r"^## \d+\. Les Misérables case study", md, re.MULTILINE)
    assert f"| {OLDER_ROWS[1][0]} |" in md  # the tuned runs' row
    assert len(list((tmp_path / "raw" / "runs").glob("*.json"))) == len(plan(quick=True))


def test_runs_csv_keeps_columns_the_first_run_lacks(quick_out, tmp_path):
    out, jobs = quick_out
    raw = tmp_path / "raw" / "runs"
    raw.mkdir(parents=True)
    tuned = next(j for j in jobs if j.section == "tuned")  # trained without clustering
    clustered = next(j for j in jobs if j.cluster)
    write_json(raw / "a-first.json", read_json(out / "raw" / "runs" / f"{tuned.key}.json"))
    write_json(raw / "b-second.json", read_json(out / "raw" / "runs" / f"{clustered.key}.json"))
    report.build(tmp_path, tmp_path / "RESULTS.md", quick=True)
    with (tmp_path / "runs.csv").open() as fh:
        header, first, second = list(csv.reader(fh))[:3]
    nmi = header.index("cluster_context_nmi")
    assert first[nmi] == "" and 0.0 <= float(second[nmi]) <= 1.0


def test_clustering_section_is_made_from_its_run_files(quick_out, tmp_path):
    from reproduce import clustering

    out, jobs = quick_out
    assert clustering.markdown(tmp_path) == ""  # not run yet: no section
    folder = tmp_path / clustering.FOLDER
    folder.mkdir()
    goat = next(j for j in jobs if j.cluster and j.variant == "goat")
    record = read_json(out / "raw" / "runs" / f"{goat.key}.json")
    for seed, nmi in ((0, 0.40), (1, 0.50)):  # two seeds of one cell: mean 45.0, sd 5.0
        record = {**record, "job": {**record["job"], "section": "lp", "seed": seed},
                  "cluster": {**record["cluster"], "context": {**record["cluster"]["context"], "nmi": nmi}}}
        write_json(folder / f"email-55-goat-s{seed}.json", record)
    md = clustering.markdown(tmp_path)
    assert "2 runs (seeds 0, 1)" in md
    row = next(line for line in md.splitlines() if line.startswith("| ours GOAT, context"))
    assert row.split("|")[4].strip() == "45.0 ± 5.0 (n=2)"  # the 55 % NMI column; n shown below 3 seeds
    assert len(clustering.jobs()) == 36 and len({j.key for j in clustering.jobs()}) == 36


def _audit_run(ratio: float, free: float, paper: float, untrained_free: float) -> dict:
    """A per-run audit file reduced to what the reading needs."""
    from goat_core.analysis.audit import LEAK_TITLES
    from goat_core.analysis.ranking import RANKING_NEGATIVES

    leaks = [{"name": name, "auc": free + 0.01, "ap": 0.5} for name in LEAK_TITLES]
    ranking = {kind: {m: {"mrr": mrr} for m, mrr in (("GOAT", 0.2), ("Adamic-Adar", 0.3))}
               for kind in RANKING_NEGATIVES}
    spearman = {"median": 0.5 - ratio / 2}
    return {"ratio": ratio, "seed": 0, "ranking": ranking,
            "audit": {"leak_free": {"auc": free}, "paper_protocol": {"auc": paper}, "leaks": leaks,
                      "untrained": {"leak_free": {"auc": untrained_free}, "paper_protocol": {"auc": 0.84}}},
            "faithfulness": {"trained": {"spearman": spearman}}}


def test_audit_reading_follows_the_numbers():
    """The prose under the audit tables is written from the runs: its claims flip with them."""
    from reproduce.audit import reading

    up = [_audit_run(0.15, 0.80, 0.85, 0.70), _audit_run(0.55, 0.90, 0.95, 0.85)]
    text = "\n".join(reading(up, [0.15, 0.55]))
    assert "moves the number upwards" in text and "can beat a trained one" not in text
    assert "80.0 → 85.0 at 15 %" in text and "less as training data grows" in text
    mixed = [_audit_run(0.15, 0.80, 0.85, 0.70), _audit_run(0.55, 0.90, 0.85, 0.93)]
    text = "\n".join(reading(mixed, [0.15, 0.55]))
    assert "not always upwards" in text
    assert "can beat a trained one leak-free** (55 %: 93.0 against 90.0)" in text
    assert "GOAT's MRR random 20.0 against 30.0 (Adamic-Adar)" in text
