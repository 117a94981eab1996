"""Graph files in: unpack (gzip, bz2, xz, a one-file zip, capped), find the format (:data:`SNIFFERS`
in order, else an edge table) and read it; ``graph.read`` says how, and a categorical node
attribute (karate's ``club``) becomes ``graph.labels``."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import GraphFormatError
from .adjacency import has_networkx_header, looks_multiline, read_adjlist, read_multiline_adjlist
from .arrays import NPY_MAGIC, looks_npz, read_arrays
from .delimited import HEAD_BYTES, first_rows, konect_header, read_table
from .dimacs import looks_counted, looks_dimacs, looks_metis, read_counted, read_dimacs, read_metis
from .dot import looks_dot, read_dot
from .formats import Column, ReadOptions, ReadReport
from .frames import (
    frame_columns,
    looks_json_lines,
    looks_workbook,
    read_excel,
    read_frame,
    read_json,
    read_parquet,
)
from .gdf import looks_gdf, read_gdf
from .graph import Graph, NodeLabels, as_utf8, file_bytes, first_line
from .matrix import looks_matrix, read_matrix
from .matrixmarket import looks_matrix_market, read_matrix_market
from .nxformats import (
    looks_graph6,
    read_gml,
    read_graph6,
    read_leda,
    read_lgl,
    read_ncol,
    read_pajek,
    read_xml,
)
from .sif import cytoscape_table, looks_sif, read_sif
from .tgf import looks_tgf, read_tgf
from .ucinet import looks_dl, read_dl
from .vna import looks_vna, read_vna
from .xgmml import read_xgmml

MAX_DECOMPRESSED = 2 * 2**30  # the library's cap on a compressed file's content (the app sets less)
MAX_LABEL_CLASSES = 50  # a node attribute with more distinct values is not offered as labels

Reader = Callable[[bytes, str, ReadOptions], tuple[Graph, ReadReport]]


def read_edge_table(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """An edge table; Cytoscape's edge table (no end columns) by its edges' names, unless told columns."""
    cytoscape = options.source is None and b"nteraction" in raw[:4096] and cytoscape_table(raw, file)
    return read_frame(cytoscape, file, options, "edgelist") if cytoscape else read_table(raw, file, options)


READERS: dict[str, Reader] = {
    "edgelist": read_edge_table,
    "adjlist": read_adjlist,
    "multiline-adjlist": read_multiline_adjlist,
    "gexf": lambda raw, file, options: read_xml(raw, file, options, "gexf"),
    "graphml": lambda raw, file, options: read_xml(raw, file, options, "graphml"),
    "gml": read_gml,
    "pajek": read_pajek,
    "node-link": read_json,  # node-link JSON, or (format found, not given) a pandas table
    "matrix-market": read_matrix_market,
    "dot": read_dot,
    "gdf": read_gdf,
    "vna": read_vna,
    "dl": read_dl,
    "sif": read_sif,
    "xgmml": read_xgmml,
    "json-table": read_json,
    "parquet": read_parquet,
    "excel": read_excel,
    "lgl": read_lgl,
    "ncol": read_ncol,
    "leda": read_leda,
    "graph6": read_graph6,
    "dimacs": read_dimacs,
    "matrix": read_matrix,
    "metis": read_metis,
    "tgf": read_tgf,
    "counted": read_counted,
}


CAPPED_READERS = {"parquet": read_parquet, "excel": read_excel, "numpy": read_arrays}


def read_graph_bytes(raw: bytes, file: str = "<upload>", options: ReadOptions | None = None, *,
                     max_bytes: int = MAX_DECOMPRESSED) -> Graph:
    """Read a graph file's bytes; ``graph.read`` says how. Bad input is a GraphFormatError."""
    options = options or ReadOptions()
    raw, compression, member = unpack(raw, file, max_bytes)
    shown = f"{file}/{member}" if member else file
    raw, decoded = as_utf8(raw, shown, options.encoding)
    with _within_limits(shown):
        fmt = options.format or sniff_format(raw, shown)
        if fmt == "matrix" and (raw.startswith(b"PAR1") or looks_workbook(raw)):  # a table holding a matrix
            fmt = "parquet" if raw.startswith(b"PAR1") else "excel"  # options.format still says matrix
        if fmt in CAPPED_READERS:  # compressed inside: the cap applies to their content decompressed
            graph, report = CAPPED_READERS[fmt](raw, shown, options, max_bytes)
        else:
            graph, report = READERS[fmt](raw, shown, options)
    graph = replace(graph, source=shown)
    notes = report.notes + ((decoded,) if decoded else ())
    report = replace(report, compression=compression, member=member, detected=options.format is None,
                     notes=notes)
    candidates = label_attributes(graph)
    if candidates and graph.labels is None:
        graph = replace(graph, labels=labels_from_attribute(graph, candidates[0]))
        report = replace(report, labels_from=repr(candidates[0]))
    return replace(graph, read=report)


def parse_edge_list(raw: bytes, file: str = "<upload>", directed: bool = False, *, format: str | None = None,
                    source: Column = None, target: Column = None, weight: Column = None,
                    encoding: str | None = None) -> Graph:
    """A graph file's bytes in any supported format (the name is historical: edge lists first)."""
    options = ReadOptions(format=format, source=source, target=target, weight=weight, directed=directed,
                          encoding=encoding)
    return read_graph_bytes(raw, file, options)


def read_graph_file(path: str | Path, directed: bool = False, *, format: str | None = None,
                    source: Column = None, target: Column = None, weight: Column = None,
                    encoding: str | None = None) -> Graph:
    """A graph file by path, any supported format; a missing file is a GraphFormatError too."""
    raw = file_bytes(path, "file", " (and not a bundled graph name)")
    return parse_edge_list(raw, str(path), directed, format=format, source=source,
                           target=target, weight=weight, encoding=encoding)


class TableColumns(NamedTuple):
    """An edge table's header (None without one), its first data row, and the format that reads it."""

    header: tuple[str, ...] | None
    first: tuple[str, ...]
    format: str  # "edgelist", "json-table", "parquet" or "excel"


def table_columns(raw: bytes, file: str = "<upload>", *, max_bytes: int = MAX_DECOMPRESSED,
                  encoding: str | None = None) -> TableColumns | None:
    """(header, first data row, format) of an edge table, as its layout was found: what a column
    picker offers when reading it stopped to ask which columns are which, and the format to read it
    with again. None when the file is not an edge table (or not readable)."""
    try:
        raw, _, _ = unpack(raw, file, max_bytes)
        raw, _ = as_utf8(raw, file, encoding)
        with _within_limits(file):
            fmt = sniff_format(raw, file)
            if fmt in ("json-table", "node-link", "parquet", "excel"):
                fmt = fmt if fmt in ("parquet", "excel") else "json-table"
                found = frame_columns(raw, file, fmt, max_bytes)
            elif fmt == "edgelist":
                found = first_rows(raw)
            else:
                return None
        return TableColumns(*found, fmt) if found is not None else None
    except GraphFormatError:
        return None


@contextmanager
def _within_limits(file: str) -> Iterator[None]:
    """A number past Python's digit limit, or a count past memory, in any reader: a one-line error."""
    try:
        yield
    except ValueError as err:  # int() of a hostile number, in any reader that counts or numbers nodes
        if "integer string conversion" not in str(err):
            raise
        raise GraphFormatError(file, f"a number of over {sys.get_int_max_str_digits():,} digits: no node "
                                     "id, count or weight is that long") from None
    except MemoryError:  # a count the file declares (*Vertices, p, n =) past what this machine holds
        raise GraphFormatError(file, "out of memory reading it: the nodes or cells it declares are more "
                                     "than this machine holds") from None


# --------------------------------------------------------------------------- compression

MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"PK\x03\x04": "zip",
         b"PK\x05\x06": "zip"}
PICKLE = ("a Python pickle (pickle.dump, networkx's gpickle, torch.save), never unpickled here: "
          "unpickling runs code. Write the graph as GraphML (nx.write_graphml) or its edges as numbers "
          "(np.savez('g.npz', edge_index=data.edge_index.numpy()))")
UNREAD: dict[bytes | tuple[bytes, ...], str] = {
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive", b"Rar!": "a RAR archive",
    b"\x28\xb5\x2f\xfd": "zstd-compressed", b"%PDF": "a PDF document", b"\x89PNG": "a PNG image",
    b"\xd0\xcf\x11\xe0": "an old Excel .xls or Office file: save it as .xlsx or CSV",
    b"ARROW1": "an Arrow/Feather file",
    b"SQLite format 3\x00": "an SQLite database: export its edge table as CSV, e.g. sqlite3 -header -csv "
                            "db.sqlite 'SELECT * FROM edges' > edges.csv",
    "⛾ gt".encode(): "a graph-tool binary (.gt): save it as GraphML, g.save('graph.graphml')",
    b"nkbg": "a NetworKit binary graph: write it as GraphML or METIS, graphio.writeGraph(G, path, "
             "graphio.Format.GraphML)",
    b"MATLAB ": "a MATLAB .mat file: save its edges as text, e.g. [i,j,w] = find(A); "
                "writematrix([i j w], 'edges.csv'), or the matrix as .npy or Matrix Market",
    (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"): PICKLE}  # protocols 2 to 5


def unpack(raw: bytes, file: str, max_bytes: int) -> tuple[bytes, str | None, str | None]:
    """(content, compression, zip member): a compressed file's content, capped at ``max_bytes``."""
    compression, member = None, None
    for _ in range(2):  # a .zip holding a .gz is unpacked twice; no deeper
        kind = _packed(raw)
        if kind is None:
            break
        raw, inner = _decompress(raw, kind, file, max_bytes)
        compression = kind if compression is None else f"{compression} + {kind}"
        member = member or inner
    deeper = _packed(raw)
    if deeper:
        raise GraphFormatError(file, f"compressed three times ({compression} + {deeper}): twice is unpacked "
                                     "here")
    what = next((name for magic, name in UNREAD.items() if raw.startswith(magic)), None)
    if what is None and len(raw) > 262 and raw[257:262] == b"ustar":
        what = "a tar archive"
    if what:
        raise GraphFormatError(file, f"binary content ({what}), not a graph file: gzip, bz2, xz and "
                                     "one-file zip are unpacked; graphs are text, CSV, GEXF, GraphML, GML, "
                                     "Pajek, JSON, Parquet, an Excel .xlsx workbook or NumPy .npy/.npz")
    return raw, compression, member


def _packed(raw: bytes) -> str | None:
    """How ``raw`` is compressed; None for none, and for a workbook or an .npz (zips read as one)."""
    kind = next((name for magic, name in MAGIC.items() if raw.startswith(magic)), None)
    return None if kind == "zip" and (looks_workbook(raw) or looks_npz(raw)) else kind


def _decompress(raw: bytes, kind: str, file: str, max_bytes: int) -> tuple[bytes, str | None]:
    openers: dict[str, Callable[[io.BytesIO], io.BufferedIOBase]] = {
        "gzip": lambda b: gzip.GzipFile(fileobj=b), "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}
    member = None
    try:
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                info = _only_member(archive, file)
                member = info.filename
                with archive.open(info) as stream:
                    out = stream.read(max_bytes + 1)
        else:
            with openers[kind](io.BytesIO(raw)) as stream:
                out = stream.read(max_bytes + 1)
    except GraphFormatError:
        raise
    except (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, NotImplementedError,
            RuntimeError, ValueError) as err:
        raise GraphFormatError(file, f"not a readable {kind} file: {first_line(err)}") from None
    if len(out) > max_bytes:
        raise GraphFormatError(file, f"{kind} content over {max_bytes / 2**20:,.0f} MB once decompressed "
                                     "(the limit here): refused")
    return out, member


def _only_member(archive: zipfile.ZipFile, file: str) -> zipfile.ZipInfo:
    names = [i.filename for i in archive.infolist()]
    if any(name.endswith("/data.pkl") for name in names):  # torch.save's zip: pickled objects and storages
        raise GraphFormatError(file, f"binary content ({PICKLE})")
    if "mimetype" in names and archive.read("mimetype").startswith(b"application/vnd.oasis.opendocument"):
        raise GraphFormatError(file, "an OpenDocument spreadsheet (.ods): save it as .xlsx or CSV to read it "
                                     "here")
    # a member named "" is no file (ZipInfo.is_dir() fails on it)
    files = [i for i in archive.infolist() if i.filename.rstrip("/") == i.filename != ""
             and not i.filename.startswith("__MACOSX/")
             and Path(i.filename).name not in (".DS_Store", "Thumbs.db")]
    if len(files) != 1:
        shown = ", ".join(i.filename for i in files[:4]) + (" …" if len(files) > 4 else "")
        listed = f" ({shown})" if files else ""
        raise GraphFormatError(file, f"a zip archive of {len(files)} files{listed}: expected exactly one "
                                     "graph file")
    if files[0].flag_bits & 0x1:
        raise GraphFormatError(file, "an encrypted zip archive: cannot be read")
    return files[0]


# --------------------------------------------------------------------------- format detection

# GML: ``graph [`` (``[`` maybe on the next line, as igraph writes it) after nothing but top-level
# ``Key value`` lines (``Creator "yEd"``, ``Version 1``)
_GML_START = re.compile(r'(?:\w+[ \t]+(?:"[^"\n]*"|[^\s\[\]]+)[ \t]*\n)*graph\s*\[', re.IGNORECASE)
# XGMML without an XML declaration: a <graph> start tag with attributes, or with <node>/<edge> inside
_XGMML_ROOT = re.compile(r"<(?:[\w.-]+:)?graph(?:\s+[\w.:-]+\s*="
                         r"|\s*>\s*(?:<!--.*?-->\s*)*<(?:[\w.-]+:)?(?:node|edge|att)\b)", re.DOTALL)
_LGL_NODE = re.compile(r"#\s*\S+")
XML_STARTS = ("<?xml", "<!")
PAJEK_STARTS = ("*vertices", "*network", "*arcs", "*edges")


def looks_lgl(lines: list[str]) -> bool:
    """LGL (igraph's ``write_lgl``): a ``# node`` line first, then ``neighbor [weight]`` lines and
    more ``# node`` lines; told from an edge list under a one-word comment by a lone neighbor or
    by a ``# node`` line after data (an edge list's comments come first)."""
    rows = [line.strip() for line in lines if line.strip()]
    if len(rows) < 2 or not _LGL_NODE.fullmatch(rows[0]):
        return False
    nodes = [bool(_LGL_NODE.fullmatch(row)) for row in rows]
    if not all(node or len(row.split()) <= 2 and not row.startswith(("#", "%"))
               for row, node in zip(rows, nodes)):
        return False
    # igraph names the `# node` lines as it names the neighbors: word comments over integer ids
    # (`# part two` before more `1 2` lines) are an edge list's comments, not LGL's nodes
    names = [row[1:].strip() for row, node in zip(rows, nodes) if node]
    data = [row for row, node in zip(rows, nodes) if not node]
    if any(all(sep in row for row in data) for sep in ",;|"):
        return False  # "0,1" under np.savetxt's "# source,target": a delimited table, not lone neighbors
    neighbors = [row.split()[0] for row in data]
    if all(n.isdecimal() for n in neighbors) and not all(n.isdecimal() for n in names):
        return False
    lone = any(not node and len(row.split()) == 1 for row, node in zip(rows, nodes))
    return lone or any(nodes[k] and not nodes[k - 1] for k in range(1, len(rows)))


def _looks_multiline(head: _Head) -> bool:
    """A multiline adjacency list: said by networkx's header, else by a shape test of the whole
    file, run only when the first lines have a neighbor line (one token, or a node and its
    {attributes}), which no edge list has."""
    tokens = [line.split() for line in head.rows[:21]]  # rows are not blank: each has a token
    neighbor_line = bool(tokens) and len(tokens[0]) == 2 and tokens[0][1].isdecimal() and any(
        len(t) == 1 or t[1].startswith("{") for t in tokens[1:])
    return (has_networkx_header(head.text) or neighbor_line) and looks_multiline(head.raw, head.file)


class _Head(NamedTuple):
    """The first 64 kB of a file (or its first lines) as the sniffers look at it."""

    raw: bytes
    file: str
    text: str  # stripped of leading blanks
    lines: list[str]  # whole lines (the last dropped when the head cut it)
    rows: list[str]  # lines that are not blank or a #/% comment, stripped
    root: str  # an XML document's root element, lower case ("" for none)
    whole: bool  # the head is the whole file


# (format, test) in the order they are tried; an edge table when none says yes
SNIFFERS: tuple[tuple[str, Callable[[_Head], bool]], ...] = (
    ("parquet", lambda h: h.raw.startswith(b"PAR1")),
    ("numpy", lambda h: h.raw.startswith(NPY_MAGIC) or looks_npz(h.raw)),
    ("excel", lambda h: looks_workbook(h.raw)),
    ("gexf", lambda h: h.root == "gexf"),
    ("graphml", lambda h: h.root == "graphml"),
    ("xgmml", lambda h: h.root == "graph"
     and bool(h.text.startswith(XML_STARTS) or _XGMML_ROOT.match(h.text))),
    # networkx's node-link JSON is one object, never a list or lines; a "{" document is read by
    # read_json, which reads a pandas table too when it has no "nodes"
    ("json-table", lambda h: h.text.startswith("[") or (h.text.startswith("{") and looks_json_lines(h.text))),
    ("node-link", lambda h: h.text.startswith("{")),
    ("matrix-market", lambda h: looks_matrix_market(h.text)),
    ("dot", lambda h: looks_dot(h.text)),
    ("gdf", lambda h: looks_gdf(h.text)),
    ("vna", lambda h: looks_vna(h.text)),
    ("dl", lambda h: looks_dl(h.text)),
    ("leda", lambda h: h.text.startswith("LEDA.GRAPH")),
    ("graph6", lambda h: h.text.startswith((">>graph6<<", ">>sparse6<<")) or looks_graph6(h.raw)),
    ("dimacs", lambda h: looks_dimacs(h.rows)),
    ("metis", lambda h: bool(h.rows) and looks_metis(h.rows[0], h.raw)),
    ("pajek", lambda h: any(row.lower().startswith(PAJEK_STARTS) for row in h.rows[:1])),
    ("gml", lambda h: _GML_START.match("\n".join(h.rows[:20])) is not None),
    ("tgf", lambda h: looks_tgf(h.raw)),  # before LGL and edge tables: its "#" line decides
    ("lgl", lambda h: looks_lgl(h.lines)),
    ("multiline-adjlist", _looks_multiline),
    ("adjlist", lambda h: has_networkx_header(h.text)),
    # Cytoscape's SIF only when no edge table can be meant (few interaction types, never a number)
    ("sif", lambda h: looks_sif(h.lines)),
    # algs4's V and E lines; an "n m" line that may be counts is asked about (a GraphFormatError)
    ("counted", lambda h: looks_counted(h.rows, h.raw, h.file, h.lines)),
    # a square of numbers that is not KONECT's (`% asym` over `u v weight time` rows)
    ("matrix", lambda h: looks_matrix(h.rows, h.whole) and not konect_header(h.text)),
)
HEAD_LINES, MAX_HEAD = 3, 1 << 22  # the head holds 3 lines whole, up to 4 MB (10k-node matrix: 60 kB a line)


def sniff_format(raw: bytes, file: str) -> str:
    """The format of (uncompressed) bytes, from their first 64 kB (or their first lines, when longer):
    the first of :data:`SNIFFERS` that says yes, else "edgelist"."""
    end = -1
    for _ in range(HEAD_LINES):
        end = found if (found := raw.find(b"\n", end + 1, MAX_HEAD)) >= 0 else end
    size = max(HEAD_BYTES, end + 1)
    text = raw[:size].decode("utf-8-sig", errors="replace").lstrip()
    lines = text.splitlines()[:-1] if len(raw) > size and raw[size - 1:size] != b"\n" else text.splitlines()
    root = re.search(r"<(?!\?|!)(?:[\w.-]+:)?([\w.-]+)", text) if text.startswith("<") else None
    name = root.group(1).lower() if root else ""
    if name in ("html", "table"):  # a page (pyvis' own) or DataFrame.to_html: its words are no adjlist
        raise GraphFormatError(file, f"HTML (<{name}>), not a graph file: save its edge table as CSV "
                                     "(pandas: pd.read_html(path)[0].to_csv('edges.csv', index=False))")
    if text.startswith("(tlp "):  # Tulip's own format: its (edge id source target) lines are no table
        raise GraphFormatError(file, "a Tulip .tlp file, not read here: export the graph from Tulip as GML "
                                     "or GraphML (File → Export)")
    if text.startswith(XML_STARTS) and name not in ("gexf", "graphml", "graph"):
        raise GraphFormatError(file, f"XML whose root is <{name}>: GEXF (<gexf>), GraphML (<graphml>) "
                                     "and XGMML (<graph>) are the XML graph formats read")
    rows = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith(("#", "%"))]
    head = _Head(raw, file, text, lines, rows, name, len(raw) <= size)
    return next((fmt for fmt, looks in SNIFFERS if looks(head)), "edgelist")


# --------------------------------------------------------------------------- node attributes as labels


def label_attributes(graph: Graph) -> list[str]:
    """Node attributes that can serve as labels: text per node with 2 to ``MAX_LABEL_CLASSES``
    distinct values, fewer than the nodes (an attribute unique per node is a name, not a class).
    Named classes come first: a number per node is more often a tool's own clustering (Gephi's
    ``modularity_class``) than what the nodes are (karate's ``club``)."""
    out = []
    for name, values in graph.node_attrs.items():
        values = np.asarray(values)
        if values.dtype.kind not in "UO" or len(values) != graph.num_nodes:
            continue
        distinct = set(values[values != ""].tolist())
        if 2 <= len(distinct) <= min(MAX_LABEL_CLASSES, max(2, graph.num_nodes // 2)):
            out.append((all(re.fullmatch(r"-?\d+", str(v)) for v in distinct), name))
    return [name for _, name in sorted(out, key=lambda numbered_name: numbered_name[0])]


def labels_from_attribute(graph: Graph, name: str) -> NodeLabels:
    """``NodeLabels`` from a node attribute (nodes without a value are unlabelled)."""
    if name not in graph.node_attrs:
        known = ", ".join(graph.node_attrs) or "none"
        raise GraphFormatError(graph.source, f"no node attribute {name!r} (attributes: {known})")
    values = np.asarray(graph.node_attrs[name]).astype(str)
    classes: dict[str, int] = {}
    codes = np.array([-1 if v == "" else classes.setdefault(v, len(classes)) for v in values.tolist()],
                     dtype=np.int64)
    return NodeLabels(codes=codes, classes=tuple(classes), source=f"{graph.source} (node attribute {name!r})")
