"""AppTest helpers: a fresh session per test, small fast training, clicks injected into charts.

AppTest runs the app in this process, so Streamlit's caches (graphs, layouts, trained runs)
are shared between tests exactly as between browser sessions: a second training with the
same graph, parameters and seed is fetched, not repeated.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from ui import navigation

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")  # AppTest resolves relative paths against the test file
SMALL = {"dim": 16, "epochs": 8, "batch_size": 64, "holdout": 0.15}  # Les Misérables in about a second


def new_app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=120).run()


@pytest.fixture
def app() -> AppTest:
    at = new_app()
    assert not at.exception, at.exception
    return at


def goto(at: AppTest, page: str) -> AppTest:
    """Open the page ``app_pages/<page>.py`` of the registry (ui/navigation.py)."""
    at.switch_page(navigation.page(page).file).run()
    assert not at.exception, at.exception
    return at


def explorer(at: AppTest):
    return at.session_state["explorer"]


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    return matches[0]


def train(at: AppTest, **overrides) -> AppTest:
    """Fill the Train form (small settings unless overridden) and submit it."""
    goto(at, "train")
    for name, value in {**SMALL, **overrides}.items():
        at.session_state[f"train_{name}"] = value
    button(at, "Train").click().run()
    assert not at.exception, at.exception
    return at


def wait_for_jobs(at: AppTest, timeout: float = 300.0) -> AppTest:
    """Let the background jobs a page started finish, then run the page again (what the page's
    progress fragment does in a browser when a job ends)."""
    from ui import jobs

    store = jobs.job_store()
    with store.lock:
        pending = list(store.jobs.values())
    for job in pending:
        assert job.done.wait(timeout), f"{job.label} still running after {timeout} s"
    at.run()
    assert not at.exception, at.exception
    return at


def open_tab(at: AppTest, key: str, label: str) -> AppTest:
    at.session_state[key] = label  # what a click on the tab sends
    at.run()
    assert not at.exception, at.exception
    return at


def click_nodes(at: AppTest, prefix: str, *nodes: int) -> AppTest:
    """What a click (or a shift-click of several nodes) on a Plotly chart sends back."""
    ex = explorer(at)
    points = [{"curve_number": 1, "point_number": 0, "point_index": 0, "customdata": [n, ex.names[n]]}
              for n in nodes]
    at.session_state[f"{prefix}_{ex.click_round}"] = {"selection": {"points": points}}
    at.run()
    assert not at.exception, at.exception
    return at


def plain(text: str) -> str:
    """What the user reads: the app escapes user-supplied text before it enters Markdown."""
    return re.sub(r"\\(.)", r"\1", text)


def texts(elements) -> list[str]:
    return [plain(e.value) for e in elements]


class Downloads(dict):
    """File name -> bytes; a deferred button's file is made when a test first reads it (as the
    click would make it), so pages with many figures to export do not render them all."""

    def __getitem__(self, name: str) -> bytes:
        value = super().__getitem__(name)
        if callable(value):
            value = value()
            value = value.encode() if isinstance(value, str) else value
            self[name] = value
        return value


@pytest.fixture
def downloads(monkeypatch) -> Downloads:
    """Bytes of every download button's file, by the file name the user would get."""
    seen = Downloads()
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if filename is not None and isinstance(path_or_data, (bytes, str)):
            seen[filename] = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    def record_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        if file_name is not None:  # a button whose data is made on click: made when read
            seen[file_name] = data_callable
        return original_deferred(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    original_deferred = MediaFileManager.add_deferred
    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record_deferred)
    return seen


def zip_names(raw: bytes) -> set[str]:
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return set(zf.namelist())
