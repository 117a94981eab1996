"""VNA files (NetDraw's format; Gephi exports it): ``*Node data``, ``*Node properties`` and ``*Tie
data`` sections, each a header line of column names, then rows of blank-separated values (a
value holding a blank is double-quoted). What is read, and the direction rule (Gephi writes an
undirected edge as two ties), are in docs/formats.md. No maintained Python reader reads VNA.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, ReadOptions, ReadReport
from .gdf import undeclared_note, weight_column
from .graph import Graph, decode, normalise, parse_weights, tie_direction
from .nxformats import DRAWING_ATTRIBUTES
from .ucinet import quoted_tokens

_SECTION = re.compile(r"\s*\*\s*(node\s+data|node\s+properties|tie\s+data)\b", re.IGNORECASE)
_TOKEN = re.compile(r'"([^"]*)"|[^\s"]+|"')
WEIGHT_COLUMNS = ("strength", "weight")


def looks_vna(head: str) -> bool:
    """The first non-blank line is ``*Node data``, ``*Node properties`` or ``*Tie data`` (any case)."""
    return _SECTION.match(head.lstrip().split("\n", 1)[0]) is not None


def read_vna(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("VNA", file)
    index: dict[str, int] = {}  # node name -> position, in first-seen order
    attributes: dict[str, dict[int, str]] = {}
    data_rows: dict[str, int] = {}  # node -> its *Node data line
    ties: list[tuple[int, list[str]]] = []
    ties_header: list[str] = []
    ignored: dict[str, None] = {}  # node columns not read, in order
    section, header, skipped, unquoted = None, None, [], 0  # unquoted: *Node properties IDs holding blanks
    for number, line in enumerate(decode(raw, file).splitlines(), start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("*"):
            found = _SECTION.fullmatch(line.rstrip())
            section, header = (" ".join(found.group(1).lower().split()) if found else None), None
            if found is None:
                skipped.append(line.strip()[:40])
            continue
        if section is None:
            if not skipped:
                raise GraphFormatError(file, "a row before any *Node data/*Tie data line: "
                                             f"{line.strip()[:60]!r}", number)
            continue  # a section this reader does not read (named in the report)
        if header is None:
            header = [name for name in re.split(r"[\s,]+", line.strip()) if name]
            if section == "tie data":
                if len(header) < 2:
                    raise GraphFormatError(file, "*Tie data's header must name from and to first, got "
                                                 f"{line.strip()[:60]!r}", number)
                if ties_header:
                    raise GraphFormatError(file, "a second *Tie data section: keep one", number)
                ties_header = header
            elif section == "node properties":
                ignored[f"*Node properties ({', '.join(header[1:])}: how nodes are drawn)"] = None
            else:
                ignored.update((f"node column {c!r}", None) for c in header[1:]
                               if c.lower() in DRAWING_ATTRIBUTES)
            continue
        # blank-separated; a double-quoted value may hold blanks (and is "" when empty)
        values = line.split() if '"' not in line else \
            [text for text, _, _ in quoted_tokens(_TOKEN, line, number, file, "value")]
        if section == "node properties" and len(values) > len(header) > 1 \
                and not line.lstrip().startswith('"'):
            # Gephi writes this section's IDs unquoted: "Jean Valjean 1.5 2.5 10.0 153 \"Jean Valjean\""
            extra = len(values) - len(header)
            values = [" ".join(values[:extra + 1])] + values[extra + 1:]
            unquoted += 1
        if len(values) != len(header):
            named = " ".join(header[:8]) + (" …" if len(header) > 8 else "")
            raise GraphFormatError(file, f"{len(values)} values, the *{section.title()} header names "
                                         f"{len(header)} ({named}): a value holding a blank must be in "
                                         "double quotes", number)
        if section == "tie data":
            ties.append((number, values))
            continue
        name = values[0]
        if not name:
            raise GraphFormatError(file, "a node without an ID", number)
        at = index.setdefault(name, len(index))
        if section == "node data":
            if name in data_rows:
                raise GraphFormatError(file, f"node {name!r} in *Node data twice (lines {data_rows[name]} "
                                             f"and {number})", number)
            data_rows[name] = number
            for column, value in zip(header[1:], values[1:], strict=True):
                if column.lower() not in DRAWING_ATTRIBUTES:
                    attributes.setdefault(column, {})[at] = value
    if not ties:
        raise GraphFormatError(file, "a VNA file whose *Tie data section has no rows" if ties_header
                               else "a VNA file without ties (no *Tie data section)")
    declared = len(index)
    weight_at = weight_column(ties_header, options, WEIGHT_COLUMNS, "tie", "*Tie data", file)
    if (bad := next((number for number, values in ties if not (values[0] and values[1])), None)) is not None:
        raise GraphFormatError(file, "a tie without both ends", bad)
    src, dst = np.array([[index.setdefault(end, len(index)) for end in values[:2]] for _, values in ties],
                        dtype=np.int64).T
    weight = None if weight_at is None else parse_weights([values[weight_at] for _, values in ties],
                                                          [number for number, _ in ties], file)
    names = list(index)
    directed, why, notes, keep = tie_direction(names, src, dst, weight, options.directed)
    graph = normalise(names, src[keep], dst[keep], weight[keep] if weight is not None else None, directed,
                      weight is not None, file)
    node_attrs = {column: np.array([values.get(i, "") for i in range(len(names))], dtype=str)
                  for column, values in attributes.items()}
    notes += undeclared_note(names[declared:] if declared else [], "tie ends not declared in a node section")
    notes += (f"sections not read: {', '.join(skipped)}",) if skipped else ()
    if unquoted:
        notes += (f"{unquoted:,} *Node properties rows start with an unquoted ID holding blanks (as Gephi "
                  "writes them): read as one ID",)
    rows = tuple(tuple(values[:2]) + ((values[weight_at],) if weight_at is not None else ())
                 for _, values in ties[:FIRST_ROWS])
    not_read = tuple(f"tie column {c!r}" for i, c in enumerate(ties_header) if i >= 2 and i != weight_at)
    report = ReadReport(format="vna", edges=len(ties), directed=directed, directed_why=why,
                        weight=f"column {ties_header[weight_at]!r}" if weight_at is not None else None,
                        ignored=not_read + tuple(ignored), node_attributes=tuple(node_attrs), rows=rows,
                        notes=notes)
    return replace(graph, node_attrs=node_attrs), report
