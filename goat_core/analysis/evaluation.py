"""Leak-free evaluation: link prediction (AUC/AP) and node clustering (NMI/AMI). scikit-learn is imported
inside the functions: its slow import would otherwise be paid by ``import goat_core``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..data.graph import NodeLabels
from ..data.sampling import seed_32
from ..errors import ParameterError

if TYPE_CHECKING:  # annotations only: evaluation needs no estimator at run time
    from ..data.sampling import EdgeSplit
    from ..estimator import Goat


def link_scores(labels: np.ndarray, scores: np.ndarray) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    return {"auc": float(roc_auc_score(labels, scores)), "ap": float(average_precision_score(labels, scores))}


def link_curves(labels: np.ndarray, scores: np.ndarray) -> tuple:
    """(ROC points, PR points): each (x, y, thresholds), as scikit-learn returns them."""
    from sklearn.metrics import precision_recall_curve, roc_curve

    return roc_curve(labels, scores), precision_recall_curve(labels, scores)


def link_result(labels: np.ndarray, scores: np.ndarray, curves: bool = False, **extra) -> dict:
    """AUC and AP, then ``extra``'s items, then with ``curves`` the ROC and PR points (no thresholds)."""
    out = {**link_scores(labels, scores), **extra}
    if curves:
        roc, pr = link_curves(labels, scores)
        out["roc"], out["pr"] = roc[:2], pr[:2]
    return out


def held_out_pairs(split: EdgeSplit) -> tuple[np.ndarray, np.ndarray]:
    """The pairs every method is scored on, held-out edges then verified non-edges, and labels 1 then 0."""
    pairs = np.concatenate([split.test_pos, split.test_neg])
    return pairs, np.concatenate([np.ones(len(split.test_pos)), np.zeros(len(split.test_neg))])


def evaluate_link_prediction(goat: Goat, split: EdgeSplit, curves: bool = False) -> dict:
    """Held-out edges against verified non-edges, scored by a Goat fitted on ``split.train``: its own score
    (r_s·r_t for GOAT) and, beside it, the global embeddings' E_s·E_t."""
    pairs, labels = held_out_pairs(split)
    scores, glob = goat.decision_function(pairs), goat.global_scores(pairs)
    on_global = {f"global_{k}": v for k, v in link_scores(labels, glob).items()}
    result = {**link_scores(labels, scores), **on_global, "test_edges": int(len(split.test_pos)),
              "train_edges": int(split.train.num_edges)}
    if curves:  # for the model's score and for the global-embedding score
        result["roc"], result["pr"] = link_curves(labels, scores)
        result["global_roc"], result["global_pr"] = link_curves(labels, glob)
    return result


def cluster_embeddings(embeddings: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=k, n_init=10, random_state=seed_32(seed)).fit_predict(embeddings)


# The most label classes clustering scores: k-means' time grows with classes x nodes (a thousand
# classes on a 10k-node graph take seconds on 2 cores; ten thousand, many minutes).
MAX_CLASSES = 1000


def clustering_problem(labels: NodeLabels) -> str | None:
    """Why clustering scores against ``labels`` would mean nothing (fewer than two classes, or than two
    labelled nodes a class on average) or take too long (over :data:`MAX_CLASSES`); None when fine."""
    known = labels.codes >= 0
    labelled = int(known.sum())
    k = len(np.unique(labels.codes[known]))
    where = f"{labels.source}: " if labels.source else ""
    if k < 2:
        return (f"{where}{labelled} labelled node(s) in {k} class(es): clustering scores need at least two "
                "classes among the labelled nodes (with one, NMI and AMI are 1 for any clustering)")
    if 2 * k > labelled:
        return (f"{where}{k} classes for {labelled} labelled nodes: clustering scores need at least two "
                f"labelled nodes per class on average (at most {labelled // 2} classes here)")
    if k > MAX_CLASSES:
        return (f"{where}{k:,} classes: clustering scores at most {MAX_CLASSES:,} (k-means' time grows with "
                "classes x nodes)")
    return None


def check_clustering_labels(labels: NodeLabels) -> int:
    """The number of classes k-means will look for; a ParameterError saying why when
    :func:`clustering_problem` finds one."""
    problem = clustering_problem(labels)
    if problem is not None:
        raise ParameterError(problem)
    return len(np.unique(labels.codes[labels.codes >= 0]))


def evaluate_clustering(embeddings: np.ndarray, labels: NodeLabels, seed: int) -> dict:
    """k-means with k = number of label classes, on labelled nodes only; NMI and AMI.
    Labels whose scores would mean nothing are a ParameterError (:func:`check_clustering_labels`)."""
    from sklearn.metrics import adjusted_mutual_info_score, normalized_mutual_info_score

    k = check_clustering_labels(labels)
    known = labels.codes >= 0
    truth = labels.codes[known]
    predicted = cluster_embeddings(embeddings[known], k, seed)
    return {
        "nmi": float(normalized_mutual_info_score(truth, predicted)),
        "ami": float(adjusted_mutual_info_score(truth, predicted)),
        "k": int(k), "labelled_nodes": int(known.sum()), "predicted": predicted,
    }


def contingency(truth: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """(classes, clusters) counts, for a heatmap."""
    table = np.zeros((truth.max() + 1, predicted.max() + 1), dtype=np.int64)
    np.add.at(table, (truth, predicted), 1)
    return table
