"""The Train page's Tune panel in a real browser: a small search with progress, cancelled once (the
finished trials and the previous run are kept), Optuna's two figures, then *Train the best*, whose
run becomes the current one and whose link carries its parameters (no timing here)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from ui import state

from .conftest import go, open_app, settle, shot
from .test_app_in_browser import train_lesmis

pytestmark = pytest.mark.browser

TRIALS = 200  # the most the panel offers: far more than finish before the cancel
WAIT_MS = 300_000
# The progress bar's trial number has reached n (the bar says "Tuning: trial k/TRIALS, epoch e…")
TRIAL_UNDER_WAY = r"""(n) => {
  const found = document.body.innerText.match(/Tuning: trial (\d+)\//);
  return found !== null && Number(found[1]) >= n;
}"""
URL_NAMES = {long: short for short, long in state.URL_PARAMS.items()}  # a link's short names


def same(shown: str, best: str) -> bool:
    """The same value, a number compared at the 4 digits the panel shows."""
    try:
        return f"{float(shown):.4g}" == f"{float(best):.4g}"
    except ValueError:
        return shown == best


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def fill(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Tab")
    settle(page)


def shown_params(text: str) -> dict[str, str]:
    """``name=value`` pairs of a caption (the best trial's, or the current run's)."""
    return dict(re.findall(r"(\w+)=([^,\s·]+)", text))


def test_tune_cancel_then_train_the_best(server, new_page):
    page = new_page()
    open_app(page, server)
    train_lesmis(page)  # a run before the search: cancelling must not lose it
    before = query(page)
    current = page.get_by_text(re.compile(r"origin: ")).first
    previous_run = current.inner_text()

    page.get_by_text("Tune: search the parameters on validation edges (Optuna)").click()
    fill(page, "tune_trials", TRIALS)
    fill(page, "tune_epochs", 1)  # the fewest the panel offers
    page.get_by_role("button", name="Start tuning").click()
    page.get_by_text(re.compile(r"^Tuning: ")).first.wait_for()  # the progress bar follows the job
    # counted by trial: the third under way means two ended, both finished (the median pruner spares
    # the first three), enough for the parameters' importances. The job runs at a low priority
    # (ui.worker.background_priority): on a loaded machine it may wait minutes for a core.
    page.wait_for_function(TRIAL_UNDER_WAY, arg=3, timeout=WAIT_MS)  # polled: a fast trial may go unseen
    shot(page, "tune-1-running")
    page.get_by_role("button", name="Cancel tuning").click()

    said = page.get_by_text(re.compile(r"trials finished, \d+ pruned \(cancelled: the finished trials are"))
    said.wait_for(timeout=WAIT_MS)  # the trial under way stops at its next step
    settle(page)
    finished = int(re.match(r"(\d+) trials finished", said.inner_text()).group(1))
    assert 2 <= finished < TRIALS
    for key in ("tune_history", "tune_importance"):  # Optuna's two figures, drawn by Plotly
        page.locator(f".st-key-{key} .js-plotly-plot .main-svg").first.wait_for()
    assert not page.get_by_test_id("stException").count()
    assert page.get_by_role("button", name="Start tuning").is_enabled()  # the panel is not frozen
    assert query(page) == before and current.inner_text() == previous_run  # the previous run is kept
    best = shown_params(page.get_by_text(re.compile(r"^lr=")).first.inner_text())  # the best trial's
    assert {"lr", "dim", "dropout"} <= set(best), best
    shot(page, "tune-2-cancelled")

    page.get_by_role("button", name="Train the best").click()
    page.get_by_text(re.compile(r"^Trained the best configuration in")).wait_for()
    settle(page)
    run = shown_params(current.inner_text())
    link = query(page)
    assert link != before
    for name, value in best.items():  # the best trial's values: shown with the run and in its link
        url_name = URL_NAMES.get(name, name)
        assert same(run[name], value) and same(link[url_name], value), (name, value, run, link)
    assert not page.get_by_test_id("stException").count()
    shot(page, "tune-3-trained-best")

    go(page, "Gossip & attend")  # the attention page opens on the tuned run
    page.get_by_role("heading", name=re.compile("↔")).first.wait_for()
    settle(page)
    assert not page.get_by_text(re.compile("No trained model")).count()
    assert not page.get_by_test_id("stException").count()
    assert {k: v for k, v in query(page).items() if k in link and k not in ("s", "t")} == \
        {k: v for k, v in link.items() if k not in ("s", "t")}
    shot(page, "tune-4-attention")
