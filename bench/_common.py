"""Shared set-up for the bench scripts: threads, machine facts, the Email split, timing helpers.

Import this module *before* torch: it sets ``OMP_WAIT_POLICY`` (read once, when the OpenMP
runtime loads) unless the caller asked to keep the runtime's default spinning.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def configure_threads(threads: int | None, spin: bool = False) -> None:
    """Call before importing torch. Passive waiting: idle OpenMP threads sleep instead of
    spinning, which matters when other processes (a Streamlit server, a browser) share the cores."""
    if not spin:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if threads:
        os.environ["OMP_NUM_THREADS"] = str(threads)
        os.environ["MKL_NUM_THREADS"] = str(threads)


def machine() -> dict:
    import torch

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu, "cores": os.cpu_count(), "torch": torch.__version__,
        "python": platform.python_version(), "threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default (spin)"),
        "loadavg_1m": round(os.getloadavg()[0], 2), "gpu": torch.cuda.is_available(),
    }


def email_split(train_ratio: float = 0.55, seed: int = 0):
    from goat_core import load_graph, split_edges

    return split_edges(load_graph("email"), train_ratio, seed)


def sgemm_flops(size: int = 2048, repeats: int = 5, device: str = "cpu") -> float:
    """FLOP/s of one large float32 matrix product (median of ``repeats``)."""
    import torch

    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(size, size, generator=gen, device=device)
    b = torch.randn(size, size, generator=gen, device=device)
    a @ b
    times = []
    for _ in range(repeats):
        sync(device)
        start = time.perf_counter()
        a @ b
        sync(device)
        times.append(time.perf_counter() - start)
    return 2.0 * size**3 / statistics.median(times)


def sync(device) -> None:
    import torch

    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def median(values):
    return statistics.median(values) if values else float("nan")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB
