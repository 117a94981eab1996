"""Where one pair's time goes inside the fused loops: each part of a pair timed alone.

    python bench/pair_parts.py [--width 45] [--nodes 10000] [--repeats 8192]

One thread, the loops' own inlined helpers from ``goat_core/backends/fused.py`` on two neighborhoods of
``--width`` rows of d = 200 (float32, dropout 0.5), each part run ``--repeats`` times in a
compiled loop on a cache-resident (``--nodes`` rows) table, cycling through 4096 random pairs of
rows; wall microseconds per pair. The parts of :func:`fused.train_pairs` (one training pair):

* gather: both sides' rows through their dropout masks, with the 0/1 masks kept (the hash);
* alignment: A = S Tᵀ (``_align``, the loops' blocked kernel; ``bench/alignment.py`` against BLAS);
* pooling: row and column max and argmax of A;
* softmax and weighted sums: p = softmax(a), r = pᵀS on both sides;
* softmax backward: the pooled scores' coefficients, c = p ⊙ (X dr − pᵀ X dr);
* routes: dS = p ⊗ dr + c·T[argmax] and the argmax ends (dT likewise);
* scatter: both sides' row gradients through their masks into the table's gradient;
* prefetch: asking for the next pair's rows (issue only; the fetch itself overlaps).

The parts run apart, so their sum is not the loop's time: in the loop the rows come from a
prefetch and the parts share the caches (``bench/one_pass.py`` times the whole loop).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PARTS = ("gather", "alignment", "pooling", "softmax and weighted sums", "softmax backward", "routes",
         "scatter", "prefetch")


def compiled_parts():
    import numba as nb
    import numpy as np

    from goat_core.backends.fused import (
        _FAST,
        _align,
        _axpy,
        _gather_pair,
        _outer_plus,
        _pair_buffers,
        _pool,
        _prefetch_rows,
        _scatter,
        _softmax,
        _softmax_backward,
        _weighted_sum,
    )

    @nb.njit(fastmath=_FAST)
    def run(weight, ids_s, ids_t, width, repeats, part, threshold, out, fresh):
        pad, d, key = weight.shape[0] - 1, weight.shape[1], np.uint64(5)
        S, T, keep_s, keep_t, words = _pair_buffers(weight, ids_s, ids_t)
        _gather_pair(S, T, keep_s, keep_t, weight, ids_s[0], ids_t[0], width, width, pad, key, 0, threshold,
                     words)
        A = _align(S, T, width, width)
        a_s, a_t = np.empty(width, weight.dtype), np.empty(width, weight.dtype)
        arg_s, arg_t = np.zeros(width, np.int32), np.zeros(width, np.int32)
        p_s, p_t = np.empty(width, weight.dtype), np.empty(width, weight.dtype)
        r_s, r_t = np.empty(d, weight.dtype), np.empty(d, weight.dtype)
        dS, dT = np.zeros_like(S), np.zeros_like(T)
        c_s, c_t = np.zeros(width, weight.dtype), np.zeros(width, weight.dtype)
        dr_s, dr_t = np.ones(d, weight.dtype), np.ones(d, weight.dtype)
        _pool(A, ids_s[0], ids_t[0], width, width, pad, a_s, a_t, arg_s, arg_t)
        _softmax(a_s, width, 1.0, p_s)
        _softmax(a_t, width, 1.0, p_t)
        checksum = 0.0
        for rep in range(repeats):
            b = rep % ids_s.shape[0]
            if part == 0:
                _gather_pair(S, T, keep_s, keep_t, weight, ids_s[b], ids_t[b], width, width, pad, key, b,
                             threshold, words)
            elif part == 1:
                A = _align(S, T, width, width)
            elif part == 2:
                _pool(A, ids_s[b], ids_t[b], width, width, pad, a_s, a_t, arg_s, arg_t)
            elif part == 3:
                _softmax(a_s, width, 1.0, p_s)
                _softmax(a_t, width, 1.0, p_t)
                _weighted_sum(S, p_s, width, r_s)
                _weighted_sum(T, p_t, width, r_t)
            elif part == 4:
                _softmax_backward(S, dr_s, p_s, width, 1.0, c_s)
                _softmax_backward(T, dr_t, p_t, width, 1.0, c_t)
            elif part == 5:
                for i in range(width):
                    _outer_plus(dS[i], p_s[i], dr_s, c_s[i], T[arg_s[i]])
                for j in range(width):
                    _outer_plus(dT[j], p_t[j], dr_t, c_t[j], S[arg_t[j]])
                for i in range(width):
                    _axpy(dT[arg_s[i]], c_s[i], S[i])
                for j in range(width):
                    _axpy(dS[arg_t[j]], c_t[j], T[j])
            elif part == 6:
                _scatter(out, fresh, ids_s[b], width, pad, dS, keep_s)
                _scatter(out, fresh, ids_t[b], width, pad, dT, keep_t)
            else:
                _prefetch_rows(weight, ids_s[b], width, pad)
                _prefetch_rows(weight, ids_t[b], width, pad)
            checksum += S[0, 0] + A[0, 0] + p_s[0] + c_s[0] + dS[0, 0]  # keeps every part's result alive
        return checksum

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=45, help="rows per neighborhood (BA m=10: ~45)")
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=8192)
    args = parser.parse_args()
    import numpy as np
    from threadpoolctl import threadpool_limits

    from goat_core.backends.masks import threshold_for

    rng = np.random.default_rng(0)
    weight = (rng.standard_normal((args.nodes + 1, 200)) * 0.05).astype(np.float32)
    weight[args.nodes] = 0.0
    ids_s, ids_t = (rng.integers(0, args.nodes, (4096, args.width)) for _ in range(2))
    out = np.zeros_like(weight)
    fresh = np.full(args.nodes + 1, 2, np.uint8)
    threshold = threshold_for(0.5)[0]
    run = compiled_parts()
    print(f"width {args.width}, d 200, {args.nodes:,}-row table, one thread: microseconds per pair")
    with threadpool_limits(1, user_api="blas"):
        for part, name in enumerate(PARTS):
            run(weight, ids_s, ids_t, args.width, 10, part, threshold, out, fresh)  # compile, warm
            start = time.perf_counter()
            run(weight, ids_s, ids_t, args.width, args.repeats, part, threshold, out, fresh)
            print(f"  {name:28s} {(time.perf_counter() - start) / args.repeats * 1e6:6.2f}")


if __name__ == "__main__":
    main()
