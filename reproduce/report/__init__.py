"""Aggregate raw runs into summary CSV/JSON, plots, and RESULTS.md (tables: paper vs ours).

One module per concern: :mod:`.runs` loads and aggregates the raw runs, :mod:`.tables` and
:mod:`.plots` turn them into tables and figures beside the paper's numbers
(``goat_core.paper``), and :mod:`.document` writes RESULTS.md from templates with named fields.
"""

from .document import build
from .runs import NAMES, TUNED_LABEL, TUNED_ONE_DRAW_LABEL, load_runs

__all__ = ["NAMES", "TUNED_LABEL", "TUNED_ONE_DRAW_LABEL", "build", "load_runs"]
