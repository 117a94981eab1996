"""One node, two partners (``goat_core.analysis.contexts``)."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, NodeIndex
from goat_core.analysis import contexts

from ..conftest import FAST


@pytest.fixture(scope="module")
def goat(lesmis):
    return Goat(**FAST, seed=2).fit(lesmis)


def test_context_shift(goat):
    shift = contexts.context_shift(goat, NodeIndex(55), NodeIndex(25), NodeIndex(48))
    assert shift.node == "Marius" and shift.partner_a == "Thenardier" and shift.partner_b == "Gavroche"
    assert np.nansum(shift.weights_a) == pytest.approx(1.0, abs=1e-5)
    assert np.nansum(shift.weights_b) == pytest.approx(1.0, abs=1e-5)
    assert np.isnan(shift.weights_a[shift.neighbor_names.index("Thenardier")])  # partner left out
    assert 0.0 < shift.moved <= 1.0 and -1.0 <= shift.cosine <= 1.0
    to_a, to_b = shift.gained()
    assert not set(to_a) & set(to_b)
    same = contexts.context_shift(goat, "Marius", "Thenardier", "Thenardier")
    assert same.moved == pytest.approx(0.0) and same.cosine == pytest.approx(1.0)


def test_contrasting_partner_is_another_neighbor(goat, lesmis):
    v = contexts.contrasting_partner(goat, 55, 25)
    assert v != 25 and lesmis.has_edge(55, v)
