"""The class journey in a real browser, on a fresh server with an empty compile cache (not a test).

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/class_journey.py [--graphs lesmis email]

What a teacher does before class, timed step by step in Chromium (Playwright, ``/usr/bin/chromium``):
a fresh ``streamlit run app.py`` whose numba cache directory is empty (``NUMBA_CACHE_DIR`` points at
a new temporary folder: nothing compiled yet, as after a fresh install), opened at once, with no
wait for any warm-up; then on each graph:

1. open (Les Misérables: the app's first page; Email: choosing it on the Graph page);
2. Train at once with the app's defaults: click → the trained run shown (on Les Misérables the
   sidebar's Train follows the first page's drawing at once, while that first run may still be
   busy; timed from that click as well);
3. every page: Gossip & attend, Equations, Embeddings, Scores, Case study, Graph, each from the
   click on its name to its main content drawn (background fill-ins, e.g. DeepWalk, not awaited:
   their own times are recorded apart), and on Scores its ranking table, from the page's drawing
   (on a new server it waits for the warm-up to compile its loops);
4. a browser refresh on Gossip & attend with a pair chosen: → the same pair's attention shown;
5. a click on an attention bar (mutes that neighbor): → the counterfactual shown.

Writes ``bench/results/class_journey.json`` (every step's seconds, the machine's load before and
after each graph, the commit) and prints a Markdown table for BENCHMARKS.md. Timings include the
machine's load; the 1-minute load average is recorded with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _common import cpu_facts

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("GOAT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 180_000
PAIR = ("Valjean", "Javert")  # Les Misérables' pair for the refresh; Email's: its first edge's ends
PAGES = {  # title in the sidebar -> what says the page's main content is there
    "Gossip & attend": ("role", "heading", re.compile(" ↔ ")),
    "Equations": ("role", "heading", "How a score is made"),
    "Embeddings": ("role", "heading", "Context spread"),
    "Scores": ("role", "heading", "Runs side by side"),
    "Case study": ("role", "heading", "5 · All of Marius's personas"),
    "Graph": ("css", '.st-key-graph_network .js-plotly-plot'),
}
# The Graph page's network draws at least ``n`` clickable nodes (Email's, not Les Misérables' 77)
NETWORK_HAS = """(n) => {
  const gd = document.querySelector('.st-key-graph_network .js-plotly-plot');
  if (!gd || !gd._fullData) return false;
  return gd._fullData.reduce((k, t) => k + (t.customdata ? t.customdata.length : 0), 0) >= n;
}"""
TARGETS = {"lesmis": {"train": 5.0, "page": 3.0}, "email": {"train": None, "page": 5.0}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(numba_cache: Path, log: Path) -> tuple[subprocess.Popen, str, float]:
    """``streamlit run app.py`` with ``NUMBA_CACHE_DIR=numba_cache``; (process, URL, seconds to health)."""
    port = free_port()
    env = dict(os.environ, GOAT_OFFLINE="1", NUMBA_CACHE_DIR=str(numba_cache))
    env.setdefault("GOAT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc, url, time.perf_counter() - started
        except OSError:
            time.sleep(0.05)
        if proc.poll() is not None:
            raise SystemExit(f"the Streamlit server exited; see {log}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def load() -> float:
    return round(os.getloadavg()[0], 2)


class Journey:
    """One browser session's steps, each timed from the user's action to what it waits for."""

    def __init__(self, page, url: str):
        self.page, self.url = page, url
        self.steps: list[dict] = []

    def timed(self, name: str, action, wait, graph: str) -> float:
        t0 = time.perf_counter()
        action()
        try:
            wait()
        except Exception:  # what the page showed instead, for the report
            shot = ROOT / "test-output" / "bench" / f"class_journey-FAILED-{graph}.png"
            self.page.screenshot(path=str(shot), full_page=True)
            print(f"  {graph}: {name} never came; the page's address: {self.page.url}; screenshot: {shot}")
            raise
        seconds = time.perf_counter() - t0
        self.steps.append({"graph": graph, "step": name, "seconds": round(seconds, 3), "load_1m": load()})
        print(f"  {graph:7s} {name:38s} {seconds:7.2f} s  (load {load()})", flush=True)
        return seconds

    def idle(self) -> None:
        """Wait until no script run is in progress (a click's rerun shows the indicator after a moment)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self.page.wait_for_selector('[data-testid="stStatusWidget"]', timeout=500)
        except PlaywrightTimeout:
            pass
        self.page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')")

    def nav(self, title: str):
        return lambda: self.page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()

    def shown(self, how):
        kind, *rest = how
        if kind == "css":
            return lambda: self.page.locator(rest[0]).first.wait_for()
        role, name = rest
        return lambda: self.page.get_by_role(role, name=name).first.wait_for()

    # ------------------------------------------------------------------ the steps
    def open_lesmis(self) -> None:
        """No wait after the first page is drawn: the Train click follows at once (while the first
        run may still be importing what a training needs)."""
        self.timed("open (Graph page drawn)", lambda: self.page.goto(self.url),
                   self.shown(PAGES["Graph"]), "lesmis")

    def open_email(self) -> None:
        self.page.get_by_test_id("stSidebarNav").get_by_text("Graph", exact=True).click()
        self.idle()
        self.timed("open (Email chosen, Graph page drawn)",
                   lambda: self.page.get_by_text("Email (bundled)").click(),
                   lambda: self.page.wait_for_function(NETWORK_HAS, arg=1005), "email")
        self.idle()

    def train(self, graph: str) -> float | None:
        """Train at once with the app's defaults; returns the app's own "Trained in" seconds. Timed
        twice: from the click on Train in the sidebar (the teacher's first click after the page
        appeared) and from the click on the form's button."""
        started = time.perf_counter()
        self.nav("Train")()
        button = self.page.get_by_role("button", name="Train", exact=True)
        button.wait_for()
        self.timed("Train → trained run shown", button.click,
                   lambda: self.page.get_by_role("heading", name="Current run").wait_for(), graph)
        seconds = time.perf_counter() - started
        self.steps.append({"graph": graph, "step": "Train page opened at once, Train → trained run shown",
                           "seconds": round(seconds, 3), "load_1m": load()})
        print(f"  {graph:7s} {'(from the sidebar click on Train)':38s} {seconds:7.2f} s", flush=True)
        self.idle()
        message = self.page.get_by_test_id("stAlertContentSuccess").first.inner_text()
        found = re.search(r"Trained in ([\d.]+) s", message)
        return float(found.group(1)) if found else None

    def pages(self, graph: str) -> None:
        for title, how in PAGES.items():
            self.timed(f"page: {title}", self.nav(title), self.shown(how), graph)
            if title == "Scores":  # on a new server the table follows once its loops are compiled
                table = self.page.locator("text=/held-out edges is ranked among/")  # its caption
                self.timed("Scores: page drawn → its ranking table drawn", lambda: None, table.wait_for,
                           graph)
            self.idle()

    def choose_pair(self, graph: str, pair: tuple[str, str]) -> None:
        self.nav("Gossip & attend")()
        self.idle()
        for key, name in zip(("pair_source", "pair_target"), pair, strict=True):
            box = self.page.locator(f".st-key-{key} input")
            box.click()
            box.fill(name)
            box.press("Enter")
            self.idle()
        self.page.get_by_role("heading", name=f"{pair[0]} ↔ {pair[1]}").wait_for(timeout=20_000)

    def refresh(self, graph: str, pair: tuple[str, str]) -> None:
        heading = f"{pair[0]} ↔ {pair[1]}"
        # the address is written at the end of the run, after the heading: F5 before it reloads the
        # previous pair (seen under load, when the rerun's running indicator came too late for idle())
        self.page.wait_for_function(
            "(pair) => { const q = new URLSearchParams(location.search); return q.get('s') === pair[0] && "
            "q.get('t') === pair[1]; }", arg=list(pair))
        self.timed("refresh (F5) → the pair's attention shown", self.page.reload,
                   lambda: self.page.get_by_role("heading", name=heading).wait_for(), graph)
        self.idle()

    def bar_click(self, graph: str) -> None:
        self.page.locator('[class*="st-key-att_source"]').first.scroll_into_view_if_needed()
        xy = self.page.evaluate(FIND_BAR)
        assert xy is not None, "no neighbor's bar on the source's attention chart"
        self.timed("click on an attention bar → muted", lambda: self.page.mouse.click(*xy),
                   lambda: self.page.get_by_text(re.compile(r"^Muted: ")).first.wait_for(), graph)
        self.idle()


# Centre of the longest bar of a neighbor (customdata [id, name], id >= 0: not the padding's) on
# the source's attention chart; Plotly's drag layer sits over the bars, so the page is clicked there.
FIND_BAR = """() => {
  const box = document.querySelector('[class*="st-key-att_source"] .js-plotly-plot');
  if (!box) return null;
  const cd = box._fullData[0].customdata, x = box._fullData[0].x;
  const points = box.querySelectorAll('.barlayer .trace')[0].querySelectorAll('.point');
  let best = -1;
  for (let j = 0; j < cd.length; j++) {
    if (cd[j][0] >= 0 && (best < 0 || x[j] > x[best])) best = j;
  }
  if (best < 0) return null;
  const r = points[best].getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""


def fill_in_times(page, graph: str, started: float) -> dict:
    """How long the Scores page's DeepWalk and node2vec take to join the table (from the page's
    first drawing, measured separately after the journey)."""
    page.get_by_test_id("stSidebarNav").get_by_text("Scores", exact=True).click()
    page.get_by_role("heading", name="Runs side by side").wait_for()
    page.get_by_text(re.compile("DeepWalk and node2vec embed the training graph")).first.wait_for()
    return {"graph": graph, "step": "background: DeepWalk + node2vec in the Scores table",
            "seconds_since_scores_first_opened": round(time.perf_counter() - started, 3), "load_1m": load()}


UMAP_SHOWN = """() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]
  .some(t => / · UMAP · /.test(t.textContent))"""
STAND_IN = """() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]
  .some(t => / · (UMAP|PCA \\(while UMAP runs\\)) · /.test(t.textContent))"""


def umap_fill_in(journey: Journey, graph: str) -> None:
    """The Embeddings page with UMAP chosen: drawn at once (the PCA stands in while UMAP runs in the
    background), then UMAP takes its place by itself."""
    page = journey.page
    journey.nav("Embeddings")()
    journey.idle()
    started = time.perf_counter()
    journey.timed("Embeddings: UMAP chosen → page drawn (PCA stands in)",
                  lambda: page.get_by_text("UMAP (in the background; cached)").first.click(),
                  lambda: page.wait_for_function(STAND_IN), graph)
    page.wait_for_function(UMAP_SHOWN, polling=250)
    journey.steps.append({"graph": graph, "step": "background: UMAP replaces the PCA",
                          "seconds": round(time.perf_counter() - started, 3),
                          "load_1m": load()})
    journey.idle()


def run(graphs: list[str], first_train_only: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    numba_cache = Path(tempfile.mkdtemp(prefix="goat-numba-empty-"))
    log = ROOT / "test-output" / "bench" / "class_journey-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    out: dict = {"cores": os.cpu_count(), "machine": cpu_facts(), "load_1m_start": load(),
                 "numba_cache_dir": "a new empty folder",
                 "commit": commit.stdout.strip(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            proc, url, health = start_server(numba_cache, log)
            out["server_start_to_health_s"] = round(health, 3)
            try:
                context = browser.new_context(viewport={"width": 1400, "height": 1400})
                context.set_default_timeout(TIMEOUT_MS)
                page = context.new_page()
                journey = Journey(page, url)
                trained_in = {}
                for graph in graphs:
                    out[f"load_1m_before_{graph}"] = load()
                    (journey.open_lesmis if graph == "lesmis" else journey.open_email)()
                    trained_in[graph] = journey.train(graph)
                    if first_train_only:
                        break
                    scores_opened = time.perf_counter()
                    journey.pages(graph)
                    if graph == "lesmis":
                        journey.choose_pair(graph, PAIR)
                        pair = PAIR
                    else:
                        journey.nav("Gossip & attend")()
                        journey.idle()
                        pair = _email_pair(page)
                        journey.idle()
                    journey.refresh(graph, pair)
                    journey.bar_click(graph)
                    journey.steps.append(fill_in_times(page, graph, scores_opened))
                    umap_fill_in(journey, graph)
                    out[f"load_1m_after_{graph}"] = load()
                out["app_trained_in_s"] = trained_in
                out["steps"] = journey.steps
                context.close()
            finally:
                stop(proc)
            browser.close()
    finally:
        shutil.rmtree(numba_cache, ignore_errors=True)
    out["load_1m_end"] = load()
    return out


def _email_pair(page) -> tuple[str, str]:
    """Email's pair for the refresh: the pair the Gossip page opened on, swapped (its Swap button)."""
    text = page.get_by_role("heading", name=re.compile(" ↔ ")).first.inner_text()
    s, t = (part.strip() for part in text.split("↔"))
    page.get_by_role("button", name="Swap").click()
    page.get_by_role("heading", name=f"{t} ↔ {s}").wait_for()
    return t, s


def table(out: dict) -> str:
    rows = ["| graph | step | seconds | target | load (1 min) |", "|---|---|---|---|---|"]
    for step in out["steps"]:
        graph = step["graph"]
        seconds = step.get("seconds", step.get("seconds_since_scores_first_opened"))
        target = ""
        if step["step"].startswith("Embeddings"):
            target = TARGETS[graph]["page"]
        elif step["step"].startswith("Train"):
            target = TARGETS[graph]["train"]
        elif step["step"].startswith("open") and graph == "lesmis":
            target = None  # a fresh server's first page: its cold imports (no target in the issue)
        elif step["step"].startswith(("page", "refresh", "click", "open")):
            target = TARGETS[graph]["page"]
        target_text = f"≤ {target:g} s" if target else "—"
        rows.append(f"| {graph} | {step['step']} | {seconds:.2f} | {target_text} | {step['load_1m']} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["lesmis", "email"], choices=["lesmis", "email"])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "class_journey.json"))
    parser.add_argument("--first-train-only", action="store_true",
                        help="open and the first Train only (e.g. to time an older checkout the same way)")
    args = parser.parse_args()
    if args.graphs[0] != "lesmis":
        raise SystemExit("the journey starts on Les Misérables (the app's first graph)")
    out = run(args.graphs, args.first_train_only)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print()
    print(table(out))
    loads = f"1-minute load average {out['load_1m_start']} at the start, {out['load_1m_end']} at the end"
    print(f"\n{out['cores']} cores, commit {out['commit']}; {loads}; app's own training times "
          f"{out['app_trained_in_s']}.")


if __name__ == "__main__":
    main()
