"""``Goat``'s parameters, declared once: name -> default, rule and meaning (:data:`PARAMETERS`).

``Goat``'s signature and docstring (tests/test_estimator.py keeps them in step), the CLI's
training options and the app's help texts all read it; :func:`check_params` is the one check of
a parameter, for ``fit`` and for a saved run.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np

from .backends.batch import PADDINGS
from .data.sampling import MAX_SEED
from .errors import ParameterError
from .optim import LAZY_FROM_NODES, OPTIMIZERS

VARIANTS = ("goat", "global", "mean-pool")
# How a score is computed; every choice computes the same function (tests/backends/test_kernels.py,
# tests/backends/test_fused.py). "fused": the compiled per-pair CPU loop; "torch": chunked torch code
# with a sparse backward (CUDA's path); "module": plain autograd through model.py.
BACKENDS = ("auto", "fused", "torch", "module")


# Upper bounds of the parameters that had none: past them a run never ends (10**30 epochs) or
# fails deep inside torch (a batch of 10**30 pairs), instead of being refused before any work.
MAX_EPOCHS = 100_000
MAX_BATCH_SIZE = 1 << 24


def _int(low, high=None):
    def check(v):
        is_int = isinstance(v, Integral) and not isinstance(v, bool)
        return is_int and low <= v and (high is None or v <= high)
    return check, f"an integer >= {low}" + (f" and <= {high}" if high is not None else "")


def _real(low, high, low_open=False, high_open=False):
    def check(v):
        if not isinstance(v, Real) or isinstance(v, bool):
            return False
        try:
            if not math.isfinite(v):  # math, not numpy: an int past int64 (10**20) is a number too
                return False
        except OverflowError:  # an int past any float (10**400)
            return False
        return (low < v if low_open else low <= v) and (v < high if high_open else v <= high)
    lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
    return check, f"a number in {lo}{low}, {high}{hi}"


def _choice(options):
    kinds = {type(option) for option in options}  # True == 1, but 1 is no choice of (True, False)
    return (lambda v: type(v) in kinds and v in options), f"one of {', '.join(map(repr, options))}", \
        tuple(options)


def _device(v):
    """'auto', 'cpu', 'cuda' or 'cuda:N': the devices GOAT's compute paths run on (torch names
    others, e.g. 'mps' or 'meta', that no path here computes on)."""
    return isinstance(v, str) and re.fullmatch(r"auto|cpu|cuda(:\d{1,3})?", v) is not None


class Parameter(NamedTuple):
    """One parameter of :class:`Goat`: its default, its check, what it must be, what it means,
    and its allowed values when it is a choice."""

    default: Any
    check: Callable[[Any], bool]
    expected: str
    meaning: str
    choices: tuple | None = None


def _param(default, rule: tuple, meaning: str) -> Parameter:
    check, expected, *choices = rule
    return Parameter(default, check, expected, meaning, choices[0] if choices else None)


# The one declared place for parameters: name -> default, constraint and meaning. ``Goat``'s
# signature, the CLI's options and the app's help texts all read it.
PARAMETERS: dict[str, Parameter] = {
    "dim": _param(200, _int(1, 4096), "embedding dimension d (paper: 200)"),
    "neighborhood": _param(100, _int(1, 65536), "neighbors sampled per node, N (paper: 100; Zhihu 250)"),
    "dropout": _param(0.8, _real(0.0, 1.0, high_open=True),
                      "dropout rate on embeddings (validated on Email: 0.8, the paper's Email value; "
                      "paper: 0.5 on its other graphs)"),
    "lr": _param(3e-3, _real(0.0, 10.0, low_open=True), "Adam learning rate (validated on Email: 3e-3; "
                 "paper: 1e-4, which 20 epochs leave undertrained)"),
    "epochs": _param(100, _int(0, MAX_EPOCHS), "passes over the training edges; with early stopping "
                     "(validation_fraction > 0) the most it tries (0: initialised only, the untrained "
                     "reference)"),
    "validation_fraction": _param(0.2, _real(0.0, 0.9), "early stopping: the share of the training "
                                  "edges carved out for validation (the paper's 20 percent); the "
                                  "epoch with the best validation AUC is then trained on every edge. "
                                  "0: train exactly `epochs` epochs (the paper's preset)"),
    "patience": _param(10, _int(1, 10_000), "early stopping: stop choosing after this many epochs "
                       "without a better validation AUC"),
    "batch_size": _param(256, _int(1, MAX_BATCH_SIZE), "pairs per optimisation step"),
    "negatives": _param(1, _int(0, 100), "negative pairs drawn from D^0.75 per edge"),
    "variant": _param("goat", _choice(VARIANTS), "goat = paper (max pooling); mean-pool = authors' code "
                      "(tanh + mean pooling); global = GoatGlobal ablation"),
    "exclude_partner": _param(True, _choice((True, False)), "leave the gossip partner out of each "
                              "other's neighborhood (the 'remainder' of the neighborhood, as at test time)"),
    "padding": _param("zero", _choice(PADDINGS), "neighborhoods smaller than N: zero = the paper's zero "
                      "padding (N slots, pads are zero vectors that take part in the max and take "
                      "softmax mass; it won on Email's validation splits, RESULTS.md); mask = pads left "
                      "out of the max and the softmax (faster: only real "
                      "neighbors)"),
    "device": _param("auto", (_device, "'auto', 'cpu', 'cuda' or 'cuda:N'"), "where to train"),
    "seed": _param(0, _int(0, MAX_SEED), "seed for every random draw"),
    "inference_draws": _param(1, _int(1, 1024), "neighborhood draws whose logits are averaged when "
                              "scoring pairs (1: one fixed draw, as the paper; more: less sampling noise "
                              "for nodes with more than N neighbors)"),
    "backend": _param("auto", _choice(BACKENDS), "compute path (same numbers up to rounding): auto = "
                      "fused on CPU and torch on CUDA for goat, module for mean-pool and global; fused = "
                      "compiled per-pair CPU loop; torch = chunked torch kernels and torch's Adam, "
                      "nothing compiled (a fresh install trains at once); module = plain autograd"),
    "optimizer": _param("auto", _choice(OPTIMIZERS), "how the embedding table is updated: adam = dense Adam "
                        "(every row at every step); lazy-adam = row-sparse Adam (only the rows a batch "
                        "touched; the same quality on Email, BENCHMARKS.md); auto = lazy-adam from "
                        f"{LAZY_FROM_NODES:,} nodes on, adam below"),
}


def check_params(params: dict, skip: tuple[str, ...] = ()) -> None:
    """ParameterError unless ``params`` are :data:`PARAMETERS` names, each within its rule (those
    in ``skip`` are not looked at): the one check of a parameter, for ``fit`` and for a saved run."""
    for name in params:
        if name not in PARAMETERS:
            raise ParameterError(f"unknown parameter {name!r}; known: {', '.join(PARAMETERS)}")
    for name, spec in PARAMETERS.items():
        if name in params and name not in skip and not spec.check(params[name]):
            raise ParameterError(f"{name} must be {spec.expected}, got {params[name]!r}")


def plain(value: Any) -> Any:
    """A numpy scalar (``np.int64(2)`` from an array or a grid) as the Python value it holds, which
    every rule, torch's seeding and batch splits and JSON take; anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value


def parameter_docs(indent: str = "    ", width: int = 100) -> str:
    """:data:`PARAMETERS` as a docstring section, one bullet per parameter: ``name=default``
    and its meaning (``Goat``'s docstring is made from it)."""
    lines: list[str] = []
    for name, spec in PARAMETERS.items():
        lines += textwrap.wrap(f"{name}={spec.default!r}: {spec.meaning}", width=width,
                               initial_indent=f"{indent}* ", subsequent_indent=f"{indent}  ")
    return "\n".join(lines)


class SearchRange(NamedTuple):
    """Where ``goat tune`` looks for one parameter: the values of a choice, or [low, high]
    (integers for an integer parameter), sampled on a log scale when ``log``."""

    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple | None = None


# The search space of ``goat tune`` (goat_core.tune), declared once beside PARAMETERS: every bound
# is within its parameter's rule (tests/test_tune.py). The epochs are chosen per trial by early
# stopping, so they are not searched; ``--space NAME=LOW:HIGH`` or ``NAME=A,B`` narrows a range.
SEARCH_SPACE: dict[str, SearchRange] = {
    "lr": SearchRange(1e-4, 3e-2, log=True),
    "dropout": SearchRange(0.0, 0.9),
    "neighborhood": SearchRange(10, 250, log=True),
    "dim": SearchRange(32, 256, log=True),
    "negatives": SearchRange(1, 5),
    "batch_size": SearchRange(choices=(64, 128, 256, 512, 1024)),
    "padding": SearchRange(choices=PADDINGS),
}
