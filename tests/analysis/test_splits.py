"""A run's training graph and the graph on screen (``goat_core.analysis.splits``)."""

from __future__ import annotations

import numpy as np

from goat_core import split_edges
from goat_core.analysis import splits


def test_recover_split(lesmis):
    split = split_edges(lesmis, 0.8, 9)
    found = splits.recover_split(lesmis, split.train, 9)
    assert found is not None and np.array_equal(found.test_neg, split.test_neg)
    assert splits.recover_split(lesmis, split.train, 10) is None  # other seed, other split
    assert splits.recover_split(lesmis, lesmis, 9) is None
