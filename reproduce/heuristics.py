"""Neighborhood heuristics on the Email splits GOAT is scored on: common neighbors, Adamic-Adar
and preferential attachment, from the training edges only, three seeds per ratio.

    python -m reproduce.heuristics --out results

Writes results/heuristics/email.json (committed) and prints a Markdown table; RESULTS.md's
"Heuristics" section is made from the same file by the report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from goat_core.analysis.baselines import HEURISTICS, evaluate_heuristics
from goat_core.data.sampling import split_edges

from .common import dataset, read_json, stage_main, write_json
from .experiments import RATIOS, SEEDS

FILE = Path("heuristics") / "email.json"


def run(out: Path) -> list[dict]:
    graph = dataset("email")
    rows = []
    for ratio in RATIOS:
        for seed in SEEDS:
            found = evaluate_heuristics(split_edges(graph, ratio, seed))  # the split GOAT is scored on
            rows += [{"ratio": ratio, "seed": seed, "heuristic": name, **scores}
                     for name, scores in found.items()]
    write_json(out / FILE, {"dataset": "email", "rows": rows})
    return rows


def markdown(out: Path) -> str:
    """RESULTS.md's heuristics section ("" until this script has run)."""
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
