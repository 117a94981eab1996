"""Training throughput on Email (55 % training edges, the paper's config) vs the naive baseline.

    python bench/throughput.py --json            # ends with one JSON line
    python bench/throughput.py --ablations       # also: before/after variants of the trainer, and the
                                                 # ceiling: the same step with the per-pair loops free

Each repeat times, back to back so that they share the machine's load: one epoch of our
trainer (``goat_core.training.run_training``: d=200, N=100, dropout 0.8, lr 1e-4, batch 256,
as ``Goat(...)`` trains), the naive dense baseline (``bench/naive.py``, B=1024, every
neighborhood padded to N; at its better of 1 intra-op thread and all cores, per repeat) on a
slice of the same epoch's pairs, and a large sgemm (the better of 1 thread and all cores).
Reported figures are medians over repeats. Our trainer runs with the library's own thread
policy unless --threads/--workers say otherwise.

roofline_fraction = useful FLOP/s / sgemm FLOP/s, where useful FLOPs are 2·|N_s|·|N_t|·d
per training pair (real neighbors only, after leaving the partner out), counted on the pairs
actually trained, and the sgemm is a 2048² float32 product in the same run.

The ceiling (``--ablations``) runs the same training step with the fused loops' per-pair work
replaced by nothing (logits 0, a zero table gradient; batch assembly, threads, buffers, loss,
autograd and Adam unchanged). Its pairs/s bound what any faster per-pair kernel could give
without also rewriting the rest of the step; ``ceiling_roofline_fraction`` is that bound on the
roofline fraction.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from _common import configure_threads, email_split, machine, median, sgemm_flops

CEILING = "ceiling: fused step with the per-pair loops doing nothing"
# --ablations: (name, run_training options, instrumentation); "workers": KernelOptions(workers=...).
# The dashboard marks a recorded path that is no longer here as removed.
ABLATIONS = (
    ("fused loop (as above)", {}, {}),
    ("fused, two segments in order on one thread (workers=1)", {"workers": 1}, {}),
    ("fused, OpenBLAS left at its own threads", {}, {"blas_threads": True}),
    ("fused, batch 1024", {"batch_size": 1024}, {}),
    ("torch chunks (backend='torch': the CUDA path)", {"backend": "torch"}, {}),
    ("torch chunks, in order on one thread", {"backend": "torch", "workers": 1}, {}),
    ("plain modules + bucketing (backend='module', the first trainer)",
     {"backend": "module", "workers": 1}, {}),
    (CEILING, {}, {"free_loops": True}),
)


def _free_loop(*args) -> None:
    """Stands in for fused.pair_loop(w, ids_s, ids_t, ls, lt, pad, key, threshold, s2, lo, hi, mean,
    logits, labels, weights, scale, losses, out, fresh): logits and loss terms 0, the gradient
    stays zero."""
    lo, hi, logits, losses = args[9], args[10], args[12], args[16]
    logits[lo:hi] = 0.0
    if len(losses):
        losses[lo:hi] = 0.0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256, help="our trainer's batch (Goat default)")
    parser.add_argument("--naive-batch-size", type=int, default=1024)
    parser.add_argument("--naive-pairs", type=int, default=3072, help="pairs the baseline trains per repeat")
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads (0: torch's default)")
    parser.add_argument("--workers", type=int, default=None,
                        help="KernelOptions.workers (default 2; 1 = chunks in order, no thread scoping)")
    parser.add_argument("--naive-threads", type=int, default=0,
                        help="baseline intra-op threads (0: the better of 1 and all cores, per repeat)")
    parser.add_argument("--spin", action="store_true", help="keep OpenMP's default spin-waiting")
    parser.add_argument("--ablations", action="store_true", help="also time before/after variants")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    configure_threads(args.threads, args.spin)
    import torch
    from naive import NaiveGoat, naive_epoch

    from goat_core.backends import dispatch
    from goat_core.backends.workers import DEFAULT_OPTIONS, KernelOptions
    from goat_core.data.sampling import Adjacency, noise_distribution, sample_neighborhoods
    from goat_core.model import Goat
    from goat_core.training import epoch_pairs, run_training, small_machine_threads

    threads = args.threads or small_machine_threads()  # as the CLI and the app set it
    if threads:
        torch.set_num_threads(threads)
    kernel_options = KernelOptions(workers=args.workers) if args.workers is not None else DEFAULT_OPTIONS
    device = torch.device(args.device)
    fast_backend = "fused" if device.type == "cpu" else "torch"
    graph = email_split().train
    dim, hood_size, dropout, lr = 200, 100, 0.8, 1e-4

    useful = {"flops": 0.0}

    def counting(compute):
        """``compute`` (dispatch.goat_logits, or goat_loss: a fused training step's one pass)
        counting the useful alignment FLOPs of each batch on its way."""
        def counted(weight, nbr_s, nbr_t, mask_s, mask_t, *rest, **kw):
            real = mask_s.sum(1).double() * mask_t.sum(1).double()
            useful["flops"] += 2.0 * weight.shape[1] * float(real.sum())
            return compute(weight, nbr_s, nbr_t, mask_s, mask_t, *rest, **kw)
        return counted

    dispatch.goat_logits = counting(dispatch.goat_logits)
    dispatch.goat_loss = counting(dispatch.goat_loss)

    gen = torch.Generator().manual_seed(0)
    model = Goat(graph.num_nodes, dim, "max", dropout, gen).to(device)

    def our_epoch(seed: int, **options) -> tuple[float, float, float, int]:
        useful["flops"] = 0.0
        g = torch.Generator().manual_seed(seed)
        wall, cpu = time.perf_counter(), time.process_time()
        run_training(model, graph, epochs=1, batch_size=options.pop("batch_size", args.batch_size), lr=lr,
                     negatives=1, neighborhood=hood_size, exclude_partner=True, generator=g,
                     device=device, backend=options.pop("backend", fast_backend),
                     options=options.pop("options", kernel_options), **options)
        return time.perf_counter() - wall, time.process_time() - cpu, useful["flops"], 2 * graph.num_edges

    adj = Adjacency.from_graph(graph)
    ng = torch.Generator().manual_seed(1)
    hood = sample_neighborhoods(adj, hood_size, ng)
    ps, pd, labels, _ = epoch_pairs(torch.from_numpy(graph.src), torch.from_numpy(graph.dst),
                                    torch.ones(graph.num_edges), False, 1, noise_distribution(adj), ng)
    naive = NaiveGoat(graph.num_nodes, dim, dropout, ng)
    naive_opt = torch.optim.Adam(naive.parameters(), lr=lr)

    def naive_once(threads: int) -> tuple[float, float, int]:
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        cpu = time.process_time()
        n, secs = naive_epoch(naive, naive_opt, (ps, pd, labels), hood, args.naive_batch_size, ng,
                              args.naive_pairs)
        cpu = time.process_time() - cpu
        torch.set_num_threads(before)
        return secs, cpu, n

    def naive_run() -> tuple[float, float, int]:
        """The baseline at its best thread setting right now (1 thread wins on a busy machine)."""
        settings = [args.naive_threads] if args.naive_threads else sorted({1, os.cpu_count() or 1})
        return min((naive_once(t) for t in settings), key=lambda run: run[0] / run[2])

    def best_sgemm() -> float:
        """The machine's gemm rate now: the better of 1 thread and all cores."""
        threads = torch.get_num_threads()
        rates = []
        for t in sorted({1, os.cpu_count() or 1}):
            torch.set_num_threads(t)
            rates.append(sgemm_flops(2048, 5, args.device))
        torch.set_num_threads(threads)
        return max(rates)

    our_epoch(100)  # warm-up
    if args.naive_pairs:
        naive_run()
    ours, base, gemm = [], [], []
    for rep in range(args.repeats):
        wall, cpu, flops, pairs = our_epoch(rep)
        ours.append((pairs / wall, pairs / cpu, flops / wall))
        nwall, ncpu, npairs = naive_run() if args.naive_pairs else (float("nan"), float("nan"), 0)
        base.append((npairs / nwall, npairs / ncpu))
        gemm.append(best_sgemm() if args.device == "cpu" else sgemm_flops(2048, 5, args.device))
        print(f"repeat {rep}: ours {pairs / wall:8.0f} pairs/s ({wall:.2f} s/epoch, {flops / wall / 1e9:.1f} "
              f"useful GFLOP/s) | naive {npairs / nwall:7.0f} pairs/s | sgemm {gemm[-1] / 1e9:.0f} GFLOP/s",
              flush=True)

    pairs_per_s = median([o[0] for o in ours])
    naive_pairs_per_s = median([b[0] for b in base])
    useful_flops = median([o[2] for o in ours])
    result = {
        "pairs_per_s": pairs_per_s,
        "naive_pairs_per_s": naive_pairs_per_s,
        "speedup": pairs_per_s / naive_pairs_per_s,
        "roofline_fraction": useful_flops / median(gemm),
        "useful_gflops": useful_flops / 1e9,
        "sgemm_gflops": median(gemm) / 1e9,
        "pairs_per_cpu_s": median([o[1] for o in ours]),
        "naive_pairs_per_cpu_s": median([b[1] for b in base]),
        "speedup_cpu_time": median([o[1] for o in ours]) / median([b[1] for b in base]),
        "epoch_s": 2 * graph.num_edges / pairs_per_s,
        "pairs_per_epoch": 2 * graph.num_edges,
        "config": {"graph": "email 55% train (seed 0)", "dim": dim, "neighborhood": hood_size,
                   "dropout": dropout, "lr": lr, "batch_size": args.batch_size,
                   "naive_batch_size": args.naive_batch_size, "naive_threads": args.naive_threads,
                   "kernel_workers": kernel_options.workers, "repeats": args.repeats},
        "machine": machine(),
    }
    if args.ablations:
        from contextlib import nullcontext

        from goat_core.backends import fused

        one_blas_thread = fused._one_blas_thread
        loop = fused.pair_loop
        result["ablations"] = {}
        for name, options, settings in ABLATIONS:
            run_options = {key: value for key, value in options.items() if key != "workers"}
            if "workers" in options:
                run_options["options"] = KernelOptions(workers=options["workers"])
            fused._one_blas_thread = nullcontext if settings.get("blas_threads") else one_blas_thread
            fused.pair_loop = _free_loop if settings.get("free_loops") else loop
            walls, cpus = [], []
            for rep in range(args.repeats):
                wall, cpu, _, pairs = our_epoch(200 + rep, **run_options)
                walls.append(pairs / wall)
                cpus.append(pairs / cpu)
            result["ablations"][name] = {"pairs_per_s": median(walls), "pairs_per_cpu_s": median(cpus)}
            print(f"{name:56s} {median(walls):8.0f} pairs/s {median(cpus):8.0f} pairs/cpu-s", flush=True)
        fused._one_blas_thread = one_blas_thread
        fused.pair_loop = loop
        ceiling = result["ablations"][CEILING]["pairs_per_s"]
        result["ceiling_pairs_per_s"] = ceiling
        result["ceiling_roofline_fraction"] = result["roofline_fraction"] * ceiling / pairs_per_s
        print(f"ceiling with free per-pair loops: {ceiling:.0f} pairs/s, roofline "
              f"{result['ceiling_roofline_fraction']:.1%}")
    print(f"ours {pairs_per_s:.0f} pairs/s, naive {naive_pairs_per_s:.0f} pairs/s: {result['speedup']:.1f}x; "
          f"roofline {result['roofline_fraction']:.1%} ({result['useful_gflops']:.1f} of "
          f"{result['sgemm_gflops']:.0f} GFLOP/s)")
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
