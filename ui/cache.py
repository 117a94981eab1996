"""Caches shared by all sessions, keyed by content so that sessions never mix.

``st.cache_resource`` holds objects that are used read-only (graphs, trained runs);
``st.cache_data`` holds arrays and figures' inputs (returned as copies). Keys are the graph
fingerprint (a content hash), the run key (fingerprint + every parameter + seed) and the
view's own seed; arguments starting with ``_`` are the objects those keys stand for.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections import OrderedDict

import numpy as np
import streamlit as st

import goat_core
from goat_core import archive, presets, views
from goat_core.analysis import community, contexts, layouts, spread
from goat_core.analysis.baselines import evaluate_heuristics
from goat_core.analysis.evaluation import MAX_CLASSES, cluster_embeddings, contingency
from goat_core.analysis.projection import Progress, project
from goat_core.data.graph import NodeIndex

from .runs import RunStore


@st.cache_resource(show_spinner=False)
def bundled_graph(name: str) -> goat_core.Graph:
    return goat_core.load_graph(name)


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


@st.cache_resource(show_spinner=False, max_entries=32)
def uploaded_graph(edges_digest: str, file: str, options: goat_core.ReadOptions, labels_digest: str | None,
                   labels_file: str | None, max_bytes: int, _edges: bytes,
                   _labels: bytes | None) -> goat_core.Graph:
    """Read an uploaded graph file (any format, ``options`` as chosen) and labels file; keyed by
    content and options. Errors are GoatErrors (GraphFormatError, ParameterError)."""
    from dataclasses import replace

    graph = goat_core.read_graph_bytes(_edges, file, options, max_bytes=max_bytes)
    if _labels is not None:
        labels = goat_core.parse_labels(_labels, graph, labels_file or "<labels>", options.encoding)
        read = replace(graph.read, labels_from=None) if graph.read is not None else None
        graph = replace(graph, labels=labels, read=read)
    return graph


def upload_key(edges_digest: str, labels_digest: str | None, options: object) -> str:
    """An upload's content key: the files' digests and the options they were read with (a
    dataclass or a mapping), so that the same bytes read another way are another graph. Short
    enough for a link; 80 bits of SHA-256."""
    if dataclasses.is_dataclass(options) and not isinstance(options, type):
        options = dataclasses.asdict(options)
    text = json.dumps({"edges": edges_digest, "labels": labels_digest, "options": options}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class UploadStore:
    """Uploaded graphs by content key (:func:`upload_key`), shared by sessions: a refresh or a
    shared link finds the graph again on this server. A bounded LRU guarded by a lock."""

    def __init__(self, capacity: int = 32):
        self.capacity = capacity
        self.items: OrderedDict[str, tuple[goat_core.Graph, str]] = OrderedDict()
        self.lock = threading.Lock()

    def put(self, key: str, graph: goat_core.Graph, file: str) -> None:
        with self.lock:
            self.items[key] = (graph, file)
            self.items.move_to_end(key)
            while len(self.items) > self.capacity:
                self.items.popitem(last=False)

    def get(self, key: str) -> tuple[goat_core.Graph, str] | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return found


@st.cache_resource(show_spinner=False)
def upload_store() -> UploadStore:
    return UploadStore()


@st.cache_data(show_spinner=False, max_entries=32)
def layout(graph_fp: str, seed: int, _graph: goat_core.Graph) -> np.ndarray:
    return layouts.layout(_graph, seed)


OVERVIEW_NODES = 20_000  # the Graph page's whole-graph view draws at most this many nodes (WebGL)


@st.cache_data(show_spinner=False, max_entries=32)
def overview_layout(graph_fp: str, seed: int, _graph: goat_core.Graph) -> tuple[layouts.Overview, np.ndarray]:
    """What the whole-graph view draws (every node up to OVERVIEW_NODES, else the hubs) and its
    layout: the full graph's cached layout when every node is drawn."""
    shown = layouts.overview(_graph, OVERVIEW_NODES)
    if shown.complete:
        return shown, layout(graph_fp, seed, _graph)
    return shown, layouts.layout_edges(len(shown.nodes), shown.src, shown.dst, seed)


@st.cache_data(show_spinner=False, max_entries=32)
def communities(graph_fp: str, seed: int, _graph: goat_core.Graph) -> goat_core.NodeLabels:
    return community.communities(_graph, seed)


def colouring(ex, mode: str, seed: int, embedding: np.ndarray | None = None, run_key: str = ""):
    """(group codes, group names, continuous values, title) for a colour mode.

    ``labels`` = the graph's ground truth, ``communities`` = Leiden, ``k-means`` = clusters of
    ``embedding`` (k = number of labels, else 8), ``degree`` and ``context spread`` (the current
    run's, :mod:`goat_core.analysis.spread`) = continuous.
    """
    graph = ex.graph
    if mode == SPREAD and ex.run is not None:
        return None, (), context_spread(ex.run.key, seed, ex.run.goat).spread, SPREAD
    if mode == "labels" and graph.labels is not None:
        return graph.labels.codes, graph.labels.classes, None, "label"
    if mode.startswith(ATTRIBUTE) and mode[len(ATTRIBUTE):] in graph.node_attrs:
        found = goat_core.labels_from_attribute(graph, mode[len(ATTRIBUTE):])
        return found.codes, found.classes, None, mode[len(ATTRIBUTE):]
    if mode == "k-means" and embedding is not None:
        k = min(len(graph.labels.classes), MAX_CLASSES) if graph.labels is not None else 8
        codes = kmeans(run_key, k, seed, _embedding=embedding)
        return codes, tuple(f"cluster {c}" for c in range(k)), None, "cluster"
    if mode == "communities":
        found = communities(ex.graph_fp, seed, graph)
        return found.codes, found.classes, None, "community"
    return None, (), graph.degrees(), "degree"


SPREAD = "context spread"
ATTRIBUTE = "attribute: "  # colour by a node attribute of the file (GEXF/GraphML/GML/JSON)


def colour_modes(graph: goat_core.Graph, with_kmeans: bool = False, run=None) -> list[str]:
    """The colourings offered; ``context spread`` with a run of this graph that has contexts, up
    to ``presets.LARGE_GRAPH_EDGES`` edges (above, the Embeddings page computes it on request)."""
    modes = (["labels"] if graph.labels is not None else []) + ["communities"]
    modes += [ATTRIBUTE + name for name in goat_core.label_attributes(graph)]  # e.g. "attribute: club"
    modes += (["k-means"] if with_kmeans else []) + ["degree"]
    if run is not None and spread_offered(graph, run) and graph.num_edges <= presets.LARGE_GRAPH_EDGES:
        modes.append(SPREAD)
    return modes


def spread_offered(graph: goat_core.Graph, run) -> bool:
    """Whether ``run`` (of ``graph``) has context representations to spread: not GoatGlobal."""
    return run.goat.variant != "global" and run.goat.graph_.num_nodes == graph.num_nodes


@st.cache_data(show_spinner=False, max_entries=16)
def context_spread(run_key: str, seed: int, _goat: goat_core.Goat) -> spread.ContextSpread:
    """Every node's context spread and persona clusters (seeded sample of its partners)."""
    return spread.context_spread(_goat, seed=seed)


@st.cache_data(show_spinner=False, max_entries=64)
def kmeans(key: str, k: int, seed: int, _embedding: np.ndarray) -> np.ndarray:
    k = max(1, min(k, len(_embedding)))
    return cluster_embeddings(_embedding, k, seed)


@st.cache_data(show_spinner=False, max_entries=16)
def pyvis_page(graph_fp: str, colour: str, seed: int, center: int | None, pair: tuple[int, int] | None,
               _graph: goat_core.Graph, _groups, _group_names, limit: int = 300) -> tuple[str, int]:
    """The pyvis page of the whole graph, or of ``center``'s ego network above ``limit`` nodes."""
    graph = _graph
    highlight = {}
    if graph.num_nodes <= limit:
        nodes = np.arange(graph.num_nodes)
        src, dst = graph.undirected_pairs()
        if center is not None:
            highlight[center] = "search"
    else:
        nodes, src, dst = layouts.ego_subgraph(graph, 0 if center is None else center, limit)
        highlight[0] = "search"
    if pair is not None and graph.num_nodes <= limit:
        highlight.update({pair[0]: "source", pair[1]: "target"})
    names = [graph.names[i] for i in nodes]
    degrees = graph.degrees()[nodes]
    groups = None if _groups is None else np.asarray(_groups)[nodes]
    page = views.pyvis_html(names, src, dst, degrees, groups=groups, group_names=_group_names,
                            highlight=highlight)
    return page, len(nodes)


@st.cache_data(show_spinner=False, max_entries=64)
def embeddings(run_key: str, kind: str, _goat: goat_core.Goat) -> np.ndarray:
    return _goat.node_embeddings(kind)


class ProjectionStore:
    """2-D projections shared by all sessions, keyed by (point set key, method, seed).

    Not ``st.cache_data``: a UMAP reports its progress to a bar drawn by the page, and Streamlit
    would record and replay element calls made inside a cached function."""

    def __init__(self, max_entries: int = 64):
        self.max_entries = max_entries
        self.items: OrderedDict[tuple[str, str, int], np.ndarray] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str, int]) -> np.ndarray | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return None if found is None else found.copy()

    def put(self, key: tuple[str, str, int], coords: np.ndarray) -> None:
        with self.lock:
            self.items[key] = coords.copy()
            while len(self.items) > self.max_entries:
                self.items.popitem(last=False)


@st.cache_resource(show_spinner=False)
def projection_store() -> ProjectionStore:
    return ProjectionStore()


def cached_projection(key: str, method: str, seed: int) -> np.ndarray | None:
    return projection_store().get((key, method, seed))


def projection(key: str, method: str, seed: int, points: np.ndarray,
               progress: Progress | None = None) -> np.ndarray:
    """2-D projection of any point set named by ``key`` (PCA instant, UMAP with ``progress``)."""
    coords = cached_projection(key, method, seed)
    if coords is None:
        coords = project(points, method, seed, progress=progress)
        projection_store().put((key, method, seed), coords)
    return coords


@st.cache_data(show_spinner=False, max_entries=64)
def personas(run_key: str, node: int, everyone: bool, _goat: goat_core.Goat) -> tuple[np.ndarray, np.ndarray]:
    """All context representations of ``node``: one per neighbor (or per other node)."""
    partners = [NodeIndex(v) for v in range(_goat.graph_.num_nodes)] if everyone else None
    return _goat.context_representations(NodeIndex(node), partners)


@st.cache_data(show_spinner=False, max_entries=256)
def contrasting_partner(run_key: str, node: int, partner: int, _goat: goat_core.Goat) -> int | None:
    return contexts.contrasting_partner(_goat, node, partner)


@st.cache_data(show_spinner=False, max_entries=32)
def clustering(run_key: str, kind: str, seed: int, _embedding: np.ndarray,
               _labels: goat_core.NodeLabels) -> dict:
    result = goat_core.evaluate_clustering(_embedding, _labels, seed)
    known = _labels.codes >= 0
    result["contingency"] = contingency(_labels.codes[known], result["predicted"])
    return result


@st.cache_data(show_spinner=False, max_entries=16)
def link_prediction(run_key: str, _goat: goat_core.Goat, _split: goat_core.EdgeSplit) -> dict:
    return goat_core.evaluate_link_prediction(_goat, _split, curves=True)


@st.cache_data(show_spinner=False, max_entries=16)
def heuristics(run_key: str, _split: goat_core.EdgeSplit) -> dict:
    """Common neighbors, Adamic-Adar and preferential attachment on the run's held-out edges."""
    return evaluate_heuristics(_split, curves=True)


@st.cache_data(show_spinner=False, max_entries=8)
def run_zip(run_key: str, _goat: goat_core.Goat) -> bytes:
    return archive.run_to_zip(_goat)


@st.cache_resource(show_spinner=False)
def run_store() -> RunStore:
    return RunStore()
