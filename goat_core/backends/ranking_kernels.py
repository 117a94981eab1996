"""Ranking's random negatives drawn by rejection in a compiled loop (numba): the first K distinct allowed
draws, stopping at the K-th, an edge checked by binary search in its CSR row."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(inline="always")
def _is_edge(indptr, indices, u, v):
    """Whether v is among u's neighbors in a CSR adjacency with sorted rows."""
    lo, hi = indptr[u], indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[u + 1] and indices[lo] == v


@nb.njit(nogil=True, cache=True)
def first_allowed_draws(code, pos, indptr, indices, n, k, negatives, valid, short):
    """Per positive (a, b) = ``pos[r]``, the first ``k`` distinct draws ``code[r]`` ((a, code) below n, else
    (code - n, b)) touching neither end and no edge, into ``negatives[r]``; ``short[r]`` if fewer."""
    seen = np.full(2 * n, -1, np.int64)
    for r in range(code.shape[0]):
        a, b = pos[r, 0], pos[r, 1]
        kept = 0
        for c in range(code.shape[1]):
            x = code[r, c]
            if seen[x] == r:  # a later copy of a draw
                continue
            seen[x] = r
            if x < n:
                w, u, v = x, a, x
            else:
                w, u, v = x - n, x - n, b
            if w == a or w == b or _is_edge(indptr, indices, u, v):
                continue
            negatives[r, kept, 0] = u
            negatives[r, kept, 1] = v
            kept += 1
            if kept == k:
                break
        if kept < k:
            short[r] = True
            for c in range(kept):
                negatives[r, c, 0] = -1
                negatives[r, c, 1] = -1
        else:
            for c in range(k):
                valid[r, c] = True
