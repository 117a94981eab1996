"""What reading a graph file may be told (:class:`ReadOptions`, frozen: the app keys its caches by
it) and what it says it did (:class:`ReadReport`)."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from ..errors import GraphFormatError, ParameterError

FORMAT_ALIASES = {"auto": None, "csv": "edgelist", "tsv": "edgelist", "txt": "edgelist",
                  "json": "node-link", "net": "pajek", "paj": "pajek", "mtx": "matrix-market", "gv": "dot",
                  "ucinet": "dl", "jsonl": "json-table", "ndjson": "json-table", "pq": "parquet",
                  "gw": "leda", "xlsx": "excel", "g6": "graph6", "sparse6": "graph6", "s6": "graph6",
                  "adjacency-matrix": "matrix", "algs4": "counted", "npy": "numpy", "npz": "numpy"}
# The formats ``format=`` / ``--format`` names (``None`` or "auto": found from the content), titled.
FORMAT_TITLES = {"edgelist": "edge list", "adjlist": "adjacency list",
                 "multiline-adjlist": "multiline adjacency list", "gexf": "GEXF", "graphml": "GraphML",
                 "gml": "GML", "pajek": "Pajek", "node-link": "node-link JSON",
                 "matrix-market": "Matrix Market", "dot": "Graphviz DOT", "gdf": "GDF (GUESS)",
                 "vna": "VNA (NetDraw)", "dl": "UCINET DL", "sif": "SIF (Cytoscape)",
                 "xgmml": "XGMML (Cytoscape)", "json-table": "pandas JSON table",
                 "parquet": "Parquet", "excel": "Excel workbook", "lgl": "LGL", "ncol": "NCOL",
                 "leda": "LEDA", "graph6": "graph6/sparse6", "dimacs": "DIMACS", "matrix": "adjacency matrix",
                 "metis": "METIS", "tgf": "TGF (yEd)",
                 "counted": "edge list under its counts (algs4)", "numpy": "NumPy/SciPy arrays"}
FORMATS = tuple(FORMAT_TITLES)
NO_WEIGHT = "none"  # weight="none" / --weight none: every edge weighs 1, whatever the file holds
FIRST_ROWS = 5  # rows of the file shown as read

Column = str | int | None


def format_name(name: str | None) -> str | None:
    """A known format (aliases resolved), None for detection; anything else is a ParameterError."""
    if name is None:
        return None
    key = name.strip().lower()
    if key not in FORMATS and key not in FORMAT_ALIASES:
        raise ParameterError(f"format must be one of {', '.join(FORMATS)} (or auto), got {name!r}")
    return FORMAT_ALIASES.get(key, key)


def text_encoding(name: str) -> str:
    """A text encoding Python knows, by its codec's name (``latin1``: ``iso8859-1``); anything else is
    a ParameterError."""
    try:
        codec = codecs.lookup(name)
    except (LookupError, TypeError):
        codec = None
    if codec is None or not codec._is_text_encoding:  # base64, rot13...: codecs, not text encodings
        raise ParameterError(f"encoding must be a text encoding Python knows (cp1252, latin-1, cp1251, gbk, "
                             f"shift_jis, utf-16...), got {name!r}")
    return codec.name


@dataclass(frozen=True)
class ReadOptions:
    """How to read a graph file. Every field left at its default means "found from the file".

    ``encoding``: the text's encoding when it is not UTF-8 (UTF-16 with a BOM is found), e.g.
    ``cp1252`` for Excel's "CSV (Comma delimited)" on Windows in Western Europe.
    ``source``/``target``/``weight``: a column of an edge table, by its header name or its 0-based
    position; ``weight="none"`` reads every edge with weight 1. ``directed=True`` keeps edge
    directions; ``False`` takes them from the file (GEXF, GraphML, GML, node-link and Pajek say;
    so do a KONECT header, a Gephi ``Type`` column and a GDF ``directed`` column; VNA and UCINET DL
    ties are directed unless every one is stored both ways; so does XGMML's ``directed``), undirected
    when it says nothing (SIF never says).
    """

    format: str | None = None
    source: Column = None
    target: Column = None
    weight: Column = None
    directed: bool = False
    encoding: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "format", format_name(self.format))
        if self.encoding is not None:
            object.__setattr__(self, "encoding", text_encoding(self.encoding))
        for name in ("source", "target", "weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (str, int, type(None))):
                raise ParameterError(f"{name} must be a column name or a 0-based position, got {value!r}")
            if isinstance(value, int) and value < 0:
                raise ParameterError(f"{name} must be a 0-based position (>= 0), got {value}")
            if isinstance(value, str) and not value.strip():
                raise ParameterError(f"{name} must name a column, got an empty name")
        if (self.source is None) != (self.target is None):
            raise ParameterError("source and target are chosen together: give both (or neither)")

    @property
    def weight_attribute(self) -> str | None:
        """The edge attribute that holds weights in a format that names them: ``weight`` unless
        told (None: unweighted)."""
        if self.weight is None:
            return "weight"
        return None if self.weight == NO_WEIGHT else str(self.weight)

    def refuse_columns(self, fmt: str, file: str) -> None:
        """Columns chosen for a format that has none: a one-line error saying so."""
        if self.source is not None or isinstance(self.weight, int):
            raise GraphFormatError(file, f"--source/--target/--weight COL choose columns of an edge table; a "
                                         f"{fmt} file names its edges' ends (--weight NAME picks an edge "
                                         "attribute)")


@dataclass(frozen=True)
class ReadReport:
    """The account of one read: what was found, what was used, what was left out."""

    format: str  # one of FORMATS
    edges: int  # edge rows (or elements) read, before self-loops and duplicates were dropped
    directed: bool
    directed_why: str = ""  # "the file declares it", "--directed", ...
    compression: str | None = None  # "gzip", "bz2", "xz", "zip"
    member: str | None = None  # the file inside a zip archive
    detected: bool = True  # the format was found from the content (False: given)
    separator: str | None = None  # edge tables: "comma", "tab", "whitespace", ...
    header: tuple[str, ...] | None = None  # edge tables: the header's names, None without one
    source: str | None = None  # what the source ends came from: a column's name or "column 0"
    target: str | None = None
    weight: str | None = None  # None: unweighted
    index_column: str | None = None  # a row-index column left out ("" when unnamed)
    positions: tuple[int, int, int | None] | None = None  # edge tables: 0-based source, target, weight
    ignored: tuple[str, ...] = ()  # columns or attributes read past
    node_attributes: tuple[str, ...] = ()  # kept as Graph.node_attrs
    labels_from: str | None = None  # the node attribute (an .npz: the array) taken as labels
    names_from: str | None = None  # the attribute node names came from (GEXF/GraphML labels)
    rows: tuple[tuple[str, ...], ...] = ()  # the first rows as read: (source, target[, weight])
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        """One sentence: "78 edges from Source → Target, weight from Weight; ignored Type, Id,
        Label; undirected"."""
        what = FORMAT_TITLES.get(self.format, self.format)
        member = f": {self.member}" if self.member else ""
        packed = f" ({self.compression}{member})" if self.compression else ""
        parts = [f"{self.edges:,} edges read as {what}{packed}"
                 + ("" if self.detected else " (format as given)")]
        if self.source is not None:
            parts[0] += f" from {self.source} → {self.target}"
        parts[0] += f", weight from {self.weight}" if self.weight else ", unweighted"
        if self.index_column is not None:
            parts.append(f"row index {self.index_column or '(unnamed first column)'} left out")
        if self.ignored:
            parts.append("ignored " + ", ".join(self.ignored))
        if self.names_from:
            parts.append(f"node names from {self.names_from}")
        if self.labels_from:
            parts.append(f"labels from {'array' if self.format == 'numpy' else 'node attribute'} "
                         f"{self.labels_from}")
        parts.append(("directed" if self.directed else "undirected")
                     + (f" ({self.directed_why})" if self.directed_why else ""))
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {
            "format": self.format, "detected": self.detected, "compression": self.compression,
            "member": self.member, "separator": self.separator,
            "header": list(self.header) if self.header is not None else None,
            "columns": {"source": self.source, "target": self.target, "weight": self.weight},
            "positions": list(self.positions) if self.positions is not None else None,
            "index_column": self.index_column, "ignored": list(self.ignored), "edges": self.edges,
            "directed": self.directed, "node_attributes": list(self.node_attributes),
            "labels_from": self.labels_from, "names_from": self.names_from,
            "first_rows": [list(r) for r in self.rows], "notes": list(self.notes), "summary": self.summary(),
        }
