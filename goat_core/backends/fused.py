"""The compiled CPU path (numba): :func:`pair_loop` computes ``model.Goat``'s max or tanh + mean pooling
pair by pair, and in training each pair's loss term and gradient in the same pass, while its rows are in
cache (docs/architecture.md, "Compute paths"); then the Adam row kernels and the autograd Functions."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

import numba as nb
import numpy as np
import scipy.linalg.cython_blas  # noqa: F401 - the BLAS numba's np.dot calls; loaded before we look
import torch
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from threadpoolctl import ThreadpoolController

from .masks import MASK_BITS, threshold_for

ROW_STRIDE = 1 << 16  # ids of a pair's rows in the hash: (2·pair + side)·ROW_STRIDE + row; distinct
# because N <= 65,536 (parameters.PARAMETERS)
PREFETCH_LOCALITY = 2  # llvm.prefetch's locality for table rows: into L2, not L1 (_prefetch_row)
SEGMENTS = 2  # a batch is cut into this many segments whatever the number of threads; the
# gradient's sum over segments (merge_two, sum_touched_two, adam_merged_rows) is written for two
_FAST = {"nsz", "arcp", "contract", "reassoc"}  # not nnan/ninf: padding is -inf
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


# ---------------------------------------------------------------------------------------------
# Hashed dropout masks and row prefetches.

@nb.njit(inline="always")
def _mix(z):
    """splitmix64's finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@intrinsic
def _prefetch_row(typingctx, table, row):
    """Ask the CPU to bring row ``row`` of the 2-D C-contiguous ``table`` into cache (every
    64-byte line of it; llvm.prefetch: a hint, no fault, no result)."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        start = cgutils.get_item_pointer(context, builder, array_type, array, [index, zero], wraparound=False)
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]), "llvm.prefetch.p0")
        size = builder.mul(context.get_constant(types.intp, array_type.dtype.bitwidth // 8),
                           builder.extract_value(array.shape, 1))
        line = context.get_constant(types.intp, 64)
        with cgutils.for_range_slice(builder, zero, size, line) as (offset, _):
            # read access, locality 2 (L2 and outward, x86 prefetcht1), data cache. Not 3 (into L1 too):
            # a pair's rows (~72 KB) overflow the 32 KB L1 and evict the pair computing now; 2 is
            # 14-21 % faster per pair at 10k to 1M nodes (bench/one_pass.py).
            builder.call(prefetch, [builder.gep(builder.bitcast(start, byte), [offset]), ir.Constant(i32, 0),
                                    ir.Constant(i32, PREFETCH_LOCALITY), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(table, row), codegen


@nb.njit(inline="always")
def _prefetch_rows(table, ids, width, pad):
    """Prefetch the table rows of ``ids[:width]`` (pads apart): the loops wait on memory, so the next pair's
    random rows are asked for while this pair computes (BENCHMARKS.md, Scaling)."""
    for r in range(width):
        node = ids[r]
        if node != pad and node >= 0:
            _prefetch_row(table, node)


@nb.njit(inline="always")
def _row_uniforms(words, key, row_id):
    """The row's 16-bit uniforms (a splitmix64 stream seeded by key and row), as a uint16 view."""
    seed = _mix(key ^ _mix(np.uint64(row_id)))
    for w in range(words.shape[0]):
        words[w] = _mix(seed + _GOLDEN * np.uint64(w + 1))
    return words.view(np.uint16)


@nb.njit(inline="always")
def _gather(out, keep, weight, ids, width, pad, key, row_base, threshold, words, with_keep):
    """out[r] = weight[ids[r]] · mask for r < width (pad rows zero); with ``with_keep`` also
    keep[r] = mask (0/1), which only the backward needs."""
    for r in range(width):
        node = ids[r]
        if node == pad:
            out[r, :] = 0.0
            if with_keep:
                keep[r, :] = 0.0
        elif threshold >= 1 << MASK_BITS:
            out[r, :] = weight[node]
            if with_keep:
                keep[r, :] = 1.0
        elif with_keep:  # the mask, then the row through it: two loops of one store each vectorise
            _keep_row(keep[r], _row_uniforms(words, key, row_base + r), threshold)
            _times(out[r], weight[node], keep[r])
        else:
            u = _row_uniforms(words, key, row_base + r)
            for k in range(weight.shape[1]):
                out[r, k] = weight[node, k] * (1.0 if u[k] < threshold else 0.0)


@nb.njit(inline="always")
def _keep_row(keep, u, threshold):
    for k in range(keep.shape[0]):
        keep[k] = 1.0 if u[k] < threshold else 0.0


# ---------------------------------------------------------------------------------------------
# One pair's pieces: gather, alignment, pooling, softmax.

@nb.njit(inline="always")
def _times(out, x, y):
    for k in range(out.shape[0]):
        out[k] = x[k] * y[k]


@nb.njit(inline="always")
def _align(S, T, ls, lt):
    """A = S[:ls] T[:lt]ᵀ (ls, lt) in the arrays' precision, four rows of S against two of T at a time: at
    these small sizes faster than OpenBLAS's sgemm, made for large matrices (``bench/alignment.py``)."""
    A = np.zeros((ls, lt), S.dtype)  # the blocks' accumulators start from these zeros, typed as S
    i = 0
    while i + 4 <= ls:
        j = 0
        while j + 2 <= lt:
            _block_4x2(S, T, i, j, A)
            j += 2
        if j < lt:
            for r in range(i, i + 4):
                A[r, j] = _dot(S[r], T[j])
        i += 4
    for r in range(i, ls):
        for j in range(lt):
            A[r, j] = _dot(S[r], T[j])
    return A


@nb.njit(inline="always")
def _block_4x2(S, T, i, j, A):
    """A[i:i+4, j:j+2]: eight dot products over d in one loop, six row loads per step."""
    s0, s1, s2, s3, t0, t1 = S[i], S[i + 1], S[i + 2], S[i + 3], T[j], T[j + 1]
    a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = A[i, j]
    for k in range(s0.shape[0]):
        x0, x1 = t0[k], t1[k]
        a00 += s0[k] * x0
        a01 += s0[k] * x1
        a10 += s1[k] * x0
        a11 += s1[k] * x1
        a20 += s2[k] * x0
        a21 += s2[k] * x1
        a30 += s3[k] * x0
        a31 += s3[k] * x1
    A[i, j], A[i, j + 1], A[i + 1, j], A[i + 1, j + 1] = a00, a01, a10, a11
    A[i + 2, j], A[i + 2, j + 1], A[i + 3, j], A[i + 3, j + 1] = a20, a21, a30, a31


@nb.njit(inline="always")
def _pool(A, ids_s, ids_t, ls, lt, pad, a_s, a_t, arg_s, arg_t):
    """Row and column max of A over real entries, with argmax; -inf on pad rows/columns."""
    for j in range(lt):
        a_t[j] = -np.inf
        arg_t[j] = 0
    for i in range(ls):
        a_s[i] = -np.inf
        arg_s[i] = 0
        if ids_s[i] == pad:
            continue
        for j in range(lt):
            if ids_t[j] == pad:
                continue
            v = A[i, j]
            if v > a_s[i]:
                a_s[i] = v
                arg_s[i] = j
            if v > a_t[j]:
                a_t[j] = v
                arg_t[j] = i


@nb.njit(inline="always")
def _softmax(a, n, scale, p):
    m = -np.inf
    for i in range(n):
        m = max(m, a[i])
    total = 0.0
    for i in range(n):
        e = np.exp((a[i] - m) * scale) if a[i] > -np.inf else 0.0
        p[i] = e
        total += e
    for i in range(n):
        p[i] /= total


@nb.njit(inline="always")
def _pair_buffers(weight, ids_s, ids_t):
    """S (Ls, d) and T (Lt, d), dropout-masked and unscaled, their 0/1 masks, and hash words."""
    d = weight.shape[1]
    S = np.zeros((ids_s.shape[1], d), weight.dtype)
    T = np.zeros((ids_t.shape[1], d), weight.dtype)
    return S, T, np.empty_like(S), np.empty_like(T), np.empty((d + 3) // 4, np.uint64)


@nb.njit(inline="always")
def _gather_pair(S, T, keep_s, keep_t, weight, ids_s, ids_t, ls, lt, pad, key, b, threshold, words,
                 with_keep=True):
    base = 2 * b * ROW_STRIDE  # the pair's rows in the hash: S rows, then T rows
    _gather(S, keep_s, weight, ids_s, ls, pad, key, base, threshold, words, with_keep)
    _gather(T, keep_t, weight, ids_t, lt, pad, key, base + ROW_STRIDE, threshold, words, with_keep)


# ---------------------------------------------------------------------------------------------
# Max pooling (the paper): a pair's forward and backward.

@nb.njit(inline="always")
def _max_forward(S, T, ids_s, ids_t, ls, lt, pad, s2, a_s, a_t, arg_s, arg_t, p_s, p_t, r_s, r_t):
    """One pair's logit from its gathered S, T (max pooling); fills p, argmax and r."""
    A = _align(S, T, ls, lt)  # (ls, lt)
    _pool(A, ids_s, ids_t, ls, lt, pad, a_s, a_t, arg_s, arg_t)
    _softmax(a_s, ls, s2, p_s)
    _softmax(a_t, lt, s2, p_t)
    _weighted_sum(S, p_s, ls, r_s)
    _weighted_sum(T, p_t, lt, r_t)
    return _dot(r_s, r_t) * s2


@nb.njit(inline="always")
def _max_backward(S, T, keep_s, keep_t, dS, dT, c_s, c_t, dr_s, dr_t, ids_s, ids_t, ls, lt, pad, s2, g,
                  p_s, p_t, arg_s, arg_t, r_s, r_t, out, fresh):
    """Adds g · d(logit / s2)/d weight of one pair (max pooling) into ``out``."""
    for k in range(dr_s.shape[0]):
        dr_s[k] = r_t[k] * g
        dr_t[k] = r_s[k] * g
    _softmax_backward(S, dr_s, p_s, ls, s2, c_s)  # coefficient of each row's argmax route
    _softmax_backward(T, dr_t, p_t, lt, s2, c_t)
    for i in range(ls):  # dS = p ⊗ dr + c·T[argmax]
        _outer_plus(dS[i], p_s[i], dr_s, c_s[i], T[arg_s[i]])
    for j in range(lt):
        _outer_plus(dT[j], p_t[j], dr_t, c_t[j], S[arg_t[j]])
    for i in range(ls):  # the other end of each route
        if ids_s[i] != pad:
            _axpy(dT[arg_s[i]], c_s[i], S[i])
    for j in range(lt):
        if ids_t[j] != pad:
            _axpy(dS[arg_t[j]], c_t[j], T[j])
    _scatter(out, fresh, ids_s, ls, pad, dS, keep_s)
    _scatter(out, fresh, ids_t, lt, pad, dT, keep_t)


@nb.njit(inline="always")
def _prefetch_next(weight, ids_s, ids_t, len_s, len_t, pad, b, hi):
    """Prefetch pair b + 1's table rows (if it is in this segment) while pair b computes."""
    if b + 1 < hi:
        _prefetch_rows(weight, ids_s[b + 1], len_s[b + 1], pad)
        _prefetch_rows(weight, ids_t[b + 1], len_t[b + 1], pad)


# ---------------------------------------------------------------------------------------------
# Tanh + mean pooling (the authors' code): a pair's forward and backward.

@nb.njit(inline="always")
def _mean_pool(A, ids_s, ids_t, ls, lt, pad, s2, a_s, a_t):
    """The authors' pooling: H = tanh(s2·A) over real entries (0 elsewhere, kept in A), a_s[i] =
    mean of row i over real columns, a_t[j] = mean of column j over real rows; -inf on pads."""
    n_s, n_t = 0, 0
    for i in range(ls):
        if ids_s[i] != pad:
            n_s += 1
    for j in range(lt):
        a_t[j] = 0.0
        if ids_t[j] != pad:
            n_t += 1
    for i in range(ls):
        a_s[i] = 0.0
        for j in range(lt):
            real = ids_s[i] != pad and ids_t[j] != pad
            h = np.tanh(A[i, j] * s2) if real else 0.0
            A[i, j] = h
            a_s[i] += h
            a_t[j] += h
    for i in range(ls):
        a_s[i] = a_s[i] / n_t if ids_s[i] != pad else -np.inf
    for j in range(lt):
        a_t[j] = a_t[j] / n_s if ids_t[j] != pad else -np.inf
    return n_s, n_t


@nb.njit(inline="always")
def _mean_forward(S, T, ids_s, ids_t, ls, lt, pad, s2, a_s, a_t, p_s, p_t, r_s, r_t):
    """One pair's logit (mean pooling), and H = tanh(s2·A) on real entries with the real counts
    n_s, n_t that the backward needs; fills p and r."""
    H = _align(S, T, ls, lt)  # (ls, lt) unscaled; s2·A is the dropout-scaled alignment
    n_s, n_t = _mean_pool(H, ids_s, ids_t, ls, lt, pad, s2, a_s, a_t)
    _softmax(a_s, ls, 1.0, p_s)
    _softmax(a_t, lt, 1.0, p_t)
    _weighted_sum(S, p_s, ls, r_s)
    _weighted_sum(T, p_t, lt, r_t)
    return _dot(r_s, r_t) * s2, H, n_s, n_t


@nb.njit(inline="always")
def _mean_backward(S, T, keep_s, keep_t, H, n_s, n_t, dS, dT, c_s, c_t, dr_s, dr_t, ids_s, ids_t, ls, lt,
                   pad, s2, g, p_s, p_t, r_s, r_t, out, fresh):
    """Adds g · d(logit / s2)/d weight of one pair (mean pooling) into ``out``; H is overwritten by dA."""
    for k in range(dr_s.shape[0]):
        dr_s[k] = r_t[k] * g
        dr_t[k] = r_s[k] * g
    _softmax_backward(S, dr_s, p_s, ls, 1.0, c_s)  # d logit / d a_s
    _softmax_backward(T, dr_t, p_t, lt, 1.0, c_t)
    for i in range(ls):  # dA = (c_s/n_t + c_t/n_s) · (1 - H²) · s2 on real entries
        for j in range(lt):
            real = ids_s[i] != pad and ids_t[j] != pad
            h = H[i, j]
            H[i, j] = (c_s[i] / n_t + c_t[j] / n_s) * (1.0 - h * h) * s2 if real else 0.0
    dS[:ls] = np.dot(H, T[:lt])  # (ls, d)
    dT[:lt] = np.dot(H.T, S[:ls])  # (lt, d)
    for i in range(ls):
        _axpy(dS[i], p_s[i], dr_s)
    for j in range(lt):
        _axpy(dT[j], p_t[j], dr_t)
    _scatter(out, fresh, ids_s, ls, pad, dS, keep_s)
    _scatter(out, fresh, ids_t, lt, pad, dT, keep_t)


# ---------------------------------------------------------------------------------------------
# The loop: a pair's logit, and in training its loss term and gradient, in one pass.

@nb.njit(nogil=True, fastmath=_FAST, cache=True)
def pair_loop(weight, ids_s, ids_t, len_s, len_t, pad, key, threshold, s2, lo, hi, mean, logits, labels,
              pair_weights, scale, losses, out, fresh):
    """Pairs lo..hi-1, one at a time: each logit x into ``logits[b]`` (max, or ``mean``: tanh + mean
    pooling). Training (``losses`` as long as the batch) also writes its weighted logistic loss term and
    adds its gradient, scale·w·(σ(x) − y)·dx/dweight, into ``out`` while its rows are in cache
    (``bench/one_pass.py``); rows with ``fresh[v]`` 1 are zeroed on first touch, then marked 2. Scoring
    passes empty arrays and draws no masks."""
    train = losses.shape[0] > 0
    d = weight.shape[1]
    S, T, keep_s, keep_t, words = _pair_buffers(weight, ids_s, ids_t)
    dS, dT = np.empty_like(S), np.empty_like(T)
    a_s, a_t = np.empty(ids_s.shape[1], weight.dtype), np.empty(ids_t.shape[1], weight.dtype)
    c_s, c_t = np.empty(ids_s.shape[1], weight.dtype), np.empty(ids_t.shape[1], weight.dtype)
    p_s, p_t = np.empty(ids_s.shape[1], weight.dtype), np.empty(ids_t.shape[1], weight.dtype)
    arg_s, arg_t = np.empty(ids_s.shape[1], np.int32), np.empty(ids_t.shape[1], np.int32)
    r_s, r_t, dr_s, dr_t = (np.empty(d, weight.dtype), np.empty(d, weight.dtype), np.empty(d, weight.dtype),
                            np.empty(d, weight.dtype))
    for b in range(lo, hi):
        ls, lt = len_s[b], len_t[b]
        _prefetch_next(weight, ids_s, ids_t, len_s, len_t, pad, b, hi)
        if train:  # also the gradient rows pair b adds into at its end; S and T with their masks
            _prefetch_rows(out, ids_s[b], ls, pad)
            _prefetch_rows(out, ids_t[b], lt, pad)
            _gather_pair(S, T, keep_s, keep_t, weight, ids_s[b], ids_t[b], ls, lt, pad, key, b, threshold,
                         words)
        else:  # the forward needs no masks, only masked rows
            _gather_pair(S, T, keep_s, keep_t, weight, ids_s[b], ids_t[b], ls, lt, pad, key, b, threshold,
                         words, False)
        if mean:
            x, H, n_s, n_t = _mean_forward(S, T, ids_s[b], ids_t[b], ls, lt, pad, s2, a_s, a_t, p_s, p_t,
                                           r_s, r_t)
        else:
            x = _max_forward(S, T, ids_s[b], ids_t[b], ls, lt, pad, s2, a_s, a_t, arg_s, arg_t, p_s, p_t,
                             r_s, r_t)
        logits[b] = x
        if not train:
            continue
        y, w = labels[b], pair_weights[b]
        losses[b] = _loss_term(x, y, w)
        g = scale * w * (_sigmoid(x) - y) * s2  # on the unscaled r's
        if mean:
            _mean_backward(S, T, keep_s, keep_t, H, n_s, n_t, dS, dT, c_s, c_t, dr_s, dr_t, ids_s[b],
                           ids_t[b], ls, lt, pad, s2, g, p_s, p_t, r_s, r_t, out, fresh)
        else:
            _max_backward(S, T, keep_s, keep_t, dS, dT, c_s, c_t, dr_s, dr_t, ids_s[b], ids_t[b], ls, lt, pad,
                          s2, g, p_s, p_t, arg_s, arg_t, r_s, r_t, out, fresh)


# ---------------------------------------------------------------------------------------------
# Small inlined helpers: the logistic link and loss (as backends.logistic), vector arithmetic.

@nb.njit(inline="always")
def _loss_term(x, y, w):
    """A pair's term of the weighted logistic loss (``logistic.logistic_loss``, per pair)."""
    return w * (max(x, 0.0) - x * y + np.log1p(np.exp(-abs(x))))


@nb.njit(inline="always")
def _sigmoid(x):
    """σ(x) without overflow (``logistic.sigmoid``, per pair)."""
    if x >= 0.0:
        return 1.0 / (1.0 + np.exp(-x))
    e = np.exp(x)
    return e / (1.0 + e)


@nb.njit(inline="always")
def _dot(a, b):
    total = a[0] * b[0]  # in the arrays' precision
    for k in range(1, a.shape[0]):
        total += a[k] * b[k]
    return total


@nb.njit(inline="always")
def _axpy(y, alpha, x):
    for k in range(y.shape[0]):
        y[k] += alpha * x[k]


@nb.njit(inline="always")
def _outer_plus(y, p, dr, c, x):
    for k in range(y.shape[0]):
        y[k] = p * dr[k] + c * x[k]


@nb.njit(inline="always")
def _weighted_sum(X, p, n, out):
    out[:] = 0.0
    for i in range(n):
        if p[i] > 0.0:
            _axpy(out, p[i], X[i])


@nb.njit(inline="always")
def _softmax_backward(X, dr, p, n, s2, c):
    """c = s2 · p ⊙ (X dr − pᵀ X dr): the gradient of the pooled scores a = max(A)."""
    mean = 0.0
    for i in range(n):
        c[i] = _dot(X[i], dr) if p[i] > 0.0 else 0.0
        mean += p[i] * c[i]
    for i in range(n):
        c[i] = s2 * p[i] * (c[i] - mean)


@nb.njit(inline="always")
def _scatter(out, fresh, ids, width, pad, dX, keep):
    for r in range(width):
        v = ids[r]
        if v == pad:
            continue
        if fresh[v] == 1:
            out[v, :] = 0.0
            fresh[v] = 2
        row, grad_row, mask = out[v], dX[r], keep[r]
        for k in range(row.shape[0]):
            row[k] += grad_row[k] * mask[k]


# ---------------------------------------------------------------------------------------------
# Adam row kernels (optim.TableAdam, LazyAdam) and the merge of the two segments' gradients.

@nb.njit(nogil=True, fastmath=_FAST, error_model="numpy", cache=True)
def lazy_adam_rows(p, exp_avg, exp_avg_sq, step, rows, g, lr, beta1, beta2, eps):
    """Lazy Adam (:mod:`.optim`) on ``rows`` of ``p`` in one pass, torch's order, per-row bias corrections:
    four one-store loops LLVM vectorises (``error_model="numpy"``: no division branch to stop it)."""
    c = np.empty(5, p.dtype)  # constants in the table's precision
    c[0], c[1], c[2] = 1.0 - beta1, beta2, 1.0 - beta2
    c[3] = eps
    one_b1, b2, one_b2, e = c[0], c[1], c[2], c[3]
    denom = np.empty(p.shape[1], p.dtype)
    for i in range(rows.shape[0]):
        r = rows[i]
        t = step[r] + 1
        step[r] = t
        c[3] = -lr / (1.0 - beta1 ** t)
        c[4] = np.sqrt(1.0 - beta2 ** t)
        step_size, bias2_sqrt = c[3], c[4]
        _adam_moments(exp_avg[r], exp_avg_sq[r], g[i], one_b1, b2, one_b2)
        _adam_denominator(denom, exp_avg_sq[r], bias2_sqrt, e)
        _adam_move(p[r], exp_avg[r], denom, step_size)


@nb.njit(inline="always")
def _adam_moments(m, v, g, one_b1, b2, one_b2):
    for k in range(m.shape[0]):
        m[k] += (g[k] - m[k]) * one_b1  # m.lerp_(g, 1 - beta1)
    for k in range(v.shape[0]):
        v[k] = v[k] * b2 + g[k] * g[k] * one_b2


@nb.njit(inline="always")
def _adam_denominator(denom, v, bias2_sqrt, eps):
    for k in range(v.shape[0]):
        denom[k] = np.sqrt(v[k]) / bias2_sqrt + eps


@nb.njit(inline="always")
def _adam_move(w, m, denom, step_size):
    for k in range(w.shape[0]):
        w[k] += m[k] / denom[k] * step_size


@nb.njit(nogil=True, cache=True)
def merge_two(out, fresh0, other, fresh1, lo, hi):
    """Rows lo..hi-1 of the two segments' dense gradient in one pass: out[v] = (out[v] if segment 0 touched
    v, else 0) + (other[v] if segment 1 did), summed from zero in segment order."""
    for v in range(lo, hi):
        if fresh1[v] == 2:
            if fresh0[v] == 2:
                _axpy(out[v], 1.0, other[v])
            else:
                _copy_plus_zero(out[v], other[v])
        elif fresh0[v] != 2:
            out[v, :] = 0.0


@nb.njit(inline="always")
def _copy_plus_zero(y, x):
    for k in range(y.shape[0]):
        y[k] = 0.0 + x[k]  # 0 + x, as adding into a zeroed row does (-0.0 becomes 0.0)


@nb.njit(nogil=True, fastmath=_FAST, error_model="numpy", cache=True)
def adam_merged_rows(p, exp_avg, exp_avg_sq, b0, fresh0, b1, fresh1, lo, hi, scale, c):
    """Dense Adam on rows lo..hi-1 of ``p``, each gradient row merged from the segment buffers on the way
    (:func:`merge_two`), times ``scale``; ``c`` = (-step, √bias2, 1-β1, β2, 1-β2, eps)."""
    step_size, bias2_sqrt, one_b1, b2, one_b2, eps = c[0], c[1], c[2], c[3], c[4], c[5]
    g, denom = np.empty(p.shape[1], p.dtype), np.empty(p.shape[1], p.dtype)
    for v in range(lo, hi):
        _merged_row(g, v, b0, fresh0, b1, fresh1, scale)
        _adam_moments(exp_avg[v], exp_avg_sq[v], g, one_b1, b2, one_b2)
        _adam_denominator(denom, exp_avg_sq[v], bias2_sqrt, eps)
        _adam_move(p[v], exp_avg[v], denom, step_size)


@nb.njit(inline="always")
def _merged_row(g, v, b0, fresh0, b1, fresh1, scale):
    """g = row v of the dense gradient merge_two builds (then times scale)."""
    if fresh0[v] == 2:
        g[:] = b0[v]
        if fresh1[v] == 2:
            _axpy(g, 1.0, b1[v])
    elif fresh1[v] == 2:
        _copy_plus_zero(g, b1[v])
    else:
        g[:] = 0.0
    if scale != 1.0:
        for k in range(g.shape[0]):
            g[k] *= scale


@nb.njit(nogil=True, cache=True)
def sum_touched_two(values, rows, lo, hi, b0, fresh0, b1, fresh1):
    """values[i] = (b0[v] if segment 0 touched v) + (b1[v] if segment 1 did), v = rows[i], i in lo..hi-1:
    summed from zero in segment order, the dense gradient's rows bit for bit."""
    for i in range(lo, hi):
        v = rows[i]
        if fresh0[v] == 2:
            _copy_plus_zero(values[i], b0[v])
            if fresh1[v] == 2:
                _axpy(values[i], 1.0, b1[v])
        elif fresh1[v] == 2:
            _copy_plus_zero(values[i], b1[v])
        else:
            values[i, :] = 0.0


# ---------------------------------------------------------------------------------------------
# Dropout masks as arrays (for tests).

@nb.njit(nogil=True, cache=True)
def dropout_masks(key, threshold, len_s, len_t, L_s, L_t, d, pad, ids_s, ids_t):
    """The 0/1 keep masks (B, L_s, d), (B, L_t, d) the kernels draw for ``key`` (for tests)."""
    B = len_s.shape[0]
    ms, mt = np.zeros((B, L_s, d)), np.zeros((B, L_t, d))
    weight = np.zeros((pad + 1, d))
    S, T = np.empty((L_s, d)), np.empty((L_t, d))
    words = np.empty((d + 3) // 4, np.uint64)
    for b in range(B):
        _gather_pair(S, T, ms[b], mt[b], weight, ids_s[b], ids_t[b], len_s[b], len_t[b], pad, key, b,
                     threshold, words)
    return ms, mt


# ---------------------------------------------------------------------------------------------
# The autograd Functions around the loops, the segments they cut a batch into, their buffers.

_local = threading.local()  # per calling thread (app sessions train side by side): gradient buffers


def _segments(len_s: np.ndarray, len_t: np.ndarray, d: int) -> list[tuple[int, int]]:
    """SEGMENTS contiguous pair ranges of about equal work (gemm + d-dimensional passes)."""
    work = np.cumsum(len_s.astype(np.float64) * len_t + 4.0 * d * (len_s + len_t))
    total = work[-1] if len(work) else 0.0
    cuts = np.searchsorted(work, total * np.arange(1, SEGMENTS) / SEGMENTS)  # 0s on an empty batch
    bounds = [0, *[int(c) for c in cuts], len(len_s)]  # always SEGMENTS ranges, empty ones included
    return list(zip(bounds[:-1], bounds[1:]))


_blas: dict = {"libraries": None, "users": 0, "before": []}
_blas_lock = threading.Lock()


@contextmanager
def _one_blas_thread():
    """One OpenBLAS thread while ours call it (its threads only synchronise on these small products);
    counted, so trainings side by side restore the setting when the last one leaves."""
    with _blas_lock:
        if _blas["libraries"] is None:
            _blas["libraries"] = ThreadpoolController().select(user_api="blas").lib_controllers
        if _blas["users"] == 0:
            _blas["before"] = [lib.num_threads for lib in _blas["libraries"]]
            for lib in _blas["libraries"]:
                lib.set_num_threads(1)
        _blas["users"] += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas["users"] -= 1
            if _blas["users"] == 0:
                for lib, n in zip(_blas["libraries"], _blas["before"]):
                    lib.set_num_threads(n)


def _buffer(k: int, shape, dtype) -> np.ndarray:
    """Segment k's gradient buffer, reused across steps (no page faults per step)."""
    buffers = _local.__dict__.setdefault("buffers", {})
    buf = buffers.get(k)
    if buf is None or buf.shape != shape or buf.dtype != dtype:
        buf = buffers[k] = np.empty(shape, dtype)
    return buf


def _reused(name: str, shape: tuple[int, int], dtype, capacity: int | None = None) -> np.ndarray:
    """The first ``shape[0]`` rows of this thread's ``capacity``-row buffer ``name`` (fresh zeros each step
    cost page faults, bench/step_profile.py), reused once only our references hold it (``torch.from_numpy``
    keeps one while a gradient lives). Its rows hold what the last user left: callers write every row."""
    rows, width = shape
    capacity = max(capacity or rows, rows)
    buffers = _local.__dict__.setdefault("zeroed", {})
    buf = buffers.get(name)
    # references: the dict, ``buf`` and getrefcount's argument; any more is a gradient still alive
    if buf is None or buf.shape != (capacity, width) or buf.dtype != dtype or sys.getrefcount(buf) > 3:
        buf = buffers[name] = np.zeros((capacity, width), dtype)
    return buf[:rows]


def halves(n: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two halves of range(n), one per worker thread."""
    return (0, n // 2), (n // 2, n)


def _table_gradient(w: np.ndarray, segs: list[tuple[int, int]], segment: Callable[..., Callable[[], None]],
                    run: Callable[[list], list], sparse: bool) -> torch.Tensor:
    """The table's gradient from every segment's loops (on threads), each adding into its own buffer, summed
    in segment order (the same numbers on any number of threads); dense, or ``sparse`` over touched rows."""
    # Every segment's buffer is reused and zeroes a row on its first touch (fresh 1 -> 2). A
    # dense gradient is segment 0's buffer with the rows it never touched zeroed after the loops
    # (not the whole table before them: at 100k+ nodes a batch touches most rows) and the other
    # segments' rows added; a sparse one reads every segment's touched rows out of the buffers.
    bufs, fresh = _segment_buffers(w, segs, segment, run, _buffer(0, w.shape, w.dtype) if sparse
                                   else _reused("dense", w.shape, w.dtype))
    if sparse:
        return _touched_rows(w, bufs, fresh, run)
    return _dense_rows(bufs, fresh, run)


def _segment_buffers(w: np.ndarray, segs: list[tuple[int, int]], segment: Callable[..., Callable[[], None]],
                     run: Callable[[list], list], first: np.ndarray) -> tuple[list, list[np.ndarray]]:
    """Every segment's loops run (on threads), each adding into its own buffer (segment 0's is
    ``first``): (the buffers, their touched flags: 2 where a segment touched a row)."""
    fresh = [np.full(w.shape[0], 1, np.uint8) for _ in segs]
    bufs = [first] + [_buffer(k, w.shape, w.dtype) for k in range(1, len(segs))]
    with _one_blas_thread():
        run([segment(lo, hi, bufs[k], fresh[k]) for k, (lo, hi) in enumerate(segs)])
    return bufs, fresh


def _dense_rows(bufs: list, fresh: list[np.ndarray], run: Callable[[list], list]) -> torch.Tensor:
    """The dense gradient (V, d) of the two segments' buffers, built in ``bufs[0]`` (the rows
    it never touched zeroed, segment 1's rows added: the same sums on any number of threads)."""
    out = bufs[0]
    run([partial(merge_two, out, fresh[0], bufs[1], fresh[1], a, b) for a, b in halves(out.shape[0])])
    out[out.shape[0] - 1] = 0.0  # padding_idx: the pad row stays zero
    return torch.from_numpy(out)


class SegmentGradient:
    """A table's gradient left in the fused loops' segment buffers and touched flags: the fused loss
    ``hold``s it forward, ``release``s it backward, and ``optim.TableAdam``'s step ``take``s it."""

    def __init__(self) -> None:
        self._held: tuple | None = None
        self._ready: tuple | None = None

    def hold(self, weight: torch.Tensor, bufs: list, fresh: list) -> None:
        self._held, self._ready = (weight, bufs, fresh), None

    def release(self, scale: float) -> None:
        if self._held is None:
            raise RuntimeError("SegmentGradient.release without a held gradient (one backward per forward)")
        self._ready, self._held = (*self._held, scale), None

    def take(self, p: torch.Tensor) -> tuple | None:
        """(buffers, flags, scale) of ``p``'s released gradient, or None; what it returns is gone."""
        if self._ready is None or self._ready[0] is not p:
            return None
        _, bufs, fresh, scale = self._ready
        self._ready = None
        return bufs, fresh, scale


class FusedPairLoss(torch.autograd.Function):
    """A training step's weighted mean logistic loss (as ``F.binary_cross_entropy_with_logits``) in one pass
    of :func:`pair_loop`, the table's gradient made in the same pass and handed over by the backward."""

    @staticmethod
    def forward(ctx, weight: torch.Tensor, ids_s: torch.Tensor, ids_t: torch.Tensor, len_s: torch.Tensor,
                len_t: torch.Tensor, labels: torch.Tensor, pair_weights: torch.Tensor, key: np.uint64,
                threshold: int, s2: float, run: Callable[[list], list], pooling: str, excluded: int,
                sparse: bool, sink: SegmentGradient | None = None) -> torch.Tensor:
        w = weight.detach().numpy()
        ids_s_np, ids_t_np, ls, lt = ids_s.numpy(), ids_t.numpy(), len_s.numpy(), len_t.numpy()
        y, pw = labels.to(weight.dtype).numpy(), pair_weights.to(weight.dtype).numpy()
        B = ids_s.shape[0]
        losses, logits = np.empty(B, np.float64), np.empty(B, w.dtype)

        def segment(lo, hi, buf, fresh):
            return partial(pair_loop, w, ids_s_np, ids_t_np, ls, lt, excluded, key, threshold, s2, lo, hi,
                           pooling == "mean", logits, y, pw, 1.0 / B, losses, buf, fresh)

        segs = _segments(ls, lt, w.shape[1])
        ctx.sink = sink
        if sink is not None:  # the gradient stays in the buffers, for the optimiser to read there
            bufs, fresh = _segment_buffers(w, segs, segment, run, _buffer(0, w.shape, w.dtype))
            for flags in fresh:  # padding_idx: the pad row's gradient is zero, as _dense_rows makes it
                flags[-1] = 1
            sink.hold(weight, bufs, fresh)
            ctx.gradient = None
        else:
            ctx.gradient = _table_gradient(w, segs, segment, run, sparse)
        return torch.tensor(losses.sum() / B, dtype=weight.dtype)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple:
        if ctx.sink is not None:  # no .grad: the optimiser reads the buffers (SegmentGradient)
            ctx.sink.release(float(grad))
            return (None,) * 15
        gradient, ctx.gradient = ctx.gradient, None
        if float(grad) != 1.0:
            (gradient._values() if gradient.is_sparse else gradient).mul_(grad.to(gradient.dtype))
        return (gradient,) + (None,) * 14


def _touched_rows(w: np.ndarray, bufs: list, fresh: list[np.ndarray],
                  run: Callable[[list], list]) -> torch.Tensor:
    """The sparse gradient (rows, values) of the rows any segment touched, the pad row left
    out; values summed in segment order from zero: the dense gradient's rows bit for bit."""
    touched = np.zeros(w.shape[0], bool)
    for f in fresh:
        touched |= f == 2
    touched[w.shape[0] - 1] = False  # padding_idx: the pad row is never updated
    rows = np.flatnonzero(touched)
    values = _reused("sparse", (len(rows), w.shape[1]), w.dtype, capacity=w.shape[0])  # (R, d)
    run([partial(sum_touched_two, values, rows, a, b, bufs[0], fresh[0], bufs[1], fresh[1])
         for a, b in halves(len(rows))])  # every row written once, on the threads
    index = torch.from_numpy(rows.astype(np.int64)).unsqueeze(0)  # (1, R)
    return torch.sparse_coo_tensor(index, torch.from_numpy(values), w.shape, is_coalesced=True,
                                   check_invariants=False)


def fused_logits(weight: torch.Tensor, ids_s: torch.Tensor, ids_t: torch.Tensor, len_s: torch.Tensor,
                 len_t: torch.Tensor, keep: float, key: int, run: Callable[[list], list],
                 pooling: str = "max", zero_pads: bool = False) -> torch.Tensor:
    """Logits (B,) for ids (B, L), masked slots holding the pad id n, widths len (B,); ``keep`` < 1 draws
    masks from ``key``; ``zero_pads``: pads are zero vectors taking part. Training: :func:`fused_loss`."""
    threshold, s2, excluded = _loop_constants(weight, keep, zero_pads)
    w = weight.detach().numpy()
    ids_s_np, ids_t_np = ids_s.contiguous().numpy(), ids_t.contiguous().numpy()
    ls, lt = len_s.contiguous().numpy(), len_t.contiguous().numpy()
    logits, none = np.empty(len(ls), w.dtype), np.empty(0, w.dtype)  # none: scoring, no loss
    no_gradient = np.empty(0), np.empty((0, w.shape[1]), w.dtype), np.empty(0, np.uint8)  # losses, out, fresh
    with _one_blas_thread():
        run([partial(pair_loop, w, ids_s_np, ids_t_np, ls, lt, excluded, np.uint64(key), threshold, s2, lo,
                     hi, pooling == "mean", logits, none, none, 1.0, *no_gradient)
             for lo, hi in _segments(ls, lt, w.shape[1])])
    return torch.from_numpy(logits)


def _loop_constants(weight: torch.Tensor, keep: float, zero_pads: bool) -> tuple[int, float, int]:
    """(the dropout masks' 16-bit threshold, s2 = 1/keep² for the exact keep probability, the id
    the loops leave out: the pad row, or -1 with ``zero_pads``, where pads take part)."""
    threshold, exact = threshold_for(keep) if keep < 1.0 else (1 << MASK_BITS, 1.0)
    return threshold, 1.0 / (exact * exact), -1 if zero_pads else weight.shape[0] - 1


def fused_loss(weight: torch.Tensor, ids_s: torch.Tensor, ids_t: torch.Tensor, len_s: torch.Tensor,
               len_t: torch.Tensor, labels: torch.Tensor, pair_weights: torch.Tensor, keep: float, key: int,
               run: Callable[[list], list], pooling: str = "max", zero_pads: bool = False,
               sparse: bool = False, sink: SegmentGradient | None = None) -> torch.Tensor:
    """The weighted mean logistic loss of :func:`fused_logits`'s logits (same ``key``, same masks), gradient
    made in the same pass; with ``sink`` it stays in the segment buffers for the sink's optimiser."""
    threshold, s2, excluded = _loop_constants(weight, keep, zero_pads)
    return FusedPairLoss.apply(weight, ids_s.contiguous(), ids_t.contiguous(), len_s.contiguous(),
                               len_t.contiguous(), labels.contiguous(), pair_weights.contiguous(),
                               np.uint64(key), threshold, s2, run, pooling, excluded, sparse, sink)
