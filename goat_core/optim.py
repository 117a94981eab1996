"""Optimisers for the embedding table: dense Adam (``TableAdam`` on CPU: torch's update in one compiled
pass, merging the fused loops' gradient buffers as it goes) and lazy (row-sparse) Adam, whose rows keep
their moments while untouched and correct them by their own step counts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import partial

import numpy as np
import torch

OPTIMIZERS = ("auto", "adam", "lazy-adam")
# optimizer="auto": lazy Adam from this many nodes on, where a batch touches under about half the
# rows and lazy Adam's step (bench/optimizer_step.py) and whole epochs (bench/scaling.py) became the
# faster of the two (BENCHMARKS.md, Scaling). Quality is the same (Email, 3 seeds).
LAZY_FROM_NODES = 500_000


def resolve_optimizer(optimizer: str, num_nodes: int) -> str:
    """"adam" or "lazy-adam": ``optimizer`` with "auto" resolved by the table's size."""
    if optimizer == "auto":
        return "lazy-adam" if num_nodes >= LAZY_FROM_NODES else "adam"
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    return optimizer


def make_optimizer(name: str, params: Iterable[torch.nn.Parameter], lr: float,
                   run: Callable[[list], list] | None = None, compiled: bool = True) -> torch.optim.Optimizer:
    """The optimiser ``name`` ("adam" or "lazy-adam") over ``params``: ``TableAdam`` where every parameter
    is a CPU table, else torch's Adam; ``run`` runs CPU row updates; ``compiled=False`` compiles nothing."""
    params = list(params)
    if name == "lazy-adam":
        return LazyAdam(params, lr=lr, run=run, compiled=compiled)
    if compiled and all(_cpu_table(p) for p in params):
        return TableAdam(params, lr=lr, run=run)
    try:  # plain Adam; its fused single-pass kernel where this build has one for the device
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.Adam(params, lr=lr)


def _cpu_table(p: torch.Tensor) -> bool:
    """A parameter TableAdam's compiled pass updates in place: a contiguous 2-D float table on CPU."""
    return p.device.type == "cpu" and p.dim() == 2 and p.is_contiguous() and p.dtype in (torch.float32,
                                                                                           torch.float64)


@contextmanager
def sparse_table_gradient(model: torch.nn.Module, sparse: bool) -> Iterator[None]:
    """``model.embedding`` gives a sparse gradient (touched rows) inside the block: ``nn.Embedding(sparse=
    True)``, the kernels reading the flag, and DDP (built inside) expecting one."""
    embedding = model.embedding
    assert isinstance(embedding, torch.nn.Embedding)
    before, embedding.sparse = embedding.sparse, sparse
    try:
        yield
    finally:
        embedding.sparse = before


class LazyAdam(torch.optim.Optimizer):
    """Adam on the touched rows only, per-row bias correction: a sparse (COO) gradient updates its rows, a
    dense one all; ``run`` splits CPU rows between threads; ``compiled=False``: torch's gathers instead."""

    def __init__(self, params: Iterable[torch.nn.Parameter], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 run: Callable[[list], list] | None = None, compiled: bool = True):
        super().__init__(params, _adam_defaults("LazyAdam", lr, betas, eps))
        self.run = run
        self.compiled = compiled

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        loss = closure() if closure is not None else None
        for group, p in _parameters(self):
            if p.grad is None:
                continue
            rows, values = _rows_and_values(p.grad, p)
            if rows.numel() == 0:
                continue
            state = self.state[p]
            if not state:
                state["step"] = torch.zeros(p.shape[0], dtype=torch.int32, device=p.device)
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            beta1, beta2 = group["betas"]
            _update_rows(p, state, rows, values, group["lr"], beta1, beta2, group["eps"], self.run,
                         self.compiled)
        return loss


def _parameters(optimizer: torch.optim.Optimizer) -> Iterator[tuple[dict, torch.Tensor]]:
    """(group, parameter) for every parameter of ``optimizer``."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            yield group, p


def _adam_defaults(name: str, lr: float, betas: tuple[float, float], eps: float) -> dict:
    if lr <= 0.0 or eps <= 0.0 or not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
        raise ValueError(f"{name} needs lr > 0, eps > 0 and betas in [0, 1), got lr={lr}, betas={betas}, "
                         f"eps={eps}")
    return dict(lr=lr, betas=betas, eps=eps)


def _rows_and_values(grad: torch.Tensor, p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows (R,), values (R, ...)) of a gradient: distinct sorted rows, duplicates summed."""
    if grad.is_sparse:
        grad = grad if grad.is_coalesced() else grad.coalesce()
        return grad.indices()[0], grad.values()
    return torch.arange(p.shape[0], device=p.device), grad


def _in_order(tasks: list) -> list:
    return [task() for task in tasks]


# A CPU step splits its rows between threads from this many rows on (below, the hand-off costs more)
THREADS_FROM_ROWS = 4096


def _row_ranges(n: int) -> list[tuple[int, int]]:
    """The ranges a CPU step over ``n`` rows runs as: two halves (one per thread) from THREADS_FROM_ROWS
    rows, else one; the rows are independent, so the numbers are the same."""
    from .backends.fused import halves

    return list(halves(n)) if n >= THREADS_FROM_ROWS else [(0, n)]


def _update_rows(p: torch.Tensor, state: dict, rows: torch.Tensor, g: torch.Tensor, lr: float,
                 beta1: float, beta2: float, eps: float, run: Callable[[list], list] | None = None,
                 compiled: bool = True) -> None:
    """Adam on ``rows`` of ``p`` with gradient rows ``g`` in torch.optim.Adam's order: on CPU one compiled
    pass, halves on ``run``'s threads (torch's gathers cost many times more, bench/optimizer_step.py)."""
    if compiled and p.device.type == "cpu" and p.dim() == 2 and p.is_contiguous() and g.dtype == p.dtype:
        from .backends.fused import lazy_adam_rows  # numba: compiled (or loaded from its cache) on first use

        arrays = (p.detach().numpy(), state["exp_avg"].numpy(), state["exp_avg_sq"].numpy(),
                  state["step"].numpy())
        r, values = rows.numpy(), g.contiguous().numpy()
        (run or _in_order)([partial(lazy_adam_rows, *arrays, r[a:b], values[a:b], lr, beta1, beta2, eps)
                            for a, b in _row_ranges(rows.shape[0])])
        return
    step = state["step"].index_select(0, rows) + 1  # (R,)
    state["step"].index_copy_(0, rows, step)
    m = state["exp_avg"].index_select(0, rows).lerp_(g, 1.0 - beta1)  # (R, d)
    v = state["exp_avg_sq"].index_select(0, rows).mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
    state["exp_avg"].index_copy_(0, rows, m)
    state["exp_avg_sq"].index_copy_(0, rows, v)
    t = step.to(torch.float64).view(-1, *[1] * (p.dim() - 1))  # (R, 1): corrections in double, as Adam's
    step_size = (-lr / (1.0 - torch.pow(beta1, t))).to(p.dtype)
    bias2_sqrt = (1.0 - torch.pow(beta2, t)).sqrt_().to(p.dtype)
    denom = v.sqrt_().div_(bias2_sqrt).add_(eps)
    p.index_add_(0, rows, m.div_(denom).mul_(step_size))


class TableAdam(torch.optim.Optimizer):
    """Dense Adam (torch's numbers up to rounding) on contiguous CPU tables, one compiled pass on ``run``'s
    threads, from ``.grad`` or the fused loops' buffers ``sink`` holds, merged as it updates."""

    def __init__(self, params: Iterable[torch.nn.Parameter], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 run: Callable[[list], list] | None = None):
        super().__init__(params, _adam_defaults("TableAdam", lr, betas, eps))
        for _, p in _parameters(self):
            if not _cpu_table(p):
                raise ValueError(f"TableAdam updates contiguous 2-D float tables on CPU, got a "
                                 f"{tuple(p.shape)} {p.dtype} tensor on {p.device}; use torch.optim.Adam")
        self.run = run
        from .backends.fused import SegmentGradient  # numba's module: imported where training needs it

        self.sink = SegmentGradient()

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        from .backends.fused import adam_merged_rows  # numba: compiled (or loaded) on first use

        loss = closure() if closure is not None else None
        for group, p in _parameters(self):
            source = self.sink.take(p) or _dense_source(p)
            if source is None:
                continue
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
            state["step"] += 1
            bufs, fresh, scale = source
            beta1, beta2 = group["betas"]
            c = _adam_constants(state["step"], group["lr"], beta1, beta2, group["eps"], p.dtype)
            arrays = (p.detach().numpy(), state["exp_avg"].numpy(), state["exp_avg_sq"].numpy(),
                      bufs[0], fresh[0], bufs[1], fresh[1])
            (self.run or _in_order)([partial(adam_merged_rows, *arrays, a, b, scale, c)
                                     for a, b in _row_ranges(p.shape[0])])
        return loss


def _dense_source(p: torch.Tensor) -> tuple | None:
    """``p.grad`` as TableAdam's source: (buffers, flags, scale) with every row in the first."""
    if p.grad is None:
        return None
    g = (p.grad.to_dense() if p.grad.is_sparse else p.grad).to(p.dtype).contiguous().numpy()
    n = p.shape[0]
    return [g, g], [np.full(n, 2, np.uint8), np.full(n, 1, np.uint8)], 1.0


def _adam_constants(step: int, lr: float, beta1: float, beta2: float, eps: float, dtype: torch.dtype):
    """(-step size, sqrt of the second bias correction, 1 - β1, β2, 1 - β2, eps): corrections
    in double as torch.optim.Adam computes them, then in the table's precision."""
    step_size = -lr / (1.0 - beta1 ** step)
    bias2_sqrt = math.sqrt(1.0 - beta2 ** step)
    return np.array([step_size, bias2_sqrt, 1.0 - beta1, beta2, 1.0 - beta2, eps],
                    dtype=torch.empty((), dtype=dtype).numpy().dtype)
