"""Data-parallel GOAT training (DDP), launched by ``torchrun``
(``python -m torch.distributed.run --standalone --nproc_per_node 2 -m goat_core.distributed email --json``):
every process draws the same pairs and batches from the seed and trains on every world-th pair of a batch;
DDP averages the gradients, so the models stay identical. Rank 0 evaluates and prints."""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from .analysis.evaluation import evaluate_link_prediction
from .cli import add_training_options, emit, goat_from_args, use_small_machine_threads
from .data.datasets import load_graph
from .data.graph import Graph
from .data.sampling import split_edges
from .estimator import Goat


def fit_data_parallel(goat: Goat, graph: Graph, rank: int, world: int) -> Goat:
    """``goat.fit(graph)`` with this process's shard of every batch (world == 1: plain fit)."""
    device = goat.resolved_device()
    if device.type == "cuda" and world > 1:
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    ids = [device.index] if device.type == "cuda" else None
    wrap = (lambda module: DistributedDataParallel(module, device_ids=ids)) if world > 1 else None
    return goat.fit_shard(graph, rank, world, wrap=wrap, device=device)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m goat_core.distributed", description=(
        "Data-parallel GOAT training (launch with torchrun) and leak-free link prediction."))
    parser.add_argument("graph", help="a bundled name (email, lesmis) or an edge-list file")
    parser.add_argument("--train-ratio", type=float, required=True, help="fraction of edges to train on")
    add_training_options(parser)
    parser.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_small_machine_threads()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    goat = goat_from_args(args)
    if world > 1:
        dist.init_process_group("nccl" if goat.resolved_device().type == "cuda" else "gloo")
    try:
        graph = load_graph(args.graph, directed=args.directed)
        split = split_edges(graph, args.train_ratio, goat.seed)
        start = time.perf_counter()
        fit_data_parallel(goat, split.train, rank, world)
        elapsed = time.perf_counter() - start
        if rank == 0:
            result = evaluate_link_prediction(goat, split)
            result.update({"world_size": world, "backend": dist.get_backend() if world > 1 else None,
                           "train_ratio": args.train_ratio, "seed": goat.seed, "elapsed": elapsed,
                           "final_loss": goat.history_[-1]["loss"] if goat.history_ else None,
                           "embedding_norm": float(np.linalg.norm(goat.embedding_)),
                           "params": goat.get_params()})
            emit(result, args.json)
    finally:
        if world > 1:
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
