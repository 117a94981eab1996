"""2-D projections of embeddings: PCA (instant) and UMAP (slow first call)."""

from __future__ import annotations

import numpy as np

from .errors import ParameterError

METHODS = ("pca", "umap")


def project(embeddings: np.ndarray, method: str = "pca", seed: int = 0) -> np.ndarray:
    """(n, d) -> (n, 2). Deterministic for a given seed."""
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.shape[0] < 3:
        raise ParameterError("need at least 3 points to project")
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(embeddings)
    if method == "umap":
        import umap  # slow import (numba): only when asked for

        neighbors = max(2, min(15, embeddings.shape[0] - 1))
        reducer = umap.UMAP(n_components=2, n_neighbors=neighbors, random_state=seed, n_jobs=1)
        return reducer.fit_transform(embeddings)
    raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
