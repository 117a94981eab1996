"""RESULTS.md's tables after the headline: every baseline on every split, how the baselines were
tuned, the leak, padding against masking, the older configuration and the case study."""

from __future__ import annotations

from pathlib import Path

from goat_core.paper import RATIOS

from .. import node2vec
from ..experiments import SEEDS
from ..grid import select_padding
from .headline import BASELINE_NAMES, DATA_NAMES, SPLITS, pct
from .runs import MAIN, NAMES, TUNED, _agg, run_row
from .sources import GOAT, baselines, goat_defaults, older_clustering, older_runs, optional_json, scores
from .tables import _fmt, _table, cluster_table


def every_baseline(out: Path) -> str:
    """AUC of ``Goat()`` and of every baseline on every split where anything ran."""
    runs = goat_defaults(out) + baselines(out)
    methods = [m for m in (GOAT, *BASELINE_NAMES) if any(r.method == m for r in runs)]
    rows = []
    for data, ratios in SPLITS.items():
        for ratio in ratios:
            cells = [scores(runs, m, data, ratio, "auc") for m in methods]
            if any(cells):
                rows.append([DATA_NAMES[data], pct(ratio)] + [c.text() if c else "–" for c in cells])
    if not rows:
        return ""
    names = {GOAT: "`Goat()`", **BASELINE_NAMES}
    return _table(["data", "train"] + [names[m] for m in methods], rows) + "\n"


def walk_choices(out: Path) -> str:
    """The cell (p, q, window) each walk method took on each tuned split, with its validation AUC."""
    rows = []
    for data, ratios in node2vec.TUNE_RATIOS.items():
        for ratio in ratios:
            chosen = node2vec.choice(out, data, ratio)
            if chosen:
                rows.append([DATA_NAMES[data], pct(ratio)] + [
                    f"{node2vec.cell_name(chosen[m]['cell'])} ({100 * chosen[m]['val_auc']:.1f})"
                    for m in ("deepwalk", "node2vec")])
    if not rows:
        return ""
    return _table(["data", "tuned at", "DeepWalk took (val AUC)", "node2vec took (val AUC)"], rows) + "\n"


def leak_table(out: Path) -> str:
    rows = optional_json(out / "investigate_leak.json")
    if not rows:
        return ""
    header = ["train", "model", "AUC leak-free", "AUC leaky (partner excluded)",
              "AUC leaky (partner kept, as the authors)", "AP leak-free", "AP leaky", "NMI / AMI leak-free",
              "NMI / AMI leaky"]
    return _table(header, [[
        pct(r["ratio"]), r["model"], f"{100 * r['auc_leak_free']:.1f}", f"{100 * r['auc_leaky']:.1f}",
        f"{100 * r['auc_leaky_partner']:.1f}", f"{100 * r['ap_leak_free']:.1f}", f"{100 * r['ap_leaky']:.1f}",
        f"{100 * r['nmi_leak_free']:.1f} / {100 * r['ami_leak_free']:.1f}",
        f"{100 * r['nmi_leaky']:.1f} / {100 * r['ami_leaky']:.1f}"] for r in rows]) + "\n"


def leak_fields(out: Path) -> dict[str, str]:
    """The leak study's numbers that the prose quotes (the trained model at 15 and 55 %)."""
    rows = optional_json(out / "investigate_leak.json") or []
    found = {(r["ratio"], r["model"]): r for r in rows}
    fields = {}
    for ratio in (0.15, 0.55):
        for model in ("trained", "untrained"):
            r = found.get((ratio, model))
            if r:
                key = f"{model}{round(100 * ratio)}"
                fields[f"{key}_free"] = f"{100 * r['auc_leak_free']:.1f}"
                fields[f"{key}_leaky"] = f"{100 * r['auc_leaky']:.1f}"
                fields[f"{key}_gain"] = f"{100 * (r['auc_leaky'] - r['auc_leak_free']):.1f}"
                fields[f"{key}_nmi"] = f"{100 * r['nmi_leak_free']:.0f}/{100 * r['ami_leak_free']:.0f}"
                fields[f"{key}_nmi_leaky"] = f"{100 * r['nmi_leaky']:.0f}/{100 * r['ami_leaky']:.0f}"
    return fields


def padding_table(out: Path) -> str:
    rows = select_padding(out)
    if not rows:
        return ""
    header = ["train", "padding", "mean best validation AUC", "per seed", "best epochs"]
    return _table(header, [
        [pct(r["train_ratio"]), r["padding"], f"{100 * r['mean_best_val_auc']:.1f}",
         " ".join(f"{100 * float(a):.1f}" for a in r["per_seed"].split()), r["best_epochs"]]
        for r in rows]) + "\n"


def presets_table(out: Path) -> str:
    """``Goat()`` against ``--preset paper`` on the same Email splits (test AUC, epochs trained)."""
    from ..defaults import runs_of

    rows = []
    for ratio in RATIOS:
        found = {p: runs_of(out, "email", p, ratio) for p in ("validated", "paper")}
        if found["paper"]:
            rows.append([pct(ratio)] + [
                f"{_fmt(_agg(found[p], 'auc'))} ({' '.join(str(r['epochs_trained']) for r in found[p])})"
                for p in ("validated", "paper")])
    if not rows:
        return ""
    header = ["train", "`Goat()`: AUC (epochs per seed)", "`--preset paper`: AUC (epochs per seed)"]
    return _table(header, rows) + "\n"


OLDER_ROWS = (  # label, variant, section, metric
    ("GOAT, fixed schedule", "goat", MAIN, "auc"),
    ("GOAT, dropout, N, lr and inference draws chosen per ratio on validation", "goat", TUNED, "auc"),
    ("GOAT scored with its global embeddings, E_s·E_t", "goat", MAIN, "global_auc"),
    (NAMES["global"], "global", MAIN, "auc"),
    (NAMES["mean-pool"], "mean-pool", MAIN, "auc"),
    ("untrained GOAT (initialised, no step)", "goat", MAIN, "untrained_auc"),
    ("untrained mean-pool", "mean-pool", MAIN, "untrained_auc"),
)


def older_table(out: Path) -> str:
    """Email AUC of GOAT's variants and the untrained model (``runs.csv``: masked padding)."""
    runs = [r for r in older_runs(out) if r["dataset"] == "email"]
    if not runs:
        return ""
    rows = []
    for label, variant, section, metric in OLDER_ROWS:
        cells = [_agg(runs, metric, variant=variant, ratio=r, section=section) for r in RATIOS]
        if any(cells):
            rows.append([label] + [_fmt(c) for c in cells])
    return _table(["method"] + [pct(r) for r in RATIOS], rows) + "\n"


def older_clustering_table(out: Path) -> str:
    """Email NMI / AMI of the variants' embeddings (``clustering/``: masked padding)."""
    runs = [run_row(r) for r in older_clustering(out)]
    if not runs:
        return ""
    header, rows = cluster_table(runs)
    return _table(header, [row for row in rows if not row[0].startswith("paper")]) + "\n"


def seeds_text() -> str:
    return ", ".join(map(str, SEEDS))


def case_tables(out: Path) -> str:
    """Marius's attention with Thenardier and with Gavroche, trained and untrained, per seed."""
    case = optional_json(out / "casestudy.json")
    if not case:
        return ""
    rows, diff = [], []
    for r in case["results"]:
        for model in ("trained", "untrained"):
            for partner, g in r[model]["with"].items():
                top = ", ".join(f"{n} {w:.2f}" for n, w in g["marius_top5"][:3])
                rows.append([r["seed"], model, partner, f"{g['probability']:.2f}", top,
                             f"{g['marius_mass_on_shared']:.2f}", f"{g['marius_entropy_bits']:.2f}"])
            d = r[model]["difference"]
            diff.append([r["seed"], model, f"{d['total_variation']:.2f}", f"{d['js_divergence_bits']:.3f}"])
    p = case["results"][0]["params"]
    seeds = ", ".join(str(r["seed"]) for r in case["results"])
    intro = (f"GOAT trained on all {case['graph']['edges']} weighted edges, as in the paper's case study "
             f"(d = {p['dim']}, N = {p['neighborhood']}, dropout {p['dropout']}, lr {p['lr']:g}, "
             f"{p['epochs']} epochs, masked padding), seeds {seeds}; Marius's neighborhood leaves out the "
             "partner he gossips with.\n\n")
    header = ["seed", "model", "partner", "P(edge)", "Marius's top 3 (attention)", "mass on shared",
              "entropy (bits)"]
    return (intro + _table(header, rows)
            + "\n\nHow far Marius's two attention distributions are apart:\n\n"
            + _table(["seed", "model", "total variation", "JS divergence (bits)"], diff) + "\n")


def case_fields(out: Path) -> dict[str, str]:
    """Ranges over seeds that the case study's prose quotes."""
    case = optional_json(out / "casestudy.json")
    if not case:
        return {}

    def span(values, digits=2):
        return f"{min(values):.{digits}f}" if min(values) == max(values) else \
            f"{min(values):.{digits}f}–{max(values):.{digits}f}"

    fields = {}
    for model in ("trained", "untrained"):
        res = [r[model] for r in case["results"]]
        fields[f"{model}_tv"] = span([a["difference"]["total_variation"] for a in res])
        for partner in ("Thenardier", "Gavroche"):
            sides = [a["with"][partner] for a in res]
            fields[f"{model}_{partner}_shared"] = span([g["marius_mass_on_shared"] for g in sides])
            fields[f"{model}_{partner}_top"] = span([g["marius_top5"][0][1] for g in sides])
            fields[f"{model}_{partner}_p"] = span([g["probability"] for g in sides])
    return fields
