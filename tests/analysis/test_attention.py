"""``PairAttention`` and ``AttentionHistory`` share one base (``PairSides``): the pair and both
sides' neighbors, declared once; their rows of weights come from one function."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from goat_core import AttentionHistory, PairAttention
from goat_core.analysis.attention import PairSides, weight_rows

SIDES = ["source", "target", "source_id", "target_id", "source_neighbors", "target_neighbors", "source_names",
         "target_names"]


def test_both_answers_are_pair_sides_with_the_same_leading_fields():
    for cls in (PairAttention, AttentionHistory):
        assert issubclass(cls, PairSides)
        assert [f.name for f in fields(cls)][:len(SIDES)] == SIDES
    assert [f.name for f in fields(PairSides)] == SIDES


def test_shared_neighbors_and_weight_rows():
    sides = PairSides("s", "t", 0, 1, np.array([2, 3, 4]), np.array([4, 2]), ["b", "c", "d"], ["d", "b"])
    assert sides.shared == ["b", "d"]  # in s's order
    rows = weight_rows(["b", "c", "d"], np.array([0.2, 0.5, 0.3]))
    assert [r["node"] for r in rows] == ["c", "d", "b"] and rows[0]["weight"] == 0.5
    assert weight_rows(["b", "c", "d"], np.array([0.4, 0.2, 0.4]), top=2) == [
        {"node": "b", "weight": 0.4}, {"node": "d", "weight": 0.4}]  # ties keep their order
