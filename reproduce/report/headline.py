"""RESULTS.md's first two sections: each of the paper's splits with the paper's (leaky) number,
``Goat()``'s defaults (leak-free, 3 seeds) and the best baseline run here on the same split."""

from __future__ import annotations

from pathlib import Path

from goat_core.analysis.baselines import HEURISTICS
from goat_core.analysis.node2vec import WALK_METHODS
from goat_core.paper import RATIOS, TABLE3_AUC, TABLE4_BASELINES, TABLE4_CLUSTERING
from goat_core.parameters import PARAMETERS

from ..vgae import MODELS as AUTOENCODERS
from .sources import (
    GOAT,
    TUNED,
    Cell,
    Run,
    baselines,
    goat_defaults,
    same_ratio,
    scores,
    tuned,
    tuned_records,
)
from .tables import _table

# The paper's link-prediction splits: Table 3 (Email, Cora, Zhihu) and the VGAE figure (90 %).
SPLITS = {"email": RATIOS, "cora": RATIOS, "zhihu": RATIOS, "cora2": (0.9,), "citeseer": (0.9,)}
DATA_NAMES = {"email": "Email", "cora": "Cora", "zhihu": "Zhihu", "cora2": "Cora2", "citeseer": "Citeseer"}
CLUSTER_RATIOS = tuple(TABLE4_CLUSTERING)
BASELINE_NAMES = {**HEURISTICS, **WALK_METHODS, **AUTOENCODERS}


def pct(ratio: float) -> str:
    return f"{round(100 * ratio)} %"


def best_baseline(runs: list[Run], data: str, ratio: float, metric: str) -> tuple[str, Cell] | None:
    """The baseline with the highest mean ``metric`` on one split, and its Cell (None if none ran)."""
    found = [(name, c) for name in BASELINE_NAMES if (c := scores(runs, name, data, ratio, metric))]
    return max(found, key=lambda f: f[1].mean) if found else None


def _paper_auc(data: str, ratio: float) -> str:
    if (data, GOAT) not in TABLE3_AUC:
        return "– (figure only)"
    return f"{dict(zip(RATIOS, TABLE3_AUC[(data, GOAT)]))[ratio]:.1f}"


def _versus(ours: Cell | None, best: tuple[str, Cell] | None, tuned_cell: Cell | None = None) -> list[str]:
    """Our cell, the best baseline's and the tuned GOAT's: the highest mean in bold."""
    named = f" ({BASELINE_NAMES[best[0]]})" if best else ""
    cells = [ours, best[1] if best else None, tuned_cell]
    top = max((c.mean for c in cells if c), default=None)
    texts = [("–" if c is None else f"**{c.text()}**" if c.mean == top and sum(1 for x in cells if x) > 1
              else c.text()) for c in cells]
    texts[1] += named
    return texts


def splits_run(goat: list[Run]) -> list[tuple[str, float]]:
    """The paper's splits with at least one ``Goat()`` run, in the paper's order."""
    return [(data, ratio) for data, ratios in SPLITS.items() for ratio in ratios
            if any(r.data == data and same_ratio(r.ratio, ratio) for r in goat)]


def link_prediction_table(out: Path) -> str:
    goat, base, tuned_runs = goat_defaults(out), baselines(out), tuned(out)
    rows = []
    for data, ratio in splits_run(goat):
        row = [DATA_NAMES[data], pct(ratio), _paper_auc(data, ratio)]
        for metric in ("auc", "ap"):
            row += _versus(scores(goat, GOAT, data, ratio, metric), best_baseline(base, data, ratio, metric),
                           scores(tuned_runs, TUNED, data, ratio, metric))
        rows.append(row)
    if not rows:
        return "No run of `Goat()`'s defaults yet (`python -m reproduce.defaults`).\n"
    header = ["data", "train", "paper GOAT AUC (leaky)", "ours AUC: `Goat()`", "best baseline here, AUC",
              "ours AUC: tuned", "ours AP", "best baseline here, AP", "ours AP: tuned"]
    return _table(header, rows) + "\n" + _not_yet_run(goat) + tuned_budget(out)


def tuned_budget(out: Path) -> str:
    """What the *tuned* columns cost, per data set, read off its files: the search's budget and the
    seconds per cell (search and retraining on every training edge)."""
    records = tuned_records(out)
    if not records:
        return "\n*Tuned*: not run yet (`python -m reproduce.tune --out results`).\n"
    first = records[0]
    lines = [f"\n*Tuned* is `goat tune`'s search on each split (`python -m reproduce.tune --out results`, "
             f"seed = the split's): a random search on 20 % of the training edges, at most {first['trials']} "
             f"trials and no new one after {first['timeout']:.0f} s, each trial's epochs chosen by early "
             f"stopping (at most {first['max_epochs']}, patience {first['patience']}), a median pruner, "
             f"in the declared space narrowed to {', '.join(first['space'])}. Its first trial is "
             "`Goat()`'s defaults, as `goat tune` starts every study: here `Goat()`'s own early-stopping run "
             "of the split (section 1's, at most 100 epochs, patience 10), read from `results/defaults/` "
             "rather than recomputed. The best configuration is then trained on every training edge and "
             "scored once on the test edges. Run at 15, 55 and 95 % only (\"–\": not run). Per cell, on a "
             "shared 2-core machine (*defaults kept*: cells where no trial beat the defaults on validation, "
             "so *tuned* is `Goat()`):\n"]
    for data in SPLITS:
        mine = [r for r in records if r["data"] == data]
        if mine:
            seconds = [r["seconds"] for r in mine]
            span = f"{min(seconds):.0f}" if len(mine) == 1 else f"{min(seconds):.0f}–{max(seconds):.0f}"
            lines.append(f"- {DATA_NAMES[data]}: {len(mine)} cell{'s' if len(mine) > 1 else ''}, {span} s "
                         f"each (mean {sum(seconds) / len(seconds):.0f} s); trials finished "
                         f"{_range(r['trials_finished'] for r in mine)}, pruned "
                         f"{_range(r['trials_pruned'] for r in mine)}; defaults kept in "
                         f"{sum(_defaults_kept(r) for r in mine)} of {len(mine)}.")
    return "\n".join(lines) + "\n"


def _defaults_kept(record: dict) -> bool:
    defaults = {k: p.default for k, p in PARAMETERS.items()}
    return all(defaults[name] == value for name, value in record["best_params"].items())


def _range(values) -> str:
    values = list(values)
    low, high = min(values), max(values)
    return f"{low}" if low == high else f"{low}–{high}"


def _not_yet_run(goat: list[Run]) -> str:
    missing = []
    for data, ratios in SPLITS.items():
        left = [r for r in ratios if not any(g.data == data and same_ratio(g.ratio, r) for g in goat)]
        if left:
            missing.append(f"{DATA_NAMES[data]} {', '.join(str(round(100 * r)) for r in left)} %")
    if not missing:
        return ""
    return f"\nNot yet run with `Goat()`'s defaults: {'; '.join(missing)}.\n"


def link_prediction_findings(out: Path) -> str:
    """Where ``Goat()`` is ahead of, level with or behind the best baseline here in AUC, and above
    or below the paper's (leaky) number: read off the table, so the prose cannot drift from it."""
    goat, base = goat_defaults(out), baselines(out)
    return _goat_findings(goat, base) + tuned_findings(out, goat, base)


def tuned_findings(out: Path, goat: list[Run], base: list[Run]) -> str:
    """The tuned GOAT against the best baseline and against ``Goat()``, by the same rule."""
    runs = tuned(out)
    found: dict[str, list[str]] = {"ahead": [], "level": [], "behind": [], "better": [], "same": [],
                                   "worse": []}
    for data, ratio in splits_run(runs):
        ours, default = scores(runs, TUNED, data, ratio, "auc"), scores(goat, GOAT, data, ratio, "auc")
        best = best_baseline(base, data, ratio, "auc")
        where = f"{DATA_NAMES[data]} {pct(ratio)}"
        if best:
            found[standing(ours, best[1])].append(
                f"{where} ({ours.mean:.1f} against {best[1].mean:.1f}, {BASELINE_NAMES[best[0]]})")
        if default:
            side = {"ahead": "better", "level": "same", "behind": "worse"}[standing(ours, default)]
            found[side].append(f"{where} ({ours.mean:.1f} against {default.mean:.1f})")
    if not runs:
        return ""
    return "\n".join([
        f"- Tuned GOAT ahead of every baseline run here: {_listing(found['ahead'])}; level with the best: "
        f"{_listing(found['level'])}; still behind a baseline: {_listing(found['behind'])}.",
        f"- Tuned against `Goat()`: better on {_listing(found['better'])}; level on "
        f"{_listing(found['same'])}; worse on {_listing(found['worse'])}.",
    ]) + "\n"


def tuned_why(out: Path) -> str:
    """Why a heuristic still wins where it does, per split read (``reproduce.tune --why``): what
    the heuristics read off the split, beside where the tuned model's attention goes."""
    found = sorted(_jsons_of(out / "tuned" / "why"),
                   key=lambda r: (list(SPLITS).index(r["data"]), r["train_ratio"], r["seed"]))
    if not found:
        return ""
    rows = [[DATA_NAMES[r["data"]], pct(r["train_ratio"]), str(r["seed"]), f"{100 * r['tuned_auc']:.1f}",
             f"{100 * r['preferential_attachment_auc']:.1f}", f"{100 * r['adamic_adar_auc']:.1f}",
             f"{100 * r['edges_sharing_a_neighbor']:.0f} / {100 * r['non_edges_sharing_a_neighbor']:.0f}",
             _attention_cell(r)] for r in found]
    header = ["data", "train", "seed", "tuned AUC", "preferential attachment AUC", "Adamic-Adar AUC",
              "test edges / non-edges sharing a training neighbor, %",
              "tuned attention on the shared neighbors, % (uniform's)"]
    return ("\nWhy a heuristic can still win (`python -m reproduce.tune --out results --why`): on each split "
            "read, the share of test edges and non-edges with a training neighbor in common (what "
            "Adamic-Adar reads), how far degree alone ranks them (preferential attachment), and how much "
            "attention the tuned model, retrained from its seed, puts on the shared neighbors of test edges "
            "that have some, against what uniform attention would put there (both sides averaged):\n\n"
            + _table(header, rows) + "\n" + _why_reading(found))


def _why_reading(found: list[dict]) -> str:
    """What the why table says, read off it: where degree alone beats the tuned model, and where
    its attention puts no more on the shared neighbors than uniform attention would."""
    where = lambda r: f"{DATA_NAMES[r['data']]} {pct(r['train_ratio'])} (seed {r['seed']})"  # noqa: E731
    degree = [where(r) for r in found if r["preferential_attachment_auc"] > r["tuned_auc"]]
    overlap = [where(r) for r in found if r["adamic_adar_auc"] > r["tuned_auc"]]
    blind = [where(r) for r in found if r["attention_on_shared"] is not None
             and r["attention_on_shared"] <= r["uniform_on_shared"]]
    return "\n".join([
        f"\n- Degree alone (preferential attachment) beats the tuned model on {_listing(degree)}.",
        f"- Shared neighbors (Adamic-Adar) beat it on {_listing(overlap)}.",
        f"- Its attention puts no more on the shared neighbors than uniform attention would on "
        f"{_listing(blind)}: there it does not single out the overlap that Adamic-Adar counts.",
    ]) + "\n"


def _attention_cell(r: dict) -> str:
    if r["attention_on_shared"] is None:
        return "–"
    share, uniform = 100 * r["attention_on_shared"], 100 * r["uniform_on_shared"]
    return f"{share:.0f} ({uniform:.0f}), {r['pairs_read']} edges"


def _jsons_of(folder: Path) -> list[dict]:
    from ..common import read_json

    return [read_json(p) for p in sorted(folder.glob("*.json"))]


def _goat_findings(goat: list[Run], base: list[Run]) -> str:
    found: dict[str, list[str]] = {"ahead": [], "level": [], "behind": [], "above": [], "below": []}
    for data, ratio in splits_run(goat):
        ours = scores(goat, GOAT, data, ratio, "auc")
        best = best_baseline(base, data, ratio, "auc")
        where = f"{DATA_NAMES[data]} {pct(ratio)}"
        if best:
            name, c = BASELINE_NAMES[best[0]], best[1]
            found[standing(ours, c)].append(f"{where} ({ours.mean:.1f} against {c.mean:.1f}, {name})")
        if (data, GOAT) in TABLE3_AUC:
            paper = dict(zip(RATIOS, TABLE3_AUC[(data, GOAT)]))[ratio]
            side = "above" if ours.mean >= paper else "below"
            found[side].append(f"{where} ({ours.mean:.1f} against {paper:.1f})")
    lines = [
        f"- `Goat()` ahead of every baseline run here: {_listing(found['ahead'])}.",
        f"- Level with the best baseline: {_listing(found['level'])}.",
        f"- Behind a baseline: {_listing(found['behind'])}.",
        f"- `Goat()` at or above the paper's leaky number: {_listing(found['above'])}; below it: "
        f"{_listing(found['below'])}.",
    ]
    return "\n".join(lines) + "\n"


def standing(ours: Cell, best: Cell) -> str:
    """"ahead", "level" or "behind": a difference within the two seed spreads (sd plus sd) is level."""
    spread = ours.sd + best.sd
    if ours.mean - best.mean > spread:
        return "ahead"
    return "behind" if best.mean - ours.mean > spread else "level"


def _listing(items: list[str]) -> str:
    return "; ".join(items) if items else "none"


def _pair(nmi: Cell | None, ami: Cell | None) -> str:
    return f"{nmi.text()} / {ami.text()}" if nmi and ami else "–"


def clustering_finding(out: Path) -> str:
    """One sentence comparing `Goat()`'s context embeddings with the walk baselines on Email's
    clustering, ratio by ratio, from the same runs as the table."""
    goat, walk_runs = goat_defaults(out), baselines(out)
    ahead, behind = [], []
    for ratio in CLUSTER_RATIOS:
        ours = scores(goat, GOAT, "email", ratio, "context.nmi")
        here = [c for name in WALK_METHODS if (c := scores(walk_runs, name, "email", ratio, "embedding.nmi"))]
        if ours and here:
            best = max(c.mean for c in here)
            side = ahead if ours.mean > best else behind
            side.append(f"{ours.mean:.1f} against {best:.1f} at {pct(ratio)}")
    if not ahead and not behind:
        return "The walk baselines' clustering has not been run yet."
    parts = []
    if behind:
        parts.append("DeepWalk or node2vec cluster Email better than `Goat()`'s context embeddings (NMI "
                     + "; ".join(behind) + ")")
    if ahead:
        parts.append("`Goat()`'s context embeddings cluster better than DeepWalk and node2vec (NMI "
                     + "; ".join(ahead) + ")")
    return "; ".join(parts) + "."


def _tuned_clustering(runs: list[Run], ratio: float) -> str:
    """The tuned GOAT's k-means scores on the embedding each split's validation chose, and how
    often each was chosen ("context 2, global 1")."""
    cell = _pair(*(scores(runs, TUNED, "email", ratio, f"chosen.{m}") for m in ("nmi", "ami")))
    mine = [r for r in runs if r.data == "email" and same_ratio(r.ratio, ratio) and "chosen" in r.cluster]
    if not mine:
        return cell
    counts = {kind: sum(r.cluster[kind] == r.cluster["chosen"] for r in mine)
              for kind in ("context", "global")}
    return f"{cell} ({', '.join(f'{k} {n}' for k, n in counts.items() if n)})"


def clustering_table(out: Path) -> str:
    goat, walk_runs, tuned_runs = goat_defaults(out), baselines(out), tuned(out)
    rows = []
    for ratio in CLUSTER_RATIOS:
        ours = _pair(*(scores(goat, GOAT, "email", ratio, f"context.{m}") for m in ("nmi", "ami")))
        here = [(name, scores(walk_runs, name, "email", ratio, "embedding.nmi"),
                 scores(walk_runs, name, "email", ratio, "embedding.ami")) for name in WALK_METHODS]
        here = [h for h in here if h[1]]
        best_here = "–"
        if here:
            name, nmi, ami = max(here, key=lambda h: h[1].mean)
            best_here = f"{_pair(nmi, ami)} ({WALK_METHODS[name]})"
        name, (nmi, ami) = max(((n, v[ratio]) for n, v in TABLE4_BASELINES.items()), key=lambda f: f[1][0])
        paper = "{:.1f} / {:.1f}".format(*TABLE4_CLUSTERING[ratio])
        rows.append([pct(ratio), paper, ours, _tuned_clustering(tuned_runs, ratio), best_here,
                     f"{nmi:.1f} / {ami:.1f} ({name})"])
    header = ["train", "paper GOAT (leaky)", "ours: `Goat()`, context embeddings",
              "ours: tuned, embedding chosen on validation", "best baseline here",
              "paper's best baseline (its protocol)"]
    return _table(header, rows) + "\n"
