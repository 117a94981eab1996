"""Teaching aids in a real browser: the case study's quiz, projector mode, a figure's export."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from .conftest import go, open_app, settle, shot

pytestmark = pytest.mark.browser

SVG_NS = "{http://www.w3.org/2000/svg}"
# The most attended neighbor of a keyed attention chart: its first bar (bars are sorted).
TOP_BAR = """(key) => {
  const gd = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  if (!gd || !gd._fullData) return null;
  const bars = gd._fullData[0];
  let best = 0;
  for (let i = 1; i < bars.x.length; i++) if (bars.x[i] > bars.x[best]) best = i;
  return bars.y[best];
}"""
ROOT_FONT = "() => getComputedStyle(document.documentElement).fontSize"
CHART_FONT = "() => document.querySelector('.js-plotly-plot')._fullLayout.font.size"


def test_quiz_guess_then_reveal_then_reset(server, new_page):
    page = new_page()
    open_app(page, server)
    go(page, "Case study")
    page.get_by_role("heading", name="3 · Marius (55) gossips with Gavroche (48)").wait_for()
    settle(page)
    assert page.locator(".st-key-case_att_s_25").count() == 0  # hidden until revealed
    guess = page.locator(".st-key-quiz_pick_25")
    guess.get_by_text("Cosette", exact=True).click()
    settle(page)
    page.locator(".st-key-quiz_reveal_25").get_by_role("button").click()
    settle(page)
    page.locator(".st-key-case_att_s_25 .js-plotly-plot").wait_for()
    verdict = page.get_by_test_id("stAlert").filter(has_text=re.compile(r"Right!|Not this time")).first
    text = verdict.inner_text().strip()  # after the icon's name
    top = page.evaluate(TOP_BAR, "case_att_s_25").replace("★ ", "")
    # the verdict names the neighbor with the tallest bar of the chart just revealed
    assert f"attends most to {top} (" in text or f"the most attended is {top} (" in text, (text, top)
    assert ("Right!" in text) == (top == "Cosette")
    right = 1 if top == "Cosette" else 0
    assert page.get_by_text(f"Quiz score: {right} of 1 right").is_visible()
    shot(page, "6-case-study-quiz")
    page.get_by_role("button", name="Reset the quiz").click()
    settle(page)
    assert page.get_by_text("Quiz score: 0 of 0 right").is_visible()
    assert page.locator(".st-key-case_att_s_25").count() == 0


# Metric labels whose text does not fit their box (cut with an ellipsis), by their text
CLIPPED_METRIC_LABELS = """() => [...document.querySelectorAll('[data-testid="stMetricLabel"] *')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def test_projector_mode_follows_every_page_and_the_link(server, new_page):
    page = new_page()
    open_app(page, server)
    plain_root, plain_chart = page.evaluate(ROOT_FONT), page.evaluate(CHART_FONT)
    page.get_by_test_id("stSidebar").get_by_text("Projector mode").click()
    settle(page)
    assert float(page.evaluate(ROOT_FONT)[:-2]) > float(plain_root[:-2])
    assert page.evaluate(CHART_FONT) > plain_chart
    assert "projector=1" in page.url
    shot(page, "1-graph-projector")
    assert page.evaluate(CLIPPED_METRIC_LABELS) == []  # "Components", not "Compone…"
    for title in ("Case study", "Equations", "Graph"):  # Equations: a guard page, no run yet
        go(page, title)
        assert page.evaluate(ROOT_FONT) == "21px", title
    assert page.evaluate(CHART_FONT) == 20
    other = new_page()
    other.goto(page.url)  # a shared link opens in projector mode
    settle(other)
    other.wait_for_selector(".js-plotly-plot")
    assert other.evaluate(ROOT_FONT) == "21px" and other.evaluate(CHART_FONT) == 20


def test_export_a_figure_as_svg_with_its_configuration(server, new_page):
    page = new_page()
    open_app(page, server)
    page.locator(".st-key-graph_network").wait_for()
    page.get_by_role("button", name="Export").first.click()
    with page.expect_download() as info:
        page.get_by_role("button", name="SVG").click()
    download = info.value
    assert download.suggested_filename == "goat-graph-network.svg"
    root = ET.fromstring(open(download.path(), "rb").read())
    config = json.loads(root.find(f"{SVG_NS}metadata").text)
    assert config["graph"].startswith("Les Misérables (77 nodes") and config["seed"] == 0
    assert config["pair"] == ["Marius", "Thenardier"]
