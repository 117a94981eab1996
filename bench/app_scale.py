"""The app on graphs people bring: Barabási–Albert edge lists with integer ids, in a real browser.

    .venv/bin/python bench/app_scale.py [--edges 1000 10000 100000 1000000] [--page-timeout 120]

For each size, a fresh ``streamlit run app.py`` server and a fresh Chromium session:

1. upload the edge list on the Graph page (integer ids ``0..n-1``, BA with m = 5, seeded);
2. train with the app's defaults for that size (the Train page's own "Trained in" time and the
   wall time from the click to the finished page);
3. open every page once, after training, and time its first render: from the navigation click
   until no script run is in progress and the page shows no error;
4. on the Scores page, choose the hard negatives and time the click until their table is drawn.

It also records the server's peak memory (``VmHWM`` of the server process, from /proc), since
that is what a deployment pays. A page that takes longer than ``--page-timeout`` is recorded as a
timeout and the run goes on. Writes ``bench/results/app_scale.json`` and prints a Markdown table
for BENCHMARKS.md. Targets (issue "The explorer on the graphs people bring"): every page ≤ 3 s
at 10k edges, ≤ 10 s at 100k, ≤ 30 s at 1M.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import machine  # noqa: E402
from bench.app_bench import ARGS, CHROMIUM, new_page, start_server, stop  # noqa: E402

PAGES = ("Graph", "Gossip & attend", "Embeddings", "Scores", "Case study")
LAST_DRAWN = {"Scores": "text=/held-out edges is ranked among/"}  # the page is timed until this is on it
HARD = "Scores: hard negatives"  # step 4, a column of its own
STEPS = (*PAGES, HARD)
TARGETS = {10_000: 3.0, 100_000: 10.0, 1_000_000: 30.0}  # seconds per page, by edge count


def barabasi_albert_edges(num_edges: int, m: int = 5, seed: int = 0) -> np.ndarray:
    """(E, 2) integer edges of a BA graph with about ``num_edges`` edges (preferential attachment
    by sampling endpoints of existing edges; duplicates dropped). Fast enough for 10^6 edges."""
    rng = np.random.default_rng(seed)
    n = max(m + 1, int(num_edges / m * 1.05) + m)  # a few spare nodes: duplicates are dropped
    src = np.empty(n * m, dtype=np.int64)
    dst = np.empty(n * m, dtype=np.int64)
    k = 0
    for v in range(m):  # a small clique to start from
        for u in range(v):
            src[k], dst[k] = v, u
            k += 1
    for v in range(m, n):
        # an endpoint of a uniformly chosen existing edge is a degree-proportional node
        picks = rng.integers(0, 2 * k, size=m)
        targets = np.unique(np.where(picks % 2 == 0, src[picks // 2], dst[picks // 2]))
        src[k:k + len(targets)], dst[k:k + len(targets)] = v, targets
        k += len(targets)
    edges = np.stack([src[:k], dst[:k]], axis=1)
    return edges[:num_edges]


def write_edge_list(num_edges: int, folder: Path) -> Path:
    path = folder / f"ba_{num_edges}.txt"
    if not path.exists():
        edges = barabasi_albert_edges(num_edges)
        np.savetxt(path, edges, fmt="%d", delimiter=" ")
    return path


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def settle(page, timeout_s: float) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector('[data-testid="stStatusWidget"]', timeout=1500)
    except PlaywrightTimeout:
        pass
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=timeout_s * 1000)


def page_errors(page) -> list[str]:
    boxes = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
    return [boxes.nth(i).inner_text()[:200] for i in range(boxes.count())]


def upload(page, path: Path, timeout_s: float) -> float:
    page.get_by_text("Upload a graph file").click()
    settle(page, timeout_s)
    page.locator(".st-key-upload_edges input[type=file]").set_input_files(str(path))
    page.get_by_text(f"Ready to load: {path.name}").wait_for(timeout=timeout_s * 1000)
    settle(page, timeout_s)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Load graph").click()
    page.get_by_text(f"Loaded {path.name}").wait_for(timeout=timeout_s * 1000)
    settle(page, timeout_s)
    return time.perf_counter() - t0


def train(page, timeout_s: float) -> tuple[float, float | None]:
    page.get_by_test_id("stSidebarNav").get_by_text("Train", exact=True).click()
    settle(page, timeout_s)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Current run").wait_for(timeout=timeout_s * 1000)
    wall = time.perf_counter() - t0
    settle(page, timeout_s)
    message = page.get_by_test_id("stAlertContentSuccess").first.inner_text()
    match = re.search(r"Trained in ([\d.]+) s", message)
    return wall, float(match.group(1)) if match else None


def time_page(page, title: str, timeout_s: float) -> dict:
    """From the navigation click on ``title`` until the page is done (and its last part drawn)."""
    return time_step(page, page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True),
                     LAST_DRAWN.get(title), timeout_s)


def time_hard_negatives(page, timeout_s: float) -> dict:
    """From the click on the Scores page's "hard" negatives until their ranking table is drawn."""
    if (back := time_page(page, "Scores", timeout_s))["timeout"]:
        return back
    return time_step(page, page.locator(".st-key-scores_ranking_kind").get_by_text("hard", exact=True),
                     "text=/finds most plausible/", timeout_s)  # the hard table's caption


def time_step(page, target, drawn: str | None, timeout_s: float) -> dict:
    """Seconds from a click on ``target`` until no script runs and ``drawn`` (a selector) is shown; a
    timeout, or the errors the page shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    t0 = time.perf_counter()
    target.click()
    try:
        settle(page, timeout_s)
        if drawn:  # a part drawn after a rerun of its own (ranking: once its loops are built)
            page.locator(drawn).wait_for(timeout=timeout_s * 1000)
    except PlaywrightTimeout:
        return {"seconds": None, "timeout": True, "errors": []}
    return {"seconds": time.perf_counter() - t0, "timeout": False, "errors": page_errors(page)}


def one_size(browser, num_edges: int, folder: Path, timeout_s: float, train_timeout_s: float,
             wait_s: float = 0.0) -> dict:
    path = write_edge_list(num_edges, folder)
    proc, url, _ = start_server()
    row: dict = {"edges": num_edges, "file_mb": path.stat().st_size / 2**20}
    try:
        page = new_page(browser)
        page.goto(url)
        settle(page, timeout_s)
        time.sleep(wait_s)  # --warm-up-wait: let the server's background warm-up finish first,
        if wait_s:  # and its compile, which would otherwise overlap the first measurements
            page.get_by_text("Compiling the fused training loops").first.wait_for(state="hidden",
                                                                                 timeout=600_000)
        row["peak_rss_mb_after"] = peaks = {}  # the server's peak so far, after each step: who raised it
        row["upload_s"] = upload(page, path, timeout_s)
        peaks["upload"] = peak_rss_mb(proc.pid)
        row["train_wall_s"], row["train_app_s"] = train(page, train_timeout_s)
        peaks["train"] = peak_rss_mb(proc.pid)
        row["pages"] = {}
        for title in PAGES:
            row["pages"][title] = result = time_page(page, title, timeout_s)
            peaks[title] = peak_rss_mb(proc.pid)
            print(f"  {num_edges:>9,} edges · {title}: {result}", flush=True)
            if result["timeout"]:  # the server is still busy with that page: the rest would wait on it
                break
        else:
            row["pages"][HARD] = result = time_hard_negatives(page, timeout_s)
            peaks[HARD] = peak_rss_mb(proc.pid)
            print(f"  {num_edges:>9,} edges · {HARD}: {result}", flush=True)
        page.context.close()
    except Exception as err:  # noqa: BLE001 - a benchmark records how a size failed and goes on
        row["failed"] = f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"
    finally:
        row["server_peak_rss_mb"] = peak_rss_mb(proc.pid)
        stop(proc)
    return row


def cell(result: dict | None, target: float | None) -> str:
    if result is None:
        return "not reached"
    if result["timeout"]:
        return "timeout"
    mark = "" if target is None else (" ✓" if result["seconds"] <= target else " ✗")
    error = " (error shown)" if result["errors"] else ""
    return f"{result['seconds']:.1f} s{mark}{error}"


def table(rows: list[dict]) -> str:
    head = ("| edges | file | upload → Graph page | train (app) | " + " | ".join(STEPS)
            + " | server peak RSS |")
    lines = [head, "|" + "---|" * (len(STEPS) + 5)]
    for row in rows:
        pages = row.get("pages", {})
        target = TARGETS.get(row["edges"])
        train = f"{row['train_app_s']:.1f} s" if row.get("train_app_s") is not None else "—"
        rss = f"{row['server_peak_rss_mb']:.0f} MB" if row.get("server_peak_rss_mb") else "—"
        cells = [cell(pages.get(title), target) for title in STEPS]
        if "failed" in row:
            cells = [f"failed: {row['failed']}"] + cells[1:]
        loaded = f"{row['upload_s']:.1f} s" if row.get("upload_s") is not None else "—"
        lines.append(f"| {row['edges']:,} | {row['file_mb']:.1f} MB | {loaded} | {train} | "
                     + " | ".join(cells) + f" | {rss} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--page-timeout", type=float, default=120.0, help="seconds before a page counts "
                        "as a timeout")
    parser.add_argument("--train-timeout", type=float, default=1800.0)
    parser.add_argument("--warm-up-wait", type=float, default=0.0, help="seconds to wait after the first "
                        "page, then until the sidebar no longer says the loops are compiling, before "
                        "uploading: the server's background warm-up (a tiny fit, the compiled loops) "
                        "otherwise overlaps the first measurements, and ranking waits for it")
    parser.add_argument("--data", type=Path, default=Path("/tmp/goat-app-scale"), help="where the generated "
                        "edge lists are written")
    parser.add_argument("--out", type=Path, help="the JSON written (default: bench/results/app_scale.json, "
                        "or app_scale_after_warm_up.json with --warm-up-wait)")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    rows = []
    started = {"machine": machine(), "cores": os.cpu_count(),
               "loadavg_1m_start": round(os.getloadavg()[0], 2)}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for num_edges in args.edges:
            rows.append(one_size(browser, num_edges, args.data, args.page_timeout, args.train_timeout,
                                 args.warm_up_wait))
        browser.close()
    out = dict(started, loadavg_1m_end=round(os.getloadavg()[0], 2), page_timeout_s=args.page_timeout,
               rows=rows, command=" ".join([Path(sys.executable).name, *sys.argv]))
    name = "app_scale.json" if not args.warm_up_wait else "app_scale_after_warm_up.json"
    dest = args.out or ROOT / "bench" / "results" / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(out, indent=2))
    print(table(rows))
    print(f"\n{out['cores']} cores; 1-minute load average {out['loadavg_1m_start']} at the start, "
          f"{out['loadavg_1m_end']} at the end; page timeout {args.page_timeout:.0f} s.")


if __name__ == "__main__":
    main()
