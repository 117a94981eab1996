"""σ and the weighted logistic loss of P(edge) = σ(r_s · r_t), written once for every path but the compiled
loop, whose copies (``fused._sigmoid``, ``fused._loss_term``) tests/backends/test_logistic.py holds equal;
and E_s · E_t of many pairs from one embedding table (GOAT's global embeddings, the walk baselines')."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import ArrayLike, DTypeLike

PAIRS_PER_BLOCK = 1 << 15  # pairs scored at a time: two (block, d) gathers, 105 MB at d = 200 in float64


def sigmoid(x: ArrayLike, dtype: DTypeLike = np.float64) -> np.ndarray:
    """σ(x) = 1 / (1 + e^-x) in ``dtype`` (float64 unless asked: probabilities shown to a reader;
    ``Goat.predict_proba`` keeps its scores' float32)."""
    with np.errstate(over="ignore"):  # e^1000 is inf and σ(-1000) is 0, as it should be: no warning
        return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=dtype)))


def logistic_loss(logits: torch.Tensor, labels: torch.Tensor, pair_weights: torch.Tensor) -> torch.Tensor:
    """The training loss of a batch: the pair-weighted mean of
    w·(max(x, 0) − x·y + log(1 + e^−|x|)), i.e. binary cross-entropy on the logits."""
    return F.binary_cross_entropy_with_logits(logits, labels, weight=pair_weights, reduction="mean")


def dot_scores(embedding: np.ndarray, pairs: ArrayLike) -> np.ndarray:
    """E_s·E_t for each (s, t) row of ``pairs``, a block of pairs at a time: ranking's 100 negatives per
    held-out edge are millions of pairs, whose rows gathered at once took gigabytes (1M edges: 2.3 GB)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    blocks = np.split(pairs, range(PAIRS_PER_BLOCK, len(pairs), PAIRS_PER_BLOCK))
    return np.concatenate([np.einsum("ij,ij->i", embedding[b[:, 0]], embedding[b[:, 1]]) for b in blocks])
