"""App benchmarks (not tests): what a user waits for in GOAT Explorer, measured in a real browser.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/app_bench.py [--repeats 5] [--skip-email]

1. launch -> first render: from starting ``streamlit run`` to the Graph page's network drawn
   (cold: Python imports, first script run, layout), then for a second session (warm server);
2. Les Misérables training with the app's default settings: the app's own "Trained in" time,
   the wall time from the Train click to the finished page, and ``Goat.fit`` alone in-process;
3. click -> attention panel: from the second click on a node to the panel naming the new pair;
4. UMAP of the Email embeddings on the Embeddings page: the first projection in a fresh server
   (numba compiles) and the cached one (switch away and back).

Prints a Markdown section for BENCHMARKS.md and writes test-output/bench/app_bench.json.
Timings include the machine's load: the 1-minute load average is reported with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CHROMIUM = os.environ.get("GOAT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
PAIRS = [("Valjean", "Javert"), ("Cosette", "Fantine"), ("Gavroche", "Marius"), ("Enjolras", "Combeferre"),
         ("Thenardier", "Eponine"), ("Myriel", "Napoleon"), ("Bahorel", "Joly")]

from tests.browser.conftest import FIND_NODE  # noqa: E402 (the browser tests' node locator)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str, float]:
    port = free_port()
    env = dict(os.environ, GOAT_OFFLINE="1")
    env.setdefault("GOAT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc, url, started
        except OSError:
            time.sleep(0.1)
        if proc.poll() is not None:
            raise SystemExit("the Streamlit server exited")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def settle(page) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector('[data-testid="stStatusWidget"]', timeout=1000)
    except PlaywrightTimeout:
        pass
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=600_000)


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    settle(page)


def new_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    context.set_default_timeout(600_000)
    return context.new_page()


def first_render(browser, url: str, started: float | None = None) -> float:
    page = new_page(browser)
    t0 = time.perf_counter() if started is None else started
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot .scatterlayer .point")
    elapsed = time.perf_counter() - t0
    page.context.close()
    return elapsed


def train_in_browser(page, epochs: int | None = None) -> tuple[float, float | None]:
    """(wall seconds from the Train click to the finished page, the app's "Trained in" seconds)."""
    go(page, "Train")
    if epochs is not None:
        box = page.locator(".st-key-train_epochs input")
        box.fill(str(epochs))
        box.press("Tab")
        settle(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Current run").wait_for()
    wall = time.perf_counter() - t0
    settle(page)
    message = page.get_by_test_id("stAlertContentSuccess").first.inner_text()
    match = re.search(r"Trained in ([\d.]+) s", message)
    return wall, float(match.group(1)) if match else None


def fit_in_process(repeats: int) -> list[float]:
    import torch

    from goat_core import Goat, load_graph, split_edges
    from goat_core.presets import fast as fast_preset

    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))  # as the app does
    graph = load_graph("lesmis")
    params = fast_preset(graph.num_edges)
    holdout = params.pop("holdout")
    times = []
    for seed in range(repeats):
        split = split_edges(graph, 1 - holdout, seed)
        t0 = time.perf_counter()
        Goat(**params, seed=seed).fit(split.train, validation=(split.test_pos, split.test_neg))
        times.append(time.perf_counter() - t0)
    return times


def click_to_panel(page, pairs) -> list[float]:
    go(page, "Gossip & attend")
    times = []
    for a, b in pairs:
        for name in (a, b):
            page.wait_for_selector(".js-plotly-plot .scatterlayer .point")
            xy = page.evaluate(FIND_NODE, name)
            t0 = time.perf_counter()
            page.mouse.click(*xy)
            if name == b:
                page.get_by_role("heading", name=f"{a} ↔ {b}").wait_for()
                times.append(time.perf_counter() - t0)
            else:
                page.get_by_text(f"First node: {a}.").wait_for()
            settle(page)
    return times


def umap_email(browser, url: str) -> dict:
    page = new_page(browser)
    page.goto(url)
    settle(page)
    page.get_by_text("Email (bundled)").click()
    settle(page)
    wall_train, app_train = train_in_browser(page)
    go(page, "Embeddings")
    page.get_by_role("heading", name="Personas").wait_for()
    t0 = time.perf_counter()
    page.locator(".st-key-emb_method").get_by_text("UMAP (in the background; cached)").click()
    page.get_by_text("· UMAP · seed 0").first.wait_for()
    settle(page)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    page.locator(".st-key-emb_method").get_by_text("PCA (instant)").click()
    page.get_by_text("· PCA · seed 0").first.wait_for()
    settle(page)
    pca = time.perf_counter() - t0
    t0 = time.perf_counter()
    page.locator(".st-key-emb_method").get_by_text("UMAP (in the background; cached)").click()
    page.get_by_text("· UMAP · seed 0").first.wait_for()
    settle(page)
    cached = time.perf_counter() - t0
    page.context.close()
    return {"email_train_wall_s": wall_train, "email_train_app_s": app_train, "umap_first_s": first,
            "umap_cached_s": cached, "pca_page_s": pca}


def summary(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.2f} s"
    median = statistics.median(values)
    return f"median {median:.2f} s (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-email", action="store_true", help="leave out the Email UMAP timing")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    out: dict = {"cores": os.cpu_count(), "loadavg_1m_start": round(os.getloadavg()[0], 2)}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        proc, url, started = start_server()
        try:
            out["first_render_cold_s"] = first_render(browser, url, started)
            out["first_render_warm_s"] = [first_render(browser, url) for _ in range(args.repeats)]
            page = new_page(browser)
            page.goto(url)
            settle(page)
            out["train_wall_s"], out["train_app_s"] = train_in_browser(page)
            out["click_to_panel_s"] = click_to_panel(page, PAIRS[: max(args.repeats, 1)])
            page.context.close()
        finally:
            stop(proc)
        if not args.skip_email:
            proc, url, _ = start_server()  # a fresh server: the first UMAP compiles
            try:
                out.update(umap_email(browser, url))
            finally:
                stop(proc)
        browser.close()
    out["fit_in_process_s"] = fit_in_process(args.repeats)
    out["loadavg_1m_end"] = round(os.getloadavg()[0], 2)

    dest = ROOT / "test-output" / "bench"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "app_bench.json").write_text(json.dumps(out, indent=2))
    rows = [
        ("Launch → first render (cold server: imports, first run, layout)",
         f"{out['first_render_cold_s']:.2f} s"),
        ("New session → first render (warm server)", summary(out["first_render_warm_s"])),
        ("Les Misérables training, app defaults: the app's own time", f"{out['train_app_s']} s"),
        ("Les Misérables training: Train click → finished page", f"{out['train_wall_s']:.2f} s"),
        ("Les Misérables `Goat.fit` alone (same settings, in-process)", summary(out["fit_in_process_s"])),
        ("Click on the 2nd node → attention panel names the pair", summary(out["click_to_panel_s"])),
    ]
    if "umap_first_s" in out:
        rows += [
            ("Email training, app defaults (N=30, batch 512, 5 epochs): app's time",
             f"{out['email_train_app_s']} s"),
            ("Email UMAP, first in a fresh server (numba compiles)", f"{out['umap_first_s']:.2f} s"),
            ("Email UMAP, cached (switch away and back)", f"{out['umap_cached_s']:.2f} s"),
            ("Email PCA, for comparison (same page redraw, projection in ms)", f"{out['pca_page_s']:.2f} s"),
        ]
    print("| measurement | time |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    print(f"\n{out['cores']} cores; 1-minute load average {out['loadavg_1m_start']} at the start, "
          f"{out['loadavg_1m_end']} at the end.")


if __name__ == "__main__":
    main()
