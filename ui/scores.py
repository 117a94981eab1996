"""The Scores page's numbers: k-means on each embedding against the labels, and link prediction on
the run's held-out edges, GOAT beside the heuristics and, filled in from the background, DeepWalk
and node2vec (:func:`ui.jobs.walk_baselines`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import goat_core
from goat_core.analysis.baselines import HEURISTICS
from goat_core.analysis.node2vec import WALK_METHODS, walk_note

from . import cache, jobs
from .runs import RunRecord

KINDS = {"context": "GOAT context (mean r_u)", "global": "Global E"}
WALKS_UNASKED = 2_500  # nodes; DeepWalk and node2vec take 10-20 s of CPU on Email's 1,005


def clustering(run: RunRecord, labels: goat_core.NodeLabels, seed: int) -> dict[str, dict]:
    """Embedding title -> NMI, AMI, k, labelled nodes and contingency table of its k-means."""
    found = {}
    for kind, title in KINDS.items():
        embedding = cache.embeddings(run.key, kind, run.goat)
        found[title] = cache.clustering(f"{run.key}|{kind}", kind, seed, embedding, labels)
    return found


@dataclass
class LinkScores:
    """Every method's scores on the held-out edges: method -> (ROC, PR, AUC, AP)."""

    curves: dict[str, tuple] = field(default_factory=dict)
    walking: jobs.Job | None = None  # DeepWalk and node2vec, when asked for
    walked: dict = field(default_factory=dict)  # their results, once done

    def rows(self) -> list[dict]:
        return [{"method": name, "AUC": c[2], "AP": c[3]} for name, c in self.curves.items()]

    def note(self) -> str:
        return walk_note(self.walked)


def walks_unasked(run: RunRecord) -> bool:
    """DeepWalk and node2vec start without being asked on graphs of up to WALKS_UNASKED nodes."""
    return run.split is not None and run.split.train.num_nodes <= WALKS_UNASKED


def link_scores(run: RunRecord, lp: dict, walks: bool) -> LinkScores:
    """GOAT and its global embeddings (``lp``: :func:`cache.link_prediction`), the heuristics, and
    with ``walks`` the walk methods (submitted in the background; they join once done)."""
    assert run.split is not None
    found = LinkScores({"GOAT": (lp["roc"][:2], lp["pr"][:2], lp["auc"], lp["ap"]),
                        "global E": (lp["global_roc"][:2], lp["global_pr"][:2], lp["global_auc"],
                                     lp["global_ap"])})
    found.curves.update({HEURISTICS[name]: (r["roc"], r["pr"], r["auc"], r["ap"])
                         for name, r in cache.heuristics(run.key, run.split).items()})
    if walks:
        found.walking = jobs.walk_baselines(run.key, run.split)
        found.walked = found.walking.result if found.walking.ok else {}
    found.curves.update({WALK_METHODS[name]: (r["roc"], r["pr"], r["auc"], r["ap"])
                         for name, r in found.walked.items()})
    return found
