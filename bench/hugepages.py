"""Do 2 MB pages speed up the per-pair loops on a large table? (A/B, CPU time, one thread.)

    python bench/hugepages.py --nodes 200000 1000000

The per-pair loops read random table rows and add into random gradient rows; on a table far
larger than the caches they run slower than on a cached one (``bench/prefetch.py --nodes 10000``
against ``--nodes 200000``; BENCHMARKS.md, Scaling). This checks whether TLB misses are the cause:
the same forward + backward batch as ``bench/prefetch.py`` (4096 pairs, 45 rows per side drawn by
BA degree, dropout 0.5), on a table and gradient buffer in ordinary memory and on copies in
anonymous memory advised ``MADV_HUGEPAGE`` (this machine's transparent huge pages are in
``madvise`` mode), median of ``--repeats``. Prints both, and the kernel's AnonHugePages as
evidence that the huge pages were in use.
"""

from __future__ import annotations

import argparse
import mmap
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT  # noqa: E402

sys.path.insert(0, str(ROOT))
HUGE = 2 << 20


def huge_array(shape: tuple[int, int], dtype) -> np.ndarray:
    """A zeroed array in 2 MB-aligned anonymous memory advised MADV_HUGEPAGE."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    region = mmap.mmap(-1, size + HUGE)
    region.madvise(mmap.MADV_HUGEPAGE)
    raw = np.frombuffer(region, dtype=np.uint8)
    start = (-raw.ctypes.data) % HUGE
    return raw[start:start + size].view(dtype).reshape(shape)


def anon_huge_kb() -> str:
    return Path("/proc/meminfo").read_text().split("AnonHugePages:")[1].split("\n")[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import prefetch

    from goat_core.backends import fused

    for nodes in args.nodes:
        weight, ids_s, ids_t, lengths = prefetch.batch(nodes, 4096, 45, 0)
        huge_weight = huge_array(weight.shape, weight.dtype)
        huge_weight[:] = weight
        out, huge_out = np.empty_like(weight), huge_array(weight.shape, weight.dtype)
        prefetch.step(fused, weight, ids_s[:8], ids_t[:8], lengths[:8], out)  # compile / load
        times: dict[str, list[float]] = {"4 KB pages": [], "2 MB pages": []}
        for _ in range(args.repeats):
            times["4 KB pages"].append(prefetch.step(fused, weight, ids_s, ids_t, lengths, out))
            times["2 MB pages"].append(prefetch.step(fused, huge_weight, ids_s, ids_t, lengths, huge_out))
        for name, values in times.items():
            t = statistics.median(values)
            print(f"{nodes:>9,} nodes, {name}: {t * 1e3:6.1f} ms CPU per batch "
                  f"({4096 / t:,.0f} pairs per CPU-s)")
        print(f"AnonHugePages: {anon_huge_kb()}", flush=True)


if __name__ == "__main__":
    main()
