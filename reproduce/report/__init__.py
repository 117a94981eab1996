"""RESULTS.md from the committed files under results/ (``python -m reproduce.report``), and the
full run's summaries of its raw runs.

One module per concern: :mod:`.sources` reads the committed files; :mod:`.headline` makes the
first two sections (the paper's splits: the paper, ``Goat()``, the best baseline here);
:mod:`.studies` the others; :mod:`.document` numbers the sections (:data:`SECTIONS`, one line
each) and fills reproduce/notes.md's prose. :mod:`.runs`, :mod:`.tables` and :mod:`.plots`
summarise a full run's raw runs (runs.csv, CSV tables, figures).
"""

from .document import SECTIONS, Section, build, render
from .runs import NAMES, TUNED_LABEL, TUNED_ONE_DRAW_LABEL, load_runs

__all__ = ["NAMES", "SECTIONS", "TUNED_LABEL", "TUNED_ONE_DRAW_LABEL", "Section", "build", "load_runs",
           "render"]
