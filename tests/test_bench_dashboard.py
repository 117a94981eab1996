"""BENCHMARKS.md tells what bench/results/ holds: its generated tables are what
``bench/dashboard.py`` makes of the raw outputs, and every script and raw output it names exists."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import dashboard  # noqa: E402


def test_the_generated_tables_are_what_the_raw_outputs_give():
    text = dashboard.DOCUMENT.read_text()
    assert dashboard.render(text) == text, "run python bench/dashboard.py"


def test_every_script_and_raw_output_the_document_names_exists():
    text = dashboard.DOCUMENT.read_text()
    scripts = set(re.findall(r"bench/(\w+\.py)", text))
    outputs = set(re.findall(r"`([\w.*-]+\.(?:json|log|svg))`", text))
    outputs |= set(re.findall(r"bench/results/([\w.*-]+\.(?:json|log|svg))", text))
    assert scripts and outputs
    assert [s for s in sorted(scripts) if not (ROOT / "bench" / s).exists()] == []
    assert [o for o in sorted(outputs) if not list(dashboard.RESULTS.glob(o))] == []


def test_every_raw_output_is_placed_on_the_machine_that_made_it():
    for path in sorted(dashboard.RESULTS.iterdir()):
        if path.suffix in (".json", ".log") and dashboard.read(path) is not None:
            run = dashboard.load_run(path)
            assert run.machine and run.date, path.name


@pytest.fixture
def results(tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(dashboard.RESULTS, copy)
    return copy


def test_a_newer_quiet_run_replaces_a_targets_figure_and_a_busy_one_does_not(results):
    journey = json.loads((results / "class_journey.json").read_text())
    train = next(s for s in journey["steps"] if s["graph"] == "lesmis" and s["step"].startswith("Train"))
    train["seconds"] = 4.321
    journey.update(date="2099-01-01 00:00 UTC", load_1m_start=0.5, load_1m_end=0.7, load_1m_before_lesmis=0.5,
                   load_1m_after_lesmis=0.6, load_1m_before_email=0.6, load_1m_after_email=0.7)
    (results / "class_journey_later.json").write_text(json.dumps(journey))
    assert "| 4.32 s |" in dashboard.targets(results)

    throughput = dashboard.read(results / "throughput_s11_align.log")
    throughput["pairs_per_s"] = 12_345.0
    throughput["machine"].update(date="2099-01-01 00:00 UTC", loadavg_1m=9.0, cpu_family="25", cpu_model="17",
                                 vector="AVX-512", L3="32768K")
    (results / "throughput_later.log").write_text(json.dumps(throughput) + "\n")
    table = dashboard.targets(results)
    assert "12,345 pairs/s" not in table and "67,343 pairs/s" in table
    throughput["machine"]["loadavg_1m"] = 1.0
    (results / "throughput_later.log").write_text(json.dumps(throughput) + "\n")
    assert "| 12,345 pairs/s (Email 55 %, paper config) |" in dashboard.targets(results)
    assert "Zen 4, AVX-512, 32 MB L3 · 2099-01-01 · load 1.0" in dashboard.targets(results)


def test_a_run_of_code_before_a_change_never_feeds_a_target(results):
    run = json.loads((results / "scaling_s15.json").read_text())
    for row in run["rows"]:
        row["epoch_s"] = 1.0
    run["machine"]["date"] = "2099-01-01 00:00 UTC"
    (results / "scaling_s16_before.json").write_text(json.dumps(run))
    assert dashboard.targets(results) == dashboard.targets(dashboard.RESULTS)


def test_a_document_without_its_generated_block_is_an_error():
    with pytest.raises(ValueError, match="generated: targets"):
        dashboard.render("# Benchmarks\n")


def pointers(text: str) -> set[str]:
    """Section names that text points to: ``BENCHMARKS.md, "Context spread"``, ``BENCHMARKS.md,
    Scaling)`` and the like, across wrapped lines and comments."""
    flat = re.sub(r"\s+(#\s*)?", " ", text)
    quoted = re.findall(r'BENCHMARKS\.md`*,? \(?["“]([^"”]{3,60})["”]', flat)
    named = re.findall(r"BENCHMARKS\.md`*, ([A-Za-z][A-Za-z ]{2,30}?)[),.;]", flat)
    return {name.lower() for name in quoted + named}


def test_every_section_the_code_and_readme_point_to_exists():
    text = dashboard.DOCUMENT.read_text()
    sections = [line.lstrip("#").strip().lower() for line in text.splitlines() if line.startswith("#")]
    sections += [label.lower() for label in re.findall(r"\*\*([^*]+)\*\*", text)]
    files = [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("scripts/*.sh")]
    files += [p for part in ("goat_core", "ui", "bench", "reproduce") for p in (ROOT / part).rglob("*.py")]
    named = {(name, path.relative_to(ROOT).as_posix())
             for path in files for name in pointers(path.read_text())}
    assert len(named) > 10
    assert sorted((n, f) for n, f in named if not any(n in s for s in sections)) == []


def test_a_pointer_to_a_section_that_is_gone_is_found():
    assert pointers('see BENCHMARKS.md "Round 5"). And BENCHMARKS.md, Scaling).') == {"round 5", "scaling"}
