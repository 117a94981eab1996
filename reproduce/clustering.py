"""Email node clustering of the older configuration (masked padding), with every run's record committed.

    python -m reproduce.clustering --out results

Trains the clustering jobs (GOAT, mean-pool, GoatGlobal at 35/55/75/95 % of the edges, seeds
0-2: the same jobs, configurations and splits as ``python -m reproduce``) and writes one record a
run to results/clustering/KEY.json; a finished run is skipped on the next invocation. RESULTS.md's
section on the older configuration clusters from those files (reproduce.report).
"""

from __future__ import annotations

from pathlib import Path

from .common import stage_main
from .experiments import CLUSTER_RATIOS, SEEDS, VARIANTS, Job, run_job
from .report.runs import load_runs
from .report.tables import _table, cluster_table

FOLDER = Path("clustering")


def jobs() -> list[Job]:
    return [Job("lp", "email", r, v, s, cluster=True)
            for s in SEEDS for v in VARIANTS for r in CLUSTER_RATIOS]


def run(out: Path) -> None:
    for job in jobs():
        path = out / FOLDER / f"{job.key}.json"
        if not path.exists():  # resumable: finished runs stay
            run_job(job, out, path)
            print(f"{job.key} done", flush=True)


def markdown(out: Path) -> str:
    """The stage's table, printed when it ends ("" until this script has run)."""
    runs = load_runs(out, FOLDER)
    if not runs:
        return ""
    header, rows = cluster_table(runs)
    seeds = sorted({r["seed"] for r in runs})
    return "\n".join([
        "\n## Email clustering, run by run (NMI / AMI %, k-means with k = 42)\n",
        f"`python -m reproduce.clustering --out results`: {len(runs)} runs (seeds "
        f"{', '.join(map(str, seeds))}), each one's record in `results/{FOLDER.as_posix()}/`. Section 2's "
        "jobs, configurations and splits, rerun so that every cell here is backed by files in git. "
        "Section 2 was made by an earlier version of the trainer (its dropout masks and sampling "
        "changed since, not the protocol), so its trained rows and these differ by seed noise; the "
        "untrained rows involve no training and are identical.\n",
        _table(header, rows),
    ]) + "\n"


def main(argv=None) -> None:
    stage_main(__doc__, run, markdown, argv)


if __name__ == "__main__":
    main()
