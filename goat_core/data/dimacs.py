"""DIMACS graphs (the DIMACS challenges' files, igraph's ``write_dimacs``): ``c`` comments, one
``p KIND NODES EDGES`` line, then ``e u v`` edges (colouring, cliques: undirected) or ``a u v [value…]``
arcs (max-flow, shortest paths: directed), nodes numbered 1..NODES. Arc values (capacities, lengths)
are left out, as ``n`` lines (a flow's source and sink) are: a length is a distance, not a tie's strength.
Georgia Tech's SNAP graphs (networkit's "SNAP" writer): ``p n m u|d type 0|1``, then ``u v [weight]`` lines.
METIS graphs (METIS, KaHIP, the DIMACS10 challenge's ``.graph`` files, networkit): ``n m [fmt [ncon]]``,
then node i's line lists its neighbours, 1-based (a blank line: a node alone).
Edge lists under their counts (:func:`read_counted`): algs4's V and E lines, or an ``n m`` line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import MAX_NODES, Graph, data_lines, declared_nodes, decode, normalise, parse_weights

PROBLEM = re.compile(r"p\s+(\w+)\s+(\d+)\s+(\d+)\s*$")
COMMENT = re.compile(r"c(\s|$)")
# Georgia Tech's SNAP: undirected or directed, a weight type (u: none), ids numbered from 0 or 1
GT_PROBLEM = re.compile(r"p\s+(\d+)\s+(\d+)\s+([ud])\s+([uilfd])\s+([01])")
TIES = ("e", "a")


def looks_dimacs(rows: list[str]) -> bool:
    """A ``p KIND NODES EDGES`` line after only comments, and after it only c, n, e and a lines."""
    at = next((k for k, row in enumerate(rows) if not COMMENT.match(row)), None)
    if at is not None and GT_PROBLEM.fullmatch(rows[at]):
        return all(row[:1].isdecimal() for row in rows[at + 1:])
    return at is not None and PROBLEM.match(rows[at]) is not None and all(
        COMMENT.match(row) or row[:2] in ("n ", "e ", "a ") for row in rows[at + 1:])


def read_dimacs(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("DIMACS", file)
    text = decode(raw, file)
    rows = data_lines(text)
    if rows and (found := GT_PROBLEM.fullmatch(rows[0][1])):
        return _read_gt_snap(rows, found, file, options)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, "DIMACS edges are read unweighted (an arc's value is a capacity or a "
                                     "length): there is no weight to choose")
    nodes, kind, ends, arcs, valued = 0, "", [], False, False
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or COMMENT.match(fields[0]):
            continue
        if fields[0] == "p" and not nodes:
            found = PROBLEM.match(line.strip())
            if found is None or int(found.group(2)) == 0:
                raise GraphFormatError(file, f"expected 'p KIND NODES EDGES' with 1 to {MAX_NODES:,} nodes, "
                                             f"got {line.strip()[:40]!r}", number)
            kind, nodes = found.group(1), declared_nodes(int(found.group(2)), len(raw), file, number,
                                                         "the p line")
        elif fields[0] in TIES and nodes:
            ids = [int(f) for f in fields[1:3] if f.isdecimal() and 1 <= int(f) <= nodes]
            if len(ids) != 2:
                raise GraphFormatError(file, f"an {fields[0]} line names two nodes numbered 1 to {nodes:,}, "
                                             f"got {line.strip()[:40]!r}", number)
            ends.append(ids)
            arcs, valued = arcs or fields[0] == "a", valued or len(fields) > 3
        elif fields[0] != "n" or not nodes:
            raise GraphFormatError(file, "a DIMACS line is c (comment), then one p line, then n, e or a "
                                         f"lines; got {line.strip()[:40]!r}", number)
    if not ends:
        raise GraphFormatError(file, "a DIMACS file without edges (no 'p KIND NODES EDGES' line, or no e or "
                                     "a line after it)")
    directed = options.directed or arcs
    pairs = np.asarray(ends, dtype=np.int64) - 1
    graph = normalise([str(i) for i in range(1, nodes + 1)], pairs[:, 0], pairs[:, 1], None, directed, False,
                      file)
    why = "as asked" if options.directed else "its a lines are arcs" if directed else ""
    return graph, ReadReport(format="dimacs", edges=len(ends), directed=directed, directed_why=why,
                             rows=tuple((str(u), str(v)) for u, v in ends[:FIRST_ROWS]),
                             notes=(f"DIMACS '{kind}' problem: nodes 1 to {nodes:,}",)
                             + (("arc values (capacities, lengths) left out",) if valued else ()))


def _read_gt_snap(rows: list[tuple[int, str]], found: re.Match, file: str,
                  options: ReadOptions) -> tuple[Graph, ReadReport]:
    n, kind, base = int(found[1]), found[3], int(found[5])
    weighted, given = found[4] != "u", found[4] != "u" and options.weight != NO_WEIGHT  # weight none: 1
    declared_nodes(n, sum(len(text) + 1 for _, text in rows), file, rows[0][0], "the p line")
    edges = [(number, line.split()) for number, line in rows[1:]]
    for number, fields in edges:
        ids = fields[:2]
        if len(fields) != 2 + weighted or not all(f.isdecimal() and base <= int(f) < n + base for f in ids):
            raise GraphFormatError(file, f"expected '{'u v weight' if weighted else 'u v'}', nodes "
                                         f"numbered {base} to {n - 1 + base:,} (the p line): "
                                         f"{' '.join(fields)[:40]!r}", number)
    pairs = np.array([fields[:2] for _, fields in edges], dtype=np.int64).reshape(-1, 2) - base
    weights = parse_weights([f[2] for _, f in edges], [k for k, _ in edges], file) if given else None
    directed = options.directed or kind == "d"
    graph = normalise([str(i + base) for i in range(n)], pairs[:, 0], pairs[:, 1], weights, directed,
                      given, file)
    why = "as asked" if options.directed else "the p line says" if directed else ""
    note = f"Georgia Tech SNAP graph (networkit's SNAP writer): nodes {base} to {n - 1 + base:,}"
    return graph, ReadReport(format="dimacs", edges=len(edges), directed=directed, directed_why=why,
                             weight="column 2" if given else None, notes=(note,),
                             ignored=("column 2 (weight none)",) if weighted and not given else ())


# METIS: "n m [fmt [ncon]]"; fmt's digits say a line opens with a vertex size and ncon vertex weights (left
# out) and each neighbour is followed by the edge's weight
METIS_HEADER = re.compile(r"(\d{1,18})\s+(\d{1,18})(?:\s+([01]{1,3})(?:\s+(\d{1,9}))?)?")  # int() is quick


def looks_metis(first_row: str, raw: bytes) -> bool:
    """Only when unmistakable: n lines after the header, listing a symmetric adjacency of 2m entries."""
    found = METIS_HEADER.fullmatch(first_row)
    if found is None:  # most files: no need to count their lines
        return False
    lines, blank_tail = _line_count(raw, (b"%",))  # blank last lines: nodes alone, or nothing
    if not lines - blank_tail - 1 <= int(found[1]) <= lines - 1:  # a large edge list fails
        return False
    try:  # the shape decides, not the weights: a bad one is refused by the read, naming --weight none
        return bool(read_metis(raw, "", ReadOptions(weight=NO_WEIGHT)))
    except GraphFormatError:
        return False


def _line_count(raw: bytes, comments: tuple[bytes, ...]) -> tuple[int, int]:
    """(lines that are not comments, blank lines at the end): counted in C, without splitting."""
    lines = raw.count(b"\n") + (not raw.endswith(b"\n")) - raw.startswith(comments)
    end = raw[-4096:]
    return lines - sum(raw.count(b"\n" + mark) for mark in comments), end.count(b"\n", len(end.rstrip()))


def read_metis(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("METIS", file)
    lines = [(k, line.split()) for k, line in enumerate(decode(raw, file).splitlines(), 1)
             if not line.lstrip().startswith("%")]
    found = METIS_HEADER.fullmatch(" ".join(lines[0][1])) if lines else None
    if found is None or not 0 < int(found[1]) <= MAX_NODES:
        raise GraphFormatError(file, f"expected a METIS header 'n m [fmt [ncon]]' (1 to {MAX_NODES:,} nodes) "
                                     "before the nodes' lines", 1)
    n, m, fmt = int(found[1]), int(found[2]), (found[3] or "0").zfill(3)
    while len(lines) - 1 > n and not lines[-1][1]:
        lines.pop()  # blank lines after the last node's
    if len(lines) - 1 != n:
        raise GraphFormatError(file, f"the METIS header says {n:,} nodes, one line each; {len(lines) - 1:,} "
                                     "lines follow it", lines[0][0])
    skip = (fmt[0] == "1") + (fmt[1] == "1") * int(found[4] or 1)  # a vertex size, ncon vertex weights
    step = 1 + (fmt[2] == "1")  # 2: each neighbour followed by the edge's weight
    counts, ends, weights = [], [], []
    for number, fields in lines[1:]:
        ids = fields[skip::step]
        if len(fields[skip:]) % step or not all(map(str.isdecimal, ids)) or max(map(len, ids), default=0) > 9:
            raise GraphFormatError(file, f"a METIS node's line lists neighbours numbered 1 to {n:,}"
                                         f"{' each with a weight' if step == 2 else ''}: "
                                         f"{' '.join(fields)[:40]!r}", number)
        counts.append(len(ids))
        ends += ids
        weights += fields[skip + 1::2] if step == 2 else []
    pairs = np.stack([np.repeat(np.arange(1, n + 1), counts), np.array(ends, dtype=np.int64)])
    line_of = np.repeat([number for number, _ in lines[1:]], counts)  # each tie's line
    if len(bad := np.flatnonzero((pairs[1] < 1) | (pairs[1] > n))):
        raise GraphFormatError(file, f"node {pairs[1][bad[0]]} named, but the METIS header says {n:,} nodes",
                               int(line_of[bad[0]]))
    codes, mirror = pairs[0] * (n + 1) + pairs[1], pairs[1] * (n + 1) + pairs[0]
    if len(ends) + int((pairs[0] == pairs[1]).sum()) != 2 * m or not np.array_equal(
            np.unique(codes), np.unique(mirror)):  # each edge from both ends
        raise GraphFormatError(file, f"the METIS lines do not list each of the header's {m:,} edges from "
                                     "both ends", lines[0][0])
    keep = (pairs[0] <= pairs[1]) | options.directed  # each edge once; directed: both ways
    weighted = step == 2 and options.weight != NO_WEIGHT
    weight = parse_weights(weights, line_of.tolist(), file) if weighted else None
    if weight is not None:  # an edge's weight as each of its ends gives it
        ours, theirs = np.argsort(codes, kind="stable"), np.argsort(mirror, kind="stable")
        if len(bad := np.flatnonzero(weight[ours] != weight[theirs])):
            raise GraphFormatError(file, "an edge whose two ends give it different METIS weights",
                                   int(line_of[ours[bad[0]]]))
        weight = weight[keep]
    graph = normalise([str(i) for i in range(1, n + 1)], pairs[0][keep] - 1, pairs[1][keep] - 1, weight,
                      options.directed, weighted, file)
    return graph, ReadReport(format="metis", edges=int(keep.sum()), directed=options.directed,
                             directed_why="as asked" if options.directed else "",
                             weight="the METIS edge weights" if weighted else None,
                             ignored=("the METIS edge weights (weight none)",) if step == 2 and not weighted
                             else ())


# Edge lists under their counts: algs4's V and E lines (Sedgewick & Wayne's Algorithms: tinyG.txt,
# tinyEWG.txt, tinyDG.txt; nodes 0..V-1), or one "n m" line over exactly m edge lines. Read as an edge
# list, algs4's would be refused and the "n m" line would be one more edge.
# Graphs.jl's LG (savegraph's default): "nv,ne,u|d,name[,version,type,code]", then "src,dst" lines, 1..nv
LG_HEADER = re.compile(r"(\d{1,18}),(\d{1,18}),([ud]),([^,]*)(?:,\d+,\w+,\w+)?")
LG_EDGE = re.compile(r"\d+\s*,\s*\d+")


@dataclass(frozen=True)
class Counts:
    """An edge list's header: the counts it declares and what it says of the edge lines under it."""
    kind: str  # LG, algs4 or "n m"
    lines: int  # the header's: algs4 writes V and E on a line each
    n: int
    m: int
    what: str  # the note's opening: whose counts these are
    base: int | None = None  # the first node's number; None: 1 when the edges number 1..n, else 0
    directed: bool = False  # LG's d
    separator: str = " "  # between an edge's two ends: LG's ","
    second_graph: int | None = None  # the line of a later LG header: savegraph of a Dict writes several


def counted_header(rows: list[tuple[int, str]]) -> Counts | None:
    """The counts ``rows`` open with: an LG header, two lines of one integer each, or one line of two."""
    lg = LG_HEADER.fullmatch(rows[0][1]) if rows else None
    if lg is not None:
        later = next((number for number, text in rows[1:] if LG_HEADER.fullmatch(text)), None)
        return Counts("LG", 1, int(lg[1]), int(lg[2]), f"Graphs.jl LG graph {lg[4]!r}: its header declares",
                      base=1, directed=lg[3] == "d", separator=",", second_graph=later)
    first = [text.split() for _, text in rows[:2]]
    lone = len(first) == 2 and len(first[0]) == len(first[1]) == 1
    counts = first[0] + first[1] if lone else first[0] if first and len(first[0]) == 2 else []
    if not counts or not all(c.isdecimal() and len(c) <= 18 and str(int(c)) == c for c in counts):
        return None
    n, m = int(counts[0]), int(counts[1])
    if lone:
        return Counts("algs4", 2, n, m, "algs4 graph: its V and E lines declare", base=0)
    return Counts("n m", 1, n, m, f"a line of counts, not an edge: {m:,} edge lines follow it, as it "
                                  "declares")


def looks_counted(rows: list[str], raw: bytes, file: str = "", lines: Sequence[str] = ()) -> bool:
    """algs4's counts, then the first edges (in the head) between the nodes they allow. One ``n m`` line
    over exactly m lines, numbering n nodes, one of n and m named by no other line, is counts or an
    edge: the caller is asked which (a GraphFormatError naming both formats)."""
    header = counted_header(list(enumerate(rows)))
    if header is None:
        return False
    if header.kind == "LG":  # a header no edge list has: its first lines need only be "src,dst"
        return all(LG_EDGE.fullmatch(row) for row in rows[1:1 + header.m])
    k, n, m = header.lines, header.n, header.m
    try:
        declared_nodes(n, len(raw), "", None, "")
    except GraphFormatError:
        return False  # more nodes than such a file declares: an edge's large id
    edges = [row.split() for row in rows[k:k + m]]
    if not edges or not all(len(f) in (2, 3) and len(f) == len(edges[0]) and f[0].isdecimal()
                            and f[1].isdecimal() and int(f[0]) <= n and int(f[1]) <= n for f in edges):
        return False  # most edge lists: at their first lines
    if k == 2:
        return True
    count, blank_tail = _line_count(raw, (b"%", b"#"))
    named = {int(end) for fields in edges for end in fields[:2]}
    spans = (min(named), max(named)) in ((0, n - 1), (1, n))  # the lines number the n nodes from 0 or 1
    if m >= 3 and spans and count - blank_tail <= m + 1 <= count and {n, m} - named:
        line = next((k for k, text in enumerate(lines, start=1) if text.strip() == rows[0]), None)
        raise GraphFormatError(file, f"the first line '{n} {m}': counts ({n:,} nodes, {m:,} edges, as the "
                                     f"{m:,} lines after it are) or an edge? --format counted reads it as "
                                     "counts, --format edgelist as an edge (library: format=)", line)
    return False


def read_counted(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("counted edge list", file)
    rows = data_lines(decode(raw, file))
    header = counted_header(rows)
    if header is None:
        raise GraphFormatError(file, "expected the counts first: algs4's V and E lines, or one 'n m' line",
                               rows[0][0] if rows else None)
    if header.second_graph is not None:
        raise GraphFormatError(file, "a second graph's header: several graphs in one LG file (savegraph of a "
                                     "Dict); save the one to read alone", header.second_graph)
    k, n, m = header.lines, header.n, header.m
    declared_nodes(n, len(raw), file, rows[0][0], "the node count")
    edges = [(number, text.replace(header.separator, " ").split()) for number, text in rows[k:]]
    if len(edges) != m or not m:
        raise GraphFormatError(file, f"the counts say {m:,} edges, one line each; {len(edges):,} lines "
                                     "follow", rows[k - 1][0])
    width = len(edges[0][1])
    for number, fields in edges:
        if len(fields) != width or width not in (2, 3) or not all(map(str.isdecimal, fields[:2])):
            raise GraphFormatError(file, f"expected 'v w' or 'v w weight', every line alike: "
                                         f"{' '.join(fields)[:40]!r}", number)
    pairs = np.array([fields[:2] for _, fields in edges], dtype=np.int64)
    base = header.base
    if base is None:  # an "n m" line says no base: its edges number the nodes 1..n, or from 0
        base = 1 if pairs.min() >= 1 and pairs.max() == n else 0
    if len(bad := np.flatnonzero((pairs >= n + base).any(axis=1) | (pairs < base).any(axis=1))):
        raise GraphFormatError(file, f"a node past the {n:,} the counts declare (numbered {base} to "
                                     f"{n - 1 + base:,})", edges[bad[0]][0])
    weighted = width == 3 and options.weight != NO_WEIGHT
    weights = parse_weights([f[2] for _, f in edges], [line for line, _ in edges], file) if weighted else None
    directed = options.directed or header.directed
    graph = normalise([str(i + base) for i in range(n)], pairs[:, 0] - base, pairs[:, 1] - base, weights,
                      directed, weighted, file)
    why = "as asked" if options.directed else f"its {header.kind} header says d" if directed else ""
    note = f"{header.what} {n:,} nodes ({base} to {n - 1 + base:,}) and {m:,} edges"
    return graph, ReadReport(format="counted", edges=m, directed=directed, directed_why=why,
                             weight="column 2" if weighted else None,
                             ignored=("column 2 (weight none)",) if width == 3 and not weighted else (),
                             rows=tuple((f[0], f[1]) for _, f in edges[:FIRST_ROWS]), notes=(note,))
