"""The app's training presets: ``fast`` (the default: a stable attention view in seconds), ``validated``
(``Goat()``'s defaults) and ``paper`` (Table 2), each as the training form's values (``Goat`` parameters
plus ``holdout``, the share of edges hidden for validation)."""

from __future__ import annotations

from .paper import paper_config
from .parameters import PARAMETERS

PRESETS = ("fast", "validated", "paper")

SMALL_GRAPH_EDGES = 2000  # above this, the fast preset samples fewer neighbors and trains fewer epochs
LARGE_GRAPH_EDGES = 200_000  # above this, one epoch of 20 neighbors: about a minute at 1.5M edges


def fast(num_edges: int) -> dict:
    """The app's default for a graph with ``num_edges`` edges: training stays near a minute or
    less on a 2-core machine (BENCHMARKS.md, app at scale)."""
    common = dict(dim=64, lr=0.01, dropout=0.3, negatives=1, variant="goat", exclude_partner=True,
                  padding="mask", validation_fraction=0.0, patience=PARAMETERS["patience"].default)
    if num_edges <= SMALL_GRAPH_EDGES:
        return dict(common, neighborhood=100, epochs=40, batch_size=64, holdout=0.15)
    if num_edges <= LARGE_GRAPH_EDGES:
        return dict(common, neighborhood=30, epochs=5, batch_size=512, holdout=0.15)
    return dict(common, neighborhood=20, epochs=1, batch_size=1024, holdout=0.05)


def validated(num_edges: int) -> dict:
    """``Goat()``'s defaults: the configuration validated on Email, the number of epochs chosen
    by early stopping on a carve-out of the training edges (at most ``epochs``)."""
    defaults = {name: PARAMETERS[name].default for name in TRAINING_FIELDS}
    return dict(defaults, holdout=0.15 if num_edges <= LARGE_GRAPH_EDGES else 0.05)


def paper(dataset: str) -> dict:
    """Table 2 of the paper (d = 200, lr = 1e-4, dropout and N per dataset), 20 epochs, no
    early stopping: the paper's configuration literally."""
    return dict(paper_config(dataset), epochs=20, batch_size=256, negatives=1, variant="goat",
                exclude_partner=True, padding="zero", validation_fraction=0.0,
                patience=PARAMETERS["patience"].default, holdout=0.15)


# The Goat parameters a preset sets (the rest: device, seed, backend, inference_draws, are the
# caller's).
TRAINING_FIELDS = ("dim", "neighborhood", "dropout", "lr", "epochs", "batch_size", "negatives", "variant",
                   "exclude_partner", "padding", "validation_fraction", "patience")


def preset(name: str, dataset: str, num_edges: int) -> dict:
    """The preset ``name`` (one of :data:`PRESETS`) for a graph called ``dataset``."""
    makers = {"fast": lambda: fast(num_edges), "validated": lambda: validated(num_edges),
              "paper": lambda: paper(dataset)}
    if name not in makers:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return makers[name]()


def case_study(num_edges: int) -> dict:
    """The classroom case study: the fast preset, trained on every edge (no hold-out)."""
    values = fast(num_edges)
    values.pop("holdout")
    return values
