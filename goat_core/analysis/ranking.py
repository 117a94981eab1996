"""Ranking metrics for link prediction (docs/evaluation.md): each held-out edge ranked against K negatives
sharing a node with it, ``random`` (OGB's corrupted ends) or ``hard`` (highest resource allocation, HeaRT);
rank = 1 + above + ½ equal (OGB's convention); MRR and Hits@K. GOAT's pairs are scored through the
compiled path's Gram mode on CPU, equal to ``Goat.decision_function`` up to rounding."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..backends.dispatch import GRAM_MIN_PAIRS, answering_backend, uses_gram
from ..data.graph import Graph
from ..data.sampling import EdgeSplit
from ..errors import ParameterError
from ..training import score_pairs

if TYPE_CHECKING:  # annotations only
    from ..estimator import Goat

RANKING_NEGATIVES = ("random", "hard")
DEFAULT_PER_POSITIVE = 100
HITS_AT = (10, 50, 100)
TIES = "mean"  # rank = 1 + above + equal / 2 (OGB's evaluator)


def ranks(positive: ArrayLike, negative: ArrayLike, valid: ArrayLike | None = None) -> np.ndarray:
    """(P,) rank of each positive score among its row of ``negative`` scores (P, K): 1 + the
    negatives above it + half the negatives equal to it; ``valid`` (P, K) leaves entries out."""
    pos = np.asarray(positive, dtype=np.float64).reshape(-1, 1)
    neg = np.asarray(negative, dtype=np.float64).reshape(len(pos), -1)
    keep = np.ones(neg.shape, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    above = ((neg > pos) & keep).sum(axis=1)
    equal = ((neg == pos) & keep).sum(axis=1)
    return 1.0 + above + 0.5 * equal


def ranking_metrics(rank: ArrayLike, hits_at: tuple[int, ...] = HITS_AT) -> dict[str, float]:
    """MRR (mean of 1/rank) and Hits@K (share of ranks ≤ K) of the ranks of the positives."""
    r = np.asarray(rank, dtype=np.float64)
    if r.size == 0:
        raise ParameterError("ranking metrics need at least one held-out edge")
    return {"mrr": float(np.mean(1.0 / r)), **{f"hits@{k}": float(np.mean(r <= k)) for k in hits_at}}


MAX_RANKING_SLOTS = 50_000_000  # (P, K) negatives: 850 MB of pairs and flags


@dataclass(frozen=True)
class RankingNegatives:
    """The pairs a ranking evaluation scores: positives (P, 2) and their negatives (P, K, 2), where
    ``valid`` (P, K) marks the slots that hold one (a positive short of candidates has fewer)."""

    positives: np.ndarray  # (P, 2) held-out edges
    negatives: np.ndarray  # (P, K, 2) non-edges sharing a node with their positive; -1 where none
    valid: np.ndarray  # (P, K) bool
    kind: str  # "random" or "hard"
    per_positive: int  # K asked for

    def pairs(self) -> np.ndarray:
        """(P + M, 2): the positives, then every valid negative in row order; score these."""
        return np.concatenate([self.positives, self.negatives[self.valid]]).astype(np.int64)

    def scoring_order(self) -> tuple[np.ndarray, np.ndarray]:
        """(pairs, order): ``pairs()[order]``, negatives written anchor (shared node) first and sorted by
        it, for :func:`goat_pair_scores`; scores ``s`` map back by ``out[order] = s``."""
        pairs = self.pairs()
        p = len(self.positives)
        owner = np.broadcast_to(np.arange(p)[:, None], self.valid.shape)[self.valid]
        neg = pairs[p:]
        flip = neg[:, 0] != self.positives[owner, 0]  # (w, b): written (b, w)
        neg[flip] = neg[flip, ::-1]
        order = np.argsort(pairs[:, 0], kind="stable")
        return pairs[order], order

    def metrics(self, scores: ArrayLike) -> dict:
        """MRR and Hits@K from the scores of :meth:`pairs` (in that order), with what was ranked."""
        scores = np.asarray(scores, dtype=np.float64).ravel()
        p, m = len(self.positives), int(self.valid.sum())
        if len(scores) != p + m:
            raise ParameterError(f"expected {p + m} scores (positives, then negatives), got {len(scores)}")
        table = np.full(self.valid.shape, -np.inf)
        table[self.valid] = scores[p:]
        return {**ranking_metrics(ranks(scores[:p], table, self.valid)), "negatives": self.kind,
                "per_positive": self.per_positive, "positives": p, "negatives_scored": m, "ties": TIES}

    def evaluate(self, score: Callable[[np.ndarray], ArrayLike]) -> dict:
        """:meth:`metrics` of ``score(pairs)``, a scorer of (k, 2) node-index pairs."""
        return self.metrics(score(self.pairs()))


def resource_allocation_rows(train: Graph, nodes: np.ndarray) -> np.ndarray:
    """(len(nodes), n) dense: RA(u, w) = Σ_{z ∈ N(u) ∩ N(w)} 1/D(z) on ``train``, for u in ``nodes``."""
    import scipy.sparse as sp  # imported here (and baselines): the CLI loads this module at start

    from .baselines import undirected_adjacency

    adj = undirected_adjacency(train.num_nodes, *train.undirected_pairs())
    degree = np.asarray(adj.sum(axis=1)).ravel()
    spread = sp.diags(1.0 / np.maximum(degree, 1.0)) @ adj  # row z: 1/D(z) to each neighbor of z
    return np.asarray((adj[nodes] @ spread).toarray())


def ranking_negatives(split: EdgeSplit, kind: str = "random", per_positive: int = DEFAULT_PER_POSITIVE,
                      seed: int | None = None, batch_cells: int = 4_000_000) -> RankingNegatives:
    """``per_positive`` negatives per held-out edge (a, b): (a, w) or (w, b), w neither a nor b, no edge of
    the full graph; seeded by ``seed`` (default the split's), apart from the split's draws."""
    if kind not in RANKING_NEGATIVES:
        raise ParameterError(f"ranking negatives must be one of {', '.join(RANKING_NEGATIVES)}, got {kind!r}")
    if isinstance(per_positive, bool) or not isinstance(per_positive, (int, np.integer)) or per_positive < 1:
        raise ParameterError(f"negatives per positive must be a positive integer, got {per_positive!r}")
    from .baselines import undirected_adjacency  # scipy: imported on use, not at the CLI's start

    rng = np.random.default_rng([split.seed if seed is None else seed, 27, RANKING_NEGATIVES.index(kind)])
    train, pos = split.train, np.ascontiguousarray(split.test_pos, dtype=np.int64).reshape(-1, 2)
    # never more slots than a positive has candidates, (a, w) and (w, b): past that every K ranks the same
    n = train.num_nodes
    k = min(int(per_positive), max(2 * (n - 2), 1))
    if len(pos) * k > MAX_RANKING_SLOTS:
        raise ParameterError(f"ranking {len(pos):,} held-out edges against {int(per_positive):,} negatives "
                             f"each is over the {MAX_RANKING_SLOTS:,} pairs ranked here: ask for at most "
                             f"{MAX_RANKING_SLOTS // max(len(pos), 1):,} negatives per positive")
    tsrc, tdst = train.undirected_pairs()
    full = undirected_adjacency(n, np.concatenate([tsrc, pos[:, 0]]), np.concatenate([tdst, pos[:, 1]]))
    negatives = np.full((len(pos), k, 2), -1, dtype=np.int64)
    valid = np.zeros((len(pos), k), dtype=bool)
    filled = _top_resource_allocation(train, pos, full, k, rng, negatives) if kind == "hard" else \
        np.zeros(len(pos), dtype=np.int64)
    # the rest drawn at random, checked against the edges: O(K) per positive, not O(n); the ones left
    # short (a small or dense graph) take all 2n candidates
    rows = _draw_random(pos, full, n, k, rng, negatives, valid, filled)
    step = max(1, batch_cells // max(2 * n, 1))
    for start in range(0, len(rows), step):
        _choose_exhaustively(train, pos, full, rows[start:start + step], kind, k, rng, negatives, valid)
    return RankingNegatives(pos, negatives, valid, kind, int(per_positive))


def _top_resource_allocation(train: Graph, pos: np.ndarray, full, k: int, rng: np.random.Generator,
                             negatives: np.ndarray) -> np.ndarray:
    """Hard negatives: each positive's K allowed candidates of highest resource allocation > 0, ties at
    random (:func:`.ranking_kernels.top_resource_allocation`); returns how many each positive got."""
    from ..backends.ranking_kernels import top_resource_allocation
    from .baselines import csr_arrays, undirected_adjacency

    adj = undirected_adjacency(train.num_nodes, *train.undirected_pairs())
    share = 1.0 / np.maximum(np.diff(adj.indptr), 1)
    salt = rng.integers(0, 2**63, size=len(pos), dtype=np.uint64)
    filled = np.zeros(len(pos), dtype=np.int64)
    top_resource_allocation(pos, *csr_arrays(adj), share, *csr_arrays(full), train.num_nodes, k, salt,
                            negatives, filled)
    return filled


def _draw_random(pos: np.ndarray, full, n: int, k: int, rng: np.random.Generator, negatives: np.ndarray,
                 valid: np.ndarray, filled: np.ndarray) -> np.ndarray:
    """Negatives by rejection after each positive's ``filled`` ones: 2K + 16 uniform draws per positive
    short of K, the first distinct allowed ones kept (:func:`.ranking_kernels.first_allowed_draws`);
    returns the positives still short of K."""
    from ..backends.ranking_kernels import first_allowed_draws  # numba: compiled (or loaded) on first use
    from .baselines import csr_arrays

    rows = np.flatnonzero(filled < k)
    code = rng.integers(0, 2 * n, size=(len(rows), 2 * k + 16))  # < n: (a, code); else (code - n, b)
    short = np.zeros(len(pos), dtype=bool)
    valid[filled == k] = True
    first_allowed_draws(code, rows, pos, *csr_arrays(full), n, k, negatives, valid, filled, short)
    return np.flatnonzero(short)


def _choose_exhaustively(train: Graph, pos: np.ndarray, full, rows: np.ndarray, kind: str, k: int,
                         rng: np.random.Generator, negatives: np.ndarray, valid: np.ndarray) -> None:
    """The negatives of the positives ``rows`` from all 2n candidates: the K highest on resource
    allocation (hard, ties at random) or K at random among the allowed ones."""
    n = train.num_nodes
    a, b = pos[rows, 0], pos[rows, 1]
    idx = np.arange(len(rows))
    # candidate j < n is (a, j); j >= n is (j - n, b)
    allowed = ~np.hstack([full[a].toarray() > 0, full[b].toarray() > 0])
    for ends in (a, b):
        allowed[idx, ends] = False
        allowed[idx, n + ends] = False
    noise = rng.random(allowed.shape)
    if kind == "hard":
        heat = np.hstack([resource_allocation_rows(train, a), resource_allocation_rows(train, b)])
        order = np.lexsort((noise, -np.where(allowed, heat, -np.inf)), axis=1)[:, :k]
    else:
        order = np.argsort(np.where(allowed, noise, np.inf), axis=1, kind="stable")[:, :k]
    kept = np.take_along_axis(allowed, order, axis=1)
    left = order < n
    w = np.where(left, order, order - n)
    pairs = np.stack([np.where(left, a[:, None], w), np.where(left, w, b[:, None])], axis=2)
    negatives[rows] = np.where(kept[..., None], pairs, -1)  # K <= 2n candidates: every slot is written
    valid[rows] = kept


def goat_pair_scores(goat: Goat, pairs: ArrayLike) -> np.ndarray:
    """``goat.decision_function(pairs)`` by the compiled path on CPU whatever trained the model: the Gram
    mode for max pooling and one draw (pass pairs grouped: :meth:`RankingNegatives.scoring_order`)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if goat.variant == "global" or goat.inference_draws > 1:
        return np.asarray(goat.decision_function(pairs), dtype=np.float32)
    backend = answering_backend("fused", goat.variant, goat.device_)
    return score_pairs(goat.model_, pairs, goat.neighborhoods_, goat.exclude_partner, goat.device_, backend,
                       goat._gram, padding=goat.padding)


def ranks_without_pair_loop(goat: Goat) -> bool:
    """Whether :func:`goat_pair_scores` ranks ``goat``'s pairs (at least GRAM_MIN_PAIRS) without the
    compiled per-pair loop: by the Gram mode (:func:`.dispatch.uses_gram` decides) or a GoatGlobal's
    module. Several inference draws are counted as taking the loop."""
    if goat.variant == "global":
        return True
    if goat.inference_draws > 1:
        return False
    backend = answering_backend("fused", goat.variant, goat.device_)
    return uses_gram(goat.model_, backend, GRAM_MIN_PAIRS, goat._gram)


def evaluate_goat_ranking(goat: Goat, negatives: RankingNegatives) -> dict:
    """MRR and Hits@K of a fitted Goat (its context-sensitive score) on ``negatives``."""
    pairs, order = negatives.scoring_order()
    scores = np.empty(len(pairs), dtype=np.float32)
    scores[order] = goat_pair_scores(goat, pairs)
    return negatives.metrics(scores)


def rank_heuristics(split: EdgeSplit, negatives: RankingNegatives) -> dict[str, dict]:
    """Each heuristic of ``baselines.HEURISTICS`` (from ``split.train``) ranked on ``negatives``. The
    walk baselines rank with their embeddings: ``node2vec.evaluate_walk_methods(..., ranking=[...])``."""
    from .baselines import heuristic_scores

    return {name: negatives.metrics(scores)
            for name, scores in heuristic_scores(split.train, negatives.pairs()).items()}
