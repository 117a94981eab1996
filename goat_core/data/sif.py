"""SIF files (Cytoscape's simple interaction format): ``source type target…`` a line, or one name (a
node without edges); and Cytoscape's edge table, whose edges are named ``SOURCE (type) TARGET``. The
rules, and when content is taken for either, are in docs/formats.md.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..errors import GraphFormatError
from .delimited import HEAD_ROWS, STRONG_SOURCE, STRONG_TARGET, sniff_separator
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .frames import Table
from .graph import Graph, decode, header_key, is_number, normalise

MAX_TYPES = 20  # an auto-detected SIF file has at most this many interaction types
MAX_SHOWN = 8  # interaction types named in the report


def _fields(line: str, tabs: bool) -> list[str] | None:
    """A line's fields (tab-separated when ``tabs``, else blank-separated); None when a tab
    separated line has an empty field before its last (not a SIF line)."""
    if not tabs:
        return line.split()
    fields = [f.strip() for f in line.split("\t")]
    while fields and not fields[-1]:
        fields.pop()
    return None if "" in fields else fields


def looks_sif(lines: list[str]) -> bool:
    """SIF beyond doubt, from the file's first lines: one name or ``source type target…`` a line,
    the types few, never numbers nor nodes, and no sign of an edge table (docs/formats.md)."""
    tabs = any("\t" in line for line in lines)
    rows: list[list[str]] = []
    lone: set[str] = set()
    for line in lines:
        if not line.strip() or line.lstrip().startswith(("#", "%")):  # % : KONECT's header
            continue
        if (fields := _fields(line, tabs)) is None or len(fields) == 2:
            return False
        if len(fields) == 1:
            lone.add(fields[0])
        else:
            rows.append(fields)
    if not rows:
        return False
    types = {r[1] for r in rows}
    nodes = lone | {r[0] for r in rows} | {name for r in rows for name in r[2:]}
    if len(types) > MAX_TYPES or types & nodes or any(is_number(t) or re.search(r"[,;|\"']", t)
                                                      for t in types):
        return False
    if {header_key(name) for name in rows[0]} & (STRONG_SOURCE | STRONG_TARGET):
        return False  # "source interaction target": an edge table's header
    if all(is_number(name) for r in rows for name in r[2:]) and not all(is_number(r[0]) for r in rows):
        return False  # names, then numbers: a weight column
    widths = {len(r) for r in rows}
    if min(widths) >= 4 and len(widths) == 1:
        return False
    if len(widths) > 1 and max(widths) >= 4:
        return True
    return len(types) * (10 if len(rows) >= 100 else 2) <= len(rows)


def read_sif(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("SIF", file)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, f"a SIF file has no weights (asked for {options.weight!r}): its edges "
                                     "are unweighted")
    text = decode(raw, file)
    tabs = "\t" in text
    index: dict[str, int] = {}
    ties: list[tuple[int, int, str]] = []  # source, target, interaction type
    lone = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if (fields := _fields(line, tabs)) is None:
            raise GraphFormatError(file, "an empty field between two tabs: a SIF line is source, interaction "
                                         "type, target(s), tab-separated when the file holds a tab", number)
        if len(fields) == 1:
            index.setdefault(fields[0], len(index))
            lone += 1
            continue
        if len(fields) == 2:
            raise GraphFormatError(file, f"2 fields ({fields[0][:30]!r}, {fields[1][:30]!r}): a SIF line is "
                                         "one node, or source, interaction type and one or more targets",
                                   number)
        u = index.setdefault(fields[0], len(index))
        ties += [(u, index.setdefault(name, len(index)), fields[1]) for name in fields[2:]]
    if not ties:
        raise GraphFormatError(file, "a SIF file without edges (no line of source, interaction type, target)")
    directed, names = options.directed, list(index)
    src, dst = np.array([tie[:2] for tie in ties], dtype=np.int64).T
    graph = normalise(names, src, dst, None, directed, False, file)
    counts = Counter(kind for _, _, kind in ties)
    shown = ", ".join(f"{kind!r} ×{n:,}" for kind, n in counts.most_common(MAX_SHOWN))
    more = f" and {len(counts) - MAX_SHOWN:,} more" if len(counts) > MAX_SHOWN else ""
    notes = [f"{len(counts):,} interaction type{'s' if len(counts) > 1 else ''} (not kept): {shown}{more}"]
    typed = {((u, v) if directed else (min(u, v), max(u, v)), kind) for u, v, kind in ties if u != v}
    mixed = sum(count > 1 for count in Counter(pair for pair, _ in typed).values())  # pairs of 2+ types
    if mixed:
        notes.append(f"{mixed:,} node pairs joined by more than one interaction type, each read as one edge")
    if lone:
        notes.append(f"{lone:,} lines of one node name: nodes without edges unless another line links them")
    return graph, ReadReport(format="sif", edges=len(ties), directed=directed,
                             directed_why="as asked" if directed else "", ignored=("interaction types",),
                             separator="tab" if tabs else "whitespace", notes=tuple(notes),
                             rows=tuple((names[u], names[v]) for u, v, _ in ties[:FIRST_ROWS]))


# Cytoscape's edge table (File → Export → Table to File) has no source or target column: each edge
# is named after its ends and interaction, "A (pp) B", in `name` (and `shared name`) beside it
CYTOSCAPE_NAMES = (("name", "interaction"), ("sharedname", "sharedinteraction"))


def cytoscape_table(raw: bytes, file: str) -> Table | None:
    """Cytoscape's edge table as a table of source, target and its own columns (every row's line
    kept); None unless the header has a name and interaction column but no end's, and the first
    row's name is ``SOURCE (interaction) TARGET``."""
    text = decode(raw, file)
    separator = sniff_separator([line for line in text.splitlines()[:HEAD_ROWS] if line.strip()])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator or "\t")
    header, rows, lines = next(reader, []), [], []
    keys = [header_key(name) for name in header]
    pairs = [(keys.index(name), keys.index(kind)) for name, kind in CYTOSCAPE_NAMES
             if keys.count(name) == keys.count(kind) == 1]
    if separator is None or not pairs or set(keys) & (STRONG_SOURCE | STRONG_TARGET):
        return None
    start = reader.line_num + 1
    for fields in reader:  # blank rows (and a spreadsheet's ",,,") left out
        if any(field.strip() for field in fields):
            rows.append(fields)
            lines.append(start)
        start = reader.line_num + 1
    name, kind = pairs[0]
    ends: list[list[str]] = []
    for fields, line in zip(rows, lines, strict=True):
        parts = fields[name].split(f" ({fields[kind]}) ") if max(name, kind) < len(fields) else []
        if not ends and (len(parts) != 2 or not all(parts)):
            return None  # the first row's name decides
        if len(fields) != len(header):
            raise GraphFormatError(file, f"{len(fields)} fields where the header has {len(header)}", line)
        if len(parts) != 2 or not all(parts):
            raise GraphFormatError(file, f"the edge name {fields[name][:60]!r} is not 'SOURCE "
                                         f"({fields[kind]}) TARGET' once: a Cytoscape edge table's edges are "
                                         "told by their names", line)
        ends.append(parts)
    if not ends:
        return None
    columns: list[Sequence[str]] = [[end[0] for end in ends], [end[1] for end in ends]]
    columns += [[fields[k] for fields in rows] for k in range(len(header))]
    return Table(["source", "target", *header], columns, "Cytoscape edge table: each edge's ends read from "
                 f"its {header[name]!r}, 'SOURCE (interaction) TARGET'", lines)
