"""Real-browser fixtures: the app served by ``streamlit run`` and driven by Debian's Chromium.

Playwright's Python package drives the system Chromium (``/usr/bin/chromium``, installed by
``.ci/run``); nothing is downloaded. A missing browser is a failure with a message, not a
skip: these tests are part of CI. Screenshots go to ``test-output/screenshots/``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("GOAT_CHROMIUM", "/usr/bin/chromium"))
SHOTS = ROOT / "test-output" / "screenshots"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1800}
TIMEOUT_MS = 90_000

# Centre of a node's point on the first Plotly chart that has it (customdata = [id, name]),
# from the chart's own axes: the same for SVG points and for WebGL ones, which have no DOM
# node each. Plotly's drag layer sits over the points, so the test clicks the page there.
FIND_NODE = """(name) => {
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    if (!xa || !ya) continue;
    for (const trace of gd._fullData) {  // decoded arrays (gd.data may hold base64 specs)
      const cd = trace.customdata;
      if (!cd || !(trace.mode || '').includes('markers')) continue;
      for (let j = 0; j < cd.length; j++) {
        if (cd[j][1] === name) {
          return [box.left + xa._offset + xa.l2p(trace.x[j]), box.top + ya._offset + ya.l2p(trace.y[j])];
        }
      }
    }
  }
  return null;
}"""


# Centre of the longest bar of a neighbor (customdata [id, name], id >= 0: not the padding's) on the
# source's attention chart (scroll it into view first); a click there mutes that neighbor.
FIND_BAR = """() => {
  const box = [...document.querySelectorAll('[class*="st-key-att_source"] .js-plotly-plot')]
    .find(gd => gd.offsetParent !== null);
  if (!box) return null;
  const cd = box._fullData[0].customdata, x = box._fullData[0].x;
  const points = box.querySelectorAll('.barlayer .trace')[0].querySelectorAll('.point');
  let best = -1;
  for (let j = 0; j < cd.length; j++) {
    if (cd[j][0] >= 0 && (best < 0 || x[j] > x[best])) best = j;
  }
  if (best < 0) return null;
  const r = points[best].getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2, cd[best][1]];
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(log_name: str = "streamlit-server.log"):
    """``streamlit run app.py`` on a free port (its URL), stopped through its own process handle."""
    port = _free_port()
    env = dict(os.environ)
    env.setdefault("GOAT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    env["GOAT_OFFLINE"] = "1"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with open(SHOTS.parent / log_name, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats",
             "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(proc, url)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_healthy(proc: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the Streamlit server did not come up on {url} (exit code {proc.poll()})")
        time.sleep(0.3)


@pytest.fixture(scope="session")
def server():
    """The app's server for the whole session."""
    with serve() as url:
        yield url


@pytest.fixture
def fresh_server():
    """Another server, started when the test asks for it: what a restart (or a colleague's server)
    is to a link, with empty stores and no page opened yet."""
    with contextlib.ExitStack() as stack:
        yield lambda: stack.enter_context(serve("streamlit-fresh-server.log"))


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (apt-get install -y "
                    "chromium; .ci/run does it) or point GOAT_CHROMIUM at a Chromium binary")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield instance
        instance.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def new_page(browser, request):
    """Pages in fresh browser contexts (separate cookies: separate Streamlit sessions).

    When the test fails, every page it opened is saved as ``FAILED-<test>-<k>.png``.
    """
    contexts, pages = [], []

    def make(color_scheme: str = "light"):
        context = browser.new_context(viewport=VIEWPORT, color_scheme=color_scheme)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        pages.append(context.new_page())
        return pages[-1]

    yield make
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for k, page in enumerate(pages):
            shot(page, f"FAILED-{request.node.name}-{k}")
    for context in contexts:
        context.close()


def settle(page) -> None:
    """Wait until the app is drawn and no script run is in progress.

    A click's rerun shows the running indicator only after a moment (longer on a busy
    machine): wait briefly for it to appear, then for it to go.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_selector('[data-testid="stApp"]')
    try:
        page.wait_for_selector('[data-testid="stStatusWidget"]', timeout=1500)
    except PlaywrightTimeout:
        pass  # the run was over before we looked
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')")
    time.sleep(0.2)


def open_app(page, url: str) -> None:
    page.goto(url)
    settle(page)
    page.wait_for_selector(".js-plotly-plot")


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    settle(page)


def click_node(page, name: str) -> None:
    page.wait_for_selector(".js-plotly-plot .scatterlayer .point, .js-plotly-plot .gl-canvas")
    xy = page.evaluate(FIND_NODE, name)
    assert xy is not None, f"node {name!r} is not on any chart"
    page.mouse.click(*xy)
    settle(page)


def click_bar(page) -> str:
    """Click the source's most attended neighbor's bar (it gets muted); returns its name."""
    # the drawn chart (a rerun may still show the previous key's, hidden, for a moment)
    chart = page.locator('[class*="st-key-att_source"] .js-plotly-plot').filter(visible=True).first
    chart.scroll_into_view_if_needed()
    found = page.evaluate(FIND_BAR)
    assert found is not None, "no neighbor's bar on the source's attention chart"
    page.mouse.click(found[0], found[1])
    settle(page)
    return found[2]


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
