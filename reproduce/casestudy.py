"""Les Misérables case study: Marius (55) gossiping with Thenardier (25) and with Gavroche (48)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from goat_core import Goat
from goat_core.analysis.attribution import shared_mass, total_variation

from .common import Timer, dataset, untrained, write_json

MARIUS, PARTNERS = "Marius", ("Thenardier", "Gavroche")
PARAMS = dict(dim=200, neighborhood=100, dropout=0.5, lr=5e-3, epochs=300, batch_size=32, device="cpu",
              padding="mask", validation_fraction=0.0)  # as recorded in RESULTS.md (before padding
# and early stopping were parameters)
QUICK = dict(dim=32, epochs=15)
SEEDS = (0, 1, 2)


def _dist(att) -> dict[str, float]:
    """Marius's attention over his own neighbors in one gossip."""
    return {name: float(w) for name, w in zip(att.source_names, att.source_attention)}


def _compare(p: dict, q: dict) -> dict:
    names = sorted(set(p) | set(q))
    a, b = np.array([p.get(n, 0.0) for n in names]), np.array([q.get(n, 0.0) for n in names])
    m = (a + b) / 2

    def kl(x, y):
        keep = x > 0
        return float(np.sum(x[keep] * np.log2(x[keep] / y[keep])))

    common = sorted(set(p) & set(q))  # neighbors present in both gossips (partners excluded)
    ca, cb = np.array([p[n] for n in common]), np.array([q[n] for n in common])
    ca, cb = ca / ca.sum(), cb / cb.sum()
    return {
        "total_variation": total_variation(p, q),
        "js_divergence_bits": 0.5 * kl(a, m) + 0.5 * kl(b, m),
        "total_variation_common": total_variation(dict(zip(common, ca, strict=True)),
                                                  dict(zip(common, cb, strict=True))),
        "spearman_common": float(_spearman(ca, cb)),
        "common_neighbors": len(common),
    }


def _spearman(x, y) -> float:
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def _gossip(goat: Goat, partner: str) -> dict:
    att = goat.attention(MARIUS, partner)
    dist = _dist(att)
    mass = shared_mass(att.source_names, att.source_attention, att.target_names, att.target_attention,
                       att.shared)
    top = sorted(dist.items(), key=lambda kv: -kv[1])
    partner_top = sorted(zip(att.target_names, att.target_attention.tolist()), key=lambda kv: -kv[1])
    return {
        "partner": partner,
        "probability": att.probability,
        "marius_attention": dist,
        "marius_top5": top[:5],
        "partner_top5": partner_top[:5],
        "shared_neighbors": sorted(att.shared),
        "marius_mass_on_shared": mass.source,
        "partner_mass_on_shared": mass.target,
        "marius_entropy_bits": float(-sum(w * np.log2(w) for w in dist.values() if w > 0)),
        "marius_neighbors": len(dist),
    }


def analyse(goat: Goat) -> dict:
    a, b = (_gossip(goat, p) for p in PARTNERS)
    return {
        "with": {a["partner"]: a, b["partner"]: b},
        "difference": _compare(a["marius_attention"], b["marius_attention"]),
    }


def run(out: Path, quick: bool = False) -> dict:
    graph = dataset("lesmis")
    results = []
    for seed in SEEDS[:1] if quick else SEEDS:
        params = {**PARAMS, **(QUICK if quick else {}), "seed": seed}
        with Timer() as t:
            goat = Goat(**params).fit(graph)
        row = {
            "seed": seed,
            "params": params,
            "fit_seconds": t.seconds,
            "final_loss": goat.history_[-1]["loss"],
            "trained": analyse(goat),
            "untrained": analyse(untrained(Goat(**params), graph)),
        }
        results.append(row)
        if seed == 0:
            _plot(goat, out)
    summary = {
        "results": results,
        "graph": {"nodes": graph.num_nodes, "edges": graph.num_edges, "weighted": graph.weighted},
    }
    write_json(out / "casestudy.json", summary)
    return summary


def _plot(goat: Goat, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dists = {p: _dist(goat.attention(MARIUS, p)) for p in PARTNERS}
    names = sorted(set().union(*dists.values()), key=lambda n: -max(d.get(n, 0) for d in dists.values()))
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(10, 4))
    for i, p in enumerate(PARTNERS):
        shared = set(goat.attention(MARIUS, p).shared)
        vals = [dists[p].get(n, 0.0) for n in names]
        bars = ax.bar(x + (i - 0.5) * 0.4, vals, 0.4, label=f"Marius gossiping with {p}")
        for bar, n in zip(bars, names):
            if n in shared:
                bar.set_hatch("//")
    ax.set_xticks(x, names, rotation=70, fontsize=8)
    ax.set_ylabel("attention of Marius on neighbor")
    ax.set_title(
        "Les Misérables: Marius's attention depends on his gossip partner (hatched = shared neighbor)"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "casestudy_marius.png", dpi=120)
    plt.close(fig)
