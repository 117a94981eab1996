"""Compiled loops (numba) for ranking: GOAT's score of many pairs from the Gram matrix, and the
random negatives' rejection draw.

Why they exist: ranking scores about 100 negatives per held-out edge, some 50 times the pairs
that ``linkpred``'s AUC scores, and issue 27 asks it to cost at most twice that scoring. The
torch path of ``ranking.goat_pair_scores`` pays per pair for tensors of (B, Ls, Lt) blocks,
index arithmetic and masks; these loops score one pair at a time with nothing materialised but
a small block buffer:

* **the alignment from the Gram matrix** G = E Eᵀ (no dropout at inference, so A = S Tᵀ is a
  block of G, and r_s·r_t = p_sᵀ A p_t): A[i, j] = G[s_i, t_j] over real neighbors only;
* **zero pads in closed form**, as ``goat_pair_scores`` adds them: a pad's alignments are 0, so
  a real row's max also sees 0 when the other side has pads, a pad row's max is 0, and each pad
  takes exp(0 - max) of softmax mass; the pads add nothing to p_sᵀ A p_t;
* **a positive's negatives share their anchor's columns**: callers pass each negative with the
  node it shares with its positive first, and the negatives of one anchor one after another; a
  column of the anchor's block, G[anchor's neighbors, r], is gathered once per anchor (and its
  max kept), so that each pair's pooling and p_sᵀ A p_t run over contiguous columns in cache;
* **exp as vectorisable arithmetic** (:func:`_exp_shifted`): np.exp is a libm call per value;
* **the negatives' draw** (:func:`first_allowed_draws`): the same draws, kept by the same rule,
  as the vectorised code it replaces (first K distinct allowed candidates in draw order), but it
  stops at the K-th and checks an edge by binary search in the CSR row instead of a search in
  every edge key.

Pairs are independent and written to their own slot, so the numbers never depend on the order
they are computed in; one thread, as the rest of scoring.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_FAST = {"nsz", "arcp", "contract", "reassoc"}  # not nnan/ninf: maxima start at -inf


@nb.njit(inline="always")
def _real_neighbors(table, length, node, partner, exclude_partner, out):
    """The neighbors of ``node`` that take part as real vectors, written to ``out``; their count.
    ``training._side``'s rule: the partner left out when ``exclude_partner``; a node left with no
    neighbor speaks for itself."""
    count = 0
    for k in range(length[node]):
        v = table[node, k]
        if exclude_partner and v == partner:
            continue
        out[count] = v
        count += 1
    if count == 0:
        out[0] = node
        count = 1
    return count


# exp by Cody-Waite reduction and a degree-10 Taylor polynomial (relative error below 1e-12, far
# under float32's rounding of G): plain arithmetic that the compiler vectorises, where np.exp is
# a libm call per value and costs as much as the rest of a pair.
_LOG2E = 1.4426950408889634
_LN2_HI = 0.693145751953125
_LN2_LO = 1.42860682030941723212e-6
_EXP_FLOOR = -700.0  # exp(-700) ~ 1e-304: 0 beside the softmax's top term, 2^k still normal


@nb.njit(inline="always")
def _exp_shifted(values, count, shift, out, scale_bits):
    """out[i] = exp(values[i] - shift) for i < count, all arguments <= 0 (shift is their max)."""
    for i in range(count):
        x = max(values[i] - shift, _EXP_FLOOR)
        k = np.floor(x * _LOG2E + 0.5)
        r = (x - k * _LN2_HI) - k * _LN2_LO  # |r| <= ln 2 / 2
        poly = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
            1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800))))))))))
        scale_bits[i] = (np.int64(k) + 1023) << 52  # 2^k as a float64's bits
        out[i] = poly
    scale = scale_bits.view(np.float64)
    for i in range(count):
        out[i] *= scale[i]


@nb.njit(inline="always")
def _softmax_with_pads(best, count, pads, p, scale_bits):
    """Attention of ``count`` real slots whose pooled alignments are ``best``, beside ``pads`` zero
    slots (pooled alignment 0) that share the softmax; written to ``p`` (float64)."""
    top = -np.inf
    for i in range(count):
        top = max(top, np.float64(best[i]))
    if pads > 0:
        top = max(top, 0.0)
    _exp_shifted(best, count, top, p, scale_bits)
    total = pads * np.exp(-top)
    for i in range(count):
        total += p[i]
    for i in range(count):
        p[i] /= total


@nb.njit(inline="always")
def _same_side(own, count, anchor, anchor_count):
    if count != anchor_count:
        return False
    for i in range(count):
        if own[i] != anchor[i]:
            return False
    return True


@nb.njit(nogil=True, fastmath=_FAST, cache=True)
def gram_pair_scores(gram, table, length, pairs, exclude_partner, slots, out):
    """``out[b]`` = max-pooling GOAT's logit of ``pairs[b]`` from the Gram matrix ``gram``
    (n+1, n+1) and the neighborhoods ``table`` (n, N) / ``length`` (n,). ``slots``: N under zero
    padding (every side N slots, pads zero vectors that take part), 0 under mask padding.

    Consecutive pairs whose first side has the same real neighbors (an anchor) share the columns
    of its block of G: column r, G[anchor_i, r] for every anchor neighbor i, is gathered once per
    anchor and kept contiguous, so that a pair's max pooling and p_sᵀ A p_t run over contiguous
    columns (the block A of a pair is the columns of its second side's neighbors)."""
    n = table.shape[0]
    width = max(1, np.max(length)) + 1 if n else 1
    own = np.empty(width, np.int64)
    anchor = np.empty(width, np.int64)
    other = np.empty(width, np.int64)
    columns = np.empty((n, width), np.float32)  # columns[r, :ls] = G[own[:ls], r] for the anchor
    column_top = np.empty(n, np.float32)  # max of each column
    stamp = np.full(n, -1, np.int64)  # the anchor a column was gathered for
    row_best = np.empty(width, np.float32)
    col_best = np.empty(width, np.float32)
    p = np.empty(width, np.float64)
    q = np.empty(width, np.float64)
    p32 = np.empty(width, np.float32)
    scale_bits = np.empty(width, np.int64)
    group, anchor_count = -1, 0
    for b in range(pairs.shape[0]):
        s, t = pairs[b, 0], pairs[b, 1]
        ls = _real_neighbors(table, length, s, t, exclude_partner, own)
        lt = _real_neighbors(table, length, t, s, exclude_partner, other)
        if not _same_side(own, ls, anchor, anchor_count):
            group += 1
            anchor[:ls] = own[:ls]
            anchor_count = ls
        for j in range(lt):
            r = other[j]
            if stamp[r] != group:
                stamp[r] = group
                column = columns[r]
                top = np.float32(-np.inf)
                for i in range(ls):
                    x = gram[own[i], r]
                    column[i] = x
                    top = max(top, x)
                column_top[r] = top
        for i in range(ls):
            row_best[i] = -np.inf
        for j in range(lt):
            column = columns[other[j]]
            for i in range(ls):
                row_best[i] = max(row_best[i], column[i])
            col_best[j] = column_top[other[j]]
        if slots - lt > 0:  # the other side's zero pads: alignments 0 in every row
            for i in range(ls):
                row_best[i] = max(row_best[i], np.float32(0.0))
        if slots - ls > 0:
            for j in range(lt):
                col_best[j] = max(col_best[j], np.float32(0.0))
        _softmax_with_pads(row_best, ls, max(slots - ls, 0), p, scale_bits)
        _softmax_with_pads(col_best, lt, max(slots - lt, 0), q, scale_bits)
        for i in range(ls):
            p32[i] = p[i]
        total = 0.0
        for j in range(lt):
            column = columns[other[j]]
            acc = np.float32(0.0)
            for i in range(ls):
                acc += p32[i] * column[i]
            total += q[j] * acc
        out[b] = total


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
    """For each positive (a, b) = ``pos[r]``: walk its draws ``code[r]`` (< n: the pair (a, code),
    else (code - n, b)) in order and keep the first ``k`` distinct ones whose other end is
    neither a nor b and whose pair is no edge of the CSR adjacency (``indptr``, ``indices``,
    rows sorted), into ``negatives[r]`` / ``valid[r]``. A row that finds fewer is left untouched
    and ``short[r]`` set."""
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
