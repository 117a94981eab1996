"""What GOAT answers about a pair's attention, as plain data: :class:`PairAttention` (one
answer, ``Goat.attention``) and :class:`AttentionHistory` (a tracked pair after every epoch),
both a :class:`PairSides`: the pair and both sides' neighbors under the fixed inference draw."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.logistic import sigmoid
from .attribution import SharedMass, attention_entropy, shared_mass


@dataclass(frozen=True)
class PairSides:
    """A pair (s, t) and each side's real neighbors (pads left out) under the fixed draw."""

    source: str
    target: str
    source_id: int
    target_id: int
    source_neighbors: np.ndarray  # (Ls,) node ids
    target_neighbors: np.ndarray  # (Lt,)
    source_names: list[str]
    target_names: list[str]

    @property
    def shared(self) -> list[str]:
        """The neighbors both sides hold, in s's order."""
        common = set(self.source_neighbors.tolist()) & set(self.target_neighbors.tolist())
        return [name for i, name in zip(self.source_neighbors.tolist(), self.source_names) if i in common]


def weight_rows(names: list[str], weights: np.ndarray, top: int = 0) -> list[dict]:
    """``[{"node", "weight"}, ...]`` by weight, heaviest first (ties in order), the ``top`` first
    only when ``top`` > 0: one side's attention as the CLI and the JSON files write it."""
    order = np.argsort(-weights, kind="stable")
    order = order[:top] if top > 0 else order
    return [{"node": names[i], "weight": float(weights[i])} for i in order]


@dataclass(frozen=True)
class PairAttention(PairSides):
    """Everything GOAT computes for one gossip pair (s, t), over real neighbors: ``muted`` ones stay with
    attention 0; ``uniform`` is True for uniform attention over the same neighbors."""

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

    def shared_mass(self) -> SharedMass:
        """Each side's attention on the shared neighbors, beside uniform attention's."""
        return shared_mass(self.source_names, self.source_attention, self.target_names, self.target_attention,
                           self.shared)

    def to_dict(self) -> dict:
        return {
            "source": self.source, "target": self.target, "probability": self.probability,
            "score": self.score, "is_edge": self.is_edge,
            "source_attention": weight_rows(self.source_names, self.source_attention),
            "target_attention": weight_rows(self.target_names, self.target_attention),
            "shared_neighbors": self.shared,
            "source_padding": self.source_padding, "target_padding": self.target_padding,
            "muted": list(self.muted), "uniform": self.uniform,
        }


SERIES = ("epochs", "score", "uniform_score", "uniform_probability", "source_entropy", "target_entropy",
          "source_padding", "target_padding")


@dataclass(frozen=True)
class AttentionHistory(PairSides):
    """One tracked pair's attention (both sides) and score after every epoch, under the fixed inference
    draw: row 0 is the untrained model, the last ``Goat.attention(source, target)``; real neighbors only."""

    epochs: np.ndarray  # (E,) 0 (before training), 1, 2, ...
    source_attention: np.ndarray  # (E, Ls) each row sums to 1 - source_padding
    target_attention: np.ndarray  # (E, Lt)
    source_padding: np.ndarray  # (E,) mass on zero pads (padding="zero"), else 0
    target_padding: np.ndarray  # (E,)
    score: np.ndarray  # (E,) r_s · r_t
    uniform_score: np.ndarray  # (E,) the same with uniform attention (mean of the same neighbors)

    @property
    def probability(self) -> np.ndarray:
        """(E,) sigmoid(r_s · r_t) after each epoch."""
        return sigmoid(self.score)

    @property
    def uniform_probability(self) -> np.ndarray:
        return sigmoid(self.uniform_score)

    @property
    def source_entropy(self) -> np.ndarray:
        """(E,) normalised entropy of s's attention (1 = uniform, 0 = on one neighbor)."""
        return attention_entropy(self.source_attention)

    @property
    def target_entropy(self) -> np.ndarray:
        return attention_entropy(self.target_attention)

    def swapped(self) -> AttentionHistory:
        """The same history seen from the other side: (target, source)."""
        return AttentionHistory(
            self.target, self.source, self.target_id, self.source_id, self.target_neighbors,
            self.source_neighbors, self.target_names, self.source_names, self.epochs, self.target_attention,
            self.source_attention, self.target_padding, self.source_padding, self.score, self.uniform_score)

    def rows(self, top: int = 0) -> list[dict]:
        """One row per epoch, ``{"epoch", "source_attention", "target_attention", "probability"}``, each
        side as ``PairAttention.to_dict()``'s sorted rows (the ``top`` first when ``top`` > 0)."""
        return [{"epoch": int(epoch),
                 "source_attention": weight_rows(self.source_names, self.source_attention[k], top),
                 "target_attention": weight_rows(self.target_names, self.target_attention[k], top),
                 "probability": float(probability)}
                for k, (epoch, probability) in enumerate(zip(self.epochs, self.probability, strict=True))]

    def series(self) -> dict:
        """Per-epoch numbers beside :meth:`rows`: each of :data:`SERIES` as a list, one value per epoch."""
        return {name: getattr(self, name).tolist() for name in SERIES}
