"""Graphs (nodes 0..n-1 named by their ids; no self-loops or duplicates; positive finite weights),
:func:`normalise`, which every reader ends in, and the helpers the file readers share."""

from __future__ import annotations

import ast
import hashlib
import io
import math
import os
import re
import unicodedata
import zipfile
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import GraphFormatError, UnknownNodeError

if TYPE_CHECKING:
    from .formats import ReadReport

HEADER_WORDS = {
    # Single letters (u, v, a, b) are left out: they are plausible node names.
    "source", "target", "src", "dst", "from", "to", "node1", "node2", "node_1", "node_2", "id1",
    "id2", "weight", "value", "head", "tail", "node", "source_id", "target_id", "from_id", "to_id",
}
MAX_BINARY_SNIFF = 8192
FLOAT32_MAX = float(np.finfo(np.float32).max)  # the largest weight training can represent
FLOAT32_TINY = float(np.finfo(np.float32).smallest_subnormal)  # and the smallest
# A declared node count beyond this (a corrupt or hostile size line) is refused before names are made
# for it: 10^8 names alone take ~6 GB, and GOAT's embedding table at that size does not fit one machine.
MAX_NODES = 100_000_000
NODES_PER_BYTE_BEYOND = 100_000  # declared nodes a file holds at most: these, plus one a byte of it


def declared_nodes(n: int, size: int, file: str, line: int | None, what: str) -> int:
    """``n``, the nodes a header declares (``what``), or a one-line error past what a file of ``size``
    bytes may declare: a node without a line of its own still costs a name (igraph's Pajek reader a
    Python step), so 30 bytes declaring millions would take minutes and gigabytes."""
    most = min(MAX_NODES, NODES_PER_BYTE_BEYOND + size)
    if not 0 < n <= most:
        raise GraphFormatError(file, f"{what} declares {n:,} nodes: 1 to {most:,} are read from a file of "
                                     f"{size:,} bytes ({NODES_PER_BYTE_BEYOND:,} plus one a byte, at most "
                                     f"{MAX_NODES:,})", line)
    return n


class NodeIndex(int):
    """A node asked for by its 0-based position in ``Graph.names`` rather than by name:
    ``goat.attention(NodeIndex(55), NodeIndex(25))``. A plain int is a name (see
    :meth:`Graph.index_of`); this type is how code that holds positions says so."""

    def __repr__(self) -> str:
        return f"NodeIndex({int(self)})"

    def __str__(self) -> str:  # as the int it is (object's __str__ would take the repr above)
        return int.__repr__(self)


def nfc(name: str) -> str:
    """``name`` in Unicode NFC (ASCII is NFC already)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def _same_name(first: str, second: str) -> str:
    return (f"nodes {first!r} and {second!r} are the same name in two Unicode spellings (NFC and "
            "NFD); write it one way")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a node's name, or None: a lone surrogate (JSON can spell ``\\ud800``)
    can be neither written nor hashed."""
    if name.isascii():  # the common case, twice as fast as encoding: runs check every name on load
        return None
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return f"node name {name!r} is not valid Unicode text (it holds a lone surrogate)"
    return None


def _nfc_names(names: list[str], file: str) -> list[str]:
    """``names`` in NFC; two names that become one, or one not valid Unicode, are refused."""
    odd = [i for i, name in enumerate(names) if not name.isascii()]
    for problem in filter(None, (name_problem(names[i]) for i in odd)):
        raise GraphFormatError(file, problem)
    out = list(names)
    for i in odd:
        out[i] = nfc(names[i])
    first: dict[str, int] = {}
    for i, name in enumerate(out if out != names else ()):
        if first.setdefault(name, i) != i:
            raise GraphFormatError(file, _same_name(names[first[name]], names[i]))
    return out


@dataclass(frozen=True)
class NormalisationReport:
    """What loading did to the input, so that a UI or the CLI can say it out loud."""

    input_edges: int
    self_loops_dropped: int
    duplicates_merged: int
    duplicate_rule: str
    header_skipped: bool
    isolated_nodes: tuple[str, ...]

    def lines(self) -> list[str]:
        out = [f"{self.input_edges} edge lines read"]
        if self.header_skipped:
            out.append("first line read as a header and skipped")
        if self.self_loops_dropped:
            out.append(f"{self.self_loops_dropped} self-loops dropped")
        if self.duplicates_merged:
            out.append(f"{self.duplicates_merged} duplicate edges merged ({self.duplicate_rule})")
        if self.isolated_nodes:
            shown = ", ".join(self.isolated_nodes[:5])
            more = "" if len(self.isolated_nodes) <= 5 else f" and {len(self.isolated_nodes) - 5} more"
            out.append(
                f"{len(self.isolated_nodes)} isolated nodes ({shown}{more}) have no edge and "
                "cannot gossip: their embeddings stay untrained"
            )
        return out


@dataclass(frozen=True, eq=False)
class Graph:
    """A normalised graph. Edges are stored once; undirected edges as (min, max)."""

    names: tuple[str, ...]
    src: np.ndarray  # (m,) int64
    dst: np.ndarray  # (m,) int64
    weight: np.ndarray  # (m,) float64, positive and finite
    directed: bool = False
    weighted: bool = False
    source: str = "<memory>"
    report: NormalisationReport | None = None
    node_attrs: dict = field(default_factory=dict)  # e.g. {"paper_id": array}
    labels: NodeLabels | None = None  # optional ground truth shipped with the graph
    read: ReadReport | None = None  # how the file was read (format, columns, first rows): readers.py

    @property
    def num_nodes(self) -> int:
        return len(self.names)

    @property
    def num_edges(self) -> int:
        return int(self.src.shape[0])

    def index_of(self, node: str | int) -> int:
        """The index of the node named ``node`` (text, matched in Unicode NFC; an int is the name it
        spells), or at ``NodeIndex(i)``: the one place a name is resolved. A numpy integer, usually
        a position from an id array, is refused rather than read as a name."""
        if isinstance(node, NodeIndex):
            if not 0 <= int(node) < self.num_nodes:
                raise UnknownNodeError(f"node index {int(node)} is out of range 0..{self.num_nodes - 1} "
                                       f"for the graph {self.source}")
            return int(node)
        if isinstance(node, np.integer):
            raise UnknownNodeError(f"node {node!r} is a numpy integer, a position or a name: pass "
                                   f"NodeIndex({int(node)}) for the position, or the name as text")
        if isinstance(node, bool) or not isinstance(node, (str, int)):
            raise UnknownNodeError(f"a node is named by text (or an integer name), got {node!r} "
                                   f"({type(node).__name__})")
        key = nfc(str(node) if isinstance(node, int) else node)
        found = self._name_index.get(key)
        if found is None:
            shown = ", ".join(repr(name) for name in self.names[:3])
            raise UnknownNodeError(f"node {key!r} is not in the graph {self.source} (names are matched "
                                   f"exactly; its nodes are named e.g. {shown})")
        return found

    @cached_property
    def _name_index(self) -> dict[str, int]:
        """NFC name -> index, built once; two names of one NFC spelling are a GraphFormatError
        (a graph made by :func:`normalise` never has them; a hand-made one may)."""
        index: dict[str, int] = {}
        for i, name in enumerate(self.names):
            key = nfc(name)
            if index.setdefault(key, i) != i:
                raise GraphFormatError(self.source, _same_name(self.names[index[key]], name))
        return index

    def degrees(self) -> np.ndarray:
        """Undirected degree D(v) = |{u : (u, v) in E or (v, u) in E}| as in the paper."""
        src, dst = self.undirected_pairs()
        return np.bincount(np.concatenate([src, dst]), minlength=self.num_nodes)

    def undirected_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Each unordered neighbor pair once (a directed graph's reciprocal edges collapse)."""
        if not self.directed:
            return self.src, self.dst
        lo, hi = np.minimum(self.src, self.dst), np.maximum(self.src, self.dst)
        keys = np.unique(lo * self.num_nodes + hi)
        return keys // self.num_nodes, keys % self.num_nodes

    def fingerprint(self) -> str:
        """A content hash of everything that shapes a result (names, edges, weights, direction,
        labels, node attributes): the key for caches shared by sessions."""
        h = hashlib.sha256()
        h.update(b"directed" if self.directed else b"undirected")
        h.update("\x00".join(self.names).encode())
        for arr in (self.src, self.dst, self.weight):
            h.update(np.ascontiguousarray(arr).tobytes())
        if self.labels is not None:
            h.update(b"labels\x00" + "\x00".join(self.labels.classes).encode())
            h.update(np.ascontiguousarray(self.labels.codes, dtype=np.int64).tobytes())
        for name in sorted(self.node_attrs):
            h.update(f"attr\x00{name}".encode())
            h.update(np.ascontiguousarray(self.node_attrs[name]).tobytes())
        return h.hexdigest()[:16]

    @cached_property
    def _edge_key_set(self) -> set[int]:
        return set(self._keys(self.src, self.dst).tolist())

    def has_edge(self, u: int, v: int) -> bool:
        return int(self._keys(np.array([u]), np.array([v]))[0]) in self._edge_key_set

    def _keys(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return _edge_keys(np.asarray(u), np.asarray(v), self.num_nodes, self.directed)

    def subgraph_edges(self, mask: np.ndarray) -> Graph:
        """The same nodes with only the edges where ``mask`` is true (training graphs)."""
        return replace(self, src=self.src[mask], dst=self.dst[mask], weight=self.weight[mask], report=None,
                       read=None)

    def summary(self) -> dict:
        deg = self.degrees()
        return {
            "nodes": self.num_nodes,
            "edges": self.num_edges,
            "directed": self.directed,
            "weighted": self.weighted,
            "isolated_nodes": int((deg == 0).sum()),
            "max_degree": int(deg.max()) if len(deg) else 0,
            "mean_degree": float(deg.mean()) if len(deg) else 0.0,
            "components": count_components(self),
            "fingerprint": self.fingerprint(),
            "source": self.source,
            "notes": self.report.lines() if self.report else [],
        }


@dataclass(frozen=True, eq=False)
class NodeLabels:
    """Ground-truth classes for clustering: ``codes[i]`` is node i's class, -1 if unknown."""

    codes: np.ndarray  # (n,) int64
    classes: tuple[str, ...]
    unknown_nodes: tuple[str, ...] = ()  # names in the labels file absent from the graph
    source: str = "<memory>"

    @property
    def missing(self) -> int:
        return int((self.codes < 0).sum())

    def notes(self) -> list[str]:
        out = [f"{len(self.classes)} classes"]
        if self.missing:
            out.append(f"{self.missing} graph nodes have no label and are left out of scores")
        if self.unknown_nodes:
            shown = ", ".join(self.unknown_nodes[:5])
            out.append(f"{len(self.unknown_nodes)} labelled nodes are not in the graph ({shown})")
        return out


def count_components(graph: Graph) -> int:
    """Number of connected components (weakly, for directed graphs), isolated nodes included."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = graph.num_nodes
    adj = coo_matrix((np.ones(graph.num_edges), (graph.src, graph.dst)), shape=(n, n))
    return int(connected_components(adj, directed=True, connection="weak")[0])


# --------------------------------------------------------------------------- text parsing


def as_utf8(raw: bytes, file: str, encoding: str | None = None) -> tuple[bytes, str | None]:
    """Text in ``encoding`` when told (a binary format's bytes, which hold a NUL, aside), else UTF-16
    with a BOM (spreadsheets' "Unicode text", some Windows XML), as UTF-8; and a note saying which."""
    told = encoding not in (None, "utf-8")
    if not told:
        if not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return raw, None
        encoding = "utf-16"
    elif b"\x00" in raw and not str(encoding).startswith(("utf-16", "utf-32")):
        return raw, None  # Parquet, a workbook, arrays: read as they are
    try:
        text = raw.decode(str(encoding)).removeprefix("\ufeff")
    except UnicodeError as err:  # a UnicodeDecodeError, or a codec that decodes nothing ("undefined")
        if not told:
            return raw, None  # not UTF-16 after all: its reader says what it is
        if not isinstance(err, UnicodeDecodeError):
            raise GraphFormatError(file, f"not {encoding} text (--encoding): {err}") from None
        raise GraphFormatError(file, f"not {encoding} text (--encoding): byte 0x{raw[err.start]:02x} is no "
                                     "character in it", raw[:err.start].count(b"\n") + 1) from None
    text = re.sub(r"^(<\?xml[^>]*encoding=[\"'])[\w.:-]+([\"'])", r"\1utf-8\2", text, flags=re.IGNORECASE)
    return text.encode("utf-8"), f"{encoding} text" if told else "UTF-16 text"


def decode(raw: bytes, file: str) -> str:
    if not raw.strip():
        raise GraphFormatError(file, "the file is empty")
    nul = raw.find(b"\x00")  # anywhere: pandas would read a NUL past the head into a name
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1 if nul >= MAX_BINARY_SNIFF else None
        raise GraphFormatError(file, "binary content: expected a text edge list", line)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise GraphFormatError(file, "not UTF-8 text (binary, or text in another encoding: name it, e.g. "
                                     "--encoding cp1252 for Excel's CSV on Windows, or save it as UTF-8, as "
                                     "Excel's 'CSV UTF-8' does)", line) from None


def data_lines(text: str) -> list[tuple[int, str]]:
    """(line number, content) of every line that is not blank or a #/% comment."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        # ",,,": a spreadsheet's blank row
        if stripped.strip(",;|\t ") and not stripped.startswith(("#", "%")):
            out.append((number, stripped))
    return out


def is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def is_zero(word: str) -> bool:
    try:
        return float(word) == 0
    except ValueError:
        return False  # not a number: reported with its line when the entries are read


NO_WEIGHT_HINT = " (--weight none reads every edge with weight 1; library: weight='none')"


def weight_problem(token: str) -> str | None:
    """Why ``token`` is not a weight (a positive finite number up to float32's largest), or None."""
    try:
        value = float("_" if "_" in token else token)  # "1_000" is Python's, not a number in a file (pandas)
    except ValueError:
        return f"weight {token[:40]!r} is not a number"
    if not math.isfinite(value):
        return f"weight is {'NaN' if math.isnan(value) else 'infinite'}; weights must be positive finite " \
               "numbers"
    if value > FLOAT32_MAX:  # training computes in float32, where 1e39 is inf
        return f"weight {token[:40]} is too large; weights must be positive numbers up to {FLOAT32_MAX:.3g}"
    if value <= 0:
        return f"weight {token[:40]} is not positive; weights must be > 0"
    return None


def parse_weight(token: str, file: str, line: int | None, words_skipped: bool = True) -> float:
    """``token`` as a weight, or a one-line error naming the line and --weight none, which every
    reader honours by reading no weight; not for a word where the format's values are numbers
    whatever the weight (``words_skipped=False``: a matrix's cells)."""
    problem = weight_problem(token)
    if problem is not None:
        hint = NO_WEIGHT_HINT if words_skipped or is_number(token) else ""
        raise GraphFormatError(file, problem + hint, line)
    return float(token)


def parse_weights(tokens: list[str], lines: list[int], file: str) -> np.ndarray:
    """Weights from text in one numpy parse; :func:`parse_weight` names the first bad one."""
    try:
        values = np.asarray(tokens, dtype=np.float64)  # takes 1_000 too, which weight_problem refuses
        if np.all((values > 0) & (values <= FLOAT32_MAX)) and "_" not in "".join(tokens):  # NaN fails too
            return values
    except ValueError:
        pass
    return np.array([parse_weight(t, file, line) for t, line in zip(tokens, lines, strict=True)],
                    dtype=np.float64)


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique(values) for an array the caller gives up: sorted in place, no sorted copy."""
    values.sort()
    if len(values) == 0:
        return values
    keep = np.empty(len(values), bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def node_order(ids: list[str]) -> list[str]:
    """Integer ids sort numerically (so 0..n-1 stay put); other ids keep first-seen order."""
    unique = list(dict.fromkeys(ids))
    if all(re.fullmatch(r"-?\d+", u) for u in unique):
        return sorted(unique, key=int)
    return unique


def named_edges(order: list[str], heads: list[str], tails: list[str]
                ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(names in :func:`node_order` of ``order``, src, dst): each edge's ends as indices of names."""
    names = node_order(order)
    index = {name: i for i, name in enumerate(names)}
    src = np.fromiter((index[h] for h in heads), dtype=np.int64, count=len(heads))
    dst = np.fromiter((index[t] for t in tails), dtype=np.int64, count=len(tails))
    return names, src, dst


def build_graph(
    heads: list[str], tails: list[str], weights: list[float] | None, directed: bool,
    weighted: bool, file: str, header: bool,
) -> Graph:
    names, src, dst = named_edges([name for pair in zip(heads, tails) for name in pair], heads, tails)
    w = np.asarray(weights, dtype=np.float64) if weights is not None else np.ones(len(src))
    return normalise(names, src, dst, w, directed, weighted, file, header)


def normalise(
    names: list[str], src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None, directed: bool,
    weighted: bool, file: str, header: bool = False,
) -> Graph:
    """Drop self-loops, merge duplicates (weights summed; unweighted stay 1; ``weight`` may be
    None then), check size, write names in Unicode NFC (two names of one NFC spelling are an
    error naming both). ``src``/``dst`` are node indices of any integer type."""
    names = _nfc_names(names, file)
    n, input_edges = len(names), len(src)
    loops = src == dst
    self_loops = int(loops.sum())
    if self_loops:
        src, dst = src[~loops], dst[~loops]
        weight = weight[~loops] if weighted and weight is not None else weight
    del loops
    keys = _edge_keys(src, dst, n, directed)  # (m,) int64
    kept = len(keys)
    del src, dst
    unique, merged = _merge_duplicates(keys, weight if weighted else None)
    rule = "weights summed" if weighted else "unweighted: kept once"
    src_u, dst_u = unique // n, unique % n
    del unique
    too_large = np.flatnonzero(~np.isfinite(merged) | (merged > FLOAT32_MAX))
    if len(too_large):
        k = int(too_large[0])
        edge = f"{names[src_u[k]]} {names[dst_u[k]]}"
        raise GraphFormatError(file, f"the duplicates of edge {edge} sum to a weight over {FLOAT32_MAX:.3g}; "
                                     "weights must stay below it")
    # training computes in float32, where 1e-300 is 0: such weights alone made the loss 0/0, NaN
    if len(merged) and merged.min() <= FLOAT32_TINY / 2:  # float32 rounds it to 0
        k = int(np.argmin(merged))
        edge = f"{names[src_u[k]]} {names[dst_u[k]]}"
        raise GraphFormatError(file, f"edge {edge} has the weight {merged[k]:.3g}, below float32's smallest "
                                     f"number, {FLOAT32_TINY:.3g}, which training computes in: rescale the "
                                     f"weights{NO_WEIGHT_HINT}")
    if len(src_u) == 0:
        raise GraphFormatError(file, "no edges left after dropping self-loops")
    deg = np.bincount(src_u, minlength=n) + np.bincount(dst_u, minlength=n)
    report = NormalisationReport(
        input_edges=input_edges, self_loops_dropped=self_loops,
        duplicates_merged=kept - len(src_u), duplicate_rule=rule,
        header_skipped=header, isolated_nodes=tuple(names[i] for i in np.flatnonzero(deg == 0)),
    )
    return Graph(
        names=tuple(names), src=src_u, dst=dst_u, weight=merged, directed=directed, weighted=weighted,
        source=file, report=report,
    )


def unreciprocated(src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None) -> int | None:
    """The position of an off-diagonal entry ``i j w`` without its mirror ``j i w`` (repeats
    counted); None when every entry is stored both ways with one value, as Gephi writes an
    undirected graph (VNA, UCINET DL) or a symmetric matrix stored ``general``."""
    off = np.flatnonzero(src != dst)
    s, d = src[off].astype(np.int64), dst[off].astype(np.int64)
    values = weight[off] if weight is not None else np.ones(len(off))
    size = int(max(s.max(initial=0), d.max(initial=0))) + 1
    forward, backward = s * size + d, d * size + s
    by_forward, by_backward = np.lexsort((values, forward)), np.lexsort((values, backward))
    same = (forward[by_forward] == backward[by_backward]) & (values[by_forward] == values[by_backward])
    if same.all():
        return None
    k = int(np.argmin(same))  # the first place the two orders differ: the smaller side has no mirror
    smaller_forward = (forward[by_forward[k]], values[by_forward[k]]) < (backward[by_backward[k]],
                                                                        values[by_backward[k]])
    return int(off[by_forward[k] if smaller_forward else by_backward[k]])


def tie_direction(names: list[str], src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None,
                  asked: bool) -> tuple[bool, str, tuple[str, ...], np.ndarray]:
    """(directed, why, notes, the ties to keep) of ties stored one way (VNA, UCINET DL): directed
    as asked or when a tie has no mirror of its value; else undirected, each pair read once."""
    keep_all = np.ones(len(src), dtype=bool)
    if asked:
        return True, "as asked", (), keep_all
    k = unreciprocated(src, dst, weight)
    if k is None:
        note = ("every tie stored both ways with one value, as Gephi writes an undirected graph: each pair "
                "read once")
        return False, "every tie stored both ways", (note,), src <= dst
    u, v = names[int(src[k])], names[int(dst[k])]
    value = f" of value {weight[k]:g}" if weight is not None else ""
    return True, f"tie {u} → {v} has no {v} → {u}{value}", (), keep_all


def _edge_keys(src: np.ndarray, dst: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """src·n + dst as int64 (undirected: the smaller end first), one E-sized temporary."""
    keys = (src if directed else np.minimum(src, dst)).astype(np.int64)
    keys *= n
    keys += dst if directed else np.maximum(src, dst)
    return keys


def _merge_duplicates(keys: np.ndarray, weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, their weights summed in file order, as np.bincount adds; ones without
    ``weight``, sorting ``keys`` in place)."""
    if weight is None:
        unique = sorted_unique(keys)
        return unique, np.ones(len(unique))
    unique, inverse = np.unique(keys, return_inverse=True)
    return unique, np.bincount(inverse, weights=np.asarray(weight, dtype=np.float64), minlength=len(unique))


# --------------------------------------------------------------------------- other formats


def from_networkx(nx_graph: Any, source: str = "<networkx>", weight: str = "weight",
                  directed: bool | None = None) -> Graph:
    """Build a Graph from a networkx graph; node keys become display names."""
    directed = nx_graph.is_directed() if directed is None else directed
    names = [str(node) for node in nx_graph.nodes]
    if len(set(names)) != len(names):
        raise GraphFormatError(source, "two nodes have the same name once written as text")
    names = _nfc_names(names, source)  # normalise() would too; here first, to name the clash
    index = {node: i for i, node in enumerate(nx_graph.nodes)}
    edges = list(nx_graph.edges(data=True))
    weighted = any(weight in data for _, _, data in edges)
    values = [parse_weight(str(data.get(weight, 1.0)), source, None) if weighted else 1.0
              for _, _, data in edges]
    src = np.array([index[u] for u, _, _ in edges], dtype=np.int64)
    dst = np.array([index[v] for _, v, _ in edges], dtype=np.int64)
    return normalise(names, src, dst, np.asarray(values, dtype=np.float64), directed, weighted, source)


# --------------------------------------------------------------------------- labels


def parse_labels(raw: bytes, graph: Graph, file: str = "<labels>", encoding: str | None = None) -> NodeLabels:
    """A ``node label`` file (in UTF-8 unless ``encoding`` says) read by pandas' C parser (comma,
    semicolon or blanks, as its first line has; quotes respected); nodes outside the graph and
    unlabelled nodes are reported."""
    import pandas as pd

    rows = data_lines(decode(as_utf8(raw, file, encoding)[0], file))
    if not rows:
        raise GraphFormatError(file, "no line names a node of the graph")
    sep = "," if "," in rows[0][1] else ";" if ";" in rows[0][1] else r"\s+"
    try:  # three columns read, so that a row of three is named below rather than by pandas
        table = pd.read_csv(io.StringIO("\n".join(text for _, text in rows)), sep=sep, header=None,
                            names=range(3), dtype=str, na_filter=False, skipinitialspace=True, engine="c")
    except pd.errors.ParserError as err:  # "Expected 3 fields in line 7, saw 5"
        found = re.search(r"line (\d+), saw (\d+)", str(err))
        if found is None:
            raise GraphFormatError(file, f"cannot read the labels: {first_line(err)}") from None
        raise GraphFormatError(file, f"{found[2]} columns; expected 'node label'", rows[int(found[1]) - 1][0]
                               ) from None
    filled = (table != "").to_numpy()
    bad = np.flatnonzero(~filled[:, 0] | ~filled[:, 1] | filled[:, 2])
    if len(bad):
        k = int(bad[0])
        raise GraphFormatError(file, f"{filled[k].sum()} columns; expected 'node label'", rows[k][0])
    lookup = graph._name_index
    codes = np.full(graph.num_nodes, -1, dtype=np.int64)
    classes: dict[str, int] = {}
    unknown: list[str] = []
    for (number, _), name, label in zip(rows, map(nfc, table[0].str.strip()), table[1].str.strip()):
        if name not in lookup:
            is_header = number == rows[0][0] and name.lower() in HEADER_WORDS | {"id", "name"}
            if not is_header:
                unknown.append(name)
            continue
        code = classes.setdefault(label, len(classes))
        if codes[lookup[name]] not in (-1, code):
            raise GraphFormatError(file, f"node {name!r} has two different labels", number)
        codes[lookup[name]] = code
    if not classes:
        raise GraphFormatError(file, "no line names a node of the graph")
    return NodeLabels(codes=codes, classes=tuple(classes), unknown_nodes=tuple(unknown), source=file)


def read_labels(path: str | Path, graph: Graph, encoding: str | None = None) -> NodeLabels:
    return parse_labels(file_bytes(path, "labels file"), graph, file=str(path), encoding=encoding)


def file_bytes(path: str | Path, what: str, missing: str = "") -> bytes:
    """The bytes of the regular file ``path`` (a ``what``), or a one-line error: missing (``missing`` says
    what else the name could have been), a directory, a device, or unreadable (a name too long)."""
    path = Path(path)
    try:
        if not path.is_file():  # never read a device or a pipe: /dev/zero never ends
            problem = f"is a directory, not a {what}" if path.is_dir() else \
                "is not a regular file (a device or a pipe)" if path.exists() else f"no such {what}{missing}"
            raise GraphFormatError(str(path), problem)
        return path.read_bytes()
    except FileNotFoundError:  # removed since
        raise GraphFormatError(str(path), f"no such {what}{missing}") from None
    except OSError as err:
        raise GraphFormatError(str(path), f"cannot be read ({err.strerror or type(err).__name__})") from None


def data_dir() -> Path | None:
    value = os.environ.get("GOAT_DATA_DIR")
    return Path(value) if value else None


# --------------------------------------------------------------------------- shared by the readers

MAX_ATTRIBUTES_CHARS = 10_000


def zip_names(raw: bytes) -> list[str]:
    """The member names of a zip archive's bytes; [] for bytes that are no readable zip."""
    if not raw.startswith(b"PK"):
        return []
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):  # a "version needed"
        return []


def refuse_size(size: int, max_bytes: int, what: str, file: str) -> None:
    """Refuses content (a Parquet file's columns, a workbook's or an .npz's members) past ``max_bytes``
    once decompressed, before it is read."""
    if size > max_bytes:
        raise GraphFormatError(file, f"{what} content over {max_bytes / 2**20:,.0f} MB once decompressed "
                                     f"({size / 2**20:,.0f} MB; the limit here): refused")


def first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def unique_labels(g: Any, name: str) -> bool:
    labels = [data.get(name) for _, data in g.nodes(data=True)]
    return bool(labels) and all(isinstance(x, (str, int)) and str(x) != "" for x in labels) and \
        len({str(x) for x in labels}) == len(labels)


def header_key(name: str) -> str:
    """A column name compared: lower case, letters and digits only, a ``:type`` suffix left out
    (Neo4j's ``weight:float``; ``:START_ID`` and pandas' ``Unnamed: 0`` keep their names)."""
    return re.sub(r"[^0-9a-z]", "", re.sub(r"(?<=\w):[a-z]+$", "", name.lower()))


def literal_dict(text: str, file: str, line: int) -> dict:
    """A Python dict literal, read by ``ast.literal_eval`` (never ``eval``)."""
    if len(text) > MAX_ATTRIBUTES_CHARS:
        raise GraphFormatError(file, f"edge attributes longer than {MAX_ATTRIBUTES_CHARS:,} characters", line)
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise GraphFormatError(file, f"edge attributes {text[:40]!r} are not a Python dict literal",
                               line) from None
    if not isinstance(value, dict):
        raise GraphFormatError(file, f"edge attributes {text[:40]!r} are not a dict", line)
    return {str(k): v for k, v in value.items()}
