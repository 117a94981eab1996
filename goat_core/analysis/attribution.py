"""Where a pair's score and attention come from: the maths behind the attention views, from a pair's
arrays (:class:`~.estimator.PairAttention`), never a model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


def score_contributions(alignment: np.ndarray, source_attention: np.ndarray,
                        target_attention: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The score r_s·r_t = Σ_ij p_s[i] p_t[j] A[i, j] split over s's neighbors (p_s[i] (A p_t)[i]) and over
    t's (p_t[j] (Aᵀ p_s)[j]); each sums to the score (an approximation for mean-pool's tanh'd A)."""
    A = np.asarray(alignment, dtype=float)
    p_s, p_t = np.asarray(source_attention, dtype=float), np.asarray(target_attention, dtype=float)
    return p_s * (A @ p_t), p_t * (A.T @ p_s)


def neighbor_drivers(source_names: Sequence[str], target_names: Sequence[str], source_contrib: np.ndarray,
                     target_contrib: np.ndarray) -> list[tuple[str, float]]:
    """Each neighbor's share of the score averaged over the sides (sums to the score), largest first."""
    total: dict[str, float] = {}
    for names, contrib in ((source_names, source_contrib), (target_names, target_contrib)):
        for name, c in zip(names, contrib, strict=True):
            total[name] = total.get(name, 0.0) + float(c) / 2.0
    return sorted(total.items(), key=lambda kv: -abs(kv[1]))


def max_pool_cells(alignment: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row argmax, column argmax) of the alignment: a_s[i] and a_t[j], Eqs. 3 and 4 of the paper."""
    alignment = np.asarray(alignment, dtype=float)
    return alignment.argmax(axis=1), alignment.argmax(axis=0)


def total_variation(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """Total variation distance between two attention distributions keyed by neighbor (a
    neighbor missing from one side has weight 0 there): 0 = the same, 1 = disjoint."""
    keys = dict.fromkeys([*p, *q])  # a fixed order (not a set's): the same float sum every run
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in keys)


@dataclass(frozen=True)
class SharedMass:
    """How much attention each side of a pair puts on the neighbors both sides share, and what
    uniform attention over the same neighbors would put there (the baseline to beat)."""

    source: float
    source_uniform: float
    target: float
    target_uniform: float


def shared_mass(source_names: Sequence[str], source_attention: np.ndarray, target_names: Sequence[str],
                target_attention: np.ndarray, shared: Sequence[str]) -> SharedMass:
    """Attention mass on the shared neighbors, per side, beside its uniform baseline."""
    shared_set = set(shared)
    on_s = np.array([n in shared_set for n in source_names], dtype=bool)
    on_t = np.array([n in shared_set for n in target_names], dtype=bool)
    uniform = lambda on: float(on.mean()) if len(on) else 0.0  # noqa: E731
    return SharedMass(float(np.asarray(source_attention)[on_s].sum()), uniform(on_s),
                      float(np.asarray(target_attention)[on_t].sum()), uniform(on_t))


def attention_entropy(weights: np.ndarray) -> np.ndarray:
    """Normalised entropy H(p) / log L per row of ``weights`` (..., L): 1 uniform, 0 on one neighbor (0 when
    L = 1); rows renormalised first, so zero padding's pads do not count."""
    w = np.asarray(weights, dtype=np.float64)
    total = w.sum(axis=-1, keepdims=True)
    p = w / np.where(total > 0, total, 1.0)
    plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    length = w.shape[-1]
    return -plogp.sum(axis=-1) / np.log(length) if length > 1 else np.zeros(w.shape[:-1])
