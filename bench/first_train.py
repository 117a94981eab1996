"""The library's part of the app's first Train, in a fresh process: imports, Les Misérables, the
app's default parameters and its torch path (``ui.runs.backend_for``: compiles nothing), then the
held-out AUC the Train page shows. Time the whole process from outside, against another tree:

    /usr/bin/time -v python bench/first_train.py        # or side by side with an older checkout

The browser's figure (BENCHMARKS.md, A class starts in seconds) adds Streamlit and the page.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch  # noqa: E402

torch.set_num_threads(1)  # as the app sets it on a 2-core machine
from goat_core import Goat, evaluate_link_prediction, load_graph, split_edges  # noqa: E402
from goat_core.presets import fast  # noqa: E402

graph = load_graph("lesmis")
params = fast(graph.num_edges)
split = split_edges(graph, 1.0 - params.pop("holdout"), seed=0)
goat = Goat(**params, backend="torch", seed=0).fit(split.train)
print(f"AUC {evaluate_link_prediction(goat, split)['auc']:.4f}")
