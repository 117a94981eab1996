"""One node, two partners: how a node's attention and its representation move between two
gossip partners, and the partner that moves them most (the context-shift view)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..data.graph import NodeIndex
from .attribution import total_variation
from .picking import neighbors

if TYPE_CHECKING:
    from ..estimator import Goat
    from .attention import PairAttention


@dataclass(frozen=True)
class ContextShift:
    """How ``node``'s attention and representation move between two gossip partners."""

    node: str
    partner_a: str
    partner_b: str
    neighbor_names: list[str]  # union of the node's message for both partners
    weights_a: np.ndarray  # attention with partner a (NaN: not in that message)
    weights_b: np.ndarray
    r_a: np.ndarray  # r_node while gossiping with a
    r_b: np.ndarray
    probability_a: float
    probability_b: float

    @property
    def cosine(self) -> float:
        denom = float(np.linalg.norm(self.r_a) * np.linalg.norm(self.r_b))
        return float(self.r_a @ self.r_b) / denom if denom else float("nan")

    @property
    def moved(self) -> float:
        """Total variation between the two attention vectors (0 = same, 1 = disjoint)."""
        a, b = np.nan_to_num(self.weights_a), np.nan_to_num(self.weights_b)
        return total_variation(dict(zip(self.neighbor_names, a.tolist(), strict=True)),
                               dict(zip(self.neighbor_names, b.tolist(), strict=True)))

    def gained(self, k: int = 3) -> tuple[list[str], list[str]]:
        """The k neighbors with the most attention gained towards a, and towards b."""
        diff = np.nan_to_num(self.weights_a) - np.nan_to_num(self.weights_b)
        order = np.argsort(-diff, kind="stable")
        to_a = [self.neighbor_names[i] for i in order[:k] if diff[i] > 0]
        to_b = [self.neighbor_names[i] for i in order[::-1][:k] if diff[i] < 0]
        return to_a, to_b


def _source_weights(att: PairAttention) -> dict[str, float]:
    """The node's attention while gossiping, by neighbor name."""
    return dict(zip(att.source_names, att.source_attention.tolist(), strict=True))


def context_shift(goat: Goat, node: int | str, partner_a: int | str, partner_b: int | str) -> ContextShift:
    """Compare ``node``'s attention (and r_node) while gossiping with two partners (names, or
    ``NodeIndex`` positions: see ``Graph.index_of``)."""
    a, b = goat.attention(node, partner_a), goat.attention(node, partner_b)
    names = list(dict.fromkeys(a.source_names + b.source_names))
    wa, wb = ([w.get(n, np.nan) for n in names] for w in (_source_weights(a), _source_weights(b)))
    return ContextShift(
        node=a.source, partner_a=a.target, partner_b=b.target, neighbor_names=names,
        weights_a=np.array(wa), weights_b=np.array(wb),
        r_a=a.r_source, r_b=b.r_source, probability_a=a.probability, probability_b=b.probability,
    )


def contrasting_partner(goat: Goat, node: int, partner: int, limit: int = 50) -> int | None:
    """The neighbor of ``node`` (not ``partner``; among the ``limit`` highest-degree) under which its
    attention differs most from that with ``partner``, for the context-shift view; None if none."""
    graph = goat.graph_
    deg = graph.degrees()
    others = [int(v) for v in neighbors(graph, node) if v != partner]
    if not others:
        return None
    others = sorted(others, key=lambda v: (-deg[v], v))[:limit]
    ref = _source_weights(goat.attention(NodeIndex(node), NodeIndex(partner)))
    best, best_gap = None, -1.0
    for v in others:
        gap = total_variation(ref, _source_weights(goat.attention(NodeIndex(node), NodeIndex(v))))
        if gap > best_gap + 1e-12:
            best, best_gap = v, gap
    return best
