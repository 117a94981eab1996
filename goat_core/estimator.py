"""``Goat``: the scikit-learn-style front of the library. ``__init__`` only stores parameters; ``fit``
validates them (:data:`PARAMETERS`), trains, and leaves learned attributes ending in ``_``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

from . import model as modules
from . import persistence
from .analysis.attention import AttentionHistory, PairAttention
from .analysis.representations import mean_context, representations
from .analysis.tracking import check_tracked_last_rows, pair_attention, tracked_pair_ids
from .backends.dispatch import GramCache, answering_backend, resolve_backend, resolve_device
from .backends.logistic import dot_scores, sigmoid
from .data.graph import Graph
from .data.sampling import Adjacency, Neighborhoods
from .errors import NotFittedError, ParameterError
from .fitting import build_module, choose_epochs, extra_draw, inference_neighborhoods, train_fresh
from .optim import resolve_optimizer
from .parameters import PARAMETERS, check_params, parameter_docs, plain
from .persistence import GoatState
from .training import score_pairs

DRAW_CACHE_BYTES = 256 * 2**20  # inference draws' tables kept between calls (decision_function)


class Goat:
    """GOAT: Gossip and Attend (Kefato & Girdzijauskas, ICWSM 2020).

    Parameters, as declared in :data:`.parameters.PARAMETERS` (defaults: a configuration validated on Email,
    RESULTS.md section 1; ``goat_core.presets.paper(dataset)`` is Table 2 literally):

{parameters}

    Learned attributes: ``graph_`` (the training graph), ``model_`` (the nn.Module), ``embedding_`` (global
    embeddings, (n, d)), ``neighborhoods_`` (the fixed inference draw: attention, representations and the
    first of ``inference_draws`` draws scores average over), ``history_`` (per epoch: loss, elapsed, val_auc),
    ``device_``, ``backend_`` ("fused", "torch" or "module"), ``optimizer_`` ("adam" or "lazy-adam"),
    ``early_stopping_`` (with validation_fraction > 0: the chosen ``best_epoch``, the carve-out's ``val_auc``
    per epoch tried, its size; else None), ``tracked_`` (an :class:`AttentionHistory` per tracked pair, see
    :meth:`attention_history`). How ``fit`` trains is in :mod:`.fitting`.
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

    # The signature above holds PARAMETERS' names and defaults (tests/test_parameters.py).
    run_info_: dict  # set by Goat.load: the metadata saved with the run
    load_notes_: tuple[str, ...]  # set by Goat.load: what the user should know (e.g. an older run format)
    tracked_: tuple[AttentionHistory, ...]  # set by fit (track_pairs) and from_state

    # ------------------------------------------------------------------ parameters
    def get_params(self) -> dict:
        return {name: plain(getattr(self, name)) for name in PARAMETERS}

    def set_params(self, **params) -> Goat:
        for name, value in params.items():
            check_params({name: value}, skip=(name,))  # its name only: fit checks the values
            setattr(self, name, value)
        return self

    def _validate_params(self) -> None:
        check_params(self.get_params())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"Goat({args})"

    # ------------------------------------------------------------------ fitting
    def fit(self, graph: Graph, callback: Callable | None = None,
            validation: tuple[np.ndarray, np.ndarray] | None = None,
            track_pairs: Sequence[tuple[int | str, int | str]] | None = None) -> Goat:
        """Train on every edge of ``graph``; ``callback(progress)`` after every step (False or
        :class:`TrainingCancelled` stops), ``validation`` = (pos_pairs, neg_pairs) for a per-epoch AUC,
        ``track_pairs`` = [(s, t), ...] recorded every epoch and saved (:meth:`attention_history`)."""
        return self.fit_shard(graph, callback=callback, validation=validation, track_pairs=track_pairs)

    def fit_shard(self, graph: Graph, rank: int = 0, world: int = 1, wrap: Callable | None = None,
                  device: torch.device | None = None, callback: Callable | None = None,
                  validation: tuple[np.ndarray, np.ndarray] | None = None,
                  track_pairs: Sequence[tuple[int | str, int | str]] | None = None) -> Goat:
        """``fit`` as process ``rank`` of ``world`` data-parallel ones (:mod:`.distributed`); ``wrap`` wraps
        the step module (DDP), ``device`` overrides the resolved one."""
        self._validate_params()
        if graph.num_edges < 1:
            raise ParameterError(f"{graph.source}: the graph has no edges to train on")
        device = device if device is not None else resolve_device(self.device)
        backend = resolve_backend(self.backend, self.variant, device)
        pairs = tracked_pair_ids(graph, track_pairs, self.variant)  # checked before any training
        if validation is not None:
            if not isinstance(validation, (tuple, list)) or len(validation) != 2:
                raise ParameterError("validation must be (positive pairs, negative pairs): two (k, 2) "
                                     "arrays of node positions")
            validation = (node_pairs(validation[0], graph.num_nodes, "validation pairs"),
                          node_pairs(validation[1], graph.num_nodes, "validation pairs"))
        run: dict[str, Any] = dict(device=device, backend=backend, callback=callback, shard=(rank, world),
                                   wrap=wrap)
        stopping, params = None, self.get_params()
        epochs = params["epochs"]
        if params["validation_fraction"] > 0 and epochs > 0:
            stopping = choose_epochs(params, graph, **run)
            epochs = stopping["best_epoch"]
        model, hood, history, tracker = train_fresh(params, graph, epochs, validation=validation,
                                                    track=pairs, **run)
        self._set_learned(graph, model, hood, history, device, backend, stopping)
        self.tracked_ = tracker.histories() if tracker is not None else ()
        return self

    def resolved_device(self) -> torch.device:
        """The device ``fit`` trains on (``device="auto"`` resolved), after checking every
        parameter; a clear error for a missing GPU."""
        self._validate_params()
        return resolve_device(self.device)

    def inference_neighborhoods(self, graph: Graph) -> Neighborhoods:
        """The fixed draw answers use (:func:`.fitting.inference_neighborhoods`): ``neighborhoods_``."""
        return inference_neighborhoods(self.get_params(), graph)

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
        """A fitted ``Goat`` with ``params`` (validated) and the learned ``state`` on ``device``; rescore
        with other neighborhoods through ``dataclasses.replace(goat.state(), neighborhoods=...)``."""
        check_params(dict(params, device=device))  # unknown names too: before they reach __init__
        goat = cls(**dict(params, device=device))
        n, dim = state.graph.num_nodes, goat.dim
        if tuple(state.embedding.shape) != (n + 1, dim):
            raise ParameterError(f"embedding has shape {tuple(state.embedding.shape)}, expected "
                                 f"{(n + 1, dim)} for {n} nodes and dim {dim}")
        resolved = resolve_device(goat.device)
        model = build_module(goat.get_params(), n, None)
        with torch.no_grad():
            model.embedding.weight.copy_(state.embedding)
        backend = answering_backend(goat.backend, goat.variant, resolved)
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

    def _nodes(self, nodes: Any) -> list[int]:
        """The indices of a list of nodes, or of one node on its own (bytes too, refused by index_of and
        never read as a list of integers; a number or a 0-d array, each named in index_of's error)."""
        one = isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable) or \
            (isinstance(nodes, np.ndarray) and nodes.ndim == 0)
        return [self._node(node) for node in ([nodes] if one else nodes)]

    def _pairs(self, pairs: ArrayLike) -> np.ndarray:
        return node_pairs(pairs, self.graph_.num_nodes)

    def decision_function(self, pairs: ArrayLike) -> np.ndarray:
        """Scores (logits) of (s, t) pairs given as an (k, 2) array of node indices: the mean over
        ``inference_draws`` neighborhood draws, the first of which is ``neighborhoods_``."""
        self._check_fitted()
        pairs = self._pairs(pairs)
        def score(hood: Neighborhoods) -> np.ndarray:
            return score_pairs(self.model_, pairs, hood, self.exclude_partner, self.device_, self.backend_,
                               self._gram, padding=self.padding)

        hoods = self._draws() if self.variant != "global" else iter([self.neighborhoods_])
        # a running float64 sum, a draw at a time: the same numbers as the mean of all, in one draw's memory
        first = score(next(hoods))
        total, count = first.astype(np.float64), 1
        for hood in hoods:
            total += score(hood)
            count += 1
        return first if count == 1 else np.asarray(total / count, dtype=np.float32)

    def _draws(self) -> Iterator[Neighborhoods]:
        """``neighborhoods_`` and inference_draws - 1 more draws from the training graph, each
        seeded from (seed, k): the same model gives the same scores, saved and loaded or not. The
        draws are kept for the next call while they fit in :data:`DRAW_CACHE_BYTES`; past that they
        are drawn again (1,024 draws of a 10k-node graph's N = 100 table are 8 GB)."""
        cached = self.__dict__.setdefault("_draws_cache", [self.neighborhoods_])
        table = self.neighborhoods_.table
        size, fits = table.shape[1], DRAW_CACHE_BYTES // max(table.numel() * table.element_size(), 1)
        for k in range(plain(self.inference_draws)):
            if k < len(cached):
                yield cached[k]
                continue
            hood = extra_draw(plain(self.seed), self.graph_, size, k)
            if k == len(cached) < fits:
                cached.append(hood)
            yield hood

    def predict_proba(self, pairs: ArrayLike) -> np.ndarray:
        """Edge probabilities sigmoid(r_s · r_t) of (s, t) pairs."""
        return sigmoid(self.decision_function(pairs), dtype=np.float32)

    def global_scores(self, pairs: ArrayLike) -> np.ndarray:
        """E_s · E_t with the global embeddings (GoatGlobal-style scoring of this model)."""
        self._check_fitted()
        return dot_scores(self.embedding_, self._pairs(pairs))

    @torch.no_grad()
    def attention(self, source: int | str, target: int | str, mute: Sequence[int | str] | None = None,
                  uniform: bool = False) -> PairAttention:
        """The mutual attention of one pair under the fixed inference draw; ``mute`` (names or indices)
        leaves nodes out of the max and softmax of each side holding them (else a ParameterError);
        ``uniform=True``: the mean of the same neighbors, no attention."""
        self._check_fitted()
        s, t = self._node(source), self._node(target)
        if s == t:
            raise ParameterError("a node cannot gossip with itself: pick two different nodes")
        if self.variant == "global":
            raise ParameterError("GoatGlobal has no attention: train variant 'goat' or 'mean-pool'")
        assert isinstance(self.model_, modules.Goat)  # variant checked above
        muted = list(dict.fromkeys(self._nodes(mute))) if mute is not None else []
        return pair_attention(self.model_, self.graph_, self.neighborhoods_, s, t, muted, uniform,
                              self.exclude_partner, self.padding, self.device_)

    def attention_history(self, source: int | str, target: int | str) -> AttentionHistory | None:
        """A pair's attention tracked during training, after every epoch (row 0: before training), seen from
        ``source`` even when tracked as (target, source); None when not tracked."""
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
            ids = np.array(self._nodes(partners), dtype=np.int64)
        ids = ids[ids != u]
        nodes = np.full(len(ids), u)
        return ids, representations(self.model_, self.embedding_, self.neighborhoods_, nodes, ids,
                                    self.exclude_partner, self.padding, self.device_)

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
            cached = mean_context(self.model_, self.embedding_, self.graph_, self.neighborhoods_,
                                  self.exclude_partner, self.padding, self.device_)
            self.__dict__["_context_cache"] = cached
        return cached.copy()

    def top_partners(self, node: int | str, k: int = 10,
                     exclude_neighbors: bool = False) -> list[tuple[str, float]]:
        """The k most likely gossip partners of ``node`` by edge probability (one score per
        other node: n pairs, never an n x n matrix)."""
        self._check_fitted()
        if not isinstance(k, Integral) or isinstance(k, bool) or k < 0:
            raise ParameterError(f"k must be a whole number >= 0 (how many partners), got {k!r}")
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
        """A fitted ``Goat`` from a run directory checked in full (:func:`.persistence.read_run`: errors
        name the file); ``run_info_``: its ``extra``; ``load_notes_``: notes (an older format)."""
        resolve_device(device)  # the device's fault is never reported as the run's
        contents = persistence.read_run(path)
        goat = cls.from_state(contents.params, contents.state, device=device)
        check_tracked_last_rows(goat.tracked_, goat.attention, Path(path) / contents.tensor_file)
        goat.run_info_ = contents.extra
        goat.load_notes_ = contents.notes
        return goat


Goat.__doc__ = (Goat.__doc__ or "").replace("{parameters}", parameter_docs())  # from PARAMETERS


def node_pairs(pairs: ArrayLike, n: int, what: str = "pairs") -> np.ndarray:
    """``pairs`` as a checked (k, 2) int64 array of positions of a graph of ``n`` nodes (the one place
    array answers and validation pairs are read): names and positions outside 0..n-1 are refused
    (``graph_.index_of`` gives positions)."""
    try:
        array = np.asarray(pairs)
    except ValueError:  # rows of different lengths
        raise ParameterError(f"{what} must be a (k, 2) array of node positions, got rows of different "
                             "lengths") from None
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise ParameterError(f"{what} must be node positions (integers 0..{n - 1}), got an array of "
                             f"{array.dtype}; turn names into positions with graph_.index_of(name)")
    if array.ndim != 2 or array.shape[1] != 2:
        raise ParameterError(f"{what} must be a (k, 2) array of node positions, got shape {array.shape}")
    outside = array[(array < 0) | (array >= n)]
    if len(outside):
        raise ParameterError(f"{what} hold the position {int(outside[0])}, outside 0..{n - 1} (the graph "
                             f"has {n} nodes)")
    return array.astype(np.int64, copy=False)
