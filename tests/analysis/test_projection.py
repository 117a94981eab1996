"""Projections: PCA and UMAP are seeded, and UMAP reports its progress."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import ParameterError
from goat_core.analysis.projection import project


def blobs(n: int = 60, d: int = 6) -> np.ndarray:
    rng = np.random.default_rng(0)
    centers = rng.normal(scale=8.0, size=(3, d))
    return centers[np.arange(n) % 3] + rng.normal(size=(n, d))


def test_pca_is_deterministic_and_two_dimensional():
    a, b = project(blobs(), "pca", seed=0), project(blobs(), "pca", seed=0)
    assert a.shape == (60, 2) and np.array_equal(a, b)


def test_umap_reports_stages_then_epochs_and_matches_a_silent_run():
    heard: list[tuple[float, str]] = []
    coords = project(blobs(), "umap", seed=3, progress=lambda f, stage: heard.append((f, stage)))
    assert heard[0] == (0.0, "finding nearest neighbours") and heard[-1] == (1.0, "done")
    fractions = [f for f, stage in heard if stage.startswith("optimising")]
    assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert np.array_equal(coords, project(blobs(), "umap", seed=3))  # listening changes nothing


def test_too_few_points_or_an_unknown_method_is_a_parameter_error():
    with pytest.raises(ParameterError, match="at least 3 points"):
        project(np.zeros((2, 4)), "pca")
    with pytest.raises(ParameterError, match="method must be one of"):
        project(blobs(), "tsne")
