"""What the context spread of every node costs: ``goat_core.analysis.spread.context_spread`` at 10k nodes.

    GOAT_DATA_DIR=../shared/data .venv/bin/python bench/spread.py [--nodes 10000] [--m 5] [--repeats 3]

A Barabási–Albert graph of ``--nodes`` nodes (``--m`` edges per new node, as the app's 10k-node
upload test) and Email, each trained with the app's fast preset on its training edges (15 % held
out, as the Train page does); then every node's context spread and persona clusters, timed in
its parts: the representations r_u^(v) (one forward pass per sampled context, at most 32 per
node), the spread (vectorised), the persona clusters (nodes with at least 4 contexts, batched by
their number of contexts). For scale, the Embeddings page's mean context representation (one r
per edge end) is timed too. Medians of ``--repeats`` after one warm-up; wall-clock and the
process's CPU time (one thread: on a quiet machine they agree; on a shared one the CPU time is
the better guide). Target: within the app's page budget at this size (3 s at 10k edges, 10 s at
100k; BENCHMARKS.md, App at scale).
Writes bench/results/spread.json (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import ROOT, configure_threads, machine, median


def ba_graph(nodes: int, m: int, seed: int = 0):
    import networkx as nx

    from goat_core.data.graph import from_networkx

    return from_networkx(nx.barabasi_albert_graph(nodes, m, seed=seed), source=f"ba-{nodes}-{m}")


def timed_parts(goat, seed: int = 0) -> dict:
    """The three parts of ``context_spread``, timed one by one (the same calls, in order)."""
    import torch

    from goat_core.analysis import spread
    from goat_core.analysis.representations import representations
    from goat_core.data.sampling import Adjacency

    t0 = time.perf_counter()
    adj = Adjacency.from_graph(goat.graph_)
    owners, partners = spread.sample_partners(adj, spread.MAX_CONTEXTS, seed)
    with torch.no_grad():
        reps = representations(goat.model_, goat.embedding_, goat.neighborhoods_, owners, partners,
                               goat.exclude_partner, goat.padding, goat.device_)
    t1 = time.perf_counter()
    spread.mean_cosine_distance(owners, reps, adj.num_nodes)
    t2 = time.perf_counter()
    contexts = np.bincount(owners, minlength=adj.num_nodes)
    clustered = np.flatnonzero(contexts >= spread.MIN_CONTEXTS)
    spread.grouped_personas(reps, contexts)
    t3 = time.perf_counter()
    return {"contexts": int(len(owners)), "clustered_nodes": int(len(clustered)),
            "representations_s": t1 - t0, "spread_s": t2 - t1, "personas_s": t3 - t2}


def measure(name: str, graph, repeats: int) -> dict:
    import goat_core
    from goat_core import presets
    from goat_core.analysis import spread

    form = presets.fast(graph.num_edges)
    split = goat_core.split_edges(graph, 1.0 - form.pop("holdout"), 0)
    started = time.perf_counter()
    goat = goat_core.Goat(**form, seed=0).fit(split.train)
    fit_s = time.perf_counter() - started
    spread.context_spread(goat)  # warm-up
    totals, cpu, parts, means, means_cpu = [], [], [], [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        found = spread.context_spread(goat)
        totals.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        parts.append(timed_parts(goat))
        goat.__dict__.pop("_context_cache", None)
        t, c = time.perf_counter(), time.process_time()
        goat.node_embeddings("context")
        means.append(time.perf_counter() - t)
        means_cpu.append(time.process_time() - c)
    row = {"graph": name, "nodes": graph.num_nodes, "training_edges": split.train.num_edges,
           "fit_s": fit_s, "params": form, "context_spread_s": median(totals),
           "context_spread_all_s": totals, "context_spread_cpu_s": median(cpu),
           "mean_context_s": median(means), "mean_context_cpu_s": median(means_cpu),
           "personas": np.bincount(found.personas).tolist()}
    for key in ("representations_s", "spread_s", "personas_s"):
        row[key] = median([p[key] for p in parts])
    row.update({k: parts[0][k] for k in ("contexts", "clustered_nodes")})
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--m", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "spread.json")
    args = parser.parse_args()
    configure_threads(args.threads)
    import goat_core

    rows = [measure(f"Barabási–Albert {args.nodes:,} nodes, m = {args.m}", ba_graph(args.nodes, args.m),
                    args.repeats),
            measure("Email", goat_core.load_graph("email"), args.repeats)]
    result = {"machine": machine(), "args": {**vars(args), "out": str(args.out)}, "rows": rows}
    out = args.out
    out.write_text(json.dumps(result, indent=1))
    for r in rows:
        print(f"{r['graph']}: {r['nodes']:,} nodes, {r['training_edges']:,} training edges, "
              f"{r['contexts']:,} contexts; context_spread {r['context_spread_s']:.2f} s wall, "
              f"{r['context_spread_cpu_s']:.2f} s CPU (representations "
              f"{r['representations_s']:.2f} s, spread {r['spread_s']:.3f} s, personas of "
              f"{r['clustered_nodes']:,} nodes {r['personas_s']:.2f} s); "
              f"mean context {r['mean_context_s']:.2f} s wall, {r['mean_context_cpu_s']:.2f} s CPU; "
              f"fit {r['fit_s']:.1f} s; personas histogram {r['personas']}")
    print(f"load average {result['machine']['loadavg_1m']}; wrote {out}")


if __name__ == "__main__":
    main()
