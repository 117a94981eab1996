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
from .ucinet import quoted_words

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
    data_rows: dict[str, int] = {}
    ties: list[tuple[int, list[str]]] = []
    section, header, tie_header, skipped = None, None, None, []
    ignored: dict[str, None] = {}  # node columns not read, in order
    unquoted = 0  # *Node properties rows whose ID holds blanks, unquoted
    for number, line in enumerate(decode(raw, file).splitlines(), start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("*"):
            found = _SECTION.fullmatch(line.rstrip())
            section = " ".join(found.group(1).lower().split()) if found else None
            header = None
            if section is None:
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
                if tie_header is not None:
                    raise GraphFormatError(file, "a second *Tie data section: keep one", number)
                tie_header = header
            elif section == "node properties":
                ignored[f"*Node properties ({', '.join(header[1:])}: how nodes are drawn)"] = None
            else:
                ignored.update((f"node column {c!r}", None) for c in header[1:]
                               if c.lower() in DRAWING_ATTRIBUTES)
            continue
        # blank-separated; a double-quoted value may hold blanks (and is "" when empty)
        values = line.split() if '"' not in line else quoted_words(_TOKEN, line, number, file, "value")
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
    if tie_header is None or not ties:
        raise GraphFormatError(file, "a VNA file without ties (no *Tie data section)" if tie_header is None
                               else "a VNA file whose *Tie data section has no rows")
    notes: tuple[str, ...] = (f"sections not read: {', '.join(skipped)}",) if skipped else ()
    if unquoted:
        notes += (f"{unquoted:,} *Node properties rows start with an unquoted ID holding blanks (as Gephi "
                  "writes them): read as one ID",)
    return _graph(index, attributes, tie_header, ties, tuple(ignored), notes, file, options)


def _graph(index: dict[str, int], attributes: dict[str, dict[int, str]], header: list[str],
           ties: list[tuple[int, list[str]]], node_ignored: tuple[str, ...], read_notes: tuple[str, ...],
           file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    declared = len(index)
    weight_at = weight_column(header, options, WEIGHT_COLUMNS, "tie", "*Tie data", file)
    ends = np.empty((2, len(ties)), dtype=np.int64)
    for k, (number, values) in enumerate(ties):
        if not values[0] or not values[1]:
            raise GraphFormatError(file, "a tie without both ends", number)
        ends[:, k] = index.setdefault(values[0], len(index)), index.setdefault(values[1], len(index))
    src, dst = ends
    weight = None if weight_at is None else parse_weights([values[weight_at] for _, values in ties],
                                                          [number for number, _ in ties], file)
    names = list(index)
    directed, why, notes, keep = tie_direction(names, src, dst, weight, options.directed)
    graph = normalise(names, src[keep], dst[keep], weight[keep] if weight is not None else None, directed,
                      weight is not None, file)
    node_attrs = {column: np.array([values.get(i, "") for i in range(len(names))], dtype=str)
                  for column, values in attributes.items()}
    graph = replace(graph, node_attrs=node_attrs)
    notes += undeclared_note(names[declared:] if declared else [], "tie ends not declared in a node section")
    notes += read_notes
    rows = tuple(tuple(values[:2]) + ((values[weight_at],) if weight_at is not None else ())
                 for _, values in ties[:FIRST_ROWS])
    ignored = tuple(f"tie column {c!r}" for i, c in enumerate(header) if i >= 2 and i != weight_at)
    ignored += node_ignored
    report = ReadReport(format="vna", edges=len(ties), directed=directed, directed_why=why,
                        weight=f"column {header[weight_at]!r}" if weight_at is not None else None,
                        ignored=ignored,
                        node_attributes=tuple(node_attrs), rows=rows, notes=notes)
    return graph, report
