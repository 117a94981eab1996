"""Shared helpers: datasets, seeds, the untrained model, timing and JSON output."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch

from goat_core import Goat, load_graph
from goat_core.data.graph import Graph

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def data_dir() -> Path:
    return Path(os.environ.get("GOAT_DATA_DIR", DEFAULT_DATA))


def setup_env(threads: int = 1) -> None:
    """One thread per process: the runs are many and small, and the machine is shared."""
    os.environ.setdefault("GOAT_DATA_DIR", str(DEFAULT_DATA))
    os.environ.setdefault("GOAT_OFFLINE", "1")
    torch.set_num_threads(threads)


def dataset(name: str) -> Graph:
    """Email through the library (verified, with labels); the others from ``graph.txt``."""
    if name in ("email", "lesmis"):
        return load_graph(name)
    return load_graph(data_dir() / name / "graph.txt")


def untrained(goat: Goat, graph: Graph) -> Goat:
    """``goat`` built and initialised exactly as ``fit`` builds it, with no step taken."""
    return goat.set_params(epochs=0).fit(graph)


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, default=_default))
    tmp.replace(path)


def read_json(path: Path):
    return json.loads(Path(path).read_text())


def _default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


def stage_main(doc: str, run, markdown, argv=None) -> None:
    """``python -m reproduce.STAGE --out results``: run the stage into OUT, then print its section."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results"))
    args = ap.parse_args(argv)
    setup_env()
    run(args.out)
    print(markdown(args.out))
