"""RESULTS.md is what ``python -m reproduce.report`` makes of the committed files under results/:
the document cannot drift from its runs, and every section is numbered. No training: the report
reads small JSON and CSV files only."""

from __future__ import annotations

import re
import sys
import types
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from goat_core import PARAMETERS
from reproduce.common import write_json
from reproduce.report import Section, render
from reproduce.report.__main__ import main as report_main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def generated() -> str:
    return render(ROOT / "results")


def test_committed_results_md_is_what_the_committed_files_give(generated):
    committed = (ROOT / "RESULTS.md").read_text()
    assert committed == generated, "RESULTS.md is stale: run `python -m reproduce.report` and commit it"


def test_every_section_is_numbered_in_order(generated):
    headings = [line for line in generated.splitlines() if line.startswith("#")]
    assert headings[0].startswith("# ") and not any(h.startswith("# ") for h in headings[1:])
    sections = [h for h in headings if h.startswith("## ")]
    assert [re.match(r"## (\d+)\. \S", h) is not None for h in sections] == [True] * len(sections)
    assert [int(re.match(r"## (\d+)", h).group(1)) for h in sections] == list(range(1, len(sections) + 1))
    for h in headings:
        assert re.match(r"#{1,3} ", h), h
        if h.startswith("### "):
            assert re.match(r"### \d+\.\d+ \S", h), h
    assert "${" not in generated  # every prose field filled, every section reference resolved


def test_the_document_opens_with_the_headline_table(generated):
    first = generated.split("\n## ")[1]
    assert first.startswith("1. Link prediction at a glance")
    table = [line for line in first.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| data | train | paper GOAT AUC (leaky) | ours AUC: `Goat()` |")
    assert any(line.startswith("| Email | 55 % | 81.7 |") for line in table)


def _record(folder: Path, name: str, **fields) -> None:
    write_json(folder / name, fields)


def test_cells_say_how_many_seeds_and_name_the_best_baseline(tmp_path):
    """Two of three seeds of Goat() at Email 55 %, heuristics at 55 % only: the row shows (n=2), the
    best baseline by name and in bold where it is ahead, and the other ratios as not yet run."""
    for seed, auc in ((0, 0.80), (1, 0.82)):
        _record(tmp_path / "defaults", f"validated-email55-s{seed}.json", data="email", preset="validated",
                train_ratio=0.55, seed=seed, auc=auc, ap=auc, epochs_trained=3,
                params={k: p.default for k, p in PARAMETERS.items()})
    rows = [{"ratio": 0.55, "seed": s, "heuristic": h, "auc": a, "ap": a}
            for s in (0, 1, 2) for h, a in (("adamic_adar", 0.9), ("common_neighbors", 0.85))]
    _record(tmp_path / "heuristics", "email.json", dataset="email", rows=rows)
    text = render(tmp_path)
    row = next(line for line in text.splitlines() if line.startswith("| Email | 55 % |"))
    assert "| 81.0 ± 1.0 (n=2) | **90.0 ± 0.0** (Adamic-Adar) |" in row
    assert "Not yet run with `Goat()`'s defaults: Email 15, 25, 35, 45, 65, 75, 85, 95 %;" in text
    assert "- Behind a baseline: Email 55 % (81.0 against 90.0, Adamic-Adar)." in text


def test_a_section_without_files_is_left_out_and_the_next_ones_renumbered(tmp_path):
    sections = [
        Section("a", "First", lambda out: "See section ${sec_c}; and ${sec_b}."),
        Section("b", "Not run", lambda out: ""),
        Section("c", "Third", lambda out: "### Detail\n\ntext\n\n### More\n"),
    ]
    text = render(tmp_path, sections, header="# Title\n")
    assert "## 1. First" in text and "## 2. Third" in text and "Not run\n" not in text
    assert "See section 2; and \"Not run\" (not run yet)." in text
    assert "### 2.1 Detail" in text and "### 2.2 More" in text


def test_issue_27_evaluation_appears_once_its_module_has_files(tmp_path, monkeypatch):
    """The slot for the leak audit, ranking metrics and faithfulness: absent until reproduce.audit
    exists and its files do; then a numbered section."""
    audit = types.ModuleType("reproduce.audit")
    audit.__spec__ = ModuleSpec("reproduce.audit", None)
    audit.markdown = lambda out: "MRR table" if (out / "audit").exists() else ""
    monkeypatch.setitem(sys.modules, "reproduce.audit", audit)

    def heading(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith("## ") and "Beyond AUC" in line]

    assert heading(render(tmp_path)) == []
    (tmp_path / "audit").mkdir()
    text = render(tmp_path)
    assert re.match(r"## \d+\. Beyond AUC", *heading(text)) and "MRR table" in text
    assert '"Beyond AUC' not in text  # the prose's reference to it is now a number


def test_check_says_whether_the_document_is_up_to_date(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    assert report_main(["--results", str(tmp_path), "--out", str(md), "--check"]) == 1
    assert report_main(["--results", str(tmp_path), "--out", str(md)]) == 0
    assert report_main(["--results", str(tmp_path), "--out", str(md), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_the_tuned_column_and_its_budget_come_from_its_files(tmp_path):
    """A tuned cell beside Goat() and the best baseline (the highest mean in bold), "–" where no
    tuned run exists, the budget and seconds per cell read off the files, the same reading rule."""
    for ratio in (0.55, 0.95):
        _record(tmp_path / "defaults", f"validated-email{round(ratio * 100)}-s0.json", data="email",
                preset="validated", train_ratio=ratio, seed=0, auc=0.80, ap=0.80, epochs_trained=3,
                params={k: p.default for k, p in PARAMETERS.items()})
    budget = dict(trials=7, timeout=90.0, max_epochs=12, patience=3, space=["negatives=1:2"])
    defaults = {name: PARAMETERS[name].default for name in ("lr", "dim")}
    for seed, auc, seconds, best in ((0, 0.90, 40.0, dict(defaults, lr=0.01)), (1, 0.92, 60.0, defaults)):
        _record(tmp_path / "tuned", f"email55-s{seed}.json", data="email", train_ratio=0.55, seed=seed,
                auc=auc, ap=auc, seconds=seconds, trials_finished=5, trials_pruned=2, best_params=best,
                **budget)
    text = render(tmp_path)
    row = next(line for line in text.splitlines() if line.startswith("| Email | 55 % |"))
    assert row.split(" | ")[3:6] == ["80.0 ± 0.0 (n=1)", "–", "**91.0 ± 1.0 (n=2)**"]
    other = next(line for line in text.splitlines() if line.startswith("| Email | 95 % |"))
    assert other.split(" | ")[5] == "–"
    assert "at most 7 trials and no new one after 90 s" in text and "(at most 12, patience 3)" in text
    cells = ("- Email: 2 cells, 40–60 s each (mean 50 s); trials finished 5, pruned 2; "
             "defaults kept in 1 of 2.")
    assert cells in text  # seed 1's best trial holds the defaults' values: Goat()'s own run stayed best
    assert "Tuned against `Goat()`: better on Email 55 % (91.0 against 80.0)" in text
    why = dict(data="email", train_ratio=0.55, seed=0, tuned_auc=0.9, preferential_attachment_auc=0.8,
               adamic_adar_auc=0.95, edges_sharing_a_neighbor=0.9, non_edges_sharing_a_neighbor=0.2,
               attention_on_shared=0.5, uniform_on_shared=0.25, pairs_read=200)
    _record(tmp_path / "tuned" / "why", "email55-s0.json", **why)
    assert "| Email | 55 % | 0 | 90.0 | 80.0 | 95.0 | 90 / 20 | 50 (25), 200 edges |" in render(tmp_path)
