"""The maths behind the attention views: score contributions, drivers, total variation, shared mass."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, load_graph
from goat_core.analysis import attribution

from ..conftest import FAST


@pytest.fixture(scope="module")
def goat():
    return Goat(**FAST, seed=3).fit(load_graph("lesmis"))


def test_score_contributions_add_up_to_the_score(goat):
    att = goat.attention("Marius", "Thenardier")
    c_s, c_t = attribution.score_contributions(att.alignment, att.source_attention, att.target_attention)
    assert c_s.sum() == pytest.approx(att.score, abs=1e-4)
    assert c_t.sum() == pytest.approx(att.score, abs=1e-4)
    drivers = attribution.neighbor_drivers(att.source_names, att.target_names, c_s, c_t)
    assert sum(c for _, c in drivers) == pytest.approx(att.score, abs=1e-4)
    assert abs(drivers[0][1]) == max(abs(c) for _, c in drivers)


def test_total_variation_is_zero_for_the_same_and_one_for_disjoint():
    p = {"a": 0.5, "b": 0.5}
    assert attribution.total_variation(p, dict(p)) == 0.0
    assert attribution.total_variation(p, {"c": 1.0}) == pytest.approx(1.0)
    assert attribution.total_variation(p, {"a": 1.0}) == pytest.approx(0.5)


def test_shared_mass_beside_its_uniform_baseline():
    mass = attribution.shared_mass(["a", "b", "c", "d"], np.array([0.7, 0.1, 0.1, 0.1]), ["a", "x"],
                                   np.array([0.2, 0.8]), shared=["a"])
    assert (mass.source, mass.source_uniform) == (pytest.approx(0.7), pytest.approx(0.25))
    assert (mass.target, mass.target_uniform) == (pytest.approx(0.2), pytest.approx(0.5))
