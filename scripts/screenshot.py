"""The README's screenshot: the app in Chromium on Les Misérables, after a Train, on the Gossip page.

    .venv/bin/python scripts/screenshot.py   # writes docs/app.png

Serves the app and drives the browser as the browser tests do (tests/browser/conftest.py), then
shrinks the capture to 1000 pixels wide with a 64-colour palette, to keep the file small.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, LAUNCH_ARGS, go, open_app, serve, settle  # noqa: E402


def main(out: Path = ROOT / "docs" / "app.png") -> None:
    from playwright.sync_api import sync_playwright

    with serve("screenshot-server.log") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1700}).new_page()
        page.set_default_timeout(120_000)
        open_app(page, url)
        go(page, "Train")
        page.get_by_role("button", name="Train", exact=True).click()
        page.get_by_text("Current run").wait_for()
        settle(page)
        go(page, "Gossip & attend")
        page.get_by_role("heading", name="Marius ↔ Thenardier").wait_for()
        settle(page)
        raw = page.screenshot()
        browser.close()
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
    image.quantize(colors=64).save(out, optimize=True)
    print(f"{out}: {out.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
