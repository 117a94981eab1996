"""The reproduction script's quick path: tables have the promised shape and GOAT learns something."""

from __future__ import annotations

import csv

import pytest

from reproduce import report
from reproduce.common import read_json
from reproduce.experiments import plan, run_job


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
    assert set(run["baselines"]) == {"common_neighbors", "adamic_adar"}
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
    assert "Quick mode" in md and "## 2. Email node clustering" in md
