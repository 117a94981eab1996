"""Computations behind GOAT Explorer's views that are neither training nor scoring.

Layouts and communities of a graph, picking gossip pairs, one node's attention under two
partners, and runs packed as zip archives (and unpacked safely). Plain functions of a
:class:`~goat_core.graph.Graph` or a fitted :class:`~goat_core.estimator.Goat`, seeded where
randomness enters; no Streamlit here.
"""

from __future__ import annotations

import io
import tempfile
import threading
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from .attribution import total_variation
from .errors import GraphFormatError
from .estimator import Goat
from .graph import Graph, NodeIndex, NodeLabels, nfc
from .persistence import FILES
from .sampling import EdgeSplit, sample_non_edges, split_edges

MAX_RUN_ARCHIVE_BYTES = 200 * 1024 * 1024  # uncompressed, all members together
PAPER_PAIR = (55, 25)  # Marius, Thenardier in the paper's Les Misérables numbering


def _nx_graph(graph: Graph):
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    src, dst = graph.undirected_pairs()
    g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    return g


_IGRAPH_RNG = threading.Lock()  # igraph's random generator is process-wide: one seeded layout at a time


def layout(graph: Graph, seed: int = 0) -> np.ndarray:
    """(n, 2) coordinates in [-1, 1]; the same seed gives the same picture.

    Small connected graphs: Kamada-Kawai started from a seeded spring layout (evenly spread).
    Others: igraph's Fruchterman-Reingold with its grid approximation, chosen by measurement
    (``bench/layouts.py``): 1.5 s for 20k nodes where networkx's spring layout took 488 s, and
    15 s for 200k nodes, with the same edge-length quality.
    """
    import networkx as nx

    if graph.num_nodes <= 200:
        g = _nx_graph(graph)
        if nx.is_connected(g):  # small: stress-based, evenly spread
            start = nx.spring_layout(g, seed=seed, weight=None)
            pos = nx.kamada_kawai_layout(g, pos=start, weight=None)
            coords = np.array([pos[i] for i in range(graph.num_nodes)], dtype=float).reshape(-1, 2)
            return _unit_box(coords)
    src, dst = graph.undirected_pairs()
    return layout_edges(graph.num_nodes, src, dst, seed)


def layout_edges(num_nodes: int, src: np.ndarray, dst: np.ndarray, seed: int = 0) -> np.ndarray:
    """(num_nodes, 2) Fruchterman-Reingold coordinates in [-1, 1] of the graph ``src``-``dst``."""
    import igraph

    g = igraph.Graph(n=num_nodes, edges=np.stack([np.asarray(src), np.asarray(dst)], axis=1).tolist())
    iterations = 500 if num_nodes <= 50_000 else 200  # 200k nodes: 15 s at 500
    with _seeded_igraph(seed):
        coords = g.layout_fruchterman_reingold(niter=iterations, grid="auto").coords
    return _unit_box(np.asarray(coords, dtype=float).reshape(-1, 2))


@contextmanager
def _seeded_igraph(seed: int) -> Iterator[None]:
    """igraph's random generator is process-wide: seed it for one call, one call at a time."""
    import random

    import igraph

    with _IGRAPH_RNG:
        igraph.set_random_number_generator(random.Random(seed))
        try:
            yield
        finally:
            igraph.set_random_number_generator(random)


@dataclass(frozen=True)
class Overview:
    """The part of a graph a whole-graph view draws: ``nodes`` (graph ids; all of them up to
    the limit, else the highest-degree ones plus any the caller must show) and the edges among
    them as ``src``/``dst`` indexing into ``nodes``."""

    nodes: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    total_nodes: int
    total_edges: int

    @property
    def complete(self) -> bool:
        return len(self.nodes) == self.total_nodes


def overview(graph: Graph, max_nodes: int, keep: Sequence[int] = ()) -> Overview:
    """At most ``max_nodes`` nodes (plus ``keep``) for a whole-graph view: every node of a graph
    that small, else the highest-degree ones (ties by id), so that the hubs and their links stay."""
    if graph.num_nodes <= max_nodes:
        nodes = np.arange(graph.num_nodes, dtype=np.int64)
    else:
        top = np.argsort(-graph.degrees(), kind="stable")[:max_nodes]
        nodes = np.unique(np.concatenate([top, np.asarray(keep, dtype=np.int64)])).astype(np.int64)
    src, dst = _induced_edges(graph, nodes)
    return Overview(nodes, src, dst, graph.num_nodes, graph.num_edges)


def _induced_edges(graph: Graph, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The undirected edges among ``nodes``, as positions in ``nodes``."""
    local = np.full(graph.num_nodes, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    src, dst = graph.undirected_pairs()
    ls, ld = local[src], local[dst]
    inside = (ls >= 0) & (ld >= 0)
    return ls[inside], ld[inside]


def _unit_box(coords: np.ndarray) -> np.ndarray:
    coords = coords - coords.mean(axis=0) if coords.size else coords
    span = np.abs(coords).max() if coords.size else 1.0
    return coords / (span or 1.0)


def communities(graph: Graph, seed: int = 0) -> NodeLabels:
    """Leiden communities (modularity), largest first, as labels "community 0", "community 1", ...

    igraph's Leiden in C, two iterations, chosen by measurement on Barabási–Albert uploads:
    0.35 s at 100k edges and 8.4 s at 1M, where networkx's Louvain took 34 s at 100k and
    igraph's multilevel Louvain 174 s at 1M; modularity as high or higher (Les Misérables 0.560
    as networkx's Louvain; BA 100k 0.299 against 0.284)."""
    import igraph

    src, dst = graph.undirected_pairs()
    g = igraph.Graph(n=graph.num_nodes, edges=np.stack([src, dst], axis=1).tolist())
    with _seeded_igraph(seed):
        found = g.community_leiden(objective_function="modularity", n_iterations=2)
        membership = np.asarray(found.membership, dtype=np.int64)
    sizes = np.bincount(membership)
    first = np.full(len(sizes), graph.num_nodes)
    np.minimum.at(first, membership, np.arange(graph.num_nodes))
    order = sorted(range(len(sizes)), key=lambda c: (-sizes[c], first[c]))  # largest first, then by id
    rank = np.empty(len(sizes), dtype=np.int64)
    rank[order] = np.arange(len(sizes))
    return NodeLabels(codes=rank[membership], classes=tuple(f"community {c}" for c in range(len(sizes))),
                      source=f"Leiden communities (seed {seed})")


def default_pair(graph: Graph) -> tuple[int, int]:
    """The pair a view opens on: the paper's Marius–Thenardier on Les Misérables, else the
    highest-degree node with its highest-degree neighbor."""
    paper_id = graph.node_attrs.get("paper_id") if graph.node_attrs else None
    if paper_id is not None and graph.num_nodes == 77 and graph.names[PAPER_PAIR[0]] == "Marius":
        return PAPER_PAIR
    deg = graph.degrees()
    s = int(np.argmax(deg))
    src, dst = graph.undirected_pairs()
    nbrs = np.concatenate([dst[src == s], src[dst == s]])
    if len(nbrs) == 0:
        t = 1 if s == 0 else 0
    else:
        t = int(nbrs[np.argmax(deg[nbrs])])
    return s, t


def random_pair(graph: Graph, seed: int, draw: int, edge: bool = True) -> tuple[int, int]:
    """A random edge (``edge=True``) or verified non-edge; draw k of seed s is always the same."""
    rng = np.random.default_rng([seed, draw, int(edge)])
    if edge:
        k = int(rng.integers(graph.num_edges))
        return int(graph.src[k]), int(graph.dst[k])
    s, t = sample_non_edges(graph, 1, rng)[0]
    return int(s), int(t)


def neighbors(graph: Graph, node: int) -> np.ndarray:
    """Undirected neighbors of ``node`` (sorted ids)."""
    src, dst = graph.undirected_pairs()
    return np.unique(np.concatenate([dst[src == node], src[dst == node]]))


def key_nodes(graph: Graph, focus: Sequence[int], hubs: int = 10, shared: int = 12) -> list[int]:
    """The nodes a room should be able to name, in priority order: ``focus`` (the gossip pair, or
    the case study's node and partners), then the neighbors ``focus[0]`` shares with each other
    focus node (highest degree first, at most ``shared``), then the ``hubs`` highest-degree nodes."""
    focus = [int(v) for v in focus]
    deg = graph.degrees()
    common: list[int] = []
    if focus:
        mine = set(neighbors(graph, focus[0]).tolist())
        for other in focus[1:]:
            common += [int(v) for v in neighbors(graph, other) if int(v) in mine]
    common = sorted(dict.fromkeys(v for v in common if v not in focus), key=lambda v: (-deg[v], v))[:shared]
    top = [int(v) for v in np.argsort(-deg, kind="stable")[:hubs]]
    return list(dict.fromkeys(focus + common + top))


def ego_subgraph(graph: Graph, center: int, limit: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``center`` and up to ``limit - 1`` of its neighbors (highest degree first).

    Returns (node ids, src, dst) with src/dst indexing into the returned node ids.
    """
    deg = graph.degrees()
    nbrs = neighbors(graph, center)
    nbrs = nbrs[np.argsort(-deg[nbrs], kind="stable")][: max(limit - 1, 0)]
    nodes = np.concatenate([[center], nbrs]).astype(np.int64)
    src, dst = _induced_edges(graph, nodes)
    return nodes, src, dst


def find_nodes(graph: Graph, query: str, limit: int = 20) -> list[int]:
    """Nodes whose name matches ``query``, best first: the exact name, then names equal to it
    ignoring case, then names starting with it, then names containing it (``limit`` at most).
    Integer-id graphs are searched by id this way, since their names are the ids. The query is
    read in Unicode NFC, as names are (``graph.nfc``)."""
    query = nfc(query.strip())
    if not query:
        return []
    folded = query.casefold()
    ranked: list[tuple[int, int, int]] = []
    for i, name in enumerate(graph.names):
        if folded not in name.casefold():
            continue
        low = name.casefold()
        rank = 0 if name == query else 1 if low == folded else 2 if low.startswith(folded) else 3
        ranked.append((rank, len(name), i))
    ranked.sort()
    return [i for _, _, i in ranked[:limit]]


def recover_split(full: Graph, train: Graph, seed: int) -> EdgeSplit | None:
    """The EdgeSplit that turned ``full`` into ``train``, if ``split_edges(full, r, seed)`` made it.

    A saved run keeps only its training graph; when that graph is ``full`` minus a seeded
    hold-out (as the app trains), this finds the held-out edges and non-edges again, so a
    reloaded run still has its link-prediction test set. None when it cannot be matched.
    """
    if full.names != train.names or full.directed != train.directed:
        return None
    if not 0 < train.num_edges < full.num_edges:
        return None
    ratio = train.num_edges / full.num_edges
    try:
        split = split_edges(full, ratio, seed)
    except ValueError:
        return None
    same = (split.train.num_edges == train.num_edges and np.array_equal(split.train.src, train.src)
            and np.array_equal(split.train.dst, train.dst))
    return split if same else None


@dataclass(frozen=True)
class RunMatch:
    """The graph a loaded run belongs to, under which key, and its held-out split if found."""

    graph: Graph
    key: str
    split: EdgeSplit | None

    @property
    def holdout(self) -> float:
        return 0.0 if self.split is None else 1.0 - self.split.train.num_edges / self.graph.num_edges


def match_run(run_graph: Graph, seed: int, candidates: Sequence[tuple[Graph, str]], own_key: str) -> RunMatch:
    """Attach a loaded run (trained on ``run_graph`` with ``seed``) to the first candidate graph
    it was trained on: the same graph, or the graph minus a seeded hold-out (whose test edges
    are then found again). A run that matches none stands on its own graph under ``own_key``."""
    run_fp = run_graph.fingerprint()  # hashes every array: once, not per candidate
    for full, key in candidates:
        if full.fingerprint() == run_fp:
            return RunMatch(full, key, None)
        split = recover_split(full, run_graph, seed)
        if split is not None:
            return RunMatch(full, key, split)
    return RunMatch(run_graph, own_key, None)


def _edge_kind(full: Graph, train: Graph, s: int, t: int) -> str:
    """"trained", "held out" or "none": (s, t) in the graph shown, and whether the graph a model
    trained on (the same graph unless edges were held out) had it."""
    if not full.has_edge(s, t):
        return "none"
    seen = train.has_edge(s, t) if train.num_nodes == full.num_nodes else True
    return "trained" if seen else "held out"


def edge_status(full: Graph, train: Graph, s: int, t: int) -> str:
    """The pair's status for the Gossip page: "edge", "edge, held out from training" or "no edge"."""
    return {"trained": "edge", "held out": "edge, held out from training", "none": "no edge"}[
        _edge_kind(full, train, s, t)]


def partner_kind(full: Graph, train: Graph, u: int, v: int) -> str:
    """For a predicted partner v of u: "neighbor" (trained on), "held out" (an edge the model
    never saw) or "new" (no edge in the graph)."""
    return {"trained": "neighbor", "held out": "held out", "none": "new"}[_edge_kind(full, train, u, v)]


# --------------------------------------------------------------------------- one node, two partners


@dataclass(frozen=True)
class ContextShift:
    """How ``node``'s attention and representation move between two gossip partners."""

    node: str
    partner_a: str
    partner_b: str
    neighbor_names: list[str]  # union of the node's message for both partners
    weights_a: np.ndarray  # attention with partner a (NaN: not in that message)
    weights_b: np.ndarray
    r_a: np.ndarray  # r_node while gossiping with a
    r_b: np.ndarray
    probability_a: float
    probability_b: float

    @property
    def cosine(self) -> float:
        denom = float(np.linalg.norm(self.r_a) * np.linalg.norm(self.r_b))
        return float(self.r_a @ self.r_b) / denom if denom else float("nan")

    @property
    def moved(self) -> float:
        """Total variation between the two attention vectors (0 = same, 1 = disjoint)."""
        a, b = np.nan_to_num(self.weights_a), np.nan_to_num(self.weights_b)
        return total_variation(dict(zip(self.neighbor_names, a.tolist(), strict=True)),
                               dict(zip(self.neighbor_names, b.tolist(), strict=True)))

    def gained(self, k: int = 3) -> tuple[list[str], list[str]]:
        """The k neighbors with the most attention gained towards a, and towards b."""
        diff = np.nan_to_num(self.weights_a) - np.nan_to_num(self.weights_b)
        order = np.argsort(-diff, kind="stable")
        to_a = [self.neighbor_names[i] for i in order[:k] if diff[i] > 0]
        to_b = [self.neighbor_names[i] for i in order[::-1][:k] if diff[i] < 0]
        return to_a, to_b


def context_shift(goat: Goat, node: int | str, partner_a: int | str, partner_b: int | str) -> ContextShift:
    """Compare ``node``'s attention (and r_node) while gossiping with two partners (names, or
    ``NodeIndex`` positions: see ``Graph.index_of``)."""
    a = goat.attention(node, partner_a)
    b = goat.attention(node, partner_b)
    names = list(dict.fromkeys(a.source_names + b.source_names))
    wa = dict(zip(a.source_names, a.source_attention.tolist(), strict=True))
    wb = dict(zip(b.source_names, b.source_attention.tolist(), strict=True))
    return ContextShift(
        node=a.source, partner_a=a.target, partner_b=b.target, neighbor_names=names,
        weights_a=np.array([wa.get(n, np.nan) for n in names]),
        weights_b=np.array([wb.get(n, np.nan) for n in names]),
        r_a=a.r_source, r_b=b.r_source, probability_a=a.probability, probability_b=b.probability,
    )


def contrasting_partner(goat: Goat, node: int, partner: int, limit: int = 50) -> int | None:
    """The neighbor of ``node`` (other than ``partner``) under which its attention differs most
    from its attention with ``partner``: a good second partner for a context-shift view.

    Looks at the ``limit`` highest-degree neighbors; None when ``node`` has no other neighbor.
    """
    graph = goat.graph_
    deg = graph.degrees()
    others = [int(v) for v in neighbors(graph, node) if v != partner]
    if not others:
        return None
    others = sorted(others, key=lambda v: (-deg[v], v))[:limit]
    base = goat.attention(NodeIndex(node), NodeIndex(partner))
    ref = dict(zip(base.source_names, base.source_attention.tolist(), strict=True))
    best, best_gap = None, -1.0
    for v in others:
        att = goat.attention(NodeIndex(node), NodeIndex(v))
        cur = dict(zip(att.source_names, att.source_attention.tolist(), strict=True))
        gap = total_variation(ref, cur)
        if gap > best_gap + 1e-12:
            best, best_gap = v, gap
    return best


# --------------------------------------------------------------------------- runs as archives


def run_to_zip(goat: Goat) -> bytes:
    """A fitted Goat as a zip of its run directory (config.json, nodes.json, weights.pt)."""
    with tempfile.TemporaryDirectory() as tmp:
        goat.save(tmp)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in FILES:
                zf.write(Path(tmp) / name, arcname=name)
    return buffer.getvalue()


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    path = PurePosixPath(name.replace("\\", "/"))
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return f"member {name!r} has an absolute path"
    if ".." in path.parts:
        return f"member {name!r} points outside the archive"
    if (info.external_attr >> 16) & 0o170000 == 0o120000:
        return f"member {name!r} is a symbolic link"
    if info.flag_bits & 0x1:
        return f"member {name!r} is encrypted: save the run again without a password"
    readable = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
    if info.compress_type not in readable:
        return f"member {name!r} uses compression method {info.compress_type}, which cannot be read"
    return None


def run_from_zip(raw: bytes, file: str = "<upload>", max_bytes: int = MAX_RUN_ARCHIVE_BYTES) -> Goat:
    """Load a Goat from a zipped run directory without trusting the archive.

    Only ``config.json``, ``nodes.json`` and ``weights.pt`` are read (at the top or inside one
    folder), straight into a fresh temporary directory: no member path is ever used to
    write, links and ``..`` are refused, and the uncompressed total is capped at
    ``max_bytes``. Weights load with ``torch.load(weights_only=True)``: nothing is
    unpickled. Every problem is a one-line :class:`GraphFormatError` naming ``file``.
    """
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise GraphFormatError(file, "not a zip archive: upload the zip of a run directory")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            members = _pick_members(zf, file, max_bytes)
            with tempfile.TemporaryDirectory() as tmp:
                for name, info in members.items():
                    with zf.open(info) as src:
                        data = src.read(max_bytes + 1)
                    (Path(tmp) / name).write_bytes(data)
                return _load(tmp, file)
    except zipfile.BadZipFile as err:
        raise GraphFormatError(file, f"damaged zip archive ({err})") from None


def _pick_members(zf: zipfile.ZipFile, file: str, max_bytes: int) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    if len(infos) > 64:
        raise GraphFormatError(file, f"{len(infos)} members: a run archive holds only {', '.join(FILES)}")
    total = sum(info.file_size for info in infos)
    if total > max_bytes:
        raise GraphFormatError(file, f"unpacks to {total / 2**20:.1f} MB, over the "
                               f"{max_bytes / 2**20:.0f} MB limit for runs")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        problem = _member_problem(info)
        if problem:
            raise GraphFormatError(file, problem)
        if info.is_dir():
            continue
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if parts[-1] in FILES and len(parts) <= 2:
            if parts[-1] in members:
                raise GraphFormatError(file, f"two copies of {parts[-1]} in the archive")
            members[parts[-1]] = info
    missing = [name for name in FILES if name not in members]
    if missing:
        raise GraphFormatError(file, f"not a GOAT run: {', '.join(missing)} missing from the archive")
    return members


def _load(directory: str, file: str) -> Goat:
    """The run unpacked in ``directory``, checked in full by ``Goat.load`` (the same checks as a
    run directory's); its problems are reported against the archive ``file`` and the member."""
    try:
        return Goat.load(directory, device="auto")
    except GraphFormatError as err:
        member = Path(err.file).relative_to(directory).as_posix() if err.file != directory else "."
        raise GraphFormatError(file, err.problem if member == "." else f"{member}: {err.problem}") from None
