"""The logistic link and loss are written twice, once for numpy/torch (``backends.logistic``) and
once inside the compiled loop (``fused._sigmoid``, ``fused._loss_term``), because numba cannot
call torch: the two writings agree, far into both tails."""

from __future__ import annotations

import numpy as np
import torch

from goat_core.backends import fused, logistic
from goat_core.backends.logistic import dot_scores, logistic_loss, sigmoid

X = np.concatenate([np.linspace(-40.0, 40.0, 801), [-700.0, -1e-9, 0.0, 1e-9, 700.0]])


def test_the_compiled_sigmoid_is_the_shared_one():
    compiled = np.array([fused._sigmoid(x) for x in X])
    np.testing.assert_allclose(compiled, sigmoid(X), rtol=1e-12, atol=0.0)
    assert sigmoid(np.float32(2.0), dtype=np.float32).dtype == np.float32  # predict_proba keeps float32


def test_the_compiled_loss_terms_average_to_the_shared_loss():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, len(X)).astype(np.float64)
    weights = rng.uniform(0.1, 3.0, len(X))
    terms = np.array([fused._loss_term(x, y, w) for x, y, w in zip(X, labels, weights, strict=True)])
    shared = logistic_loss(torch.from_numpy(X), torch.from_numpy(labels), torch.from_numpy(weights))
    assert np.isclose(terms.mean(), float(shared), rtol=1e-12, atol=0.0)
    assert np.isfinite(terms).all() and (terms >= 0).all()


def test_sigmoid_of_a_large_negative_logit_is_zero_without_a_warning():
    """A model trained with lr=5 scores pairs at -1000: e^1000 overflowed with a RuntimeWarning on stderr."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sigmoid(np.array([-1000.0, 0.0, 1000.0])).tolist() == [0.0, 0.5, 1.0]
        assert sigmoid(np.array([-1000.0]), dtype=np.float32).tolist() == [0.0]


def test_dot_scores_gathers_the_rows_of_a_block_of_pairs_at_a_time(monkeypatch):
    """Ranking scores millions of pairs (GOAT's global embeddings, the walks'): gathering every pair's
    rows at once took gigabytes, so they are gathered a block at a time, with the same scores."""
    class Recording(np.ndarray):
        gathered: list[int] = []

        def __getitem__(self, index):
            Recording.gathered.append(np.size(index))
            return np.asarray(self)[index]

    monkeypatch.setattr(logistic, "PAIRS_PER_BLOCK", 4)
    emb = np.random.default_rng(0).standard_normal((10, 3))
    pairs = np.random.default_rng(1).integers(0, 10, (11, 2))
    scores = dot_scores(emb.view(Recording), pairs)
    assert Recording.gathered == [4, 4, 4, 4, 3, 3]  # source rows, then target rows, per block
    assert np.allclose(scores, [emb[s] @ emb[t] for s, t in pairs], rtol=1e-12)
