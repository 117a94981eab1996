"""A refresh, a link opened in another browser, a run the server lacks, and the Scores page filling
in from the background, in a real browser (no timing here: bench/class_journey.py times them)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from ui import navigation

from .conftest import click_bar, click_node, go, open_app, settle, shot
from .test_app_in_browser import ba_edge_list, choose_file, train_lesmis, upload_and_train

pytestmark = pytest.mark.browser


# Both attention charts' numbers and names, as drawn (Plotly's decoded _fullData)
ATTENTION = """() => [...document.querySelectorAll('[class*="st-key-att_"] .js-plotly-plot')].map(
  gd => gd._fullData.map(t => [Array.from(t.x || []), (t.customdata || []).map(c => c[1])]))"""


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def address(page) -> str:
    """The page's path and query: the same link on another server."""
    found = urlparse(page.url)
    return f"{found.path}?{found.query}"


def attention(page, heading: str) -> list:
    page.get_by_role("heading", name=heading).wait_for()
    settle(page)
    drawn = page.evaluate(ATTENTION)
    assert len(drawn) == 2 and all(drawn), "both attention charts drawn"
    return drawn


def registry_navigation(page) -> None:
    """The sidebar is app.py's (the registry's titles, the seed), not a page run alone."""
    nav = page.get_by_test_id("stSidebarNav")
    for page_info in navigation.PAGES:
        assert nav.get_by_text(page_info.title, exact=True).count() == 1, page_info.title
    assert page.locator(".st-key-seed input").count() == 1


def test_a_refresh_and_a_shared_link_keep_the_pair_the_mute_and_the_run(server, new_page):
    page = new_page()
    open_app(page, server)
    train_lesmis(page)
    go(page, "Gossip & attend")
    click_node(page, "Valjean")
    click_node(page, "Javert")
    page.get_by_role("heading", name="Valjean ↔ Javert").wait_for()
    muted = click_bar(page)
    page.get_by_text(re.compile(r"^Muted: ")).first.wait_for()
    link = page.url
    assert query(page)["mute"] == [muted] and query(page)["backend"] == ["torch"]

    page.reload()  # F5
    settle(page)
    page.get_by_role("heading", name="Valjean ↔ Javert").wait_for()
    assert page.get_by_text(f"Muted: {muted}").count() == 1
    assert not page.get_by_text(re.compile("No trained model")).count()
    assert not page.get_by_test_id("stException").count()
    shot(page, "links-1-refreshed")

    other = new_page(color_scheme="dark")  # another browser: its own cookies and session
    other.goto(link)
    settle(other)
    other.get_by_role("heading", name="Valjean ↔ Javert").wait_for()
    assert other.get_by_text(f"Muted: {muted}").count() == 1
    assert not other.get_by_text(re.compile("not on this server")).count()  # the run is on this server
    shot(other, "links-2-shared")


def test_a_link_to_a_run_this_server_lacks_offers_to_train_it_again(server, new_page):
    page = new_page()
    page.goto(f"{server}/gossip?graph=lesmis&seed=4242&s=Cosette&t=Fantine&dim=16&epochs=6&batch=64"
              "&holdout=0.15&backend=torch")
    settle(page)
    page.get_by_text(re.compile("This link's run .* is not on this server")).wait_for()
    shot(page, "links-3-missing-run")
    page.get_by_role("button", name="Train it again").click()
    page.get_by_role("heading", name="Cosette ↔ Fantine").wait_for()
    settle(page)
    assert "seed=4242" in page.url and not page.get_by_text(re.compile("not on this server")).count()


def test_the_scores_page_shows_at_once_and_the_walks_fill_in(server, new_page):
    page = new_page()
    open_app(page, server)
    go(page, "Train")
    box = page.locator(".st-key-train_epochs input")
    box.fill("13")  # a run of its own: its walks are not done yet
    box.press("Tab")
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Current run").wait_for()
    settle(page)
    go(page, "Scores")
    page.get_by_role("heading", name="Runs side by side").wait_for()  # the whole page, at once
    walks = page.get_by_text(re.compile("DeepWalk and node2vec embed the training graph"))
    if not walks.count():  # still running: its progress is on the page, and it fills in by itself
        page.get_by_text(re.compile("^DeepWalk and node2vec: ")).first.wait_for()
        shot(page, "links-4-walks-running")
    walks.first.wait_for(timeout=300_000)  # no click: the page's fragment reruns it when they are done
    assert not page.get_by_test_id("stException").count()
    shot(page, "links-5-walks-done")


def test_a_link_opened_first_on_a_restarted_server_rebuilds_the_same_view(server, fresh_server, new_page):
    """A restart empties the stores: the link's run is named, one click trains it again, seeded, and
    the view is the same to the last digit. The link is the new server's first request: it still
    runs through app.py's navigation (a ``pages/`` folder once made Streamlit run the page alone)."""
    page = new_page()
    open_app(page, server)
    train_lesmis(page)
    go(page, "Gossip & attend")
    click_node(page, "Valjean")
    click_node(page, "Javert")
    muted = click_bar(page)
    page.get_by_text(f"Muted: {muted}").wait_for()
    before, link = attention(page, "Valjean ↔ Javert"), address(page)

    restarted = fresh_server()
    other = new_page()
    other.goto(restarted + link)
    settle(other)
    other.get_by_text(re.compile("This link's run .* is not on this server")).wait_for()
    registry_navigation(other)
    shot(other, "links-6-restarted-missing-run")
    other.get_by_role("button", name="Train it again").click()
    assert attention(other, "Valjean ↔ Javert") == before
    assert other.get_by_text(f"Muted: {muted}").count() == 1
    assert address(other) == link
    registry_navigation(other)


def test_an_upload_with_integer_ids_survives_refresh_and_restart(server, fresh_server, new_page, tmp_path):
    page = new_page()
    path = tmp_path / "ints.txt"
    ba_edge_list(path, 150, 2)
    upload_and_train(page, server, path)
    go(page, "Gossip & attend")
    click_node(page, "13")
    click_node(page, "7932")
    muted = click_bar(page)
    page.get_by_text(f"Muted: {muted}").wait_for()
    before, link = attention(page, "13 ↔ 7932"), address(page)
    assert query(page)["graph"][0].startswith("upload:") and query(page)["file"] == ["ints.txt"]

    page.reload()  # F5: the upload is in the server's store, under its content key
    assert attention(page, "13 ↔ 7932") == before
    assert page.get_by_text(f"Muted: {muted}").count() == 1

    other = new_page()  # a restarted server: load the same file again, then train the run again
    other.goto(fresh_server() + link)
    settle(other)
    other.get_by_text(re.compile("the upload ints.txt, is not on this server")).wait_for()
    other.get_by_role("button", name="Load ints.txt again").click()
    settle(other)
    choose_file(other, path)
    other.get_by_role("button", name="Load graph").click()
    settle(other)
    other.get_by_role("button", name="Train it again").click()
    settle(other)
    go(other, "Gossip & attend")
    assert attention(other, "13 ↔ 7932") == before
    assert other.get_by_text(f"Muted: {muted}").count() == 1
    shot(other, "links-7-upload-rebuilt")
