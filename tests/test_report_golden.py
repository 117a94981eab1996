"""RESULTS.md from fixed synthetic raw runs is byte-identical to the fixture made by the report
before it was split into modules (tests/golden_report.py builds both)."""

from __future__ import annotations

from tests.golden_report import GOLDEN, build_golden


def test_results_md_is_byte_identical_to_the_golden_fixture(tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("GOAT_DATA_DIR", str(data_dir))
    text = build_golden(tmp_path, tmp_path / "RESULTS.md", monkeypatch)
    assert text.encode() == GOLDEN.read_bytes()
