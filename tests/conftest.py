"""Shared fixtures: tiny hand-made graphs and planted-community graphs with known answers."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from goat_core import load_graph
from goat_core.data.graph import Graph, NodeLabels, from_networkx

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("GOAT_DATA_DIR", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not (DATA_DIR / "email" / "graph.txt").is_file():
        pytest.fail(f"Email data not found under {DATA_DIR}: set GOAT_DATA_DIR to the shared data folder")
    return DATA_DIR


@pytest.fixture(autouse=True)
def _data_env(monkeypatch):
    monkeypatch.setenv("GOAT_DATA_DIR", str(DATA_DIR))
    monkeypatch.setenv("GOAT_OFFLINE", "1")


def planted_graph(groups: int = 4, size: int = 20, p_in: float = 0.5, p_out: float = 0.02,
                  seed: int = 0) -> Graph:
    """A planted-partition graph whose communities are the ground-truth labels."""
    g = nx.planted_partition_graph(groups, size, p_in, p_out, seed=seed)
    graph = from_networkx(g, source="planted")
    codes = np.array([node // size for node in g.nodes], dtype=np.int64)
    labels = NodeLabels(codes=codes, classes=tuple(f"group {c}" for c in range(groups)), source="planted")
    return replace(graph, labels=labels)


@pytest.fixture(scope="session")
def lesmis() -> Graph:
    """The bundled Les Misérables (77 nodes, 254 edges); a Graph is immutable, so one serves all."""
    return load_graph("lesmis")


@pytest.fixture(scope="session")
def planted() -> Graph:
    return planted_graph()


@pytest.fixture
def triangle_tail() -> Graph:
    """0-1-2 triangle plus a tail 2-3-4: small enough to reason about by hand."""
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)])
    return from_networkx(g, source="triangle-tail")


# padding="mask": the cases below test behaviours either padding shares (zero padding has its own)
FAST = dict(dim=16, epochs=5, lr=0.02, batch_size=32, dropout=0.0, neighborhood=10, padding="mask",
            validation_fraction=0.0)
