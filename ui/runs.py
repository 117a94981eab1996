"""Trained runs: one record per training, and the store that sessions share, keyed by content.

Two sessions that train the same graph (content, labels included) with the same parameters,
seed and hold-out get the same run: the key names everything that shapes the result.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import goat_core


@dataclass
class RunRecord:
    """A fitted Goat and how it came to be; ``split`` is None when trained on every edge."""

    key: str
    goat: goat_core.Goat
    graph_fp: str
    params: dict
    holdout: float
    split: goat_core.EdgeSplit | None
    seconds: float
    origin: str  # "trained", "cache", "upload", "case study"
    history: list = field(default_factory=list)

    @property
    def seed(self) -> int:
        return int(self.params.get("seed", 0))


def run_key(graph_fp: str, params: dict, holdout: float) -> str:
    """The cache key of a training: graph content + every parameter (seed included) + split."""
    return f"{graph_fp}|{json.dumps(params, sort_keys=True)}|holdout={holdout:.4f}"


class RunStore:
    """Trained runs by run key, shared by sessions (same graph + parameters + seed = same run).

    A bounded LRU guarded by a lock; records are only read once stored.
    """

    def __init__(self, capacity: int = 16):
        self._runs: OrderedDict[str, RunRecord] = OrderedDict()
        self._lock = threading.Lock()
        self.capacity = capacity

    def get(self, key: str) -> RunRecord | None:
        with self._lock:
            record = self._runs.get(key)
            if record is not None:
                self._runs.move_to_end(key)
            return record

    def put(self, record: RunRecord) -> None:
        with self._lock:
            self._runs[record.key] = record
            self._runs.move_to_end(record.key)
            while len(self._runs) > self.capacity:
                self._runs.popitem(last=False)

    def __len__(self) -> int:
        return len(self._runs)


# Up to this many edges GOAT trains on the torch backend, which compiles nothing: the first Train
# on a fresh server takes seconds on Les Misérables instead of waiting for the fused loops' compile.
# Per pair it is slower than the fused loops (BENCHMARKS.md, Training speed), so larger graphs take the
# fused path ("auto"), compiled in the background while the server starts (ui/warmup.py).
COMPILE_FREE_EDGES = 1_000


def backend_for(num_edges: int, variant: str) -> str:
    """The compute path the app trains a graph of ``num_edges`` edges with: fixed by the graph and
    the variant, never by how far the warm-up is, so one seed always gives one model."""
    return "torch" if variant == "goat" and num_edges <= COMPILE_FREE_EDGES else "auto"


def with_backend(params: dict, num_edges: int) -> dict:
    """``params`` with the app's ``backend`` (a shared link's own choice is kept)."""
    backend = params.get("backend") or backend_for(num_edges, params.get("variant", "goat"))
    return {**params, "backend": backend}
