"""A child process for the background jobs' heavy work (no Streamlit here: the child imports this).

DeepWalk/node2vec (pecanpy's walks) and UMAP compile numba code on their first call in a process:
8 to 20 s during which the compiling thread holds the interpreter's lock. In the server's process
every session's page would wait behind it, so :mod:`ui.jobs` runs these calls here, in one child
process kept for the server's life (what it compiled stays compiled), started with ``spawn`` (a
fork of a server with threads is unsafe). Progress travels back on a queue.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

Report = Callable[[float, str], None]

_progress: Any = None  # the child's end of the progress queue (set by _start_child)


def _start_child(progress: Any) -> None:
    """In the child: keep the progress queue, use one thread, end with the parent."""
    global _progress
    _progress = progress
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(3)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _report(fraction: float, stage: str) -> None:
    if _progress is not None:
        _progress.put((float(fraction), str(stage)))


def walk_scores(split, configs: dict, seed: int) -> dict:
    """DeepWalk/node2vec scores and curves on ``split`` (goat_core.node2vec.evaluate_walk_methods)."""
    from goat_core.node2vec import evaluate_walk_methods

    return evaluate_walk_methods(split, configs, seed=seed, curves=True)


def umap_projection(points, seed: int):
    """The UMAP projection of ``points``, its epochs reported as progress."""
    from goat_core.projection import project

    return project(points, "umap", seed, progress=_report)


class Worker:
    """One child process that runs the jobs' calls in turn, and their progress on the way."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.progress = context.Queue()
        self.pool = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_start_child,
                                        initargs=(self.progress,))
        self.lock = threading.Lock()  # one call at a time: the queue's messages are that call's

    def call(self, report: Report, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` in the child (a module-level function), reporting its progress."""
        with self.lock:
            future = self.pool.submit(_call, function, *args)
            while True:  # until the call's end mark (or a child that died without one)
                try:
                    item = self.progress.get(timeout=0.2)
                except queue.Empty:
                    if not future.done():
                        continue
                    try:  # done: its end mark was put before its result came back
                        item = self.progress.get(timeout=1.0)
                    except queue.Empty:
                        break
                if item is None:
                    break
                report(*item)
            return future.result()  # the child's exception, raised here


def _call(function: Callable[..., Any], *args: Any) -> Any:
    """In the child: the call, then its end mark on the progress queue (after its last report)."""
    try:
        return function(*args)
    finally:
        if _progress is not None:
            _progress.put(None)
