"""A refresh, a link opened in another browser, a run the server lacks, and the Scores page filling
in from the background, in a real browser (no timing here: bench/class_journey.py times them)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from .conftest import click_bar, click_node, go, open_app, settle, shot
from .test_app_in_browser import train_lesmis

pytestmark = pytest.mark.browser


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


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
