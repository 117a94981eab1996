"""Does attention explain the score? Each neighbor's attention weight against its leave-one-out effect
(score − score with it muted), by Spearman's ρ and Kendall's τ; degenerate cases give ``None`` with a
``note``, never NaN. All muted variants of a pair are one batch (:func:`.tracking.pair_forward`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from ..data.graph import NodeIndex
from ..data.sampling import Neighborhoods, check_seed, sample_non_edges
from ..errors import ParameterError
from ..model import Goat as GoatModule
from .replay import Model, train_watching
from .tracking import pair_batch, pair_forward

if TYPE_CHECKING:  # annotations only
    from ..estimator import Goat


@dataclass(frozen=True)
class Effects:
    """One pair's neighbors (union of both messages, source side first) with their weights and
    leave-one-out effects (NaN where a neighbor cannot be muted)."""

    ids: np.ndarray  # (V,) node ids
    sides: list[str]  # "source", "target" or "both"
    weights: np.ndarray  # (V,) attention, summed over the sides holding the node
    effects: np.ndarray  # (V,) score - score with the node muted; NaN: cannot be muted
    score: float


@dataclass(frozen=True)
class Faithfulness:
    """How well one pair's attention ranks its neighbors by their effect on the score."""

    source: str
    target: str
    names: list[str]
    effects: Effects
    spearman: float | None
    kendall: float | None
    note: str  # why a correlation is None, or "" when both are defined

    def to_dict(self) -> dict:
        """Strict-JSON ready: ``effects`` sorted by weight, ``None`` for what is undefined."""
        e = self.effects
        order = np.argsort(-e.weights, kind="stable")
        rows = [{"node": self.names[i], "weight": float(e.weights[i]), "side": e.sides[i],
                 "effect": None if math.isnan(e.effects[i]) else float(e.effects[i])} for i in order]
        return {"source": self.source, "target": self.target, "score": e.score, "spearman": self.spearman,
                "kendall": self.kendall, "note": self.note, "effects": rows}


def rank_correlations(weights: np.ndarray, effects: np.ndarray) -> tuple[float | None, float | None, str]:
    """(Spearman, Kendall, note) of the finite effects against their weights; None and a note when
    undefined (fewer than two values, or one side constant)."""
    from scipy.stats import kendalltau, spearmanr

    keep = np.isfinite(effects)
    w, e = np.asarray(weights, dtype=np.float64)[keep], np.asarray(effects, dtype=np.float64)[keep]
    if len(w) < 2:
        return None, None, (f"only {len(w)} neighbor(s) can be muted (a side's only neighbor cannot): no "
                            "ranking to compare")
    if np.ptp(w) == 0.0:
        return None, None, "every neighbor has the same attention weight: attention ranks nothing here"
    if np.ptp(e) == 0.0:
        return None, None, "muting any neighbor changes the score by the same amount: nothing to rank"
    rho, tau = float(spearmanr(w, e).statistic), float(kendalltau(w, e).statistic)
    if not (math.isfinite(rho) and math.isfinite(tau)):  # not expected once the checks above pass
        return None, None, "the rank correlation is undefined for these values"
    return rho, tau, ""


@torch.no_grad()
def pair_effects(model: GoatModule, hood: Neighborhoods, s: int, t: int, exclude_partner: bool,
                 padding: str) -> Effects:
    """Weights and leave-one-out effects of every neighbor of the pair (s, t) under ``hood``."""
    device = model.embedding.weight.device
    pair = torch.tensor([s], device=device), torch.tensor([t], device=device)
    batch, real_s, real_t = pair_batch(model, *pair, hood.to(device), exclude_partner, padding)
    base = pair_forward(model, batch, real_s, real_t)
    nbr_s, nbr_t = batch.nbr_s[0], batch.nbr_t[0]
    ids_s, ids_t = nbr_s[real_s[0]].tolist(), nbr_t[real_t[0]].tolist()
    ids = list(dict.fromkeys(ids_s + ids_t))
    sides = ["both" if v in ids_s and v in ids_t else ("source" if v in ids_s else "target") for v in ids]
    p_s, p_t = base.p_s[0], base.p_t[0]
    weights = np.array([float(p_s[(nbr_s == v) & real_s[0]].sum() + p_t[(nbr_t == v) & real_t[0]].sum())
                        for v in ids])
    effects = np.full(len(ids), np.nan)
    v = torch.tensor(ids, dtype=torch.int64, device=device).unsqueeze(1)  # (V, 1)
    mute_s = (nbr_s.unsqueeze(0) == v) & real_s  # (V, Ls): row k mutes node k
    mute_t = (nbr_t.unsqueeze(0) == v) & real_t  # (V, Lt)
    can = ((real_s & ~mute_s).any(1) & (real_t & ~mute_t).any(1)).cpu().numpy()  # each side keeps one
    if can.any():
        rows = torch.from_numpy(np.flatnonzero(can)).to(device)
        k = len(rows)
        many = type(batch)(*(x.expand(k, *x.shape[1:]) for x in batch.args()))
        muted = pair_forward(model, many, real_s.expand(k, -1), real_t.expand(k, -1), mute_s[rows],
                             mute_t[rows])
        effects[can] = float(base.logits[0]) - muted.logits.double().cpu().numpy()
    return Effects(np.array(ids, dtype=np.int64), sides, weights, effects, float(base.logits[0]))


def explain(found: Faithfulness) -> str:
    """One sentence a student can read: does the pair's attention rank its neighbors as their effects do?"""
    if found.spearman is None:
        return f"No verdict for this pair: {found.note}."
    rho = found.spearman
    if rho >= 0.7:
        verdict = ("attention is a good guide here: the neighbors it weighs most are, by and large, the ones "
                   "whose removal lowers the score most")
    elif rho >= 0.3:
        verdict = ("attention is a rough guide here: the most attended neighbors tend to matter more, with "
                   "exceptions")
    else:
        verdict = ("attention does not explain this score: the neighbors it weighs most are not the ones the "
                   "score depends on most. Attention says where the model looks, not why it scores")
    return f"Spearman's ρ = {rho:.2f} between attention and the effect of muting each neighbor: {verdict}."


def _check(goat: Goat) -> None:
    goat._check_fitted()
    if goat.variant == "global":
        raise ParameterError("GoatGlobal has no attention: train variant 'goat' or 'mean-pool'")


def faithfulness(goat: Goat, source: int | str, target: int | str) -> Faithfulness:
    """Each neighbor's attention weight against its leave-one-out effect, for the fitted ``goat``
    on the pair (source, target) (names, or ``NodeIndex`` positions), with their rank correlations."""
    _check(goat)
    s, t = goat.graph_.index_of(source), goat.graph_.index_of(target)
    if s == t:
        raise ParameterError("a node cannot gossip with itself: pick two different nodes")
    assert isinstance(goat.model_, GoatModule)  # _check: GoatGlobal has no attention
    found = pair_effects(goat.model_, goat.neighborhoods_, s, t, goat.exclude_partner, goat.padding)
    rho, tau, note = rank_correlations(found.weights, found.effects)
    names = goat.graph_.names
    return Faithfulness(names[s], names[t], [names[i] for i in found.ids], found, rho, tau, note)


def sample_pairs(goat: Goat, count: int, seed: int, kind: str = "edges") -> np.ndarray:
    """``count`` distinct pairs of the model's graph (positions), seeded: its edges, or non-edges."""
    if kind not in ("edges", "non-edges"):
        raise ParameterError(f"pairs must be 'edges' or 'non-edges', got {kind!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ParameterError(f"the number of pairs must be a positive integer, got {count!r}")
    check_seed(seed)
    graph, rng = goat.graph_, np.random.default_rng([seed, 27, 3])
    if kind == "edges":
        chosen = rng.permutation(graph.num_edges)[:count]
        return np.stack([graph.src[chosen], graph.dst[chosen]], axis=1).astype(np.int64)
    return sample_non_edges(graph, min(count, graph.num_nodes * (graph.num_nodes - 1) // 2 - graph.num_edges),
                            rng)


def summarize(values: list[float | None]) -> dict:
    """Distribution of per-pair correlations: how many are defined, median, quartiles, mean and
    the share above 0 (None for a statistic of no defined value)."""
    x = np.array([v for v in values if v is not None], dtype=np.float64)
    stats = dict.fromkeys(("median", "q25", "q75", "mean", "positive"))
    if len(x):
        stats["q25"], stats["median"], stats["q75"] = (float(q) for q in np.quantile(x, [0.25, 0.5, 0.75]))
        stats.update(mean=float(x.mean()), positive=float((x > 0).mean()))
    return {"pairs": len(values), "defined": int(len(x)), **stats}


def faithfulness_sample(goat: Goat, pairs: np.ndarray | None = None, count: int = 100, seed: int = 0,
                        kind: str = "edges") -> dict:
    """Faithfulness over many pairs: ``pairs`` (k, 2) positions, or ``count`` pairs drawn by
    :func:`sample_pairs`. Per pair its correlations; overall their distribution (:func:`summarize`)."""
    _check(goat)
    chosen = sample_pairs(goat, count, seed, kind) if pairs is None else np.asarray(pairs, dtype=np.int64)
    rows: list[dict[str, Any]] = []
    for s, t in chosen.tolist():
        found = faithfulness(goat, NodeIndex(s), NodeIndex(t))
        rows.append({"source": found.source, "target": found.target, "spearman": found.spearman,
                     "kendall": found.kendall, "neighbors": len(found.names), "note": found.note})
    return {"pairs": rows, "spearman": summarize([r["spearman"] for r in rows]),
            "kendall": summarize([r["kendall"] for r in rows]), "kind": kind if pairs is None else "given",
            "seed": seed}


def faithfulness_over_training(goat: Goat, pairs: list[tuple[int | str, int | str]]) -> dict:
    """The correlations of ``pairs`` after every epoch (0: initialised), replaying the training from its
    seed (one training; ``same_model`` checks the last epoch's model against ``goat``)."""
    _check(goat)
    ids = [(goat.graph_.index_of(s), goat.graph_.index_of(t)) for s, t in pairs]
    rows: list[list[dict]] = [[] for _ in ids]
    last: dict = {}

    def watch(model: Model, hood: Neighborhoods, epoch: int) -> bool:
        assert isinstance(model, GoatModule)  # _check: GoatGlobal has no attention
        for k, (s, t) in enumerate(ids):
            found = pair_effects(model, hood, s, t, goat.exclude_partner, goat.padding)
            rho, tau, _ = rank_correlations(found.weights, found.effects)
            rows[k].append({"epoch": epoch, "spearman": rho, "kendall": tau, "score": found.score})
        last["weights"] = model.embedding.weight.detach().cpu().clone()
        return False

    train_watching(goat, goat.graph_, len(goat.history_), watch)
    same = bool(torch.equal(last["weights"], goat.model_.embedding.weight.detach().cpu()))
    names = goat.graph_.names
    return {"pairs": [{"source": names[s], "target": names[t], "history": h} for (s, t), h in zip(ids, rows)],
            "same_model": same}
