"""TGF (Trivial Graph Format, as yEd exports it): ``id [label]`` lines, a ``#`` line, then
``from to [label]`` lines. Read as an edge list it would be silently wrong (``1 Alice`` an edge), so
the ``#`` line decides, wherever it is in the file."""

from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import Graph, decode, normalise

SEPARATOR = re.compile(rb"^[ \t]*#[ \t]*\r?$", re.MULTILINE)  # a line of a lone "#"
COMMENT = re.compile(rb"^[ \t]*#", re.MULTILINE)


def looks_tgf(raw: bytes) -> bool:
    """TGF beyond doubt: a ``#`` line after node lines of distinct ids (no comment before it:
    networkx's adjacency lists open with ``#`` lines), and edge lines after it between those ids only."""
    first = raw.find(b"#")  # memchr: a file without "#" is no TGF at once
    comment = COMMENT.search(raw, raw.rfind(b"\n", 0, first) + 1) if first >= 0 else None
    if comment is None or not SEPARATOR.match(raw, comment.start()):
        return False
    try:
        return bool(_parse(raw.decode("utf-8-sig"), ""))
    except (UnicodeDecodeError, GraphFormatError):
        return False


def _parse(text: str, file: str) -> tuple[list[str], list[str], list[tuple[int, int]], int]:
    """(ids, labels, edges as index pairs, edges with a label) of a TGF text."""
    lines = text.splitlines()
    cut = next((k for k, line in enumerate(lines) if line.strip() == "#"), None)
    if cut is None:
        raise GraphFormatError(file, "no '#' line: TGF lists its nodes, then a line of '#', then its edges")
    index: dict[str, int] = {}
    labels = []
    for number, line in enumerate(lines[:cut], start=1):
        if line.strip():
            node, label = (line.strip().split(maxsplit=1) + [""])[:2]
            if node in index:
                raise GraphFormatError(file, f"node {node!r} is declared twice: a TGF node line is "
                                             "'id [label]', each id once", number)
            index[node] = len(index)
            labels.append(label)
    edges, labelled = [], 0
    for number, line in enumerate(lines[cut + 1:], start=cut + 2):
        fields = line.split(maxsplit=2)
        if not fields:
            continue
        if len(fields) == 1:
            raise GraphFormatError(file, "one field: a TGF edge line is 'from to [label]'", number)
        if (missing := next((end for end in fields[:2] if end not in index), None)) is not None:
            raise GraphFormatError(file, f"edge end {missing!r} is not a node listed above the '#' line",
                                   number)
        edges.append((index[fields[0]], index[fields[1]]))
        labelled += len(fields) == 3
    if not edges:
        raise GraphFormatError(file, "no edges: no 'from to' line after the '#' line")
    return list(index), labels, edges, labelled


def read_tgf(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("TGF", file)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, f"a TGF file has no weights (asked for {options.weight!r}): its edges' "
                                     "labels are text")
    ids, labels, edges, labelled = _parse(decode(raw, file), file)
    by_label = all(labels) and len(set(labels)) == len(labels)  # yEd's node texts, when they tell nodes apart
    names = labels if by_label else ids
    pairs = np.asarray(edges, dtype=np.int64)
    graph = normalise(names, pairs[:, 0], pairs[:, 1], None, options.directed, False, file)
    notes = ("node names from their labels" if by_label else "node names are the ids: " + (
        "two nodes share a label" if all(labels) else "some nodes have no label"),)
    return graph, ReadReport(format="tgf", edges=len(edges), directed=options.directed,
                             directed_why="as asked" if options.directed else "", separator="whitespace",
                             ignored=("edge labels",) if labelled else (),
                             rows=tuple((names[u], names[v]) for u, v in edges[:FIRST_ROWS]),
                             notes=notes + ((f"{labelled:,} edge labels (not kept)",) if labelled else ()))
