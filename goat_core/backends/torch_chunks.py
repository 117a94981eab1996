"""The torch path (``backend="torch"``, CUDA's) of max-pooling GOAT: ``model.Goat``'s logits in chunks
trimmed to their widths, one autograd Function whose backward touches only the argmax entries of A
(docs/architecture.md, "Compute paths"). Ties inside a max send the gradient to one tied entry."""

from __future__ import annotations

import threading
from functools import partial

import numpy as np
import torch

from .batch import slot_ids, widths, zero_padded
from .masks import draw_noise, keep_from_noise
from .workers import KernelOptions, run_tasks

MIN_CHUNK = 8  # pairs


def plan_chunks(width_s: np.ndarray, width_t: np.ndarray, rows: int) -> list[tuple[np.ndarray, int, int]]:
    """Pairs sorted by size, cut into chunks of about ``rows`` rows of X: (index, Ls, Lt)."""
    order = np.lexsort((width_t, width_s))[::-1].copy()  # widest first
    ws, wt = width_s[order], width_t[order]
    suffix_t = np.maximum.accumulate(wt[::-1])[::-1]  # max Lt from here to the end
    chunks, p, total = [], 0, len(order)
    while p < total:
        size = max(MIN_CHUNK, rows // int(ws[p] + suffix_t[p]))
        idx = order[p:p + size]
        chunks.append((idx, int(ws[p]), int(wt[p:p + size].max())))
        p += size
    return chunks


class _Chunk:
    """One chunk's inputs and the state its backward needs."""

    __slots__ = ("idx", "ids", "into", "Ls", "Lt", "noise", "keep", "X", "A", "a_s", "a_t", "p_s", "p_t",
                 "r_s", "r_t")
    idx: torch.Tensor  # (n,) pairs of the batch in this chunk
    ids: torch.Tensor  # (n, Ls + Lt) neighbor ids, pads = n
    into: torch.Tensor  # (n, Ls + Lt) gradient rows: ids (dense) or their ranks among the touched rows
    Ls: int
    Lt: int
    noise: torch.Tensor | None  # (n, Ls + Lt, d) uniforms for the dropout mask
    keep: torch.Tensor | None  # (n, Ls + Lt, d) 0/1 mask
    X: torch.Tensor  # (n, Ls + Lt, d)
    A: torch.Tensor  # (n, Ls, Lt)
    a_s: torch.Tensor  # (n, Ls)
    a_t: torch.Tensor  # (n, Lt)
    p_s: torch.Tensor  # (n, Ls)
    p_t: torch.Tensor  # (n, Lt)
    r_s: torch.Tensor  # (n, d)
    r_t: torch.Tensor  # (n, d)


def _draw_noise(chunks, d: int, generator, device) -> None:
    """Random draws for every chunk's dropout mask, in one call and in chunk order, so that
    the masks do not depend on how chunks are later scheduled (threads) or on chunk sizes."""
    sizes = [len(c.idx) * (c.Ls + c.Lt) * d for c in chunks]
    for c, noise in zip(chunks, draw_noise(sizes, generator, device), strict=True):
        c.noise = noise.view(len(c.idx), c.Ls + c.Lt, d)


def _forward_chunk(c: _Chunk, weight, ids_s, ids_t, masks, keep_prob: float, logits, save: bool,
                   excluded: int) -> float:
    """Fills logits[c.idx]; returns s2 = (1/keep)², the factor the unscaled X's products miss.
    Slots holding the id ``excluded`` are left out (-1: none)."""
    device, d = weight.device, weight.shape[1]
    n, Ls, Lt = len(c.idx), c.Ls, c.Lt
    L = Ls + Lt
    c.ids = torch.cat([ids_s[c.idx, :Ls], ids_t[c.idx, :Lt]], dim=1)  # (n, L)
    X = weight.index_select(0, c.ids.view(-1)).view(n, L, d)  # (n, L, d) = [S; T], unscaled
    s2, c.keep = 1.0, None
    if masks is not None:  # explicit masks (tests): (keep_s, keep_t, keep probability)
        c.keep = torch.cat([masks[0][c.idx, :Ls], masks[1][c.idx, :Lt]], dim=1).to(X.dtype)
        s2 = 1.0 / masks[2] ** 2
    elif c.noise is not None:
        c.keep, q = keep_from_noise(c.noise, keep_prob)  # (n, L, d)
        s2 = 1.0 / (q * q)
    c.noise = None
    if c.keep is not None:
        X.mul_(c.keep)
    S, T = X[:, :Ls], X[:, Ls:]  # (n, Ls, d), (n, Lt, d)
    real = c.ids != excluded  # (n, L)
    if bool((~real).any()):
        bias = torch.zeros((n, L), dtype=X.dtype, device=device).masked_fill_(~real, float("-inf"))
        A = torch.add(bias[:, :Ls].unsqueeze(2), bias[:, Ls:].unsqueeze(1))  # (n, Ls, Lt)
        A.baddbmm_(S, T.transpose(1, 2))  # pads: exactly -inf
    else:
        A = torch.bmm(S, T.transpose(1, 2))  # (n, Ls, Lt)
    c.a_s = A.amax(dim=2)  # (n, Ls), unscaled; -inf on pad rows
    c.a_t = A.amax(dim=1)  # (n, Lt)
    c.p_s = torch.softmax(c.a_s * s2, dim=1)  # (n, Ls), 0 on pads
    c.p_t = torch.softmax(c.a_t * s2, dim=1)  # (n, Lt)
    c.r_s = torch.bmm(c.p_s.unsqueeze(1), S).squeeze(1)  # (n, d), = r_s·keep
    c.r_t = torch.bmm(c.p_t.unsqueeze(1), T).squeeze(1)  # (n, d)
    logits[c.idx] = (c.r_s * c.r_t).sum(1) * s2
    if save:
        c.X, c.A = X, A
    return s2


def _backward_chunk(c: _Chunk, grad, s2: float, grad_weight, turn: tuple) -> None:
    mine, previous = turn  # chunks add into the table in chunk order: the same sums every run
    try:
        _backward_chunk_body(c, grad, s2, grad_weight, previous)
    finally:
        mine.set()


def _backward_chunk_body(c: _Chunk, grad, s2: float, grad_weight, previous) -> None:
    X, A, Ls = c.X, c.A, c.Ls
    n, L, d = X.shape
    S, T = X[:, :Ls], X[:, Ls:]
    g = (grad[c.idx] * s2).unsqueeze(1)  # (n, 1) on the unscaled r's
    dr_s, dr_t = c.r_t * g, c.r_s * g  # (n, d)
    dp_s = torch.bmm(S, dr_s.unsqueeze(2)).squeeze(2)  # (n, Ls)
    dp_t = torch.bmm(T, dr_t.unsqueeze(2)).squeeze(2)  # (n, Lt)
    # softmax backward, times the s2 of a = s2·max(A): per-row weight of the argmax route
    c_s = c.p_s * (dp_s - (c.p_s * dp_s).sum(1, keepdim=True))  # (n, Ls)
    c_t = c.p_t * (dp_t - (c.p_t * dp_t).sum(1, keepdim=True))  # (n, Lt)
    coef = torch.cat([c_s, c_t], dim=1).mul_(s2).unsqueeze(2)  # (n, L, 1)
    # partner row of each row of X: S row i -> T row j*(i); T row j -> S row i*(j)
    j_star = (A == c.a_s.unsqueeze(2)).view(torch.uint8).argmax(dim=2)  # (n, Ls)
    i_star = (A == c.a_t.unsqueeze(1)).view(torch.uint8).argmax(dim=1)  # (n, Lt)
    base = torch.arange(n, device=X.device).unsqueeze(1) * L  # (n, 1)
    partner = (torch.cat([j_star + Ls, i_star], dim=1) + base).view(-1)  # (n·L,)
    # dX = p ⊗ dr  +  coef·X[partner]  +  scatter_partner(coef·X)
    dX = torch.empty_like(X)  # (n, L, d)
    torch.mul(c.p_s.unsqueeze(2), dr_s.unsqueeze(1), out=dX[:, :Ls])
    torch.mul(c.p_t.unsqueeze(2), dr_t.unsqueeze(1), out=dX[:, Ls:])
    X2, dX2 = X.view(n * L, d), dX.view(n * L, d)
    dX2.index_add_(0, partner, (X * coef).view(n * L, d))
    dX.addcmul_(X2.index_select(0, partner).view(n, L, d), coef)
    if c.keep is not None:
        dX.mul_(c.keep)
    if previous is not None:
        previous.wait()
    grad_weight.index_add_(0, c.into.view(-1), dX2)


class PairScores(torch.autograd.Function):
    """logits (B,) of the paper's mutual attention; see the module docstring."""

    @staticmethod
    def forward(ctx, weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, dropout: float, generator: torch.Generator | None, masks: tuple | None,
                options: KernelOptions, sparse: bool) -> torch.Tensor:
        device, pad = weight.device, weight.shape[0] - 1
        ids_s = slot_ids(nbr_s, mask_s, pad)  # (B, Ls) masked slots become the zero pad row
        ids_t = slot_ids(nbr_t, mask_t, pad)  # (B, Lt)
        ws, wt = widths(mask_s).cpu().numpy(), widths(mask_t).cpu().numpy()
        chunks = []
        for idx_np, Ls, Lt in plan_chunks(ws, wt, options.chunk_rows(device)):
            c = _Chunk()
            c.idx, c.Ls, c.Lt, c.noise = torch.from_numpy(idx_np).to(device), Ls, Lt, None
            chunks.append(c)
        if masks is None and dropout > 0.0:
            _draw_noise(chunks, weight.shape[1], generator, device)
        logits = torch.empty(nbr_s.shape[0], dtype=weight.dtype, device=device)
        save = ctx.needs_input_grad[0]
        excluded = -1 if zero_padded(mask_s, mask_t) else pad  # -1: zero pads take part
        s2 = run_tasks([partial(_forward_chunk, c, weight, ids_s, ids_t, masks, 1.0 - dropout, logits, save,
                           excluded) for c in chunks], device, options.workers)
        ctx.chunks = chunks if save else None
        ctx.rows = _gradient_rows(chunks, sparse) if save else None
        ctx.workers = options.workers
        ctx.s2 = s2[0] if s2 else 1.0
        ctx.weight_shape = weight.shape
        ctx.pad = pad
        return logits

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple:
        rows = ctx.rows  # None: the dense (n+1, d) gradient; else the touched rows (R,), sorted
        shape = ctx.weight_shape if rows is None else (len(rows), ctx.weight_shape[1])
        grad_weight = torch.zeros(shape, dtype=grad.dtype, device=grad.device)  # (n+1, d) or (R, d)
        done = [threading.Event() for _ in ctx.chunks]
        turns = [(done[k], done[k - 1] if k else None) for k in range(len(ctx.chunks))]
        run_tasks([partial(_backward_chunk, c, grad, ctx.s2, grad_weight, turn)
                   for c, turn in zip(ctx.chunks, turns, strict=True)], grad.device, ctx.workers)
        ctx.chunks = ctx.rows = None
        none = (None,) * 9
        if rows is None:
            grad_weight[ctx.pad] = 0.0  # padding_idx: the pad row stays zero
            return (grad_weight,) + none
        real = rows != ctx.pad  # the pad row is never updated
        return (torch.sparse_coo_tensor(rows[real].unsqueeze(0), grad_weight[real], ctx.weight_shape,
                                        is_coalesced=True, check_invariants=False),) + none


def _gradient_rows(chunks: list[_Chunk], sparse: bool) -> torch.Tensor | None:
    """Dense: chunks add into the table's rows (None). Sparse: the sorted touched rows, chunks adding into
    their ranks in the dense adds' order, so the values are its rows bit for bit (on CPU)."""
    if not sparse:
        for c in chunks:
            c.into = c.ids
        return None
    if not chunks:
        return torch.empty(0, dtype=torch.long)
    rows, rank = torch.unique(torch.cat([c.ids.reshape(-1) for c in chunks]), return_inverse=True)
    for c, into in zip(chunks, rank.split([c.ids.numel() for c in chunks]), strict=True):
        c.into = into.view_as(c.ids)
    return rows
