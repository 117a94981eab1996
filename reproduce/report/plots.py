"""The reproduction's figures (matplotlib, PNG beside the CSV files)."""

from __future__ import annotations

from pathlib import Path

from goat_core.paper import TABLE3_AUC

from ..experiments import RATIOS
from .runs import MAIN, NAMES, TUNED, _agg


def plots(out: Path, runs) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plots skipped (pip install matplotlib)")
        return []
    made = []
    for data, ratios in (("email", RATIOS), ("cora", (0.15, 0.55, 0.95)), ("zhihu", (0.15, 0.55, 0.95))):
        if not any(r["dataset"] == data for r in runs):
            continue
        fig, ax = plt.subplots(figsize=(7, 4.5))
        x = [100 * r for r in ratios]
        for variant in ("goat", "global"):
            if (data, variant) in TABLE3_AUC:
                vals = dict(zip(RATIOS, TABLE3_AUC[(data, variant)]))
                ax.plot(x, [vals[r] for r in ratios], "--", label=f"paper {NAMES[variant]} (leaky)")
        series = [(f"ours {NAMES[v]}", "auc", v, MAIN) for v in ("goat", "global", "mean-pool")]
        series += [("ours GOAT, dropout/N/lr/draws chosen on validation", "auc", "goat", TUNED)]
        series += [
            ("untrained GOAT", "untrained_auc", "goat", MAIN),
            ("Adamic-Adar", "adamic_adar_auc", "goat", MAIN),
            ("common neighbors", "common_neighbors_auc", "goat", MAIN),
        ]
        for label, metric, variant, section in series:
            where = dict(variant=variant, dataset=data, section=section)
            cells = [_agg(runs, metric, ratio=r, **where) for r in ratios]
            pts = [(xx, c) for xx, c in zip(x, cells) if c]
            if pts:
                ax.errorbar(
                    [p[0] for p in pts],
                    [p[1][0] for p in pts],
                    yerr=[p[1][1] for p in pts],
                    marker="o",
                    capsize=3,
                    label=label,
                )
        ax.set_xlabel("% training edges")
        ax.set_ylabel("test AUC (%)")
        ax.set_title(f"{data}: link prediction, leak-free protocol")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        name = f"lp_{data}.png"
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        made.append(name)
    sel = [r for r in runs if r["dataset"] == "email" and r["variant"] == "goat" and r["seed"] == 0]
    if any(r["section"] == "nsens" for r in sel):
        fig, ax = plt.subplots(figsize=(6, 4))
        for ratio in (0.15, 0.55, 0.95):
            pts = sorted(
                (r["neighborhood"], 100 * r["auc"])
                for r in sel
                if r["ratio"] == ratio and r["section"] in ("nsens", "lp")
            )
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{int(ratio * 100)}% train")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("neighborhood size N")
        ax.set_ylabel("test AUC (%)")
        ax.set_title("Email: sensitivity to N (seed 0)")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "nsens_email.png", dpi=110)
        plt.close(fig)
        made.append("nsens_email.png")
    return made
