"""Graphs in: parsing, validation, normalisation and node indexing.

A :class:`Graph` holds nodes 0..n-1 (with their original ids kept as display names) and a
normalised edge list: no self-loops, no duplicates, positive finite weights. Everything a
user gives us passes through :func:`read_edge_list`, :func:`read_networkx_file` or
:func:`from_networkx`; bad input raises :class:`GraphFormatError` naming file, line and problem.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GraphFormatError, UnknownNodeError

HEADER_WORDS = {
    # Single letters (u, v, a, b) are left out: they are plausible node names.
    "source", "target", "src", "dst", "from", "to", "node1", "node2", "node_1", "node_2", "id1",
    "id2", "weight", "value", "head", "tail", "node", "source_id", "target_id", "from_id", "to_id",
}
MAX_BINARY_SNIFF = 8192
FLOAT32_MAX = float(np.finfo(np.float32).max)  # the largest weight training can represent


class NodeIndex(int):
    """A node asked for by its 0-based position in ``Graph.names`` rather than by name:
    ``goat.attention(NodeIndex(55), NodeIndex(25))``. A plain int is a name (see
    :meth:`Graph.index_of`); this type is how code that holds positions says so."""

    def __repr__(self) -> str:
        return f"NodeIndex({int(self)})"

    def __str__(self) -> str:  # as the int it is (object's __str__ would take the repr above)
        return int.__repr__(self)


def nfc(name: str) -> str:
    """``name`` in Unicode NFC (ASCII, most names, is NFC already: returned as it is)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def _same_name(first: str, second: str) -> str:
    return (f"nodes {first!r} and {second!r} are the same name in two Unicode spellings (NFC and "
            "NFD); write it one way")


def _nfc_names(names: list[str], file: str) -> list[str]:
    """``names`` in NFC (the same list when every name is ASCII); two names that become one are
    a GraphFormatError naming both."""
    changed = [i for i, name in enumerate(names) if not name.isascii() and nfc(name) != name]
    if not changed:
        return names
    out = list(names)
    for i in changed:
        out[i] = nfc(names[i])
    if len(set(out)) != len(out):
        first: dict[str, int] = {}
        for i, name in enumerate(out):
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

    @property
    def num_nodes(self) -> int:
        return len(self.names)

    @property
    def num_edges(self) -> int:
        return int(self.src.shape[0])

    def index_of(self, node: str | int) -> int:
        """The index of the node named ``node``: the one place a node's name is resolved (the
        library's answers, the CLI's ``attention``, ``--mute`` and ``--track-pair``, the app).

        A name is a name: text, matched after Unicode NFC normalisation (so the NFC and NFD
        spellings of "Zoë" are one name); a Python int is read as the name it spells (``20`` is
        the node named "20"), never as a position. To ask by position, pass ``NodeIndex(i)`` (or
        ``graph.names[i]``). A numpy integer is refused: it usually comes from an array of
        positions (the library's own id arrays hold positions), so reading it as a name could
        silently pick another node. Anything unknown is an :class:`UnknownNodeError`.
        """
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
        found = self._name_index().get(key)
        if found is None:
            shown = ", ".join(repr(name) for name in self.names[:3])
            raise UnknownNodeError(f"node {key!r} is not in the graph {self.source} (names are matched "
                                   f"exactly; its nodes are named e.g. {shown})")
        return found

    def _name_index(self) -> dict[str, int]:
        """NFC name -> index, built once; two names of one NFC spelling are a GraphFormatError
        (a graph made by :func:`normalise` never has them; a hand-made one may)."""
        cache = self.__dict__.get("_index")
        if cache is None:
            cache = {}
            for i, name in enumerate(self.names):
                key = nfc(name)
                if cache.setdefault(key, i) != i:
                    raise GraphFormatError(self.source, _same_name(self.names[cache[key]], name))
            object.__setattr__(self, "_index", cache)
        return cache

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

    def has_edge(self, u: int, v: int) -> bool:
        keys = self.__dict__.get("_edge_keys")
        if keys is None:
            keys = set(self._keys(self.src, self.dst).tolist())
            object.__setattr__(self, "_edge_keys", keys)
        return int(self._keys(np.array([u]), np.array([v]))[0]) in keys

    def _keys(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        if not self.directed:
            u, v = np.minimum(u, v), np.maximum(u, v)
        return u.astype(np.int64) * self.num_nodes + v

    def subgraph_edges(self, mask: np.ndarray) -> Graph:
        """The same nodes with only the edges where ``mask`` is true (training graphs)."""
        return Graph(
            names=self.names, src=self.src[mask], dst=self.dst[mask], weight=self.weight[mask],
            directed=self.directed, weighted=self.weighted, source=self.source,
            report=None, node_attrs=self.node_attrs, labels=self.labels,
        )

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


def _decode(raw: bytes, file: str) -> str:
    if not raw.strip():
        raise GraphFormatError(file, "the file is empty")
    if b"\x00" in raw[:MAX_BINARY_SNIFF]:
        raise GraphFormatError(file, "binary content: expected a text edge list")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise GraphFormatError(file, "not UTF-8 text (binary or wrongly encoded file)", line) from None
    return text


def _data_lines(text: str) -> list[tuple[int, str]]:
    """(line number, content) of every line that is not blank or a #/% comment."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "%")):
            out.append((number, stripped))
    return out


def _splitter(first_line: str):
    if "," in first_line:
        return lambda s: [tok.strip() for tok in s.split(",")]
    if ";" in first_line:
        return lambda s: [tok.strip() for tok in s.split(";")]
    return str.split


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _looks_like_header(tokens: list[str], rest: list[list[str]]) -> bool:
    if all(tok.lower().strip("\"'") in HEADER_WORDS for tok in tokens):
        return True
    if len(tokens) >= 3 and not _is_number(tokens[2]) and rest and all(
        len(r) >= 3 and _is_number(r[2]) for r in rest[:20]
    ):
        return True
    ids_numeric = rest and all(_is_number(r[0]) and _is_number(r[1]) for r in rest[:20] if len(r) >= 2)
    return bool(ids_numeric) and not (_is_number(tokens[0]) or _is_number(tokens[1]))


def _parse_weight(token: str, file: str, line: int | None) -> float:
    try:
        value = float(token)
    except ValueError:
        raise GraphFormatError(file, f"weight {token!r} is not a number", line) from None
    if math.isnan(value):
        raise GraphFormatError(file, "weight is NaN; weights must be positive finite numbers", line)
    if math.isinf(value):
        raise GraphFormatError(file, "weight is infinite; weights must be positive finite numbers", line)
    if value > FLOAT32_MAX:  # training computes in float32, where 1e39 is inf
        raise GraphFormatError(file, f"weight {token} is too large; weights must be positive numbers up to "
                                     f"{FLOAT32_MAX:.3g}", line)
    if value <= 0:
        raise GraphFormatError(file, f"weight {token} is not positive; weights must be > 0", line)
    return value


def parse_edge_list(raw: bytes, file: str = "<upload>", directed: bool = False) -> Graph:
    """Parse edge-list bytes (space/tab/comma separated, optional header and weights).

    Integer ids in a plain file take a columnar path (pandas' C parser: a few times the file's
    size in memory, where one Python object per token took about 48 times). Anything else,
    and any file that path finds fault with, goes through the line-by-line parser, which
    names the file, line and problem; both give the same graph.
    """
    fast = _parse_columns(raw, file, directed)
    return fast if fast is not None else _parse_lines(raw, file, directed)


def _parse_lines(raw: bytes, file: str, directed: bool) -> Graph:
    """The line-by-line parser: any id, and a one-line error naming the line for any problem."""
    rows = _data_lines(_decode(raw, file))
    if not rows:
        raise GraphFormatError(file, "no edges: the file holds only comments or blank lines")
    split = _splitter(rows[0][1])
    tokens = [split(text) for _, text in rows]
    header = _looks_like_header(tokens[0], tokens[1:])
    if header:
        rows, tokens = rows[1:], tokens[1:]
        if not rows:
            raise GraphFormatError(file, "no edges: only a header line")
    width = len(tokens[0])
    first_line = rows[0][0]
    for (number, _), toks in zip(rows, tokens):
        if len(toks) < 2:
            raise GraphFormatError(
                file, f"only {len(toks)} column; expected 'source target [weight]'", number
            )
        if len(toks) > 3:
            raise GraphFormatError(
                file, f"{len(toks)} columns; expected 'source target [weight]'", number
            )
        if len(toks) != width:
            raise GraphFormatError(
                file, f"{len(toks)} columns, but line {first_line} has {width} (ragged rows)", number
            )
        if "" in toks[:2]:
            raise GraphFormatError(file, "empty node id", number)
    weighted = width == 3
    weights = [_parse_weight(t[2], file, n) for (n, _), t in zip(rows, tokens)] if weighted else None
    return _build(
        [t[0] for t in tokens], [t[1] for t in tokens], weights, directed, weighted, file, header
    )


# Ids whose integer value would not give back their text: "007", "+7", "-0" (the line parser
# keeps them as distinct names; the columnar path would merge them).
_NOT_CANONICAL = re.compile(rb"(?:^|[\s,])(?:\+|-?0\d|-0(?![\d.]))")
_HEAD_LINES = 21  # what header detection looks at
_INTEGER = re.compile(r"-?\d+")
# Rows per chunk of the columnar path: one chunk's tokens (text ids: two Python strings per row,
# ~60 bytes each) are what loading holds beyond the arrays, ~8 MB at this size.
CHUNK_ROWS = 1 << 16


# Text ids the line parser would read differently from pandas' C parser: quotes (pandas would
# unquote them) and blanks around a comma or at a line's ends (the line parser strips them).
_TEXT_NEEDS_LINES = re.compile(rb"[\"']|[ \t],|,[ \t]|(?:^|\n)[ \t]|[ \t]\r?(?:\n|$)")


def _parse_columns(raw: bytes, file: str, directed: bool) -> Graph | None:
    """The columnar path of :func:`parse_edge_list`, or None when the line parser must decide.

    Integer ids are read as int64 columns; text ids as string columns whose names are numbered
    in first-seen order (``pandas.factorize``), as the line parser numbers them."""
    import pandas as pd

    if b"#" in raw or b"%" in raw or b";" in raw or b"\x00" in raw[:MAX_BINARY_SNIFF]:
        return None
    if not raw.strip() or _NOT_CANONICAL.search(raw):
        return None
    head = raw[:65536].decode("utf-8-sig", errors="replace").splitlines()
    head = [line.strip() for line in head if line.strip()][:_HEAD_LINES]
    if not head:
        return None
    comma = "," in head[0]
    tokens = [[t.strip() for t in line.split(",")] if comma else line.split() for line in head]
    header = _looks_like_header(tokens[0], tokens[1:])
    first = tokens[int(header)] if len(tokens) > int(header) else []
    if len(first) not in (2, 3):
        return None
    integer_ids = all(_INTEGER.fullmatch(t) for t in first[:2])
    if not integer_ids and _TEXT_NEEDS_LINES.search(raw):
        return None
    width = len(first)
    id_type = np.int64 if integer_ids else str
    try:  # in chunks: the parser's token buffer stays the size of one chunk, not of the file
        chunks = pd.read_csv(io.BytesIO(raw), sep="," if comma else r"\s+", header=None,
                             skiprows=int(header), names=list(range(width)),
                             dtype={0: id_type, 1: id_type, 2: np.float64}, engine="c",
                             encoding="utf-8-sig", skip_blank_lines=True, chunksize=CHUNK_ROWS,
                             na_filter=integer_ids, quoting=csv.QUOTE_NONE)  # 'NA' is a name
        names: dict[str, int] = {}  # text ids: name -> index, in first-seen order
        columns: list[list[np.ndarray]] = [[], [], []]
        for chunk in chunks:
            if chunk.shape[1] != width or chunk.isna().to_numpy().any():
                return None  # a missing field: ragged rows, which the line parser names
            ends = [chunk[k].to_numpy() for k in range(2)]
            if not integer_ids:
                if (ends[0] == "").any() or (ends[1] == "").any():
                    return None  # an empty id: the line parser names the line
                ends = _text_codes(ends[0], ends[1], names)
            for k in range(width):
                columns[k].append(ends[k] if k < 2 else chunk[k].to_numpy())
            del chunk, ends
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OverflowError):
        return None  # ragged rows, text ids, bad numbers: the line parser says where
    if not columns[0]:
        return None
    src_ids, dst_ids = _joined(columns[0]), _joined(columns[1])
    weights = _joined(columns[2]) if width == 3 else None
    if weights is not None and not (np.isfinite(weights).all() and (weights > 0).all()
                                    and (weights <= FLOAT32_MAX).all()):
        return None
    if integer_ids:
        nodes = _sorted_unique(np.concatenate([src_ids, dst_ids]))  # numerically, as _node_order does
        src, dst = _ranks(nodes, src_ids), _ranks(nodes, dst_ids)
        del src_ids, dst_ids
        node_names = nodes.astype(str).tolist()  # no Python int per node on the way
        del nodes
        return normalise(node_names, src, dst, weights, directed, width == 3, file, header)
    if all(_INTEGER.fullmatch(name) for name in names):
        return None  # integer ids after all (a text header guessed wrong): the line parser decides
    return normalise(list(names), src_ids, dst_ids, weights, directed, width == 3, file, header)


def _text_codes(src_ids: np.ndarray, dst_ids: np.ndarray, names: dict[str, int]) -> list[np.ndarray]:
    """One chunk's text ids as node indices (int32 columns), numbering new names in ``names``.

    Names are numbered in first-seen order over s0, t0, s1, t1, ... as the line parser numbers
    them. Chunk by chunk, so that only one chunk's Python strings are alive at a time (text ids
    held as one object per edge end took 15-22x the file's size).
    """
    import pandas as pd

    interleaved = np.empty(2 * len(src_ids), dtype=object)  # s0, t0, s1, t1: the line parser's order
    interleaved[0::2], interleaved[1::2] = src_ids, dst_ids
    codes, uniques = pd.factorize(interleaved, sort=False)  # first-seen order within the chunk
    del interleaved
    # len(names) is read before each insertion: a new name takes the next index
    index = np.fromiter((names.setdefault(u, len(names)) for u in uniques), np.int64, len(uniques))
    coded = index[codes].astype(np.int32 if len(names) < 2**31 else np.int64)
    return [coded[0::2].copy(), coded[1::2].copy()]


# Loading memory (issue "Training at scale": at most 10x the file): the helpers below keep one
# copy of each column alive at a time, sort in place, and index nodes with int32 where they fit.

def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """The chunks as one array, each chunk released as soon as it is copied."""
    out = np.empty(sum(len(c) for c in chunks), chunks[0].dtype)
    at = 0
    while chunks:
        c = chunks.pop(0)
        out[at:at + len(c)] = c
        at += len(c)
    return out


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """np.unique(values) for an array the caller gives up: sorted in place, no sorted copy."""
    values.sort()
    if len(values) == 0:
        return values
    keep = np.empty(len(values), bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _ranks(nodes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Index of each id in the sorted ``nodes``: int32 when the nodes fit."""
    ranks = np.searchsorted(nodes, ids)
    return ranks.astype(np.int32) if len(nodes) < 2**31 else ranks


def _node_order(ids: list[str]) -> list[str]:
    """Integer ids sort numerically (so 0..n-1 stay put); other ids keep first-seen order."""
    unique = list(dict.fromkeys(ids))
    if all(re.fullmatch(r"-?\d+", u) for u in unique):
        return sorted(unique, key=int)
    return unique


def _build(
    heads: list[str], tails: list[str], weights: list[float] | None, directed: bool,
    weighted: bool, file: str, header: bool,
) -> Graph:
    names = _node_order([name for pair in zip(heads, tails) for name in pair])
    index = {name: i for i, name in enumerate(names)}
    src = np.fromiter((index[h] for h in heads), dtype=np.int64, count=len(heads))
    dst = np.fromiter((index[t] for t in tails), dtype=np.int64, count=len(tails))
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


def _edge_keys(src: np.ndarray, dst: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """src·n + dst as int64 (undirected: the smaller end first), one E-sized temporary."""
    if directed:
        keys = src.astype(np.int64)
        keys *= n
        keys += dst
        return keys
    keys = np.minimum(src, dst).astype(np.int64)
    keys *= n
    keys += np.maximum(src, dst)
    return keys


def _merge_duplicates(keys: np.ndarray, weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, their summed weights, float64; ones without ``weight``), as
    np.unique + np.bincount give them (the duplicates' weights summed in file order), sorting
    ``keys`` in place."""
    if weight is None:
        unique = _sorted_unique(keys)
        return unique, np.ones(len(unique))
    if len(keys) == 0:
        return keys, np.zeros(0)
    order = np.argsort(keys, kind="stable")  # duplicates keep file order: the same sums
    keys = keys[order]
    weight = np.asarray(weight, dtype=np.float64)[order]
    del order
    first = np.empty(len(keys), bool)  # the first of each run of equal keys
    first[0] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    merged = np.bincount(np.cumsum(first) - 1, weights=weight)
    return keys[first], merged


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
    values = []
    for _, _, data in edges:
        w = data.get(weight, 1.0)
        values.append(_parse_weight(str(w), source, None) if weighted else 1.0)
    src = np.array([index[u] for u, _, _ in edges], dtype=np.int64)
    dst = np.array([index[v] for _, v, _ in edges], dtype=np.int64)
    return normalise(names, src, dst, np.asarray(values, dtype=np.float64), directed, weighted, source)


def read_networkx_file(path: str | Path, directed: bool = False) -> Graph:
    """GML or GraphML through networkx, with errors turned into GraphFormatError."""
    import networkx as nx

    path = Path(path)
    raw = path.read_bytes()
    _decode(raw, str(path))  # empty / binary checks with the same messages
    try:
        if path.suffix.lower() == ".gml":
            g = nx.read_gml(path, label="label")
        else:
            g = nx.read_graphml(path)
    except Exception as err:  # networkx raises many types; all mean "bad file"
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise GraphFormatError(str(path), f"cannot parse {path.suffix[1:].upper()}: {message}") from None
    if directed and not g.is_directed():
        g = g.to_directed()
    return from_networkx(g, source=str(path), directed=directed or g.is_directed())


NETWORKX_SUFFIXES = {".gml", ".graphml"}


def read_graph_file(path: str | Path, directed: bool = False) -> Graph:
    """Any supported graph file by suffix; a missing file is a GraphFormatError too."""
    path = Path(path)
    if not path.is_file():
        raise GraphFormatError(str(path), "no such file (and not a bundled graph name)")
    if path.suffix.lower() in NETWORKX_SUFFIXES:
        return read_networkx_file(path, directed=directed)
    return parse_edge_list(path.read_bytes(), file=str(path), directed=directed)


# --------------------------------------------------------------------------- labels


def parse_labels(raw: bytes, graph: Graph, file: str = "<labels>") -> NodeLabels:
    """A ``node label`` file; nodes outside the graph and unlabelled nodes are reported."""
    rows = _data_lines(_decode(raw, file))
    split = _splitter(rows[0][1]) if rows else str.split
    lookup = graph._name_index()
    codes = np.full(graph.num_nodes, -1, dtype=np.int64)
    classes: dict[str, int] = {}
    unknown: list[str] = []
    for number, text in rows:
        toks = split(text)
        if len(toks) != 2:
            raise GraphFormatError(file, f"{len(toks)} columns; expected 'node label'", number)
        name, label = nfc(toks[0]), toks[1]
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


def read_labels(path: str | Path, graph: Graph) -> NodeLabels:
    path = Path(path)
    if not path.is_file():
        raise GraphFormatError(str(path), "no such labels file")
    return parse_labels(path.read_bytes(), graph, file=str(path))


def data_dir() -> Path | None:
    """The data directory named by GOAT_DATA_DIR, if set."""
    value = os.environ.get("GOAT_DATA_DIR")
    return Path(value) if value else None
