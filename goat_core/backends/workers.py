"""How the fast paths split their work: :class:`KernelOptions` (threads, chunk sizes) and the
thread pool that runs a batch's chunks (torch) or segments (fused) on CPU."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import torch


@dataclass(frozen=True)
class KernelOptions:
    """How the fast paths split their work, never the results: ``workers`` threads on CPU (1: in order), and
    rows of X = [S; T] per torch chunk (``chunk_rows_cpu``: L2-sized; ``chunk_rows_other``: large)."""

    workers: int = 2
    chunk_rows_cpu: int = 4096
    chunk_rows_other: int = 1 << 20

    def chunk_rows(self, device: torch.device) -> int:
        return self.chunk_rows_cpu if device.type == "cpu" else self.chunk_rows_other


DEFAULT_OPTIONS = KernelOptions()


_pool: ThreadPoolExecutor | None = None


def _pool_size(device: torch.device, workers: int) -> int:
    """Chunk workers to use: ``workers`` on a CPU with that many cores, unless torch already runs
    more intra-op threads than that (a big machine: OpenMP inside each op is the better split)."""
    if device.type != "cpu":
        return 1
    size = min(workers, os.cpu_count() or 1)
    return size if size > 1 and torch.get_num_threads() <= size else 1


def _init_worker() -> None:
    # One intra-op thread in this worker: no OpenMP barriers to spin at. With torch's OpenMP
    # backend the thread count is an OpenMP setting of the calling thread, so this leaves the
    # threads of the caller (and of other app sessions) as they were.
    torch.set_num_threads(1)


def run_tasks(tasks: list[Callable[[], Any]], device: torch.device, workers: int) -> list:
    """Run chunk tasks on Python threads (CPU) or in order: torch releases the GIL, so a descheduled thread
    delays only its chunk (no OpenMP barrier). The pool is stateless: one per process, shared."""
    global _pool
    size = _pool_size(device, workers)
    if size <= 1 or len(tasks) < 2:
        return [task() for task in tasks]
    if _pool is None or _pool._max_workers != size:
        _pool = ThreadPoolExecutor(size, thread_name_prefix="goat-kernels", initializer=_init_worker)
    return [f.result() for f in [_pool.submit(_no_grad, task) for task in tasks]]


def runner(device: torch.device, workers: int) -> Callable[[list], list]:
    """What runs a list of callables for work on ``device``: on up to ``workers`` threads of
    this module's pool (CPU, see :func:`_pool_size`), else in order."""
    return partial(run_tasks, device=device, workers=workers)


def _no_grad(task):
    with torch.no_grad():  # grad mode is per thread: the workers' must match the Function's
        return task()
