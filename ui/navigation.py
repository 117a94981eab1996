"""The app's pages, listed once: ``app.py`` builds its navigation from :data:`PAGES`, pages link
to each other through it, and one AppTest opens every page in it (tests/app/test_pages.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st


@dataclass(frozen=True)
class Page:
    file: str  # relative to app.py
    title: str  # in the sidebar's navigation
    icon: str
    url_path: str  # the address: /gossip?...
    needs_run: bool = False  # shows the "train first" guard until the current graph has a run

    @property
    def name(self) -> str:
        """The file's stem: ``gossip`` for ``app_pages/gossip.py``."""
        return Path(self.file).stem


PAGES = (  # in the sidebar's order; the first opens by default
    Page("app_pages/graph.py", "Graph", ":material/hub:", "graph"),
    Page("app_pages/train.py", "Train", ":material/model_training:", "train"),
    Page("app_pages/gossip.py", "Gossip & attend", ":material/forum:", "gossip", needs_run=True),
    Page("app_pages/equations.py", "Equations", ":material/function:", "equations", needs_run=True),
    Page("app_pages/embeddings.py", "Embeddings", ":material/scatter_plot:", "embeddings", needs_run=True),
    Page("app_pages/scores.py", "Scores", ":material/leaderboard:", "scores", needs_run=True),
    Page("app_pages/case_study.py", "Case study", ":material/school:", "case-study"),
)


def page(name: str) -> Page:
    """The page whose file is ``app_pages/<name>.py``."""
    found = [p for p in PAGES if p.name == name]
    if not found:
        raise KeyError(f"no page {name!r}; pages: {[p.name for p in PAGES]}")
    return found[0]


GRAPH_PAGE, TRAIN_PAGE, GOSSIP_PAGE = (page(name).file for name in ("graph", "train", "gossip"))


def streamlit_pages() -> list:
    """The registry as ``st.Page`` objects for ``st.navigation``."""
    return [st.Page(p.file, title=p.title, icon=p.icon, url_path=p.url_path, default=k == 0)
            for k, p in enumerate(PAGES)]
