"""The one place that decides how a GOAT score is computed: the module (the reference), the compiled
CPU loop (with its Gram mode) or the torch chunks; docs/architecture.md, "Compute paths", says when."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import torch
from torch import nn

from ..errors import ParameterError
from ..model import Goat, GoatGlobal
from ..parameters import PARAMETERS, VARIANTS
from .batch import slot_ids, widths, zero_padded
from .logistic import logistic_loss
from .torch_chunks import PairScores
from .workers import DEFAULT_OPTIONS, KernelOptions, runner

if TYPE_CHECKING:  # fused is numba's module, imported only where a loop runs
    from .fused import SegmentGradient

KERNEL_BACKENDS = ("fused", "torch")  # the two fast paths of max-pooling GOAT
GRAM_MIN_PAIRS = 64  # fewer pairs: G's O(n²·d) product costs more than it saves
GRAM_MAX_NODES = 4096  # G is (n+1)² floats: 64 MiB at this size


def resolve_device(device: str) -> torch.device:
    """The torch device of the ``device`` parameter ('auto': a CUDA GPU when there is one), or a
    ParameterError that blames the device: not one GOAT runs on, or not on this machine."""
    spec = PARAMETERS["device"]
    if not spec.check(device):
        raise ParameterError(f"device must be {spec.expected}, got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resolved = torch.device(device)
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            raise ParameterError(f"device={device!r} was asked for but this machine has no CUDA GPU; use "
                                 "'auto' or 'cpu'")
        if resolved.index is not None and resolved.index >= torch.cuda.device_count():
            raise ParameterError(f"device={device!r} was asked for but this machine has "
                                 f"{torch.cuda.device_count()} CUDA GPU(s), numbered from 0")
    return resolved


def resolve_backend(backend: str, variant: str, device: torch.device) -> str:
    """The compute path ``fit`` takes, "auto" resolved and checked against variant and device: the fastest
    of each (BENCHMARKS.md): compiled on CPU; on CUDA torch for max pooling, the module for the others."""
    if backend == "auto":
        if variant == "global" or (variant == "mean-pool" and device.type != "cpu"):
            return "module"
        return "fused" if device.type == "cpu" else "torch"
    computes = {"fused": ("goat", "mean-pool"), "torch": ("goat",), "module": VARIANTS}[backend]
    if variant not in computes:
        raise ParameterError(f"backend={backend!r} computes variant {' and '.join(map(repr, computes))} "
                             f"only; use backend='module' or 'auto' for variant {variant!r}")
    if backend == "fused" and device.type != "cpu":
        raise ParameterError(f"backend='fused' runs on CPU only, but the device is {device}; "
                             "use backend='torch' or 'auto'")
    return backend


def answering_backend(backend: str, variant: str, device: torch.device) -> str:
    """The compute path a fitted model answers with on ``device``: its own ``backend`` where it runs, else
    "auto"'s (the same numbers up to rounding), so a ``fused`` run still answers on a GPU machine."""
    try:
        return resolve_backend(backend, variant, device)
    except ParameterError:
        return resolve_backend("auto", variant, device)


class PairScorer(nn.Module):
    """What a training step differentiates: a batch's logits by :func:`goat_logits` or the model's forward
    ("module"), as a module DDP can wrap; with ``sink`` the fused loss leaves TableAdam its gradient."""

    def __init__(self, model: nn.Module, backend: str = "module",
                 options: KernelOptions = DEFAULT_OPTIONS,
                 sink: SegmentGradient | None = None):
        super().__init__()
        pooling = model.attention.pooling if isinstance(model, Goat) else None
        if (backend == "fused" and pooling is None) or (backend == "torch" and pooling != "max"):
            raise ValueError(f"backend {backend!r} does not compute this model ({type(model).__name__}, "
                             f"pooling {pooling}); use 'module'")
        self.pooling = pooling
        self.model: Goat | GoatGlobal = model  # type: ignore[assignment]  # checked by the caller's backend
        self.backend = backend
        self.options = options
        self.sink = sink  # fused.SegmentGradient: the fused loss leaves the gradient there, not in .grad

    @property
    def fast(self) -> bool:
        return self.backend in KERNEL_BACKENDS

    def forward(self, src: torch.Tensor, dst: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor,
                mask_s: torch.Tensor, mask_t: torch.Tensor, generator: torch.Generator | None = None,
                targets: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """Logits (B,); with ``targets`` = (labels, pair weights) their weighted mean logistic loss (the
        fused path computes it and its gradient in one pass)."""
        dropout = float(self.model.dropout) if self.training else 0.0
        if self.backend == "fused" and targets is not None:
            return goat_loss(self.model.embedding.weight, nbr_s, nbr_t, mask_s, mask_t, *targets, dropout,
                             generator, options=self.options, pooling=self.pooling or "max",
                             sparse=self.model.embedding.sparse, sink=self.sink)  # ()
        if self.fast:
            logits = goat_logits(self.model.embedding.weight, nbr_s, nbr_t, mask_s, mask_t, dropout,
                                 generator, backend=self.backend, options=self.options,
                                 pooling=self.pooling or "max",
                                 sparse=self.model.embedding.sparse)  # (B,)
        else:
            logits, _ = self.model(src, dst, nbr_s, nbr_t, mask_s, mask_t, generator=generator)  # (B,)
        if targets is None:
            return logits
        return logistic_loss(logits, *targets)  # ()


class GramCache:
    """G = E Eᵀ for one embedding table, recomputed when it changes; owned by whoever scores, never shared
    by the process. Thread-safe: app sessions may score with one fitted model at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weight: torch.Tensor | None = None
        self._gram: torch.Tensor | None = None

    def table(self, weight: torch.Tensor) -> torch.Tensor:
        """(n+1, n+1) G, valid while the weights equal those it came from: an exact O(n·d) comparison, since
        a fused Adam step does not bump the version counter."""
        with self._lock:
            cached, gram = self._weight, self._gram
            if (cached is not None and gram is not None and cached.shape == weight.shape
                    and cached.device == weight.device and cached.dtype == weight.dtype
                    and torch.equal(cached, weight)):
                return gram
            with torch.no_grad():
                gram = weight @ weight.T  # (n+1, n+1)
            self._weight, self._gram = weight.detach().clone(), gram
            return gram


def uses_gram(model: nn.Module, backend: str, pairs: int, gram: GramCache | None) -> bool:
    """Whether scoring ``pairs`` pairs (no dropout) takes the Gram mode (:mod:`.gram`) with the cache
    ``gram``: max-pooling GOAT in float32 on the compiled path, enough pairs, a table small enough for G."""
    if gram is None or backend != "fused" or not isinstance(model, Goat) or model.attention.pooling != "max":
        return False
    weight = model.embedding.weight
    return pairs >= GRAM_MIN_PAIRS and weight.dtype == torch.float32 and weight.shape[0] <= GRAM_MAX_NODES + 1


def goat_logits(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, dropout: float = 0.0, generator: torch.Generator | None = None,
                masks: tuple[torch.Tensor, torch.Tensor, float] | None = None, *, backend: str = "torch",
                options: KernelOptions = DEFAULT_OPTIONS, pooling: str = "max",
                sparse: bool = False) -> torch.Tensor:
    """Logits (B,) of ``model.Goat`` for a batch; ``weight`` (n+1, d), row n = pad. ``backend`` "fused"
    (CPU, either pooling; its gradient comes with the loss, :func:`goat_loss`) or "torch" (max pooling, any
    device; differentiable in ``weight``, sparsely with ``sparse``). ``dropout`` > 0 draws per-pair masks
    from ``generator``; ``masks`` = (keep_s, keep_t, keep) applies given 0/1 masks instead (torch only)."""
    if backend == "fused":
        if weight.device.type != "cpu" or masks is not None:
            raise ValueError("the fused backend runs on CPU and draws its own dropout masks")
        if weight.requires_grad and torch.is_grad_enabled():
            raise ValueError("the fused backend's gradient comes with its loss: call goat_loss (PairScorer "
                             "given targets), or score under torch.no_grad()")
        from . import fused  # numba: compiled (or loaded from its cache) on first use

        ids_s, ids_t, len_s, len_t, key, run, zero_pads = _fused_arguments(
            weight, nbr_s, nbr_t, mask_s, mask_t, float(dropout), generator, options)
        return fused.fused_logits(weight, ids_s, ids_t, len_s, len_t, 1.0 - dropout, key, run, pooling,
                                  zero_pads)
    if backend != "torch" or pooling != "max":
        raise ValueError(f"backend must be one of {KERNEL_BACKENDS} (torch: max pooling only), "
                         f"got {backend!r}")
    return PairScores.apply(weight, nbr_s, nbr_t, mask_s, mask_t, float(dropout), generator, masks, options,
                            sparse)


def goat_loss(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
              mask_t: torch.Tensor, labels: torch.Tensor, pair_weights: torch.Tensor, dropout: float = 0.0,
              generator: torch.Generator | None = None, *, options: KernelOptions = DEFAULT_OPTIONS,
              pooling: str = "max", sparse: bool = False,
              sink: SegmentGradient | None = None) -> torch.Tensor:
    """A training step's loss on CPU in one pass of the fused loop: ``logistic_loss`` of ``goat_logits(...,
    backend="fused")`` with the same masks, each pair's gradient made while its rows are in cache."""
    if weight.device.type != "cpu":
        raise ValueError("the one-pass loss is the fused backend's: it runs on CPU")
    from . import fused  # numba: compiled (or loaded from its cache) on first use

    ids_s, ids_t, len_s, len_t, key, run, zero_pads = _fused_arguments(weight, nbr_s, nbr_t, mask_s, mask_t,
                                                                       dropout, generator, options)
    return fused.fused_loss(weight, ids_s, ids_t, len_s, len_t, labels, pair_weights, 1.0 - dropout, key, run,
                            pooling, zero_pads, sparse, sink)


def _fused_arguments(weight, nbr_s, nbr_t, mask_s, mask_t, dropout: float, generator, options: KernelOptions):
    """What the fused loops take for a batch: ids with masked slots set to the pad id n, widths, the dropout
    key (one draw from ``generator``), the runner, and whether pads are zero vectors that take part."""
    pad = weight.shape[0] - 1
    ids_s = slot_ids(nbr_s, mask_s, pad)  # (B, Ls) masked slots hold the pad id
    ids_t = slot_ids(nbr_t, mask_t, pad)  # (B, Lt)
    key = int(torch.randint(0, 2**62, (1,), generator=generator)) if dropout > 0.0 else 0
    run = runner(weight.device, options.workers)
    return ids_s, ids_t, widths(mask_s), widths(mask_t), key, run, zero_padded(mask_s, mask_t)
