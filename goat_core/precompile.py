"""Compile the fused loops into numba's disk cache ahead of use: ``python -m goat_core.precompile [--umap]``.
Each step runs a tiny real computation through one family of loops and prints ``k/n name``, which the app's
start (``ui/warmup.py``, a child process) reads as progress; ``--umap`` adds UMAP's numba code."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from .data.graph import Graph
from .data.readers import parse_edge_list
from .estimator import Goat

# Two triangles joined by an edge, a pendant node: every node has a neighbor, sizes differ.
_EDGES = b"a b\nb c\nc a\nc d\nd e\ne f\nf d\nf g\n"


def _graph() -> Graph:
    return parse_edge_list(_EDGES, file="<precompile>")


def _fit(graph: Graph | None = None, **params) -> Goat:
    base = dict(dim=8, neighborhood=3, epochs=1, batch_size=4, validation_fraction=0.0, seed=0,
                backend="fused", device="cpu")
    return Goat(**{**base, **params}).fit(_graph() if graph is None else graph)


def _scoring() -> None:
    """Scores without the Gram matrix (few pairs, or a large graph), both poolings: the training's loop in
    its scoring signature's types."""
    pairs = np.array([[0, 1], [2, 3], [4, 6]])
    for variant in ("goat", "mean-pool"):
        _fit(variant=variant).decision_function(pairs)


def _ranking() -> None:
    """The evaluation's loops, which need no training loop (first: a new server's Scores page waits for
    them): the hard and random negatives and the heuristics' common neighbors
    (:mod:`.backends.ranking_kernels`), and the Gram mode (:mod:`.backends.gram`), which scores the
    ranked pairs of a graph of up to ``GRAM_MAX_NODES`` nodes whichever path trained it."""
    from .analysis.ranking import goat_pair_scores, rank_heuristics, ranking_negatives
    from .backends.dispatch import GRAM_MIN_PAIRS
    from .data.sampling import split_edges

    split = split_edges(_graph(), 0.7, 0)
    rank_heuristics(split, ranking_negatives(split, "hard", 2))
    ranking_negatives(split, "random", 2)
    pairs = np.resize(np.column_stack([split.train.src, split.train.dst]), (GRAM_MIN_PAIRS, 2))
    goat_pair_scores(_fit(split.train, backend="torch"), pairs)  # torch compiles nothing


def _umap() -> None:
    from .analysis.projection import warm_up

    warm_up()


STEPS: dict[str, Callable[[], object]] = {
    "ranking loops": _ranking,
    "training loop": _fit,  # the one-pass training loop (max pooling) and dense Adam's merged update
    "lazy Adam": partial(_fit, optimizer="lazy-adam"),  # the touched rows' gradient and their update
    "scoring loops": _scoring,
}


def compile_all(umap: bool = False, report: Callable[[int, int, str], None] | None = None) -> None:
    """Run every step (and UMAP's with ``umap``); ``report(done, total, name)`` before each and at the end."""
    steps = dict(STEPS, **({"UMAP": _umap} if umap else {}))
    for k, (name, step) in enumerate(steps.items()):
        if report is not None:
            report(k, len(steps), name)
        step()
    if report is not None:
        report(len(steps), len(steps), "done")


def exit_with_parent() -> None:
    """End this process when the one that started it is gone (a stopped server leaves no compile
    running behind it): the parent's pid changes when it dies."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(3)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m goat_core.precompile",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--umap", action="store_true", help="also compile UMAP's numba code")
    parser.add_argument("--with-parent", action="store_true",
                        help="run at a lower priority and stop when the process that started this one ends "
                             "(the app's server)")
    args = parser.parse_args(argv)
    if args.with_parent:  # started by the app: background work, behind the users' trainings
        exit_with_parent()
        os.nice(10)
    started = time.perf_counter()

    def report(done: int, total: int, name: str) -> None:
        print(f"{done}/{total} {name} {time.perf_counter() - started:.1f}", flush=True)

    compile_all(umap=args.umap, report=report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
