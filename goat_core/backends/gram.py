"""The compiled CPU path's Gram mode: many pairs of a small max-pooling GOAT scored from blocks of
G = E Eᵀ, with no d-dimensional work per pair (:func:`.dispatch.uses_gram` chooses it)."""

from __future__ import annotations

import numba as nb
import numpy as np
import torch

from ..data.sampling import Neighborhoods
from .dispatch import GramCache

_FAST = {"nsz", "arcp", "contract", "reassoc"}  # not nnan/ninf: maxima start at -inf


@nb.njit(inline="always")
def _real_neighbors(table, length, node, partner, exclude_partner, out):
    """The neighbors of ``node`` taking part as real vectors, written to ``out``; their count (``batch``'s
    rule: the partner left out with ``exclude_partner``; a node with no neighbor speaks for itself)."""
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
    total = pads * np.exp(-top) if pads > 0 else 0.0  # no pad: exp(-top) may overflow, and 0 * inf is NaN
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
    """``out[b]`` = max-pooling GOAT's logit of ``pairs[b]`` from ``gram`` and the neighborhoods ``table`` /
    ``length`` (``slots`` N: zero padding); consecutive pairs sharing a first side reuse its columns."""
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


def gram_scores(weight: torch.Tensor, hood: Neighborhoods, pairs: np.ndarray, exclude_partner: bool,
                padding: str, cache: GramCache) -> np.ndarray:
    """Logits (P,) float32 of max-pooling GOAT (no dropout) for ``pairs`` (P, 2) under ``hood``,
    from the Gram matrix of ``weight`` (n+1, d) held in ``cache``."""
    out = np.empty(len(pairs), dtype=np.float32)
    slots = hood.table.shape[1] if padding == "zero" else 0  # every side N slots, pads take part
    gram_pair_scores(cache.table(weight).numpy(), hood.table.numpy(), hood.length.numpy(),
                     np.ascontiguousarray(pairs, dtype=np.int64), bool(exclude_partner), slots, out)
    return out
