"""Neighborhood heuristics on the splits GOAT is scored on: common neighbors, Adamic-Adar
and preferential attachment, from the training edges only, three seeds per ratio.

    python -m reproduce.heuristics --out results

Writes results/heuristics/DATASET.json (committed: Email at every ratio, Cora and Zhihu at the
paper's 15 to 95 %, Cora2 and Citeseer at 90 %) and prints Email's Markdown table; RESULTS.md's
tables are made from the same files by reproduce.report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from goat_core.analysis.baselines import HEURISTICS, evaluate_heuristics
from goat_core.data.sampling import split_edges

from .common import dataset, read_json, stage_main, write_json
from .experiments import RATIOS, SEEDS

FILE = Path("heuristics") / "email.json"
PAPER_RATIOS = {"email": RATIOS, "cora": RATIOS, "zhihu": RATIOS, "cora2": (0.9,), "citeseer": (0.9,)}


def run(out: Path) -> None:
    for data, ratios in PAPER_RATIOS.items():
        graph = dataset(data)
        rows = []
        for ratio in ratios:
            for seed in SEEDS:
                found = evaluate_heuristics(split_edges(graph, ratio, seed))  # the split GOAT is scored on
                rows += [{"ratio": ratio, "seed": seed, "heuristic": name, **scores}
                         for name, scores in found.items()]
        write_json(out / FILE.with_name(f"{data}.json"), {"dataset": data, "rows": rows})


def markdown(out: Path) -> str:
    """The stage's table (Email), printed when it ends ("" until this script has run)."""
    path = out / FILE
    if not path.exists():
        return ""
    rows = read_json(path)["rows"]
    ratios = sorted({r["ratio"] for r in rows})
    lines = ["\n## Heuristics on the same splits (Email, AUC, training graph only)\n",
             "`python -m reproduce.heuristics --out results` (`goat_core.analysis.baselines`, seeds "
             f"{', '.join(map(str, SEEDS))}; per seed in `results/{FILE.as_posix()}`). The same held-out "
             "edges and non-edges as the GOAT rows above.\n",
             "| heuristic | " + " | ".join(f"{round(100 * r)} %" for r in ratios) + " |",
             "|---" * (len(ratios) + 1) + "|"]
    for name, label in HEURISTICS.items():
        cells = []
        for ratio in ratios:
            aucs = [100 * r["auc"] for r in rows if r["heuristic"] == name and r["ratio"] == ratio]
            cells.append(f"{np.mean(aucs):.1f} ± {np.std(aucs):.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    stage_main(__doc__, run, markdown, argv)


if __name__ == "__main__":
    main()
