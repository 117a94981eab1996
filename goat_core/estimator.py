"""``Goat``: the scikit-learn-style front of the library.

    >>> from goat_core import Goat, load_graph
    >>> goat = Goat(dim=64, epochs=5, seed=0).fit(load_graph("lesmis"))
    >>> goat.attention("Marius", "Thenardier").probability  # doctest: +SKIP

``__init__`` only stores parameters; ``fit`` validates them (in :data:`PARAMETERS`), trains,
and leaves learned attributes ending in ``_``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from numbers import Integral, Real
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from numpy.typing import ArrayLike

from . import model as modules
from . import persistence
from .attribution import SharedMass, shared_mass
from .errors import GraphFormatError, NotFittedError, ParameterError
from .graph import Graph, NodeIndex
from .kernels import GramCache
from .optim import LAZY_FROM_NODES, OPTIMIZERS, resolve_optimizer
from .sampling import Adjacency, Neighborhoods, sample_neighborhoods, split_edges
from .state import GoatState
from .tracking import AttentionHistory, AttentionTracker, pair_batch, pair_forward, sigmoid
from .training import PADDINGS, PairBatch, best_epoch, make_batch, run_training, score_pairs

VARIANTS = ("goat", "global", "mean-pool")
# How a score is computed; every choice computes the same function (tests/test_kernels.py,
# tests/test_fused.py). "fused": the compiled per-pair CPU loop; "torch": chunked torch code
# with a sparse backward (CUDA's path); "module": plain autograd through model.py.
BACKENDS = ("auto", "fused", "torch", "module")


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
    return (lambda v: v in options), f"one of {', '.join(map(repr, options))}", tuple(options)


def _device(v):
    """'auto', 'cpu', 'cuda' or 'cuda:N': the devices GOAT's compute paths run on (torch names
    others, e.g. 'mps' or 'meta', that no path here computes on)."""
    if v in ("auto", "cpu", "cuda"):
        return True
    return isinstance(v, str) and re.fullmatch(r"cuda:\d{1,3}", v) is not None


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
    "epochs": _param(100, _int(0), "passes over the training edges; with early stopping "
                     "(validation_fraction > 0) the most it tries (0: initialised only, the untrained "
                     "reference)"),
    "validation_fraction": _param(0.2, _real(0.0, 0.9), "early stopping: the share of the training "
                                  "edges carved out for validation (the paper's 20 percent); the "
                                  "epoch with the best validation AUC is then trained on every edge. "
                                  "0: train exactly `epochs` epochs (the paper's preset)"),
    "patience": _param(10, _int(1, 10_000), "early stopping: stop choosing after this many epochs "
                       "without a better validation AUC"),
    "batch_size": _param(256, _int(1), "pairs per optimisation step"),
    "negatives": _param(1, _int(0, 100), "negative pairs drawn from D^0.75 per edge"),
    "variant": _param("goat", _choice(VARIANTS), "goat = paper (max pooling); mean-pool = authors' code "
                      "(tanh + mean pooling); global = GoatGlobal ablation"),
    "exclude_partner": _param(True, _choice((True, False)), "leave the gossip partner out of each "
                              "other's neighborhood (the 'remainder' of the neighborhood, as at test time)"),
    "padding": _param("zero", _choice(PADDINGS), "neighborhoods smaller than N: zero = the paper's zero "
                      "padding (N slots, pads are zero vectors that take part in the max and take "
                      "softmax mass; chosen on validation: Email at a 55-percent split, 90.7 against "
                      "86.3 AUC); mask = pads left out of the max and the softmax (faster: only real "
                      "neighbors)"),
    "device": _param("auto", (_device, "'auto', 'cpu', 'cuda' or 'cuda:N'"), "where to train"),
    "seed": _param(0, _int(0, 2**63 - 1), "seed for every random draw"),
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
    """The compute path ``fit`` takes: ``backend`` with "auto" resolved, checked against the
    variant and the device.

    On CPU the compiled per-pair loop computes both poolings, the fastest path of each
    (``bench/variants.py``, Email 55 %: goat 55k pairs/s fused, 14k torch, 4.9k module;
    mean-pool 21k fused, 5.1k module). On CUDA the torch chunks compute max pooling and
    mean-pool takes the module. GoatGlobal is one dot product per pair: the module is its
    fastest path (288k pairs/s).
    """
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


# The most pairs ``fit(track_pairs=...)`` records. Each tracked pair costs a forward pass per epoch
# and its attention for every epoch. On Les Misérables (fast preset: 40 short epochs, where the
# tracker's share is largest) the tracker took 3 % of the fit at 64 pairs, 9 % at 256 (the 10 %
# target of tracking's cost), 34 % at 1,024 and 73 % at every ordered pair (5,852), whose memory
# reached 1.2 GB in issue 24's probe (BENCHMARKS.md, "Tracked pairs: the cap").
MAX_TRACKED_PAIRS = 64


@dataclass(frozen=True)
class PairAttention:
    """Everything GOAT computes for one gossip pair (s, t); arrays cover real neighbors only.

    ``muted`` names the neighbors left out of the max and the softmax (``Goat.attention(...,
    mute=[...])``): they stay in the arrays with attention 0. ``uniform`` is True when the
    attention is the uniform one over the same (unmuted) neighbors, not the learned one.
    """

    source: str
    target: str
    source_id: int
    target_id: int
    source_neighbors: np.ndarray  # (Ls,) node ids
    target_neighbors: np.ndarray  # (Lt,)
    source_names: list[str]
    target_names: list[str]
    alignment: np.ndarray  # (Ls, Lt) A = S Tᵀ (tanh'd for mean-pool)
    source_attention: np.ndarray  # (Ls,) sums to 1 - source_padding
    target_attention: np.ndarray  # (Lt,) sums to 1 - target_padding
    r_source: np.ndarray  # (d,)
    r_target: np.ndarray  # (d,)
    score: float  # r_s · r_t
    probability: float  # sigmoid(score)
    is_edge: bool
    source_padding: float = 0.0  # attention mass on zero pads (padding="zero"), shown as "(padding)"
    target_padding: float = 0.0
    muted: tuple[str, ...] = ()  # neighbors left out of the max and the softmax (attention 0)
    uniform: bool = False  # uniform attention over the same neighbors instead of the learned one

    @property
    def shared(self) -> list[str]:
        common = set(self.source_neighbors.tolist()) & set(self.target_neighbors.tolist())
        return [name for i, name in zip(self.source_neighbors.tolist(), self.source_names) if i in common]

    def shared_mass(self) -> SharedMass:
        """Each side's attention on the shared neighbors, beside uniform attention's."""
        return shared_mass(self.source_names, self.source_attention, self.target_names, self.target_attention,
                           self.shared)

    def to_dict(self) -> dict:
        def rows(names, weights):
            order = np.argsort(-weights, kind="stable")
            return [{"node": names[i], "weight": float(weights[i])} for i in order]
        return {
            "source": self.source, "target": self.target, "probability": self.probability,
            "score": self.score, "is_edge": self.is_edge,
            "source_attention": rows(self.source_names, self.source_attention),
            "target_attention": rows(self.target_names, self.target_attention),
            "shared_neighbors": self.shared,
            "source_padding": self.source_padding, "target_padding": self.target_padding,
            "muted": list(self.muted), "uniform": self.uniform,
        }


class Goat:
    """GOAT: Gossip and Attend (Kefato & Girdzijauskas, ICWSM 2020).

    Parameters (defaults: a configuration validated on Email, RESULTS.md section 1): dim=200,
    neighborhood=100, dropout=0.8, lr=3e-3, epochs=100 at most, chosen by early stopping on a
    20-percent validation carve-out (validation_fraction=0.2, patience=10), batch_size=256,
    negatives=1, variant="goat", exclude_partner=True, device="auto", seed=0,
    inference_draws=1, backend="auto", optimizer="auto", padding="zero" (the paper's, and the better one on
    validation). ``goat_core.presets.paper(dataset)`` is Table 2 literally. See
    :data:`PARAMETERS` for their meaning.

    Learned attributes: ``graph_`` (the training graph), ``model_`` (the nn.Module),
    ``embedding_`` (global embeddings, (n, d)), ``neighborhoods_`` (the fixed inference draw:
    attention, representations and the first of ``inference_draws`` draws scores average over),
    ``history_`` (one row per epoch: loss, elapsed, val_auc), ``device_``, ``backend_`` (the
    compute path: "fused", "torch" or "module"), ``optimizer_`` (the table's update: "adam" or
    "lazy-adam"), ``early_stopping_`` (with validation_fraction >
    0: the chosen ``best_epoch``, the carve-out's ``val_auc`` per epoch tried, its size; None
    otherwise), ``tracked_`` (an
    :class:`AttentionHistory` per pair of ``fit(..., track_pairs=...)``; see
    :meth:`attention_history`).
    """

    def __init__(self, dim: int = 200, neighborhood: int = 100, dropout: float = 0.8, lr: float = 3e-3,
                 epochs: int = 100, validation_fraction: float = 0.2, patience: int = 10,
                 batch_size: int = 256, negatives: int = 1, variant: str = "goat",
                 exclude_partner: bool = True, device: str = "auto", seed: int = 0, inference_draws: int = 1,
                 backend: str = "auto", padding: str = "zero", optimizer: str = "auto"):
        self.dim = dim
        self.neighborhood = neighborhood
        self.dropout = dropout
        self.lr = lr
        self.epochs = epochs
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.batch_size = batch_size
        self.negatives = negatives
        self.variant = variant
        self.exclude_partner = exclude_partner
        self.device = device
        self.seed = seed
        self.inference_draws = inference_draws
        self.backend = backend
        self.padding = padding
        self.optimizer = optimizer

    run_info_: dict  # set by Goat.load: the metadata saved with the run
    load_notes_: tuple[str, ...]  # set by Goat.load: what the user should know (e.g. an older run format)
    tracked_: tuple[AttentionHistory, ...]  # set by fit (track_pairs) and from_state

    # ------------------------------------------------------------------ parameters
    def get_params(self) -> dict:
        return {name: getattr(self, name) for name in PARAMETERS}

    def set_params(self, **params) -> Goat:
        for name, value in params.items():
            if name not in PARAMETERS:
                raise ParameterError(f"unknown parameter {name!r}; known: {', '.join(PARAMETERS)}")
            setattr(self, name, value)
        return self

    def _validate_params(self) -> None:
        check_params(self.get_params())

    def _resolve_device(self) -> torch.device:
        return resolve_device(self.device)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"Goat({args})"

    # ------------------------------------------------------------------ fitting
    def _build_module(self, num_nodes: int,
                      generator: torch.Generator | None) -> modules.Goat | modules.GoatGlobal:
        if self.variant == "global":
            return modules.GoatGlobal(num_nodes, self.dim, self.dropout, generator)
        pooling = "mean" if self.variant == "mean-pool" else "max"
        return modules.Goat(num_nodes, self.dim, pooling, self.dropout, generator)

    def fit(self, graph: Graph, callback: Callable | None = None,
            validation: tuple[np.ndarray, np.ndarray] | None = None,
            track_pairs: Sequence[tuple[int | str, int | str]] | None = None) -> Goat:
        """Train on every edge of ``graph``.

        ``callback(progress)`` is called after every step; returning False (or raising
        :class:`TrainingCancelled`) stops training. ``validation`` = (pos_pairs, neg_pairs)
        arrays adds a validation AUC to each epoch's progress and history row.
        ``track_pairs`` = [(s, t), ...] (names or indices) records each pair's attention, both
        sides, and its score before training (epoch 0) and after every epoch, under the fixed
        inference draw: :meth:`attention_history` returns it, and it is saved with the run.
        Tracking changes nothing that training computes (``BENCHMARKS.md``: its cost).
        """
        return self.fit_shard(graph, callback=callback, validation=validation, track_pairs=track_pairs)

    def fit_shard(self, graph: Graph, rank: int = 0, world: int = 1, wrap: Callable | None = None,
                  device: torch.device | None = None, callback: Callable | None = None,
                  validation: tuple[np.ndarray, np.ndarray] | None = None,
                  track_pairs: Sequence[tuple[int | str, int | str]] | None = None) -> Goat:
        """``fit`` as process ``rank`` of ``world`` data-parallel processes (see
        :mod:`.distributed`): every process draws the same neighborhoods, pairs and batches from
        the seed and trains on every world-th pair of each batch; ``wrap`` wraps the step module
        (e.g. in ``DistributedDataParallel``, which averages the shards' gradients); ``device``
        overrides the resolved one (one GPU per process). ``world == 1`` is ``fit``."""
        self._validate_params()
        if graph.num_edges < 1:
            raise ParameterError(f"{graph.source}: the graph has no edges to train on")
        device = device if device is not None else self._resolve_device()
        backend = resolve_backend(self.backend, self.variant, device)
        pairs = self._tracked_pairs(graph, track_pairs)  # checked before any training
        run = dict(device=device, backend=backend, callback=callback, shard=(rank, world), wrap=wrap)
        stopping = None
        epochs = self.epochs
        if self.validation_fraction > 0 and self.epochs > 0:
            stopping = self._choose_epochs(graph, **run)
            epochs = stopping["best_epoch"]
        model, hood, history, tracker = self._train(graph, epochs, validation=validation, track=pairs, **run)
        self._set_learned(graph, model, hood, history, device, backend, stopping)
        self.tracked_ = tracker.histories() if tracker is not None else ()
        return self

    def _train(self, graph: Graph, epochs: int, validation=None, patience=None, stage="train",
               track: np.ndarray | None = None, **run):
        """A fresh module trained on ``graph`` from the seed: (model, inference draw, history,
        the tracker of the pairs ``track`` or None)."""
        generator = torch.Generator().manual_seed(self.seed)
        model = self._build_module(graph.num_nodes, generator).to(run["device"])
        hood = self.inference_neighborhoods(graph)
        tracker = None
        if track is not None and len(track) and isinstance(model, modules.Goat):  # records at every epoch end
            tracker = AttentionTracker(model, track, hood, graph.names, self.exclude_partner, self.padding,
                                       run["device"])
            tracker.record(0)
            run = dict(run, callback=tracker.wrap(run["callback"]))
        history = run_training(
            model, graph, epochs=epochs, batch_size=self.batch_size, lr=self.lr,
            negatives=self.negatives, neighborhood=self.neighborhood,
            exclude_partner=self.exclude_partner, generator=generator, padding=self.padding,
            validation=validation, inference_hood=hood, patience=patience, stage=stage,
            optimizer=resolve_optimizer(self.optimizer, graph.num_nodes), **run,
        )
        return model, hood, history, tracker

    def _choose_epochs(self, graph: Graph, **run) -> dict:
        """Early stopping: train on (1 - validation_fraction) of ``graph``'s edges, score the
        carved-out edges against as many non-edges of ``graph`` after every epoch, and stop after
        ``patience`` epochs without a better AUC. The best epoch is the number of epochs the
        final model trains on every edge."""
        try:
            carve = split_edges(graph, 1.0 - self.validation_fraction, self.seed)
        except ParameterError as err:
            raise ParameterError(f"early stopping: {err}: set validation_fraction to 0 "
                                 "(--validation-fraction 0) to train without it") from None
        _, _, history, _ = self._train(carve.train, self.epochs, validation=(carve.test_pos, carve.test_neg),
                                       patience=self.patience, stage="select", **run)
        return {"best_epoch": best_epoch(history), "epochs_tried": len(history),
                "val_auc": [row["val_auc"] for row in history],
                "validation_edges": int(len(carve.test_pos)), "fraction": self.validation_fraction}

    def _tracked_pairs(self, graph: Graph, track_pairs: Sequence | None) -> np.ndarray | None:
        """``track_pairs`` as (k, 2) node indices, checked (None when there are none)."""
        if track_pairs is None or len(track_pairs) == 0:
            return None
        if self.variant == "global":
            raise ParameterError("track_pairs records attention, which GoatGlobal has not: train variant "
                                 "'goat' or 'mean-pool'")
        if len(track_pairs) > MAX_TRACKED_PAIRS:
            raise ParameterError(f"track_pairs holds {len(track_pairs)} pairs; at most {MAX_TRACKED_PAIRS} "
                                 "are tracked (each costs memory for every epoch and a pass per epoch)")
        pairs: list[tuple[int, int]] = []
        for pair in track_pairs:
            try:
                if isinstance(pair, (str, bytes)):
                    raise TypeError
                source, target = pair  # a tuple, a list, a row of an (k, 2) array
            except (TypeError, ValueError):
                raise ParameterError(f"track_pairs holds (source, target) pairs, got {pair!r}") from None
            s, t = graph.index_of(source), graph.index_of(target)
            if s == t:
                raise ParameterError(f"track_pairs: a node cannot gossip with itself ({graph.names[s]!r})")
            if (s, t) not in pairs:
                pairs.append((s, t))
        return np.array(pairs)

    def resolved_device(self) -> torch.device:
        """The device ``fit`` trains on (``device="auto"`` resolved), after checking every
        parameter; a clear error for a missing GPU."""
        self._validate_params()
        return self._resolve_device()

    def inference_neighborhoods(self, graph: Graph) -> Neighborhoods:
        """The fixed draw answers use, from ``graph`` (seeded apart from training, so answers are
        repeatable): what ``fit`` keeps as ``neighborhoods_``."""
        generator = torch.Generator().manual_seed(self.seed + 1)
        return sample_neighborhoods(Adjacency.from_graph(graph), self.neighborhood, generator)

    # ------------------------------------------------------------------ state
    def state(self) -> GoatState:
        """What this fitted model learned, as plain data (see :class:`GoatState`)."""
        self._check_fitted()
        return GoatState(graph=self.graph_, embedding=self.model_.embedding.weight.detach().cpu(),
                         neighborhoods=self.neighborhoods_, history=list(self.history_),
                         backend=self.backend_, early_stopping=self.early_stopping_,
                         tracked=tuple(self.tracked_))

    @classmethod
    def from_state(cls, params: dict, state: GoatState, device: str = "auto") -> Goat:
        """A fitted ``Goat`` with ``params`` (validated) and the learned ``state``, on ``device``.

        Used by persistence (``Goat.load``) and by experiments that rescore a model with other
        neighborhoods (``dataclasses.replace(goat.state(), neighborhoods=...)``)."""
        check_params(dict(params, device=device))  # unknown names too: before they reach __init__
        goat = cls(**dict(params, device=device))
        n, dim = state.graph.num_nodes, goat.dim
        if tuple(state.embedding.shape) != (n + 1, dim):
            raise ParameterError(f"embedding has shape {tuple(state.embedding.shape)}, expected "
                                 f"{(n + 1, dim)} for {n} nodes and dim {dim}")
        resolved = goat._resolve_device()
        model = goat._build_module(n, None)
        with torch.no_grad():
            model.embedding.weight.copy_(state.embedding)
        backend = resolve_backend(goat.backend, goat.variant, resolved)
        goat._set_learned(state.graph, model.to(resolved), state.neighborhoods, list(state.history), resolved,
                          backend, state.early_stopping)
        goat.tracked_ = tuple(state.tracked)
        return goat

    def with_inference_graph(self, graph: Graph) -> Goat:
        """This model (same weights) answering with neighborhoods drawn from ``graph`` instead of
        the training graph, e.g. the full graph, to measure what test-edge leakage does."""
        state = replace(self.state(), graph=graph, neighborhoods=self.inference_neighborhoods(graph),
                        tracked=())  # tracked attention belongs to the training draw
        return Goat.from_state(self.get_params(), state, device=str(self.device_))

    def _set_learned(self, graph: Graph, model: modules.Goat | modules.GoatGlobal, hood: Neighborhoods,
                     history: list, device: torch.device, backend: str, early_stopping: dict | None) -> None:
        model.eval()
        self.early_stopping_ = early_stopping
        self.graph_ = graph
        self.model_ = model
        self.neighborhoods_ = hood
        self.history_ = history
        self.device_ = device
        self.backend_ = backend
        self.optimizer_ = resolve_optimizer(self.optimizer, graph.num_nodes)
        self.tracked_ = ()
        self.embedding_ = model.embedding.weight[:-1].detach().cpu().numpy().copy()
        self.__dict__.pop("_context_cache", None)
        self.__dict__.pop("_draws_cache", None)
        self._gram = GramCache()  # owned by this fitted model: scores of its weights only

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise NotFittedError("this Goat is not fitted yet: call fit(graph) or Goat.load(run_dir)")

    # ------------------------------------------------------------------ answers
    def _node(self, node: int | str) -> int:
        return self.graph_.index_of(node)  # a name (an int is the name it spells), or a NodeIndex

    def decision_function(self, pairs: ArrayLike) -> np.ndarray:
        """Scores (logits) of (s, t) pairs given as an (k, 2) array of node indices: the mean over
        ``inference_draws`` neighborhood draws, the first of which is ``neighborhoods_``."""
        self._check_fitted()
        hoods = self._draws() if self.variant != "global" else [self.neighborhoods_]
        pairs = np.asarray(pairs)
        scores = [score_pairs(self.model_, pairs, hood, self.exclude_partner, self.device_, self.backend_,
                              self._gram, padding=self.padding) for hood in hoods]
        if len(scores) == 1:
            return scores[0]
        return np.asarray(np.mean(scores, axis=0, dtype=np.float64), dtype=np.float32)

    def _draws(self) -> list[Neighborhoods]:
        """``neighborhoods_`` and inference_draws - 1 more draws from the training graph, each
        seeded from (seed, k): the same model gives the same scores, saved and loaded or not."""
        cached = self.__dict__.get("_draws_cache", [self.neighborhoods_])
        if len(cached) < self.inference_draws:
            adj = Adjacency.from_graph(self.graph_)
            size = self.neighborhoods_.table.shape[1]  # N as fitted
            for k in range(len(cached), self.inference_draws):
                seed = int(np.random.SeedSequence([self.seed, k]).generate_state(1, np.uint64)[0] >> 1)
                cached.append(sample_neighborhoods(adj, size, torch.Generator().manual_seed(seed)))
            self.__dict__["_draws_cache"] = cached
        return cached[:self.inference_draws]

    def predict_proba(self, pairs: ArrayLike) -> np.ndarray:
        """Edge probabilities sigmoid(r_s · r_t) of (s, t) pairs."""
        return 1.0 / (1.0 + np.exp(-self.decision_function(pairs)))

    def global_scores(self, pairs: ArrayLike) -> np.ndarray:
        """E_s · E_t with the global embeddings (GoatGlobal-style scoring of this model)."""
        self._check_fitted()
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return np.einsum("ij,ij->i", self.embedding_[pairs[:, 0]], self.embedding_[pairs[:, 1]])

    @torch.no_grad()
    def attention(self, source: int | str, target: int | str, mute: Sequence[int | str] | None = None,
                  uniform: bool = False) -> PairAttention:
        """The mutual attention of one pair, adjacent or not, under the fixed inference draw.

        ``mute`` (names or indices) are counterfactuals: each muted node is left out of the max
        and the softmax of every side whose sampled message holds it (a shared neighbor on both
        sides), so the others share its attention and the score changes; it stays in the arrays
        with attention 0. Muting a node in neither message, or every neighbor of a side, is a
        ParameterError. ``uniform=True`` replaces the learned attention with uniform attention
        over the same (unmuted) neighbors, i.e. r = the mean of their embeddings: what the pair
        would score without attention.
        """
        self._check_fitted()
        s, t = self._node(source), self._node(target)
        if s == t:
            raise ParameterError("a node cannot gossip with itself: pick two different nodes")
        if self.variant == "global":
            raise ParameterError("GoatGlobal has no attention: train variant 'goat' or 'mean-pool'")
        device = self.device_
        model = self.model_
        assert isinstance(model, modules.Goat)  # variant checked above
        batch, real_s, real_t = pair_batch(model, torch.tensor([s], device=device),
                                           torch.tensor([t], device=device), self.neighborhoods_.to(device),
                                           self.exclude_partner, self.padding)
        names = self.graph_.names
        muted = self._mutes(s, t, mute, batch, real_s, real_t)
        muted_ids = torch.tensor(muted, dtype=torch.int64, device=device)
        out = pair_forward(model, batch, real_s, real_t, torch.isin(batch.nbr_s, muted_ids),
                           torch.isin(batch.nbr_t, muted_ids), uniform=uniform)
        ms, mt = real_s[0].cpu().numpy(), real_t[0].cpu().numpy()  # real neighbors, muted ones included
        ids_s, ids_t = batch.nbr_s[0].cpu().numpy()[ms], batch.nbr_t[0].cpu().numpy()[mt]
        weights_s, weights_t = out.p_s[0].cpu().numpy(), out.p_t[0].cpu().numpy()
        score = float(out.logits[0])
        return PairAttention(
            source=names[s], target=names[t], source_id=s, target_id=t,
            source_neighbors=ids_s, target_neighbors=ids_t,
            source_names=[names[i] for i in ids_s], target_names=[names[i] for i in ids_t],
            alignment=out.alignment[0].cpu().numpy()[np.ix_(ms, mt)],
            source_attention=weights_s[ms], target_attention=weights_t[mt],
            source_padding=float(weights_s[~ms].sum()), target_padding=float(weights_t[~mt].sum()),
            r_source=out.r_s[0].cpu().numpy(), r_target=out.r_t[0].cpu().numpy(),
            score=score, probability=float(sigmoid(score)),
            is_edge=self.graph_.has_edge(s, t), muted=tuple(names[i] for i in muted), uniform=bool(uniform),
        )

    def _mutes(self, s: int, t: int, mute: Sequence[int | str] | None, batch: PairBatch, real_s: torch.Tensor,
               real_t: torch.Tensor) -> list[int]:
        """``mute`` as node indices (in order, once each), checked against the pair's messages."""
        if mute is None:
            return []
        nodes: list = [mute] if isinstance(mute, (str, Integral)) else list(mute)  # one node on its own
        names = self.graph_.names
        ids = list(dict.fromkeys(self._node(node) for node in nodes))
        side_s = set(batch.nbr_s[0][real_s[0]].tolist())
        side_t = set(batch.nbr_t[0][real_t[0]].tolist())
        for v in ids:
            if v not in side_s and v not in side_t:
                raise ParameterError(f"{names[v]} is not in the sampled neighborhood of {names[s]} or "
                                     f"{names[t]}: only a neighbor in either message can be muted")
        for node, side in ((s, side_s), (t, side_t)):
            if side and side <= set(ids):
                muted = ", ".join(names[v] for v in ids if v in side)
                raise ParameterError(f"muting {muted} leaves {names[node]} no neighbor to attend to: keep at "
                                     "least one of its neighbors unmuted")
        return ids

    def attention_history(self, source: int | str, target: int | str) -> AttentionHistory | None:
        """The attention of a pair tracked during training (``fit(..., track_pairs=...)``), after
        every epoch (row 0: before training); a pair tracked as (target, source) is returned
        seen from ``source``. None when the pair was not tracked."""
        self._check_fitted()
        s, t = self._node(source), self._node(target)
        for history in self.tracked_:
            if (history.source_id, history.target_id) == (s, t):
                return history
            if (history.source_id, history.target_id) == (t, s):
                return history.swapped()
        return None

    @torch.no_grad()
    def context_representations(self, node: int | str,
                                partners: Sequence[int | str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """r_node for each partner (default: its neighbors): one representation per partner."""
        self._check_fitted()
        u = self._node(node)
        if partners is None:
            ids = Adjacency.from_graph(self.graph_).neighbors(u).astype(np.int64)
        else:
            ids = np.array([self._node(p) for p in partners], dtype=np.int64)
        ids = ids[ids != u]
        return ids, self._representations(np.full(len(ids), u), ids)

    def _representations(self, nodes: np.ndarray, partners: np.ndarray, batch_size=4096) -> np.ndarray:
        """r_node (gossiping with partner) for aligned arrays of nodes and partners."""
        out = np.zeros((len(nodes), self.dim), dtype=np.float32)
        if self.variant == "global":
            out[:] = self.embedding_[nodes]
            return out
        hood = self.neighborhoods_.to(self.device_)
        for start in range(0, len(nodes), batch_size):
            s = torch.as_tensor(nodes[start:start + batch_size], device=self.device_)
            t = torch.as_tensor(partners[start:start + batch_size], device=self.device_)
            _, (r_s, *_rest) = self.model_(*make_batch(s, t, hood, self.exclude_partner, self.padding).args())
            out[start:start + len(s)] = r_s.float().cpu().numpy()
        return out

    @torch.no_grad()
    def node_embeddings(self, kind: str = "context") -> np.ndarray:
        """(n, d): ``global`` rows of E, or ``context`` = mean of r_u over u's neighbors."""
        self._check_fitted()
        if kind == "global":
            return self.embedding_.copy()
        if kind != "context":
            raise ParameterError(f"kind must be 'context' or 'global', got {kind!r}")
        cached = self.__dict__.get("_context_cache")
        if cached is None:
            cached = self._mean_context()
            self.__dict__["_context_cache"] = cached
        return cached.copy()

    def _mean_context(self) -> np.ndarray:
        adj = Adjacency.from_graph(self.graph_)
        nodes = torch.repeat_interleave(torch.arange(adj.num_nodes), adj.degree).numpy()
        reps = self._representations(nodes, adj.indices.numpy())
        sums = np.zeros((adj.num_nodes, self.dim))
        np.add.at(sums, nodes, reps)
        deg = adj.degree.numpy()
        mean = sums / np.maximum(deg, 1)[:, None]
        lonely = deg == 0  # no partner: the node can only speak for itself
        mean[lonely] = self.embedding_[lonely]
        return mean.astype(np.float32)

    def top_partners(self, node: int | str, k: int = 10,
                     exclude_neighbors: bool = False) -> list[tuple[str, float]]:
        """The k most likely gossip partners of ``node`` by edge probability (one score per
        other node: n pairs, never an n x n matrix)."""
        self._check_fitted()
        u = self._node(node)
        others = np.arange(self.graph_.num_nodes, dtype=np.int64)
        others = others[others != u]
        if exclude_neighbors:  # the edges u -> v (either direction when undirected)
            src, dst = self.graph_.src, self.graph_.dst
            linked = dst[src == u] if self.graph_.directed else np.concatenate([dst[src == u], src[dst == u]])
            others = others[~np.isin(others, linked)]
        probs = self.predict_proba(np.stack([np.full(len(others), u), others], axis=1))
        best = np.argsort(-probs, kind="stable")[:k]
        return [(self.graph_.names[others[i]], float(probs[i])) for i in best]

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path, extra: dict | None = None) -> Path:
        """Write this fitted model to the run directory ``path`` (see :mod:`.persistence`)."""
        return persistence.write_run(path, self.get_params(), self.state(), extra)

    @classmethod
    def load(cls, path: str | Path, device: str = "auto") -> Goat:
        """A fitted ``Goat`` from a run directory, checked in full first (:func:`.persistence.read_run`);
        bad or partial runs raise GraphFormatError naming the file and the problem, a device this
        machine lacks a ParameterError (checked before the run is read). Its ``run_info_`` is the
        ``extra`` metadata saved with it, ``load_notes_`` what the user should know (an older
        run format)."""
        resolve_device(device)  # the device's fault is never reported as the run's
        defaults = {name: spec.default for name, spec in PARAMETERS.items()}
        contents = persistence.read_run(path, defaults, lambda saved: check_params(saved, skip=("device",)))
        goat = cls.from_state(contents.params, contents.state, device=device)
        goat._check_tracked_last_rows(Path(path) / "weights.pt")
        goat.run_info_ = contents.extra
        goat.load_notes_ = contents.notes
        return goat

    def _check_tracked_last_rows(self, weights: Path) -> None:
        """Each tracked pair's last row is this model's own attention and scores (the tracker's
        last record is the final model): a history changed after saving is refused, in one line."""
        for k, history in enumerate(self.tracked_):
            pair = NodeIndex(history.source_id), NodeIndex(history.target_id)
            att, flat = self.attention(*pair), self.attention(*pair, uniform=True)
            rows = ((att.source_attention, history.source_attention[-1]),
                    (att.target_attention, history.target_attention[-1]),
                    ([att.source_padding, att.target_padding],
                     [history.source_padding[-1], history.target_padding[-1]]),
                    ([att.score, flat.score], [history.score[-1], history.uniform_score[-1]]))
            if not all(np.allclose(mine, saved, rtol=1e-4, atol=1e-4) for mine, saved in rows):
                who = f"tracked pair {k} ({history.source!r}, {history.target!r})"
                problem = f"{who}: its last row is not the final model's attention (changed after saving)"
                raise GraphFormatError(str(weights), problem)


def save_run(goat: Goat, path: str | Path, extra: dict | None = None) -> Path:
    """Write a fitted Goat to ``path`` (created if needed); ``extra`` is JSON metadata kept with
    the run (e.g. how a link-prediction split was made), back as ``run_info_`` after loading."""
    return goat.save(path, extra)


def load_run(path: str | Path, device: str = "auto") -> Goat:
    """Rebuild a fitted Goat from a run directory (``Goat.load``)."""
    return Goat.load(path, device=device)
