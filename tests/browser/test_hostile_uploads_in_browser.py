"""Hostile uploads in a real browser: node names that look like HTML show as text wherever the
app draws them (here: what only a browser shows, vis-network's tooltips)."""

from __future__ import annotations

import time

import pytest

from .conftest import open_app, settle, shot

pytestmark = pytest.mark.browser

NAMES = ["<script>alert(1)</script>", "<b>x</b>", "&amp;", "q\"uo'te"]

# The page position of vis-network's node ``i`` (inside the frame) and the tooltip shown there.
NODE_XY = """(i) => { const d = network.canvasToDOM(network.getPositions([i])[i]);
  const r = document.getElementById('mynetwork').getBoundingClientRect();
  return [d.x + r.left, d.y + r.top]; }"""
TOOLTIP = """() => { const t = document.querySelector('.vis-tooltip');
  return t && t.style.visibility === 'visible' ? t.innerText : null; }"""


def still(frame, nodes: int, timeout: float = 30) -> None:
    """Wait until vis-network's physics (and the frame's refit) stop moving the nodes on screen."""
    where = f"() => [...Array({nodes}).keys()].map(i => ({NODE_XY})(i).map(Math.round)).join()"
    deadline, before = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        now = frame.evaluate(where)
        if now == before:
            return
        before = now
        time.sleep(0.5)


def upload_bytes(page, name: str, data: bytes) -> None:
    """Load ``data`` as the graph file called ``name`` (any name: it never touches the disk)."""
    page.get_by_text("Upload a graph file").click()
    settle(page)
    page.locator(".st-key-upload_edges input[type=file]").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": data})
    page.get_by_text("Ready to load:").wait_for()
    settle(page)
    page.get_by_role("button", name="Load graph").click()
    settle(page)


def test_pyvis_tooltips_show_html_like_names_as_text(server, new_page):
    star = "".join(f"hub,{name}\n" for name in NAMES).replace('q"uo\'te', '"q""uo\'te"')
    page = new_page()
    open_app(page, server)
    upload_bytes(page, "evil.csv", f"source,target\n{star}".encode())
    page.get_by_text("Loaded evil.csv: 5 nodes, 4 edges.").wait_for()
    page.get_by_role("tab", name="Physics view (pyvis)").click()
    settle(page)
    frame = page.frame_locator("iframe").first
    frame.locator("canvas").first.wait_for()
    inner = next(f for f in page.frames if f != page.main_frame)
    inner.wait_for_function("typeof network !== 'undefined' && network.getPositions([0])[0] !== undefined")
    page.locator("iframe").first.scroll_into_view_if_needed()  # below the fold: hover needs it on screen
    still(inner, len(NAMES) + 1)
    box = page.locator("iframe").first.bounding_box()
    shown = {}
    for i in range(len(NAMES) + 1):
        deadline, tip = time.monotonic() + 15, None  # the physics may still move the node: follow it
        while time.monotonic() < deadline and tip is None:
            page.mouse.move(box["x"] + 3, box["y"] + 3, steps=2)  # off every node: the tooltip goes
            inner.wait_for_function(f"({TOOLTIP})() === null")
            x, y = inner.evaluate(NODE_XY, i)
            page.mouse.move(box["x"] + x, box["y"] + y, steps=4)
            time.sleep(0.8)  # vis-network's tooltip delay
            tip = inner.evaluate(TOOLTIP)
        shown[i] = tip.split(" | ")[0] if tip else None
    shot(page, "hostile-pyvis-tooltip")
    assert sorted(filter(None, shown.values())) == sorted(["hub", *NAMES]), shown  # not "&lt;b&gt;…"


def shown_choice(page, key: str) -> str:
    """What a selectbox displays (its chosen option), read from the page, not from the session."""
    return page.locator(f".st-key-{key} input[role=combobox]").input_value()


def test_colour_picker_shows_what_it_offers_after_an_unlabelled_upload(server, new_page):
    page = new_page()
    open_app(page, server)
    assert shown_choice(page, "graph_colour") == "labels"  # Les Misérables has labels
    upload_bytes(page, "triangle.csv", b"a,b\nb,c\nc,a\n")
    page.get_by_text("Loaded triangle.csv: 3 nodes, 3 edges.").wait_for()
    page.locator(".st-key-graph_colour").click()
    offered = [o.inner_text() for o in page.get_by_role("option").all()]
    page.keyboard.press("Escape")
    assert offered == ["communities", "degree"]  # no labels to colour by
    assert shown_choice(page, "graph_colour") == "communities"  # what the chart is coloured by


def test_a_file_needing_its_format_is_read_with_the_format_choice_and_kept_after_a_refresh(server, new_page):
    """'a b c' lines could be three things: refused naming --format, which is the Format choice here."""
    page = new_page()
    open_app(page, server)
    upload_bytes(page, "adj.txt", b"a b c\nb c d\nc a e\n")
    page.get_by_text("Format choice").first.wait_for()  # the refusal says which control --format is
    assert page.get_by_text("Loaded adj.txt").count() == 0
    page.locator(".st-key-upload_format").click()
    page.get_by_role("option", name="adjacency list", exact=True).click()
    settle(page)
    assert shown_choice(page, "upload_format") == "adjacency list"
    page.get_by_role("button", name="Load graph").click()
    page.get_by_text("Loaded adj.txt: 5 nodes, 5 edges.").wait_for()
    settle(page)
    assert "graph=upload" in page.url, page.url
    page.reload()  # the link carries the upload: the same graph after a refresh
    settle(page)
    page.get_by_text("adj.txt").first.wait_for()
    assert page.get_by_text("read as adjacency list (format as given)").count() >= 1


def test_an_excel_csv_of_windows_is_read_once_its_encoding_is_chosen(server, new_page):
    """Excel's "CSV (Comma delimited)" on Windows is cp1252: one line naming the Text encoding choice,
    then, chosen in its drop-down, read (the names as written: the AppTest checks them)."""
    page = new_page()
    open_app(page, server)
    edges = "source;target\nZoë;Müller\nMüller;René\nRené;Zoë\n".encode("cp1252")
    upload_bytes(page, "excel.csv", edges)
    page.get_by_text("not UTF-8 text").first.wait_for()
    page.locator(".st-key-upload_encoding").click()
    page.get_by_role("option", name="Windows-1252 (Western Europe, Americas)").click()
    settle(page)
    page.get_by_role("button", name="Load graph").click()
    page.get_by_text("Loaded excel.csv: 3 nodes, 3 edges.").wait_for()
    page.get_by_text("cp1252 text").wait_for()  # the account says how the bytes were read
