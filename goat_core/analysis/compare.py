"""Runs side by side on the same held-out pairs: each run's scores as rank percentiles among the test pairs
(raw scores of GOAT and GoatGlobal live on different scales); an edge is won by the run ranking it higher,
equal percentiles tie. Wins count edges, AUC counts by how much; docs/library.md runs one comparison."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError
from .evaluation import held_out_pairs, link_scores

if TYPE_CHECKING:
    from ..data.sampling import EdgeSplit
    from ..estimator import Goat

GLOBAL = "global"  # GoatGlobal scores E_s·E_t: it never looks at neighborhoods, so padding changes nothing


def run_name(variant: str, padding: str) -> str:
    """How a run is named in a comparison: "goat · zero", "mean-pool · mask", "global"."""
    return GLOBAL if variant == GLOBAL else f"{variant} · {padding}"


def variant_params(base: Mapping, variants: Iterable[str] = ("goat", "global", "mean-pool"),
                   paddings: Iterable[str] = ("zero",)) -> dict[str, dict]:
    """Run name -> parameters: ``base`` with each variant at each padding (GoatGlobal once)."""
    variants, paddings = list(dict.fromkeys(variants)), list(dict.fromkeys(paddings))
    if not variants or not paddings:
        raise ParameterError("compare needs at least one variant and one padding")
    out: dict[str, dict] = {}
    for variant in variants:
        for padding in ([base.get("padding", paddings[0])] if variant == GLOBAL else paddings):
            out.setdefault(run_name(variant, padding), dict(base, variant=variant, padding=padding))
    return out


def rank_percentiles(scores: np.ndarray) -> np.ndarray:
    """Each score's rank among ``scores`` over their number, in (0, 1]; ties share the average."""
    from scipy.stats import rankdata

    scores = np.asarray(scores, dtype=np.float64)
    return rankdata(scores, method="average") / max(len(scores), 1)


@dataclass(frozen=True)
class Comparison:
    """Runs (rows) on the same test pairs (columns): held-out edges (``labels`` 1), then non-edges."""

    names: tuple[str, ...]  # (runs,)
    pairs: np.ndarray  # (k, 2) node ids
    labels: np.ndarray  # (k,) 1 = held-out edge, 0 = non-edge
    scores: np.ndarray  # (runs, k) each run's raw score
    percentiles: np.ndarray  # (runs, k) rank percentile among the k pairs, in (0, 1]
    auc: tuple[float, ...]  # (runs,)
    ap: tuple[float, ...]  # (runs,)

    @property
    def num_edges(self) -> int:
        return int(self.labels.sum())

    def edge_percentiles(self) -> np.ndarray:
        """(runs, held-out edges): the percentiles of the held-out edges only."""
        return self.percentiles[:, self.labels == 1]

    def wins(self) -> np.ndarray:
        """(runs, runs): ``wins[a, b]`` = held-out edges that run a ranks above run b.
        ``wins[b, a]`` are a's losses against b; the rest of the edges are ties."""
        p = self.edge_percentiles()
        return (p[:, None, :] > p[None, :, :]).sum(axis=2)

    def ties(self) -> np.ndarray:
        p = self.edge_percentiles()
        return (p[:, None, :] == p[None, :, :]).sum(axis=2)

    def index(self, name: str) -> int:
        if name not in self.names:
            raise ParameterError(f"no run named {name!r} in this comparison; runs: {', '.join(self.names)}")
        return self.names.index(name)

    def to_dict(self) -> dict:
        """JSON-ready summary: AUC/AP per run, and wins/ties per ordered pair of runs."""
        per_pair = {key: {a: {b: int(counts[i, j]) for j, b in enumerate(self.names) if j != i}
                          for i, a in enumerate(self.names)}
                    for key, counts in (("wins", self.wins()), ("ties", self.ties()))}
        return {
            "test_edges": self.num_edges, "test_non_edges": int(len(self.labels) - self.num_edges),
            "runs": [{"name": n, "auc": self.auc[i], "ap": self.ap[i]} for i, n in enumerate(self.names)],
            **per_pair,
        }


def compare_scores(pairs: np.ndarray, labels: np.ndarray, scores: Mapping[str, np.ndarray]) -> Comparison:
    """A :class:`Comparison` of runs given by their raw scores of the same ``pairs``."""
    if not scores:
        raise ParameterError("compare needs at least one run")
    labels = np.asarray(labels, dtype=np.int64)
    matrix = np.stack([np.asarray(s, dtype=np.float64) for s in scores.values()])  # (runs, k)
    if matrix.shape[1] != len(labels):
        raise ParameterError(f"every run must score the {len(labels)} test pairs, got {matrix.shape[1]}")
    metrics = [link_scores(labels, row) for row in matrix]
    return Comparison(names=tuple(scores), pairs=np.asarray(pairs, dtype=np.int64), labels=labels,
                      scores=matrix, percentiles=np.stack([rank_percentiles(row) for row in matrix]),
                      auc=tuple(m["auc"] for m in metrics), ap=tuple(m["ap"] for m in metrics))


def compare_runs(split: EdgeSplit, runs: Mapping[str, Goat]) -> Comparison:
    """Score the split's held-out edges and non-edges with every fitted run (each trained on
    ``split.train``) and compare them edge by edge."""
    pairs, labels = held_out_pairs(split)
    pairs = pairs.astype(np.int64)
    for name, goat in runs.items():
        if goat.graph_.num_nodes != split.train.num_nodes:
            raise ParameterError(f"run {name!r} was trained on a graph of {goat.graph_.num_nodes} nodes, "
                                 f"not on this split's {split.train.num_nodes}")
    return compare_scores(pairs, labels, {name: goat.decision_function(pairs) for name, goat in runs.items()})
