"""Data-parallel training: 2 CPU processes (torchrun, gloo) reach what 1 process reaches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--train-ratio", "0.7", "--epochs", "15", "--dim", "32", "--neighborhood", "10",
        "--dropout", "0", "--lr", "0.01", "--batch-size", "64", "--seed", "0", "--json"]


def run(cmd: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, done.stdout  # rank 0 alone reports
    return json.loads(lines[0])


@pytest.fixture(scope="module")
def planted_edges(tmp_path_factory) -> Path:
    graph = nx.planted_partition_graph(4, 40, 0.3, 0.01, seed=0)
    path = tmp_path_factory.mktemp("ddp") / "planted.txt"
    path.write_text("".join(f"{u} {v}\n" for u, v in graph.edges()))
    return path


@pytest.mark.parametrize("optimizer", ["adam", "lazy-adam"])
def test_two_gloo_processes_match_one(planted_edges, optimizer):
    args = [*ARGS, "--optimizer", optimizer]  # lazy Adam: DDP all-reduces the sparse table gradient
    one = run([sys.executable, "-m", "goat_core.distributed", str(planted_edges), *args])
    two = run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "-m", "goat_core.distributed", str(planted_edges), *args])
    assert one["params"]["optimizer"] == two["params"]["optimizer"] == optimizer
    assert one["world_size"] == 1 and two["world_size"] == 2 and two["backend"] == "gloo"
    assert one["auc"] > 0.75  # the planted communities are learned
    # Same batches, gradients averaged over the two halves: the same model up to rounding.
    assert abs(two["auc"] - one["auc"]) < 0.01
    assert abs(two["embedding_norm"] - one["embedding_norm"]) < 1e-3 * one["embedding_norm"]
