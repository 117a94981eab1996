"""Where one training epoch's time goes at scale: cProfile of ``run_training`` on a BA graph.

    python bench/step_profile.py --edges 1000000 [--optimizer auto|adam|lazy-adam]

The scaling configuration (``bench/scaling.py``: d=200, N=100, dropout 0.5, one negative, batch
4096). cProfile sees the main thread: the per-pair loops run on worker threads, so their time
shows as the main thread's wait inside the fused forward and backward. Reported: the epoch's
wall time split into the stages of a step (cumulative seconds of the functions that are the
stage), and the 20 functions with the most time of their own. Writes
bench/results/step_profile_<edges>.json.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time

from _common import ROOT, configure_threads, machine

# stage -> (file suffix, function name) whose cumulative time is that stage's
STAGES = {
    "fused loss and gradient in one pass (per-pair loops, worker threads)": ("fused.py", "fused_loss"),
    "fused backward (hands that gradient over)": ("fused.py", "backward"),
    "optimizer step": ("optimizer.py", "wrapper"),
    "optimizer zero_grad": ("optimizer.py", "zero_grad"),
    "batch assembly (make_batch)": ("training.py", "make_batch"),
    "neighborhood sampling": ("training.py", "sample_neighborhoods"),
    "epoch pairs and negatives": ("training.py", "epoch_pairs"),
    "batch planning": ("training.py", "plan_batches"),
    "loss": ("functional.py", "binary_cross_entropy_with_logits"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=10)
    parser.add_argument("--optimizer", default="auto", choices=("auto", "adam", "lazy-adam"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    configure_threads(None)
    import torch
    from scaling import ba_graph, train_one_epoch

    from goat_core.training import small_machine_threads

    threads = small_machine_threads()
    if threads:
        torch.set_num_threads(threads)
    graph = ba_graph(args.edges, args.m, args.seed)
    n = graph.num_nodes
    profile = cProfile.Profile()
    t0 = time.perf_counter()
    profile.enable()
    _, optimizer = train_one_epoch(graph, args.seed, args.optimizer)
    profile.disable()
    wall = time.perf_counter() - t0
    stats = pstats.Stats(profile)
    stages = {}
    for stage, (suffix, name) in STAGES.items():
        stages[stage] = sum(row[3] for (file, _, func), row in stats.stats.items()  # type: ignore[attr-defined]
                            if file.endswith(suffix) and func == name)
    stages["everything else"] = wall - sum(stages.values())
    own = sorted(((row[2], f"{file.split('/')[-1]}:{func}") for (file, _, func), row in
                  stats.stats.items()), reverse=True)[:20]  # type: ignore[attr-defined]
    print(f"{args.edges:,} edges, {n:,} nodes, {optimizer}: epoch {wall:.1f} s under cProfile")
    print("| stage | seconds | share |\n|---|---|---|")
    for stage, seconds in stages.items():
        print(f"| {stage} | {seconds:.1f} | {seconds / wall:.0%} |")
    print("\nown time, top 20:")
    for seconds, where in own:
        print(f"  {seconds:7.2f} s  {where}")
    out = ROOT / "bench" / "results" / f"step_profile_{args.edges}.json"
    out.write_text(json.dumps({"edges": args.edges, "nodes": n, "optimizer": optimizer, "wall_s": wall,
                               "stages_s": stages, "own_top20": own, "machine": machine()}, indent=1))


if __name__ == "__main__":
    main()
