"""``python -m goat_core.precompile``: the fused loops compiled ahead, one progress line a step."""

from __future__ import annotations

from goat_core import precompile


def test_every_step_runs_and_reports_its_progress(capsys):
    assert precompile.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    steps = list(precompile.STEPS)
    assert [line.rsplit(" ", 1)[0] for line in lines] == (
        [f"{k}/{len(steps)} {name}" for k, name in enumerate(steps)] + [f"{len(steps)}/{len(steps)} done"])
    seconds = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert seconds == sorted(seconds)
