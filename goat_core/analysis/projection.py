"""2-D projections of embeddings: PCA (instant) and UMAP (slow first call), with progress."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..data.sampling import seed_32
from ..errors import ParameterError

METHODS = ("pca", "umap")

Progress = Callable[[float, str], None]  # (fraction done, what is happening)


def project(embeddings: np.ndarray, method: str = "pca", seed: int = 0,
            progress: Progress | None = None) -> np.ndarray:
    """(n, d) -> (n, 2), deterministic for a seed; ``progress`` hears UMAP's neighbour search (fraction 0),
    then each optimisation epoch."""
    embeddings = np.asarray(embeddings, dtype=np.float32)
    if embeddings.shape[0] < 3:
        raise ParameterError("need at least 3 points to project")
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed_32(seed)).fit_transform(embeddings)
    if method == "umap":
        return _umap(embeddings, seed, progress)
    raise ParameterError(f"method must be one of {METHODS}, got {method!r}")


def _umap(embeddings: np.ndarray, seed: int, progress: Progress | None) -> np.ndarray:
    import umap  # slow import (numba): only when asked for

    neighbors = max(2, min(15, embeddings.shape[0] - 1))
    options = {}
    if progress is not None:
        progress(0.0, "finding nearest neighbours")
        # umap reports its epochs only through tqdm: give tqdm a stream that tells ``progress``
        options["tqdm_kwds"] = {"disable": False, "file": _EpochStream(progress), "mininterval": 0.25,
                                "bar_format": "{n}/{total}"}
    reducer = umap.UMAP(n_components=2, n_neighbors=neighbors, random_state=seed_32(seed), n_jobs=1,
                        **options)
    coords = reducer.fit_transform(embeddings)
    if progress is not None:
        progress(1.0, "done")
    return coords


class _EpochStream:
    """A file for tqdm: each "n/total" it writes becomes ``progress(n / total, ...)``."""

    _COUNT = re.compile(r"(\d+)/(\d+)")

    def __init__(self, progress: Progress):
        self.progress = progress

    def write(self, text: str) -> int:
        found = self._COUNT.findall(text)
        if found:
            done, total = (int(x) for x in found[-1])
            if total:
                self.progress(done / total, f"optimising the layout: epoch {done}/{total}")
        return len(text)

    def flush(self) -> None:
        pass


def warm_up() -> None:
    """Compile UMAP's numba code on a tiny input (it takes a while on a fresh server, even with
    numba's disk cache: BENCHMARKS.md), so that a user's first UMAP does not pay for it."""
    points = np.random.default_rng(0).random((40, 4), dtype=np.float32)
    project(points, "umap", seed=0)
