"""Fast kernels for GOAT's max-pooling model: the same function as ``model.Goat``, less work.

:func:`goat_logits` returns, for a batch of pairs, the logits r_s·r_t that ``model.Goat``
(``pooling="max"``) computes: A = S Tᵀ, row/column max pooling where padding can neither win
a max nor take softmax mass, softmax, r = pᵀS.

Which code computes it is the caller's explicit choice, ``backend``: ``"fused"`` runs the
compiled per-pair CPU loop of :mod:`.fused`, faster than the torch code below (BENCHMARKS.md);
``"torch"`` runs the torch code below, the path on CUDA (and the reference the fused loop was
measured against). In training, :func:`goat_loss` runs the fused backend's step in one pass
(loss and gradient per pair, :class:`.fused.FusedPairLoss`). ``Goat(backend=...)`` resolves
and records the choice. What differs from the module is only how:

* **one autograd Function per batch** whose backward touches the argmax entries of A only
  (the gradient of a max is one-hot): O((Ls + Lt)·d) per pair, where autograd through
  ``bmm`` runs two dense Ls x Lt x d products;
* **chunks trimmed to their own widths**: the batch is sorted by neighborhood size and cut
  into cache-sized chunks, each trimmed to its widest neighborhood, so that almost no work
  is spent on padding whatever the batch's mix of sizes;
* **S and T in one tensor** X = [S; T] (B, Ls + Lt, d): one gather, one dropout mask, one
  gather/scatter for both sides' argmax routing;
* **padding by an additive -inf bias** written once into A before the gemm (``baddbmm``),
  instead of masked copies; pads are zero rows, so their dot products are exactly the bias;
* **dropout masks from raw 64-bit random words** (16-bit resolution, :mod:`.masks`, shared
  with the modules) instead of ``bernoulli_``, which on CPU draws one number at a time, and the
  1/keep scale folded into the small (B, L) and (B, d) tensors;
* **the embedding gradient by ``index_add_``** straight into the table's gradient;
* **chunks on Python threads** (CPU, ``KernelOptions.workers``, each with one intra-op thread): torch ops
  release the GIL, so two chunks run on two cores with no OpenMP barrier to spin at; random
  draws are made up front in chunk order and the table gradient is summed in chunk order, so
  the numbers do not depend on the scheduling;
* **inference through the Gram matrix** (:func:`gram_logits`): without dropout A is a block of
  G = E Eᵀ and r_s·r_t = p_sᵀ A p_t, so scoring a pair needs no d-dimensional work; G lives in
  a :class:`GramCache` that the fitted model owns.

Ties inside a max (measure zero for real-valued embeddings) send the gradient to one of the
tied entries where autograd's ``amax`` splits it; values are identical. Device-agnostic: on
CUDA the same code runs (masks from ``torch.rand``; chunks are large there).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import torch

from .masks import draw_noise, keep_from_noise

if TYPE_CHECKING:  # fused is numba's module, imported only where a loop runs
    from .fused import SegmentGradient

MIN_CHUNK = 8  # pairs
KERNEL_BACKENDS = ("fused", "torch")  # the two fast paths of max-pooling GOAT


@dataclass(frozen=True)
class KernelOptions:
    """How the fast paths split their work (the numbers, never the results, depend on them).

    ``workers``: Python threads running chunks (torch) or segments (fused) on CPU (see
    :func:`_pool_size`); 1 runs them in order on the calling thread. ``chunk_rows_cpu`` /
    ``chunk_rows_other``: rows of X = [S; T] per torch chunk, L2-sized on CPU, large on GPUs.
    """

    workers: int = 2
    chunk_rows_cpu: int = 4096
    chunk_rows_other: int = 1 << 20

    def chunk_rows(self, device: torch.device) -> int:
        return self.chunk_rows_cpu if device.type == "cpu" else self.chunk_rows_other


DEFAULT_OPTIONS = KernelOptions()


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


def _widths(mask: torch.Tensor) -> torch.Tensor:
    """1 + index of the last real entry of each row (masks may have holes)."""
    pos = torch.arange(1, mask.shape[1] + 1, device=mask.device)
    return (mask * pos).amax(1)


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


def _run(tasks, device: torch.device, workers: int) -> list:
    """Run chunk tasks on Python threads (CPU) or in order.

    Torch ops release the GIL, so chunks run on separate cores without OpenMP's barriers:
    a thread that the OS deschedules (other processes on the cores) delays only its own chunk.
    The pool keeps no state between calls, so one per process is safe to share.
    """
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
    return partial(_run, device=device, workers=workers)


def _no_grad(task):
    with torch.no_grad():  # grad mode is per thread: the workers' must match the Function's
        return task()


class PairScores(torch.autograd.Function):
    """logits (B,) of the paper's mutual attention; see the module docstring."""

    @staticmethod
    def forward(ctx, weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, dropout: float, generator: torch.Generator | None, masks: tuple | None,
                options: KernelOptions, sparse: bool) -> torch.Tensor:
        device, pad = weight.device, weight.shape[0] - 1
        ids_s = torch.where(mask_s, nbr_s, pad)  # (B, Ls) masked slots become the zero pad row
        ids_t = torch.where(mask_t, nbr_t, pad)  # (B, Lt)
        ws, wt = _widths(mask_s).cpu().numpy(), _widths(mask_t).cpu().numpy()
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
        s2 = _run([partial(_forward_chunk, c, weight, ids_s, ids_t, masks, 1.0 - dropout, logits, save,
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
        _run([partial(_backward_chunk, c, grad, ctx.s2, grad_weight, (done[k], done[k - 1] if k else None))
              for k, c in enumerate(ctx.chunks)], grad.device, ctx.workers)
        ctx.chunks = ctx.rows = None
        none = (None,) * 9
        if rows is None:
            grad_weight[ctx.pad] = 0.0  # padding_idx: the pad row stays zero
            return (grad_weight,) + none
        real = rows != ctx.pad  # the pad row is never updated
        return (torch.sparse_coo_tensor(rows[real].unsqueeze(0), grad_weight[real], ctx.weight_shape,
                                        is_coalesced=True, check_invariants=False),) + none


def _gradient_rows(chunks: list[_Chunk], sparse: bool) -> torch.Tensor | None:
    """Dense gradient: every chunk adds into the table's rows (None). Sparse: the distinct
    touched rows (sorted), each chunk adding into their ranks in the order of the dense
    gradient's adds, so that the values are its rows bit for bit (on CPU)."""
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


def goat_logits(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, dropout: float = 0.0, generator: torch.Generator | None = None,
                masks: tuple[torch.Tensor, torch.Tensor, float] | None = None, *, backend: str = "torch",
                options: KernelOptions = DEFAULT_OPTIONS, pooling: str = "max",
                sparse: bool = False) -> torch.Tensor:
    """Logits (B,) of ``model.Goat`` (max pooling) for a batch; ``weight`` (n+1, d), row n = pad.

    ``backend``: ``"fused"`` (the compiled CPU loop of :mod:`.fused`) or ``"torch"`` (the chunks
    above; any device). ``dropout`` > 0 draws fresh per-pair masks from ``generator``
    (training). ``masks`` = (keep_s (B, Ls, d), keep_t (B, Lt, d), keep probability) applies
    given 0/1 masks instead (S = E[nbr_s]·keep_s / keep, as ``model.dropout`` does; torch
    backend only). ``pooling="mean"`` (tanh + mean pooling, the authors' code) is computed by
    the fused backend only. Differentiable in ``weight`` only; with ``sparse`` its gradient is a
    sparse tensor of the touched rows (lazy Adam, :mod:`.optim`), else the dense table.
    """
    if backend == "fused":
        if weight.device.type != "cpu" or masks is not None:
            raise ValueError("the fused backend runs on CPU and draws its own dropout masks")
        return _fused_logits(weight, nbr_s, nbr_t, mask_s, mask_t, float(dropout), generator, options,
                             pooling, sparse)
    if backend != "torch" or pooling != "max":
        raise ValueError(f"backend must be one of {KERNEL_BACKENDS} (torch: max pooling only), "
                         f"got {backend!r}")
    return PairScores.apply(weight, nbr_s, nbr_t, mask_s, mask_t, float(dropout), generator, masks, options,
                            sparse)


def zero_padded(mask_s: torch.Tensor, mask_t: torch.Tensor) -> bool:
    """True when no slot is left out (``training.make_batch`` with ``padding="zero"``): any pad
    id then stands for a zero vector that takes part. With ``padding="mask"`` a batch without a
    masked slot holds no pad id, so the answer changes nothing there."""
    return bool(mask_s.all()) and bool(mask_t.all())


def goat_loss(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
              mask_t: torch.Tensor, labels: torch.Tensor, pair_weights: torch.Tensor, dropout: float = 0.0,
              generator: torch.Generator | None = None, *, options: KernelOptions = DEFAULT_OPTIONS,
              pooling: str = "max", sparse: bool = False,
              sink: SegmentGradient | None = None) -> torch.Tensor:
    """A training step's loss on CPU in one pass of the fused loop (:func:`.fused.fused_loss`):
    ``F.binary_cross_entropy_with_logits(goat_logits(..., backend="fused"), labels,
    weight=pair_weights)`` with the same dropout masks (one draw from ``generator``), each
    pair's gradient computed while its rows are in cache instead of in a second pass."""
    if weight.device.type != "cpu":
        raise ValueError("the one-pass loss is the fused backend's: it runs on CPU")
    from . import fused  # numba: compiled (or loaded from its cache) on first use

    ids_s, ids_t, len_s, len_t, key, run, zero_pads = _fused_arguments(weight, nbr_s, nbr_t, mask_s, mask_t,
                                                                       dropout, generator, options)
    return fused.fused_loss(weight, ids_s, ids_t, len_s, len_t, labels, pair_weights, 1.0 - dropout, key, run,
                            pooling, zero_pads, sparse, sink)


def _fused_arguments(weight, nbr_s, nbr_t, mask_s, mask_t, dropout: float, generator, options: KernelOptions):
    """What the fused loops take for a batch: ids with the masked slots set to the pad id n,
    widths, the dropout key (one draw from ``generator``), the runner, and whether pads are
    zero vectors that take part."""
    pad = weight.shape[0] - 1
    ids_s = torch.where(mask_s, nbr_s, pad)  # (B, Ls) masked slots hold the pad id
    ids_t = torch.where(mask_t, nbr_t, pad)  # (B, Lt)
    key = int(torch.randint(0, 2**62, (1,), generator=generator)) if dropout > 0.0 else 0
    run = runner(weight.device, options.workers)
    return ids_s, ids_t, _widths(mask_s), _widths(mask_t), key, run, zero_padded(mask_s, mask_t)


def _fused_logits(weight, nbr_s, nbr_t, mask_s, mask_t, dropout: float, generator,
                  options: KernelOptions, pooling: str, sparse: bool = False) -> torch.Tensor:
    from . import fused  # numba: compiled (or loaded from its cache) on first use

    ids_s, ids_t, len_s, len_t, key, run, zero_pads = _fused_arguments(weight, nbr_s, nbr_t, mask_s, mask_t,
                                                                       dropout, generator, options)
    return fused.fused_logits(weight, ids_s, ids_t, len_s, len_t, 1.0 - dropout, key, run, pooling, zero_pads,
                              sparse)


# ---------------------------------------------------------------------------------------------
# Inference through the Gram matrix: without dropout, A = S Tᵀ is a block of G = E Eᵀ, and
# r_s·r_t = p_sᵀ A p_t, so scoring a pair needs no d-dimensional work at all once G exists.

GRAM_MAX_NODES = 4096  # G is (n+1)² floats: 64 MiB at this size
GRAM_CHUNK = 1 << 20  # alignment entries per chunk
_PAD_SCORE = -1e30  # pad rows/columns of G: never a max, exactly zero softmax mass


class GramCache:
    """G = E Eᵀ for one embedding table, recomputed when the table changes; owned by whoever
    scores (a fitted ``Goat``, one training's validation), never shared by the process.

    Thread-safe: app sessions may score with the same fitted model at the same time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weight: torch.Tensor | None = None
        self._gram: torch.Tensor | None = None

    def table(self, weight: torch.Tensor) -> torch.Tensor:
        """(n+1, n+1) G with the pad row and column set to -1e30. Valid while the weights equal
        those G was computed from: an exact O(n·d) comparison, because the version counter is
        not enough (a fused Adam step does not bump it)."""
        with self._lock:
            cached, gram = self._weight, self._gram
            if (cached is not None and gram is not None and cached.shape == weight.shape
                    and cached.device == weight.device and cached.dtype == weight.dtype
                    and torch.equal(cached, weight)):
                return gram
            with torch.no_grad():
                gram = weight @ weight.T  # (n+1, n+1)
                gram[-1, :] = _PAD_SCORE
                gram[:, -1] = _PAD_SCORE
            self._weight, self._gram = weight.detach().clone(), gram
            return gram


@torch.no_grad()
def gram_logits(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, cache: GramCache) -> torch.Tensor:
    """Logits (B,) of ``model.Goat`` (max pooling, eval mode) from the Gram matrix in ``cache``."""
    gram, pad = cache.table(weight), weight.shape[0] - 1
    zero_pads = zero_padded(mask_s, mask_t)
    ids_s = torch.where(mask_s, nbr_s, pad)  # (B, Ls)
    ids_t = torch.where(mask_t, nbr_t, pad)  # (B, Lt)
    ws, wt = _widths(mask_s).cpu().numpy(), _widths(mask_t).cpu().numpy()
    logits = torch.empty(nbr_s.shape[0], dtype=weight.dtype, device=weight.device)
    order = np.argsort(-(ws * wt), kind="stable")
    p = 0
    while p < len(order):
        size = max(1, GRAM_CHUNK // int(ws[order[p]] * max(wt[order[p:]].max(), 1)))
        idx = torch.from_numpy(order[p:p + size].copy()).to(weight.device)
        Ls, Lt = int(ws[order[p:p + size]].max()), int(wt[order[p:p + size]].max())
        flat = (ids_s[idx, :Ls] * gram.shape[1]).unsqueeze(2) + ids_t[idx, :Lt].unsqueeze(1)  # (n, Ls, Lt)
        A = gram.view(-1).index_select(0, flat.view(-1)).view(flat.shape)  # blocks of G
        if zero_pads:  # the pad row of G is -1e30 (left out); a zero pad's alignments are 0
            A.masked_fill_(A == _PAD_SCORE, 0.0)
        p_s = torch.softmax(A.amax(2), dim=1)  # (n, Ls)
        p_t = torch.softmax(A.amax(1), dim=1)  # (n, Lt)
        logits[idx] = torch.bmm(torch.bmm(p_s.unsqueeze(1), A), p_t.unsqueeze(2)).view(-1)
        p += size
    return logits
