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


def cpu_facts() -> dict:
    """What tells this project's CPUs apart: the sessions' VMs all say "AMD EPYC" (or "Intel Xeon")
    but differed by 3x in speed (BENCHMARKS.md, Machines): family and model, the widest vector
    unit and the caches."""
    facts = {"cpu": "unknown"}
    try:
        info = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    except OSError:
        return facts
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    flags = set(fields.get("flags", "").split())
    facts.update({
        "cpu": fields.get("model name", "unknown"),
        "cpu_family": fields.get("cpu family"), "cpu_model": fields.get("model"),
        "vector": ("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"),
        "avx512_bf16": "avx512_bf16" in flags,
    })
    for level, name in (("L1d", "index0"), ("L2", "index2"), ("L3", "index3")):
        try:
            facts[level] = Path(f"/sys/devices/system/cpu/cpu0/cache/{name}/size").read_text().strip()
        except OSError:
            pass
    return facts


def machine() -> dict:
    import torch

    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        **cpu_facts(), "cores": os.cpu_count(), "torch": torch.__version__,
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
