"""The committed files under ``results/`` that RESULTS.md is made from, read into plain records.

Every table of RESULTS.md comes from these files and nothing else (no raw scratch, no clock, no
data set), so ``python -m reproduce.report`` on a fresh clone rewrites the document byte for byte.
One reader per producer:

- ``defaults/validated-DATA{PCT}-s{SEED}.json``: ``Goat()`` with no options (reproduce.defaults);
  ``defaults/paper-*.json``: ``--preset paper`` on the same splits;
- ``tuned/DATA{PCT}-s{SEED}.json``: ``goat tune``'s search per split (reproduce.tune);
- ``heuristics/DATA.json``: common neighbors, Adamic-Adar, preferential attachment (reproduce.heuristics);
- ``node2vec/runs/*.json``: DeepWalk and node2vec (reproduce.node2vec);
- ``vgae/*.json``: GAE and VGAE (reproduce.vgae);
- ``runs.csv``: one row per run of the older configuration (masked padding, fixed schedules;
  ``python -m reproduce``), ``clustering/*.json``: its clustering runs (reproduce.clustering);
- ``padding/*.json``, ``investigate_leak.json``, ``casestudy.json``: the studies of sections
  "Padding", "The leak" and "Les Misérables".
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..common import read_json

GOAT = "goat"  # the method key of Goat()'s defaults among the baselines' keys
TUNED = "tuned"  # the method key of the tuned GOAT (reproduce.tune)


@dataclass(frozen=True)
class Run:
    """One trained (or computed) scorer on one split: its link-prediction scores and, where it was
    scored, k-means NMI/AMI per embedding kind ({"context": {"nmi", "ami"}, ...})."""

    method: str
    data: str
    ratio: float
    seed: int
    auc: float
    ap: float
    cluster: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Cell:
    """Mean and population sd over seeds, in percent, and how many runs they come from."""

    mean: float
    sd: float
    n: int

    def text(self, expected: int = 3) -> str:
        return f"{self.mean:.1f} ± {self.sd:.1f}" + ("" if self.n >= expected else f" (n={self.n})")


def cell(values: list[float]) -> Cell | None:
    """Values in [0, 1] as a percent Cell (None for no values)."""
    if not values:
        return None
    return Cell(100 * float(np.mean(values)), 100 * float(np.std(values)), len(values))


def same_ratio(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


def _jsons(folder: Path, pattern: str = "*.json") -> list[dict]:
    return [read_json(p) for p in sorted(folder.glob(pattern))]


def goat_defaults(out: Path, preset: str = "validated") -> list[Run]:
    """``Goat()``'s runs (or ``--preset paper``'s): Email's first files carry no ``data``."""
    return [Run(GOAT, r.get("data", "email"), r["train_ratio"], r["seed"], r["auc"], r["ap"],
                r.get("cluster", {})) for r in _jsons(out / "defaults", f"{preset}-*.json")]


def tuned(out: Path) -> list[Run]:
    """GOAT tuned per split (``goat tune``'s search, reproduce.tune); its "chosen" clustering is
    the embedding its validation split picked."""
    return [Run(TUNED, r["data"], r["train_ratio"], r["seed"], r["auc"], r["ap"], r.get("cluster", {}))
            for r in _jsons(out / "tuned")]


def tuned_records(out: Path) -> list[dict]:
    """The tuned cells' files as written (budget, seconds, chosen embedding)."""
    return _jsons(out / "tuned")


def heuristics(out: Path) -> list[Run]:
    runs = []
    for found in _jsons(out / "heuristics"):
        runs += [Run(r["heuristic"], found["dataset"], r["ratio"], r["seed"], r["auc"], r["ap"])
                 for r in found["rows"]]
    return runs


def walks(out: Path) -> list[Run]:
    """DeepWalk and node2vec; a run's k-means scores (Email) are of its one embedding."""
    return [Run(r["method"], r["dataset"], r["train_ratio"], r["seed"], r["auc"], r["ap"],
                {"embedding": r["cluster"]} if "cluster" in r else {})
            for r in _jsons(out / "node2vec" / "runs")]


def autoencoders(out: Path) -> list[Run]:
    return [Run(r["model"], r["dataset"], r["train_ratio"], r["seed"], r["auc"], r["ap"])
            for r in _jsons(out / "vgae")]


def baselines(out: Path) -> list[Run]:
    """Every baseline run here on the splits ``Goat()`` is scored on."""
    return heuristics(out) + walks(out) + autoencoders(out)


def older_runs(out: Path) -> list[dict]:
    """``runs.csv``: the older configuration's runs, one row each, numbers as floats."""
    path = out / "runs.csv"
    if not path.exists():
        return []
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{k: _number(v) for k, v in row.items() if v != ""} for row in rows]  # "": not measured


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def older_clustering(out: Path) -> list[dict]:
    """``clustering/*.json``: the older configuration's clustering runs (job, cluster scores)."""
    return _jsons(out / "clustering")


def padding_trials(out: Path) -> list[dict]:
    return _jsons(out / "padding")


def optional_json(path: Path):
    return read_json(path) if path.exists() else None


def scores(runs: list[Run], method: str, data: str, ratio: float, metric: str) -> Cell | None:
    """The Cell of ``metric`` ("auc", "ap", or "kind.nmi" for a clustering score) over ``runs``
    of one method on one split."""
    values = []
    for r in runs:
        if (r.method, r.data) == (method, data) and same_ratio(r.ratio, ratio):
            if "." in metric:
                kind, name = metric.split(".")
                if kind in r.cluster:
                    values.append(r.cluster[kind][name])
            else:
                values.append(getattr(r, metric))
    return cell(values)
