"""DeepWalk and node2vec, the random-walk baselines of the GOAT paper, scored by the dot product of two
embeddings: pecanpy walks (DeepWalk is p = q = 1), gensim skip-gram, both papers' defaults. Seeded: the
walks run on one numba thread seeded under a lock, Word2Vec on one worker from the same seed."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..backends.logistic import dot_scores
from ..data.graph import Graph
from ..data.sampling import EdgeSplit
from ..errors import ParameterError
from .baselines import undirected_adjacency
from .evaluation import held_out_pairs, link_result

if TYPE_CHECKING:  # annotations only
    from .ranking import RankingNegatives

WALK_METHODS = {"deepwalk": "DeepWalk", "node2vec": "node2vec"}
# What the app compares GOAT with, untuned: DeepWalk, and node2vec with q = 0.5 (outward walks), the
# in-out parameter Email's validation carve-outs chose at 15 and 55 % (RESULTS.md, "Protocol";
# reproduce/node2vec.py).
PRESETS: dict[str, dict] = {"deepwalk": {"p": 1.0, "q": 1.0}, "node2vec": {"p": 1.0, "q": 0.5}}
DEFAULTS = dict(p=1.0, q=1.0, dim=128, num_walks=10, walk_length=80, window=10, epochs=1)  # the papers'
_walk_lock = threading.Lock()  # numba's and numpy's generators are process state: one seeding at a time


def _check(p: float, q: float, ints: dict[str, int]) -> None:
    for name, value in {"p": p, "q": q}.items():
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
            raise ParameterError(f"{name} must be a positive number, got {value!r}")
    for name, value in ints.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(f"{name} must be a positive integer, got {value!r}")


@functools.cache
def _numba_seeder():
    from numba import njit

    @njit
    def seed_here(s):  # seeds numba's generator of the calling thread
        np.random.seed(s)

    return seed_here


def random_walks(graph: Graph, p: float = 1.0, q: float = 1.0, num_walks: int = 10,
                 walk_length: int = 80, seed: int = 0) -> list[list[str]]:
    """``num_walks`` node2vec walks from every node of ``graph`` (node indices as strings, the
    tokens Word2Vec learns); an isolated node's walk is the node alone."""
    try:
        import gensim  # noqa: F401
        import pecanpy  # noqa: F401
    except ImportError as err:
        raise ImportError("DeepWalk and node2vec need pecanpy and gensim: "
                          "pip install -r requirements.txt") from err
    import numba
    from pecanpy.pecanpy import FirstOrderUnweighted, SparseOTF

    adj = undirected_adjacency(graph.num_nodes, *graph.undirected_pairs())
    adj.sort_indices()
    walker = (FirstOrderUnweighted if p == q == 1 else SparseOTF)(p=p, q=q, workers=1)
    walker.set_ids([str(i) for i in range(graph.num_nodes)])
    walker.indptr = adj.indptr.astype(np.uint32)
    walker.indices = adj.indices.astype(np.uint32)
    walker.data = adj.data.astype(np.float32)
    with _walk_lock:
        threads, state = numba.get_num_threads(), np.random.get_state()
        try:
            numba.set_num_threads(1)  # this thread only: one walker thread, one seeded generator
            np.random.seed(seed)
            _numba_seeder()(seed)
            return walker.simulate_walks(num_walks, walk_length)
        finally:
            np.random.set_state(state)
            numba.set_num_threads(threads)


def walk_embedding(graph: Graph, p: float = 1.0, q: float = 1.0, dim: int = 128, num_walks: int = 10,
                   walk_length: int = 80, window: int = 10, epochs: int = 1, seed: int = 0) -> np.ndarray:
    """(n, dim) skip-gram embeddings of ``graph``'s nodes from node2vec walks (DeepWalk: p = q = 1)."""
    _check(p, q, {"dim": dim, "num_walks": num_walks, "walk_length": walk_length, "window": window,
                  "epochs": epochs})
    from gensim.models import Word2Vec

    walks = random_walks(graph, p, q, num_walks, walk_length, seed)
    w2v = Word2Vec(walks, vector_size=dim, window=window, sg=1, min_count=0, workers=1, epochs=epochs,
                   seed=seed)
    return w2v.wv.vectors[[w2v.wv.get_index(str(i)) for i in range(graph.num_nodes)]].astype(np.float64)


def walks_per_node(num_nodes: int, walk_length: int = 80, budget: int = 1_000_000, most: int = 10) -> int:
    """Walks per node that keep a graph's corpus within ``budget`` tokens (at least 1, at most
    ``most``): what bounds the skip-gram's time on a large upload."""
    return int(max(1, min(most, budget // max(1, num_nodes * walk_length))))


def evaluate_walk_methods(split: EdgeSplit, configs: Mapping[str, Mapping] | None = None, seed: int = 0,
                          curves: bool = False, ranking: Sequence[RankingNegatives] = ()) -> dict[str, dict]:
    """AUC and AP of each walk embedding (name -> ``walk_embedding`` keywords) on GOAT's test pairs of
    ``split``; ``curves`` adds ROC/PR points, ``ranking`` MRR and Hits@K."""
    pairs, labels = held_out_pairs(split)
    out = {}
    for name, config in (PRESETS if configs is None else configs).items():
        score = functools.partial(dot_scores, walk_embedding(split.train, **config, seed=seed))
        ranked = {"ranking": {neg.kind: neg.evaluate(score) for neg in ranking}} if ranking else {}
        out[name] = link_result(labels, score(pairs), curves, config={**DEFAULTS, **config}, **ranked)
    return out


def walk_note(results: Mapping[str, Mapping]) -> str:
    """One sentence saying how ``evaluate_walk_methods``' embeddings were made (for a caption)."""
    configs = {name: r["config"] for name, r in results.items()}
    if not configs:
        return ""
    c = next(iter(configs.values()))
    biased = ", ".join(f"{WALK_METHODS[name]} p = {k['p']:g}, q = {k['q']:g}" for name, k in configs.items()
                       if (k["p"], k["q"]) != (1, 1))
    names = " and ".join(WALK_METHODS[name] for name in configs)
    walks = f"{c['num_walks']} walks of length {c['walk_length']} per node"
    return (f"{names} embed the training graph with a skip-gram over random walks (d = {c['dim']}, "
            f"window {c['window']}, {walks}{'; ' + biased if biased else ''}) and score a pair by "
            "E_s·E_t; untuned here (RESULTS.md tunes them on validation splits).")
