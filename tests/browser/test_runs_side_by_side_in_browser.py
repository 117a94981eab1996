"""Runs side by side in a real browser: a click on an edge of the duel chart opens it as the pair."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import go, open_app, settle, shot
from .test_app_in_browser import train_lesmis

pytestmark = pytest.mark.browser

# Centre of the first held-out edge (a trace named "edges …", customdata = [s, t, name s, name t])
# whose names are not ``avoid``, on the duel chart scrolled into view; from Plotly's decoded _fullData.
FIND_EDGE = """(avoid) => {
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    if (!xa || !ya) continue;
    for (const trace of gd._fullData) {
      const cd = trace.customdata;
      if (!cd || !(trace.name || '').startsWith('edges')) continue;
      for (let j = 0; j < cd.length; j++) {
        if (avoid.includes(cd[j][2]) && avoid.includes(cd[j][3])) continue;
        gd.scrollIntoView({block: 'center'});
        const box = gd.getBoundingClientRect();
        return [box.left + xa._offset + xa.l2p(trace.x[j]), box.top + ya._offset + ya.l2p(trace.y[j]),
                cd[j][2], cd[j][3]];
      }
    }
  }
  return null;
}"""


def keep_only(page, key: str, wanted: str) -> None:
    """Leave ``wanted`` alone in a multiselect (chosen first if it is not), removing every other chip
    one click and one rerun at a time.

    Each chip's own "Remove …" button, not keystrokes: Backspaces typed while the reruns of
    earlier ones are in flight can land in a redrawn input and be lost on a busy machine.
    """
    chips = page.locator(f".st-key-{key} [data-tag]")
    try:  # the chips are drawn after the box: read them before, and `wanted` looks missing
        chips.first.wait_for(timeout=15_000)
    except PlaywrightTimeout:
        pass  # an empty choice: `wanted` is picked below
    if wanted not in [chips.nth(k).get_attribute("aria-label") for k in range(chips.count())]:
        # the choice may start elsewhere (a run the server's store holds with other runs beside it)
        page.locator(f".st-key-{key} input").click()
        page.get_by_role("option", name=wanted, exact=True).click()
        settle(page)
        page.keyboard.press("Escape")
    for _ in range(10):
        names = [chips.nth(k).get_attribute("aria-label") for k in range(chips.count())]
        extra = [name for name in names if name != wanted]
        if not extra:
            break
        page.locator(f".st-key-{key}").get_by_role("button", name=f"Remove {extra[0]}", exact=True).click()
        settle(page)
    assert [chips.nth(k).get_attribute("aria-label") for k in range(chips.count())] == [wanted]


def test_a_click_on_an_edge_in_the_duel_opens_it_as_the_gossip_pair(server, new_page):
    page = new_page()
    open_app(page, server)
    train_lesmis(page)  # the pair is Marius ↔ Thenardier
    go(page, "Scores")
    page.get_by_role("heading", name="Runs side by side").wait_for()
    keep_only(page, "compare_runs", "global")  # GoatGlobal alone: the quickest to train
    trained = page.get_by_text("Every chosen run is trained")
    if not trained.count():  # the server's store holds it already when another test trained it
        page.get_by_role("button", name="Train 1 run(s) side by side").click()
    trained.wait_for()
    settle(page)
    found = page.evaluate(FIND_EDGE, ["Marius", "Thenardier"])
    assert found is not None, "no held-out edge on the duel chart"
    x, y, s, t = found
    page.mouse.click(x, y)
    settle(page)
    page.get_by_text(f"Gossip pair: {s} ↔ {t} (a held-out edge").wait_for()
    assert page.get_by_test_id("stSidebar").get_by_text(f"{s} ↔ {t}").count() == 1
    shot(page, "11-runs-side-by-side")
    page.get_by_role("link", name="Open it on Gossip & attend").click()
    settle(page)
    page.get_by_role("heading", name=f"{s} ↔ {t}").wait_for()
