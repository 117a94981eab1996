"""GDF files (GUESS's format; Gephi exports it): a ``nodedef>`` header and node rows, then an
``edgedef>`` header and edge rows, values comma separated, ``'``- or ``"``-quoted. What is read,
and the direction rule, are in docs/formats.md. No maintained Python reader reads GDF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, ReadOptions, ReadReport
from .graph import Graph, decode, normalise, parse_weights
from .nxformats import DRAWING_ATTRIBUTES

_SECTION = re.compile(r"\s*(nodedef|edgedef)\s*>", re.IGNORECASE)
# Node columns that say how a node is drawn (GUESS's and Gephi's): not kept.
DRAWING = DRAWING_ATTRIBUTES | {"width", "height", "visible", "labelvisible", "fixed", "style", "labelcolor",
                                "strokecolor", "labelsize", "image"}
TRUE, FALSE = {"true", "t", "1", "yes", "y"}, {"false", "f", "0", "no", "n", ""}
MAX_SHOWN = 5  # undeclared edge ends named in the report


def looks_gdf(head: str) -> bool:
    """The first non-blank line starts ``nodedef>`` or ``edgedef>`` (any case)."""
    return _SECTION.match(head.lstrip()) is not None


@dataclass(frozen=True)
class _Column:
    name: str
    default: str = ""


def read_gdf(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("GDF", file)
    lines = decode(raw, file).splitlines()
    nodes: dict[str, int] = {}  # declared node -> its line
    node_rows: list[list[str]] = []
    edges: list[tuple[int, list[str]]] = []
    node_columns: list[_Column] | None = None
    edge_columns: list[_Column] | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        section = _SECTION.match(line)
        if section is not None:
            kind = section.group(1).lower()
            columns = _header(line[section.end():], number, file)
            if kind == "nodedef":
                if node_columns is not None or edge_columns is not None:
                    raise GraphFormatError(file, "a second nodedef> line (or one after edgedef>): a GDF file "
                                                 "holds one node section, then one edge section", number)
                node_columns = columns
                key = _name_position(node_columns)
            else:
                if edge_columns is not None:
                    raise GraphFormatError(file, "a second edgedef> line: a GDF file holds one edge section",
                                           number)
                if len(columns) < 2:
                    raise GraphFormatError(file, "edgedef> must name the two ends first (node1,node2), got "
                                                 f"{len(columns)} column", number)
                edge_columns = columns
            continue
        if edge_columns is not None:
            edges.append((number, _values(line, edge_columns, 2, number, file)))
        elif node_columns is not None:
            values = _values(line, node_columns, 1, number, file)
            name = _missing(values[key], node_columns[key])
            if not name:
                raise GraphFormatError(file, f"a node row without a {node_columns[key].name!r}", number)
            if name in nodes:
                raise GraphFormatError(file, f"node {name!r} declared twice (lines {nodes[name]} and "
                                             f"{number})", number)
            nodes[name] = number
            node_rows.append(values)
        else:
            raise GraphFormatError(file, f"a row before any nodedef>/edgedef> line: {line.strip()[:60]!r}",
                                   number)
    if edge_columns is None or not edges:
        raise GraphFormatError(file, "a GDF file without edges (no edgedef> section)" if edge_columns is None
                               else "a GDF file whose edgedef> section has no rows")
    return _graph(list(nodes), node_rows, node_columns or [], edges, edge_columns, file, options)


def _graph(declared: list[str], node_rows: list[list[str]], node_columns: list[_Column],
           edges: list[tuple[int, list[str]]], edge_columns: list[_Column], file: str,
           options: ReadOptions) -> tuple[Graph, ReadReport]:
    lowered = [c.name.lower() for c in edge_columns]
    weight_name = options.weight_attribute
    weight_at = next((i for i, name in enumerate(lowered) if i >= 2 and weight_name is not None
                      and name == weight_name.lower()), None)
    if weight_name is not None and options.weight is not None and weight_at is None:
        named = ", ".join(repr(c.name) for c in edge_columns[2:]) or "none but the ends"
        raise GraphFormatError(file, f"no edge column {weight_name!r}; edgedef> names {named}")
    directed_at = next((i for i, name in enumerate(lowered) if i >= 2 and name == "directed"), None)
    index = {name: i for i, name in enumerate(declared)}
    src = np.empty(len(edges), dtype=np.int64)
    dst = np.empty(len(edges), dtype=np.int64)
    arcs = np.zeros(len(edges), dtype=bool)
    for k, (number, values) in enumerate(edges):
        u, v = _missing(values[0], edge_columns[0]), _missing(values[1], edge_columns[1])
        if not u or not v:
            raise GraphFormatError(file, "an edge row without both ends", number)
        src[k] = index.setdefault(u, len(index))
        dst[k] = index.setdefault(v, len(index))
        if directed_at is not None:
            arcs[k] = _flag(_missing(values[directed_at], edge_columns[directed_at]), number, file)
    weight, tokens = None, []
    if weight_at is not None:
        column = edge_columns[weight_at]
        tokens = [_missing(values[weight_at], column) for _, values in edges]
        if "" in tokens:
            number = edges[tokens.index("")][0]
            raise GraphFormatError(file, f"an edge without a {column.name!r} value (and no default in the "
                                         "header)", number)
        weight = parse_weights(tokens, [number for number, _ in edges], file)
    count = int(arcs.sum())
    directed = count > 0 or options.directed
    if directed:  # an undirected edge of a directed (or mixed) graph goes both ways
        both = ~arcs
        src, dst = np.concatenate([src, dst[both]]), np.concatenate([dst, src[both]])
        weight = np.concatenate([weight, weight[both]]) if weight is not None else None
    names = list(index)
    graph = normalise(names, src, dst, weight, directed, weight is not None, file)
    key = _name_position(node_columns) if node_columns else 0
    kept = [i for i, c in enumerate(node_columns) if i != key and c.name.lower() not in DRAWING]
    node_attrs = {}
    for i in kept:  # "" for an edge end no node row declares
        values = [_missing(row[i], node_columns[i]) for row in node_rows]
        node_attrs[node_columns[i].name] = np.array(values + [""] * (len(names) - len(declared)), dtype=str)
    graph = replace(graph, node_attrs=node_attrs)
    notes: list[str] = []
    undeclared = names[len(declared):]
    if undeclared and node_columns:
        shown = ", ".join(undeclared[:MAX_SHOWN]) + (" …" if len(undeclared) > MAX_SHOWN else "")
        notes.append(f"{len(undeclared):,} edge ends not declared by a node row, added as nodes: {shown}")
    if 0 < count < len(edges):
        notes.append(f"a mixed graph: {len(edges) - count:,} undirected edges read both ways")
    why = f"{count:,} of {len(edges):,} edges' directed column is true" if count else "as asked" if directed \
        else ""
    ignored = tuple(f"node column {c.name!r}" for c in node_columns if c.name.lower() in DRAWING)
    ignored += tuple(f"edge column {c.name!r}" for i, c in enumerate(edge_columns)
                     if i >= 2 and i not in (weight_at, directed_at))
    rows = tuple((values[0], values[1]) + tuple(tokens[k:k + 1])
                 for k, (_, values) in enumerate(edges[:FIRST_ROWS]))
    report = ReadReport(format="gdf", edges=len(edges), directed=directed, directed_why=why,
                        weight=f"column {edge_columns[weight_at].name!r}" if weight_at is not None else None,
                        ignored=ignored, node_attributes=tuple(node_attrs), rows=rows, notes=tuple(notes))
    return graph, report


def _header(text: str, number: int, file: str) -> list[_Column]:
    """The columns of a nodedef>/edgedef> line: ``name [TYPE] [default VALUE]``, comma separated."""
    columns = []
    for part in _split(text, number, file):
        words = part.split()
        if not words:
            raise GraphFormatError(file, "an empty column name in the header", number)
        default = ""
        lowered = [w.lower() for w in words]
        if "default" in lowered[1:]:
            at = lowered.index("default", 1)
            default = _unquote(" ".join(words[at + 1:]))
        columns.append(_Column(_unquote(words[0]), default))
    names = [c.name.lower() for c in columns]
    repeated = next((c.name for i, c in enumerate(columns) if c.name.lower() in names[:i]), None)
    if repeated:
        raise GraphFormatError(file, f"column {repeated!r} named twice in the header", number)
    return columns


def _name_position(columns: list[_Column]) -> int:
    return next((i for i, c in enumerate(columns) if c.name.lower() == "name"), 0)


def _values(line: str, columns: list[_Column], least: int, number: int, file: str) -> list[str]:
    """A row's values, one per column ("" for missing trailing ones); more values than columns
    (an unquoted comma?) is an error."""
    values = _split(line, number, file)
    if len(values) > len(columns) or len(values) < least:
        raise GraphFormatError(file, f"{len(values)} values, the header declares {len(columns)} columns "
                                     f"({', '.join(c.name for c in columns[:8])}"
                                     f"{' …' if len(columns) > 8 else ''}): a value holding a comma must be "
                                     "quoted", number)
    if len(values) < len(columns):
        values += [""] * (len(columns) - len(values))
    return values


def _missing(value: str, column: _Column) -> str:
    """The value, or its column's default when it is empty or ``null``."""
    return column.default if value == "" or value.lower() == "null" else value


def _split(line: str, number: int, file: str) -> list[str]:
    """Comma-separated values; a value may be quoted with ' or " (and then hold commas)."""
    if "'" not in line and '"' not in line:
        return [value.strip() for value in line.split(",")]
    out: list[str] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] in "'\"":
            quote, start, j = line[i], i, i + 1
            while True:  # the closing quote is the one followed by a comma or the end of the line
                k = line.find(quote, j)
                if k < 0:
                    raise GraphFormatError(file, f"a value opened with {quote} is not closed: "
                                                 f"{line[start:start + 40]!r}", number)
                rest = line[k + 1:].lstrip(" \t")
                if not rest or rest[0] == ",":
                    break
                j = k + 1
            out.append(line[start + 1:k])
            i = k + 1
            while i < n and line[i] in " \t":
                i += 1
            if i >= n:
                return out
            i += 1  # the comma
        else:
            k = line.find(",", i)
            if k < 0:
                out.append(line[i:].strip())
                return out
            out.append(line[i:k].strip())
            i = k + 1


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _flag(value: str, number: int, file: str) -> bool:
    word = value.strip().lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    raise GraphFormatError(file, f"directed must be true or false, got {value[:40]!r}", number)
