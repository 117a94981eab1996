"""A child process for the background jobs' heavy work: ``python -m ui.worker [MODULE]``.

DeepWalk/node2vec (pecanpy's walks) and UMAP compile numba code on their first call in a process:
8 to 20 s during which the compiling thread holds the interpreter's lock. In the server's process
every session's page would wait behind it, so :mod:`ui.jobs` runs these calls here, in one child
process kept for the server's life (what it compiled stays compiled), at a lower priority.

Not ``multiprocessing``: its ``spawn`` re-runs the parent's ``__main__``, which in a Streamlit
server is the app script itself, and it pickles. Here the child is a plain ``python -m`` process;
requests and answers are length-prefixed :mod:`ui.wire` messages (plain data and numpy arrays,
never pickle) on its stdin and stdout. The child runs only the functions named in ``CALLS`` of
MODULE (default: this module). No Streamlit here: the child imports this module.
"""

from __future__ import annotations

import importlib
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from ui import wire

Report = Callable[[float, str], None]
ROOT = Path(__file__).resolve().parents[1]
_HEADER = struct.Struct("<Q")
_out: BinaryIO | None = None  # the child's stdout, where _report writes (set by main)


# --------------------------------------------------------------------------- the calls the child runs


def split_parts(split) -> dict:
    """What :func:`walk_scores` needs of an ``EdgeSplit``, as plain data for the wire."""
    train = split.train
    return {"names": list(train.names), "src": train.src, "dst": train.dst, "weight": train.weight,
            "directed": train.directed, "weighted": train.weighted, "source": train.source,
            "test_pos": split.test_pos, "test_neg": split.test_neg, "train_ratio": split.train_ratio,
            "seed": split.seed}


def _split(parts: dict):
    from goat_core import EdgeSplit, Graph

    train = Graph(names=tuple(parts["names"]), src=parts["src"], dst=parts["dst"], weight=parts["weight"],
                  directed=parts["directed"], weighted=parts["weighted"], source=parts["source"])
    return EdgeSplit(train=train, test_pos=parts["test_pos"], test_neg=parts["test_neg"],
                     train_ratio=parts["train_ratio"], seed=parts["seed"])


def walk_scores(parts: dict, configs: dict, seed: int, ranking: tuple[str, ...] = (),
                per_positive: int = 100) -> dict:
    """DeepWalk/node2vec scores and curves on the split ``parts`` describes (:func:`split_parts`;
    ``goat_core.analysis.node2vec.evaluate_walk_methods``), ranked on the Scores page's negatives
    of each kind in ``ranking`` (drawn here from the split: the same seeded draw as the page's)."""
    from goat_core.analysis.node2vec import evaluate_walk_methods
    from goat_core.analysis.ranking import ranking_negatives

    split = _split(parts)
    negatives = [ranking_negatives(split, kind, per_positive) for kind in ranking]
    return evaluate_walk_methods(split, configs, seed=seed, curves=True, ranking=negatives)


def umap_projection(points, seed: int):
    """The UMAP projection of ``points``, its epochs reported as progress."""
    from goat_core.analysis.projection import project

    return project(points, "umap", seed, progress=report)


CALLS: dict[str, Callable[..., Any]] = {"walk_scores": walk_scores, "umap_projection": umap_projection}


def report(fraction: float, stage: str) -> None:
    """In the child: tell the parent how far the current call is."""
    if _out is not None:
        _send(_out, ("progress", float(fraction), str(stage)))


def background_priority() -> None:
    """Lower the calling thread's CPU priority (Linux: a thread is a task with its own nice value),
    so that background work yields the cores to the sessions' pages and trainings."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):  # not Linux, or not allowed: same priority, still correct
        pass


# --------------------------------------------------------------------------- the wire


def _send(stream: BinaryIO, message: object) -> None:
    data = wire.encode(message)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("the worker process ended")
    size = _HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the worker process ended")
    return wire.decode(data)


# --------------------------------------------------------------------------- the parent's side


class Worker:
    """The child process and one call at a time through it; started again if it died."""

    def __init__(self, module: str = __name__):
        self.module = module
        self.lock = threading.Lock()
        self.process: subprocess.Popen | None = None

    def _ensure(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
            self.process = subprocess.Popen([sys.executable, "-m", "ui.worker", self.module], cwd=ROOT,
                                            env=dict(os.environ, PYTHONPATH=path), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE)
        return self.process

    def call(self, report: Report, name: str, *args: Any) -> Any:
        """``CALLS[name](*args)`` in the child, its progress passed to ``report``; the child's
        exception is raised here."""
        with self.lock:
            process = self._ensure()
            assert process.stdin is not None and process.stdout is not None
            _send(process.stdin, (name, args))
            while True:
                kind, *rest = _receive(process.stdout)
                if kind == "progress":
                    report(*rest)
                elif kind == "result":
                    return rest[0]
                else:
                    raise wire.rebuild_error(rest[0])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# --------------------------------------------------------------------------- the child's side


def main(argv: list[str]) -> int:
    """Serve calls from stdin until it closes."""
    global _out
    calls = importlib.import_module(argv[0]).CALLS if argv else CALLS
    requests, _out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print must not reach the wire
    from goat_core.precompile import exit_with_parent  # a stopped server leaves no worker behind

    exit_with_parent()
    os.nice(10)  # background work: behind the sessions' pages and trainings
    while True:
        try:
            name, args = _receive(requests)
        except EOFError:
            return 0
        try:
            _send(_out, ("result", calls[name](*args)))
        except Exception as err:  # the call's failure goes back to the job
            _send(_out, ("error", wire.describe_error(err)))


if __name__ == "__main__":  # run as ui.worker, not __main__: report() and the calls share its globals
    sys.exit(importlib.import_module("ui.worker").main(sys.argv[1:]))
