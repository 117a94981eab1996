"""The app's presets: fast defaults scale down with the graph's size and are valid parameters."""

from __future__ import annotations

import pytest

import goat_core
from goat_core import presets


@pytest.mark.parametrize("edges", [254, presets.SMALL_GRAPH_EDGES + 1, presets.LARGE_GRAPH_EDGES + 1,
                                   1_500_000])
def test_fast_preset_is_a_valid_configuration(edges):
    values = presets.fast(edges)
    params = {k: v for k, v in values.items() if k != "holdout"}
    goat_core.Goat(**params)._validate_params()
    assert 0.0 < values["holdout"] < 0.5


def test_fast_preset_does_less_work_per_edge_as_graphs_grow():
    sizes = [1_000, 50_000, 1_000_000]
    work = [presets.fast(e)["epochs"] * presets.fast(e)["neighborhood"] for e in sizes]
    assert work == sorted(work, reverse=True) and len(set(work)) == 3
    assert presets.fast(1_000_000)["epochs"] == 1


def test_case_study_has_no_holdout():
    assert "holdout" not in presets.case_study(254)


def test_validated_preset_is_the_library_default_and_paper_is_table_2():
    defaults = {name: spec.default for name, spec in goat_core.PARAMETERS.items()}
    validated = presets.validated(254)
    assert {k: v for k, v in validated.items() if k != "holdout"}.items() <= defaults.items()
    assert validated["validation_fraction"] > 0  # epochs chosen by early stopping
    paper = presets.paper("email")
    assert (paper["lr"], paper["epochs"], paper["dropout"]) == (1e-4, 20, 0.8)
    assert paper["validation_fraction"] == 0.0
    for name in presets.PRESETS:
        params = {k: v for k, v in presets.preset(name, "email", 16_064).items() if k != "holdout"}
        goat_core.Goat(**params)._validate_params()
    with pytest.raises(ValueError, match="unknown preset 'table2'"):
        presets.preset("table2", "email", 100)
