"""GDF files (GUESS's format; Gephi exports it): a ``nodedef>`` header and node rows, then an
``edgedef>`` header and edge rows, values comma separated, ``'``- or ``"``-quoted. What is read,
and the direction rule, are in docs/formats.md. No maintained Python reader reads GDF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import Graph, decode, normalise, parse_weights
from .nxformats import DRAWING_ATTRIBUTES

_SECTION = re.compile(r"\s*(nodedef|edgedef)\s*>", re.IGNORECASE)
# A value: quoted (the closing quote is the one followed by a comma or the end), or up to a comma
_VALUE = re.compile(r"""[ \t]*(?:(?P<quote>['"])(?P<quoted>.*?)(?P=quote)[ \t]*"""
                    r"""|(?![ \t]*['"])(?P<plain>[^,]*))(?P<comma>,|$)""", re.DOTALL)
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
    nodes: dict[str, int] = {}  # declared node -> its line
    node_rows: list[list[str]] = []
    edges: list[tuple[int, list[str]]] = []
    node_columns: list[_Column] = []
    edge_columns: list[_Column] = []
    key = 0  # the node column that names nodes: "name", else the first
    for number, line in enumerate(decode(raw, file).splitlines(), start=1):
        section = _SECTION.match(line)
        if not line.strip():
            continue
        if section is not None:
            columns = _header(line[section.end():], number, file)
            if section.group(1).lower() == "edgedef":
                if edge_columns or len(columns) < 2:
                    raise GraphFormatError(file, "a second edgedef> line: a GDF file holds one edge section"
                                           if edge_columns else "edgedef> must name the two ends "
                                           f"first (node1,node2), got {len(columns)} column", number)
                edge_columns = columns
            elif node_columns or edge_columns:
                raise GraphFormatError(file, "a second nodedef> line (or one after edgedef>): a GDF file "
                                             "holds one node section, then one edge section", number)
            else:
                node_columns = columns
                key = next((i for i, c in enumerate(columns) if c.name.lower() == "name"), 0)
        elif edge_columns:
            edges.append((number, _values(line, edge_columns, 2, number, file)))
        elif node_columns:
            values = _values(line, node_columns, 1, number, file)
            if not values[key]:
                raise GraphFormatError(file, f"a node row without a {node_columns[key].name!r}", number)
            first = nodes.setdefault(values[key], number)
            if first != number:
                raise GraphFormatError(file, f"node {values[key]!r} declared twice (lines {first} and "
                                             f"{number})", number)
            node_rows.append(values)
        else:
            raise GraphFormatError(file, f"a row before any nodedef>/edgedef> line: {line.strip()[:60]!r}",
                                   number)
    if not edges:
        raise GraphFormatError(file, "a GDF file whose edgedef> section has no rows" if edge_columns
                               else "a GDF file without edges (no edgedef> section)")
    lowered = [c.name.lower() for c in edge_columns]
    weight_at = weight_column([c.name for c in edge_columns], options, ("weight",), "edge", "edgedef>", file)
    directed_at = lowered.index("directed", 2) if "directed" in lowered[2:] else None
    index = {name: i for i, name in enumerate(nodes)}
    ends = np.empty((2, len(edges)), dtype=np.int64)
    arcs = np.zeros(len(edges), dtype=bool)
    for k, (number, values) in enumerate(edges):
        if not values[0] or not values[1]:
            raise GraphFormatError(file, "an edge row without both ends", number)
        ends[:, k] = index.setdefault(values[0], len(index)), index.setdefault(values[1], len(index))
        if directed_at is not None:
            flag = values[directed_at]
            if flag.strip().lower() not in TRUE | FALSE:
                raise GraphFormatError(file, f"directed must be true or false, got {flag[:40]!r}", number)
            arcs[k] = flag.strip().lower() in TRUE
    src, dst = ends
    weight_name = edge_columns[weight_at].name if weight_at is not None else None
    tokens = [values[weight_at] for _, values in edges] if weight_at is not None else []
    if "" in tokens:
        raise GraphFormatError(file, f"an edge without a {weight_name!r} value (and no default in the "
                                     "header)", edges[tokens.index("")][0])
    weight = parse_weights(tokens, [number for number, _ in edges], file) if weight_at is not None else None
    count = int(arcs.sum())
    directed = count > 0 or options.directed
    if directed:  # an undirected edge of a directed (or mixed) graph goes both ways
        both = ~arcs
        src, dst = np.concatenate([src, dst[both]]), np.concatenate([dst, src[both]])
        weight = np.concatenate([weight, weight[both]]) if weight is not None else None
    names = list(index)
    pad = [""] * (len(names) - len(nodes))  # for the edge ends no node row declares
    node_attrs = {c.name: np.array([row[i] for row in node_rows] + pad, dtype=str)
                  for i, c in enumerate(node_columns) if i != key and c.name.lower() not in DRAWING}
    graph = normalise(names, src, dst, weight, directed, weight is not None, file)
    notes = undeclared_note(names[len(nodes):] if node_columns else [],
                            "edge ends not declared by a node row")
    if 0 < count < len(edges):
        notes += (f"a mixed graph: {len(edges) - count:,} undirected edges read both ways",)
    why = f"{count:,} of {len(edges):,} edges' directed column is true" if count else "as asked" if directed \
        else ""
    ignored = tuple(f"node column {c.name!r}" for c in node_columns if c.name.lower() in DRAWING)
    ignored += tuple(f"edge column {c.name!r}" for i, c in enumerate(edge_columns)
                     if i >= 2 and i not in (weight_at, directed_at))
    rows = tuple((values[0], values[1]) + tuple(tokens[k:k + 1])
                 for k, (_, values) in enumerate(edges[:FIRST_ROWS]))
    report = ReadReport(format="gdf", edges=len(edges), directed=directed, directed_why=why,
                        weight=f"column {weight_name!r}" if weight_name else None, ignored=ignored,
                        node_attributes=tuple(node_attrs), rows=rows, notes=notes)
    return replace(graph, node_attrs=node_attrs), report


def weight_column(names: list[str], options: ReadOptions, defaults: tuple[str, ...], kind: str, section: str,
                  file: str) -> int | None:
    """The weight column after the two ends: the one ``weight`` names (any case), else the first of
    ``defaults`` found; None for weight none or none found."""
    if options.weight == NO_WEIGHT:
        return None
    lowered = [name.lower() for name in names]
    wanted = (str(options.weight).lower(),) if options.weight is not None else defaults
    at = next((lowered.index(name, 2) for name in wanted if name in lowered[2:]), None)
    if at is None and options.weight is not None:
        raise GraphFormatError(file, f"no {kind} column {options.weight!r}; {section} names "
                                     f"{', '.join(map(repr, names[2:])) or 'only the two ends'}")
    return at


def undeclared_note(names: list[str], what: str) -> tuple[str, ...]:
    """("3 <what>, added as nodes: a, b, c",) for the edge ends no node section declares; () if none."""
    more = " …" if len(names) > MAX_SHOWN else ""
    return (f"{len(names):,} {what}, added as nodes: {', '.join(names[:MAX_SHOWN])}{more}",) if names else ()


def _header(text: str, number: int, file: str) -> list[_Column]:
    """The columns of a nodedef>/edgedef> line: ``name [TYPE] [default VALUE]``, comma separated."""
    columns = []
    for part in _split(text, number, file):
        words = part.split()
        if not words:
            raise GraphFormatError(file, "an empty column name in the header", number)
        lowered = [w.lower() for w in words]
        at = lowered.index("default", 1) if "default" in lowered[1:] else len(words)  # none: default ""
        columns.append(_Column(_unquote(words[0]), _unquote(" ".join(words[at + 1:]))))
    names = [c.name.lower() for c in columns]
    repeated = next((c.name for i, c in enumerate(columns) if c.name.lower() in names[:i]), None)
    if repeated:
        raise GraphFormatError(file, f"column {repeated!r} named twice in the header", number)
    return columns


def _values(line: str, columns: list[_Column], least: int, number: int, file: str) -> list[str]:
    """A row's values, one per column (its default for a missing, empty or null one); more values
    than columns (an unquoted comma?) is an error."""
    values = _split(line, number, file)
    if len(values) > len(columns) or len(values) < least:
        raise GraphFormatError(file, f"{len(values)} values, the header declares {len(columns)} columns "
                                     f"({', '.join(c.name for c in columns[:8])}"
                                     f"{' …' if len(columns) > 8 else ''}): a value holding a comma must be "
                                     "quoted", number)
    values += [""] * (len(columns) - len(values))
    return [column.default if value == "" or value.lower() == "null" else value
            for value, column in zip(values, columns, strict=True)]


def _split(line: str, number: int, file: str) -> list[str]:
    """Comma-separated values; a value may be quoted with ' or " (and then hold commas)."""
    if "'" not in line and '"' not in line:
        return [value.strip() for value in line.split(",")]
    out: list[str] = []
    at = 0
    while True:
        found = _VALUE.match(line, at)
        if found is None:  # a quote without a closing one before a comma or the line's end
            start = len(line) - len(line[at:].lstrip(" \t"))
            raise GraphFormatError(file, f"a value opened with {line[start]} is not closed: "
                                         f"{line[start:start + 40]!r}", number)
        out.append(found["quoted"] if found["quote"] else found["plain"].strip())
        if not found["comma"]:
            return out
        at = found.end()


def _unquote(text: str) -> str:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text
