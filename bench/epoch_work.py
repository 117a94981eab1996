"""The work in one epoch of ``bench/scaling.py``'s configuration: pairs, widths, alignment FLOPs.

    python bench/epoch_work.py [--sizes 100000 1000000 2000000]

For each size: the BA graph of ``bench/scaling.py`` (m = 10, seed 0), one draw of N = 100
neighborhoods and one epoch's pairs (every edge randomly oriented, one D^0.75 negative each), as
``run_training`` draws them. Reported: the pairs, the mean real widths |N_s| and |N_t| (a
positive pair's partner left out of each side), the mean |N_s|·|N_t|, and the alignment's FLOPs
2·|N_s|·|N_t|·d (d = 200), summed over the epoch: the part of an epoch that is sgemm work, to set
against its wall time (no timing here).
"""

from __future__ import annotations

import argparse

from scaling import ba_graph


def epoch_work(edges: int, seed: int = 0, dim: int = 200, neighborhood: int = 100) -> dict:
    import torch

    from goat_core.data.sampling import Adjacency, noise_distribution, sample_neighborhoods
    from goat_core.training import epoch_pairs

    graph = ba_graph(edges, 10, seed)
    adj = Adjacency.from_graph(graph)
    gen = torch.Generator().manual_seed(seed)
    hood = sample_neighborhoods(adj, neighborhood, gen)
    src, dst, labels, _ = epoch_pairs(torch.from_numpy(graph.src), torch.from_numpy(graph.dst),
                                      torch.ones(graph.num_edges), False, 1, noise_distribution(adj), gen)
    partner = labels.double()  # a positive pair's partner is in both neighborhoods and left out
    width_s = hood.length[src].double() - partner
    width_t = hood.length[dst].double() - partner
    products = width_s * width_t
    return {"edges": graph.num_edges, "nodes": graph.num_nodes, "pairs": len(src),
            "mean_width_s": float(width_s.mean()), "mean_width_t": float(width_t.mean()),
            "mean_product": float(products.mean()),
            "alignment_tflop": 2.0 * dim * float(products.sum()) / 1e12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000, 2_000_000])
    args = parser.parse_args()
    print("| edges | nodes | pairs | mean |N_s| | mean |N_t| | mean |N_s|·|N_t| | alignment TFLOP |")
    print("|---|---|---|---|---|---|---|")
    for edges in args.sizes:
        w = epoch_work(edges)
        print(f"| {w['edges']:,} | {w['nodes']:,} | {w['pairs']:,} | {w['mean_width_s']:.1f} | "
              f"{w['mean_width_t']:.1f} | {w['mean_product']:,.0f} | {w['alignment_tflop']:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
