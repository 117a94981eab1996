"""RESULTS.md: numbered sections, each made from committed files (``sources``) and the prose of
reproduce/notes.md; ``python -m reproduce.report`` writes it.

A section is one line of :data:`SECTIONS`: a key, a title and a function of the results folder
that returns the section's Markdown (tables and prose, no ``## `` heading; ``### `` subheadings
are numbered N.k). A function that returns "" (its files do not exist yet) leaves its section out,
and the sections after it are numbered on: prose names a section as ``${sec_KEY}``, never by a
typed number. :func:`build` is the full run's step (``python -m reproduce``): the summaries of
its raw runs, then this document.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..common import read_json, write_json
from ..experiments import RATIOS
from ..grid import summarise
from . import headline, studies
from .plots import plots
from .runs import load_runs
from .sources import baselines, scores, walks
from .tables import _ap_small, cluster_table, lp_table, nsens_table, time_table, vgae_table, write_csv

NOTES = Path(__file__).parents[1] / "notes.md"
_BLOCK = re.compile(r"^<!-- (\w+) -->$", re.MULTILINE)
_SECTION_REF = re.compile(r"\$\{sec_(\w+)\}")


def prose(key: str, **fields: str) -> str:
    """Block ``key`` of notes.md with its ``${fields}`` filled (a field missing is an error, so
    that no ``${...}`` reaches the document; ``${sec_*}`` are filled once sections are numbered)."""
    parts = _BLOCK.split(NOTES.read_text())
    blocks = dict(zip(parts[1::2], (p.strip() for p in parts[2::2])))
    refs = {m: f"${{sec_{m}}}" for m in _SECTION_REF.findall(blocks[key])}
    return Template(blocks[key]).substitute({f"sec_{k}": v for k, v in refs.items()}, **fields) + "\n"


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    body: Callable[[Path], str]


def _glance(out: Path) -> str:
    return "\n".join([prose("glance", seeds=studies.seeds_text()), headline.link_prediction_table(out),
                      prose("glance_findings"), headline.link_prediction_findings(out),
                      headline.tuned_why(out)])


def _clustering(out: Path) -> str:
    return prose("clustering") + "\n" + headline.clustering_table(out)


def _shows(out: Path) -> str:
    runs = [r for r in walks(out) if r.data == "email"]
    means = [c.mean for m, ratio in {(r.method, r.ratio) for r in runs}
             if (c := scores(runs, m, "email", ratio, "auc"))]
    span = f"{min(means):.1f} to {max(means):.1f}" if means else "(not run yet)"
    base = baselines(out)
    return prose("shows", walks_email=span, cora_best=_best_mean(base, "cora"),
                 pa_zhihu=_span(base, "preferential_attachment", "zhihu"),
                 walks_zhihu=_by_ratio(walks(out), "zhihu"), clustering=headline.clustering_finding(out),
                 **_leak_fields(out))


def _by_ratio(runs: list, data: str) -> str:
    """The better walk method's mean AUC at each ratio run on ``data``: "68.4 at 15 %, …"."""
    cells = []
    for ratio in sorted({r.ratio for r in runs if r.data == data}):
        means = [c.mean for m in {r.method for r in runs} if (c := scores(runs, m, data, ratio, "auc"))]
        if means:
            cells.append(f"{max(means):.1f} at {headline.pct(ratio)}")
    return ", ".join(cells) if cells else "(not run yet)"


def _span(runs: list, method: str, data: str) -> str:
    """"a to b": the lowest and highest mean over the ratios ``method`` ran at on ``data``."""
    means = [c.mean for ratio in sorted({r.ratio for r in runs if (r.method, r.data) == (method, data)})
             if (c := scores(runs, method, data, ratio, "auc"))]
    return f"{min(means):.1f} to {max(means):.1f}" if means else "(not run yet)"


def _best_mean(runs: list, data: str) -> str:
    means = [c.mean for m, ratio in {(r.method, r.ratio) for r in runs if r.data == data}
             if (c := scores(runs, m, data, ratio, "auc"))]
    return f"{max(means):.1f}" if means else "(not run yet)"


def _leak_fields(out: Path) -> dict[str, str]:
    fields = studies.leak_fields(out)
    if not fields:  # the prose needs the study: the section says how to run it instead
        return {k: "(not run: `python -m reproduce.investigate leak --out results`)" for k in _LEAK_KEYS}
    return fields


_LEAK_KEYS = [f"{m}{r}_{k}" for m in ("trained", "untrained") for r in (15, 55)
              for k in ("free", "leaky", "gain", "nmi", "nmi_leaky")]


def _protocol(out: Path) -> str:
    from .. import node2vec, vgae

    recorded = _default_params(out)
    shared = set.intersection(*(set(r) for r in recorded)) if recorded else set()
    same = recorded and all(r[k] == recorded[0][k] for r in recorded for k in shared)
    params = recorded[0] if same else None
    if params:
        goat_params = (f"d = {params['dim']}, N = {params['neighborhood']}, dropout {params['dropout']}, "
                       f"lr {params['lr']:g}, {params['padding']} padding, batch {params['batch_size']}, "
                       f"{params['negatives']} negative per edge from D^0.75, "
                       f"at most {params['epochs']} epochs")
        validation = (f"{params['validation_fraction']:.0%} of the training edges, patience "
                      f"{params['patience']} epochs")
    else:
        goat_params = "not one configuration (the runs' `params` differ)" if recorded else "no run yet"
        validation = "see each run's `params`"
    w, g = node2vec.WALK, vgae.SETTINGS
    walk = (f"d = {w['dim']}, {w['num_walks']} walks of length {w['walk_length']} per node, {w['epochs']} "
            "skip-gram epoch")
    gae = f"X = I, GCN {g['hidden']}-{g['latent']}, Adam lr {g['lr']:g}, {g['epochs']} epochs"
    return "\n".join([prose("protocol", seeds=studies.seeds_text(), goat_params=goat_params,
                            validation=validation, walk=walk, gae=gae), studies.walk_choices(out)])


def _default_params(out: Path) -> list[dict]:
    """The recorded parameters of ``Goat()``'s runs, less what differs by run (seed, device)."""
    found = [read_json(p)["params"] for p in sorted((out / "defaults").glob("validated-*.json"))]
    return [{k: v for k, v in p.items() if k not in ("seed", "device")} for p in found]


def _leak(out: Path) -> str:
    table = studies.leak_table(out)
    if not table:
        return ""
    return "\n".join([prose("leak"), table, prose("leak_reading", **studies.leak_fields(out))])


def _beyond_auc(out: Path) -> str:
    """Issue 27's evaluation (the leak audit over 3 seeds at Email 15/55/95 %, MRR and Hits@K of GOAT
    against the heuristics and node2vec with random and hard negatives, attention faithfulness of
    trained against untrained models): ``reproduce.audit.markdown(out)`` once that module exists,
    "" until it does and until its files do."""
    if importlib.util.find_spec(f"{__package__.rpartition('.')[0]}.audit") is None:
        return ""
    return importlib.import_module("..audit", __package__).markdown(out)


def _baselines(out: Path) -> str:
    table = studies.every_baseline(out)
    return "AUC %, mean ± sd over seeds, on the splits of section ${sec_glance}.\n\n" + table if table else ""


def _padding(out: Path) -> str:
    padding, presets = studies.padding_table(out), studies.presets_table(out)
    if not (padding or presets):
        return ""
    parts = [prose("padding"), padding] if padding else []
    return "\n".join(parts + ([prose("padding_presets"), presets] if presets else []))


def _older(out: Path) -> str:
    table = studies.older_table(out)
    if not table:
        return ""
    clustering = studies.older_clustering_table(out)
    return "\n".join([prose("older"), "Email, AUC %:\n", table]
                     + ([prose("older_clustering"), clustering] if clustering else []))


def _case(out: Path) -> str:
    tables = studies.case_tables(out)
    return "\n".join([prose("case", **studies.case_fields(out)), tables]) if tables else ""


SECTIONS = [
    Section("glance", "Link prediction at a glance (AUC and AP %)", _glance),
    Section("clustering", "Email clustering at a glance (NMI / AMI %)", _clustering),
    Section("shows", "What these numbers show", _shows),
    Section("protocol", "Protocol: leak-free, and how the paper's differs", _protocol),
    Section("leak", "The leak, measured on our own models", _leak),
    Section("beyond_auc", "Beyond AUC: leak audit, ranking metrics, faithfulness", _beyond_auc),
    Section("baselines", "Every baseline on every split", _baselines),
    Section("padding", "Zero padding, and the paper's own schedule", _padding),
    Section("older", "The older configuration: GOAT's variants and the untrained model", _older),
    Section("case", "Les Misérables case study", _case),
]

HEADER = """# GOAT Explorer: our measurements beside the paper's

The paper: Kefato & Girdzijauskas, "Gossip and Attend: Context-Sensitive Graph Representation
Learning", ICWSM 2020 (the AAAI Conference on Web and Social Media; arXiv 2004.00413).

*Generated by `python -m reproduce.report` from the files under `results/`; edit
`reproduce/report/` or `reproduce/notes.md`, not this file (a test checks that the two agree).*
Every number marked *ours* or *here* is leak-free; every number quoted from the paper is not
(section ${sec_leak}).
"""


def render(out: Path, sections: list[Section] = SECTIONS, header: str = HEADER) -> str:
    """The document made from the files under ``out``."""
    present = [(s, text) for s in sections if (text := s.body(out).strip())]
    numbers = {s.key: str(n) for n, (s, _) in enumerate(present, start=1)}
    absent = {s.key: f'"{s.title}" (not run yet)' for s in sections if s.key not in numbers}
    parts = [header]
    for s, text in present:
        parts.append(f"## {numbers[s.key]}. {s.title}\n\n{_number_subsections(text, numbers[s.key])}\n")
    return _SECTION_REF.sub(lambda m: numbers.get(m.group(1)) or absent[m.group(1)], "\n".join(parts))


def _number_subsections(text: str, number: str) -> str:
    count = iter(range(1, 1000))
    return re.sub(r"^### (?!\d)", lambda _: f"### {number}.{next(count)} ", text, flags=re.MULTILINE)


def write(out: Path, md: Path) -> str:
    text = render(out)
    md.write_text(text)
    return text


def build(out: Path, md: Path, quick: bool = False, wall_seconds: float | None = None) -> dict:
    """The full run's last step: summary CSV/JSON and plots of its raw runs (left alone when there
    are none, e.g. in a clone), then RESULTS.md from the files under ``out``."""
    runs = load_runs(out)
    state = {"generated": time.strftime("%Y-%m-%d %H:%M:%S"), "runs": len(runs), "quick": quick,
             "wall_seconds_this_invocation": wall_seconds, "hardware": hardware()}
    if runs:
        _write_summaries(out, runs, state)
    text = render(out)
    if quick:
        text = text.replace("\n## 1.", "\n> **Quick mode**: tiny models (d=32, N=25, 3 epochs, lr 1e-2): "
                            "a smoke test, not a result.\n\n## 1.", 1)
    md.write_text(text)
    return state


def _write_summaries(out: Path, runs: list[dict], state: dict) -> None:
    tables = {
        "email_lp_auc": lp_table(runs, "email", RATIOS, "auc"),
        "email_lp_ap": lp_table(runs, "email", RATIOS, "ap"),
        "email_clustering": cluster_table(runs),
        "cora_lp_auc": lp_table(runs, "cora", (0.15, 0.55, 0.95), "auc"),
        "zhihu_lp_auc": lp_table(runs, "zhihu", (0.15, 0.55, 0.95), "auc"),
        "cora_zhihu_lp_ap": _ap_small(runs),
        "nsens_email": nsens_table(runs),
        "vgae_90": vgae_table(runs),
        "wall_time": time_table(runs),
    }
    for name, (header, rows) in tables.items():
        write_csv(out / f"{name}.csv", header, rows)
    columns = list(dict.fromkeys(k for r in runs for k in r))  # every run's keys: not just the first's
    write_csv(out / "runs.csv", columns, [[r.get(k) for k in columns] for r in runs])
    tuning = summarise(out)
    if tuning:
        write_csv(out / "tuning.csv", list(tuning[0]), [list(t.values()) for t in tuning])
    state.update(fit_seconds_total=sum(r["fit_seconds"] for r in runs), figures=plots(out, runs))
    summaries = {k: {"header": h, "rows": r} for k, (h, r) in tables.items()}
    write_json(out / "summary.json", {**state, "tables": summaries})


def hardware() -> dict:
    import torch

    return {"cpu": platform.processor() or platform.machine(), "cores_visible": os.cpu_count(),
            "torch_threads_per_process": 1, "torch": torch.__version__, "python": platform.python_version(),
            "device": "cpu"}
