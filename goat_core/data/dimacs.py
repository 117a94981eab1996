"""DIMACS graphs (the DIMACS challenges' files, igraph's ``write_dimacs``): ``c`` comments, one
``p KIND NODES EDGES`` line, then ``e u v`` edges (colouring, cliques: undirected) or ``a u v [value…]``
arcs (max-flow, shortest paths: directed), nodes numbered 1..NODES. Arc values (capacities, lengths)
are left out, as ``n`` lines (a flow's source and sink) are: a length is a distance, not a tie's strength.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import MAX_NODES, Graph, decode, normalise

PROBLEM = re.compile(r"p\s+(\w+)\s+(\d+)\s+(\d+)\s*$")
COMMENT = re.compile(r"c(\s|$)")
TIES = ("e", "a")


def looks_dimacs(rows: list[str]) -> bool:
    """A ``p KIND NODES EDGES`` line after only comments, and after it only c, n, e and a lines."""
    at = next((k for k, row in enumerate(rows) if not COMMENT.match(row)), None)
    return at is not None and PROBLEM.match(rows[at]) is not None and all(
        COMMENT.match(row) or row[:2] in ("n ", "e ", "a ") for row in rows[at + 1:])


def read_dimacs(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("DIMACS", file)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, "DIMACS edges are read unweighted (an arc's value is a capacity or a "
                                     "length): there is no weight to choose")
    nodes, kind, ends, tags, valued = 0, "", [], set(), False
    for number, line in enumerate(decode(raw, file).splitlines(), start=1):
        fields = line.split()
        if not fields or COMMENT.match(fields[0]):
            continue
        if fields[0] == "p" and not nodes:
            found = PROBLEM.match(line.strip())
            if found is None or not 0 < int(found.group(2)) <= MAX_NODES:
                raise GraphFormatError(file, f"expected 'p KIND NODES EDGES' with 1 to {MAX_NODES:,} nodes, "
                                             f"got {line.strip()[:40]!r}", number)
            kind, nodes = found.group(1), int(found.group(2))
        elif fields[0] in TIES and nodes:
            ids = [int(f) for f in fields[1:3] if f.isdecimal() and 1 <= int(f) <= nodes]
            if len(ids) != 2:
                raise GraphFormatError(file, f"an {fields[0]} line names two nodes numbered 1 to {nodes:,}, "
                                             f"got {line.strip()[:40]!r}", number)
            ends.append(ids)
            tags.add(fields[0])
            valued = valued or len(fields) > 3
        elif fields[0] != "n" or not nodes:
            raise GraphFormatError(file, "a DIMACS line is c (comment), then one p line, then n, e or a "
                                         f"lines; got {line.strip()[:40]!r}", number)
    if not ends:
        raise GraphFormatError(file, "a DIMACS file without edges (no 'p KIND NODES EDGES' line, or no e or "
                                     "a line after it)")
    directed = options.directed or "a" in tags
    pairs = np.asarray(ends, dtype=np.int64) - 1
    graph = normalise([str(i) for i in range(1, nodes + 1)], pairs[:, 0], pairs[:, 1], None, directed, False,
                      file)
    notes = [f"DIMACS '{kind}' problem: nodes 1 to {nodes:,}"]
    notes += ["arc values (capacities, lengths) left out"] if valued else []
    why = "as asked" if options.directed else "its a lines are arcs" if directed else ""
    report = ReadReport(format="dimacs", edges=len(ends), directed=directed, directed_why=why,
                        rows=tuple((str(u), str(v)) for u, v in ends[:FIRST_ROWS]), notes=tuple(notes))
    return graph, report
