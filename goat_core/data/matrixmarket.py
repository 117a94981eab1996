"""Matrix Market files (``.mtx``), read by ``scipy.io.mmread``: the matrix is the graph's adjacency
matrix, nodes named 1..n. The direction rule and what is refused are in docs/formats.md.

scipy reads; this module checks the banner (what scipy reads but a graph cannot be), decides the
direction, and, only when something is wrong, finds the offending line to name it.
"""

from __future__ import annotations

import io

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import (
    FLOAT32_MAX,
    Graph,
    declared_nodes,
    decode,
    is_zero,
    normalise,
    parse_weight,
    unreciprocated,
)

BANNER = "%%matrixmarket"
FIELDS = ("pattern", "integer", "real")
SYMMETRIES = ("general", "symmetric")


def looks_matrix_market(head: str) -> bool:
    return head.lstrip().lower().startswith(BANNER)


def read_matrix_market(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    import scipy.io
    import scipy.sparse as sp

    if options.source is not None:
        raise GraphFormatError(file, "a Matrix Market file has no columns to choose: leave source and target "
                                     "unset")
    lines = decode(raw, file).splitlines()
    layout, field, symmetry, size_line, n, declared = _header(lines, file)
    if not lines[0].startswith("%%MatrixMarket"):  # as scipy wants it spelled (rustworkx writes lower case)
        lines[0] = "%%MatrixMarket" + lines[0].strip()[len(BANNER):]
        raw = "\n".join(lines).encode()
    # for scipy: comment lines among the entries blanked (it refuses them; blank lines keep the line numbers
    # it reports), and a final newline (without one, scipy 1.17's reader crashes the process on a last line
    # ending in a blank, tab or CR)
    if any(line.lstrip().startswith("%") for line in lines[size_line:]):
        raw = "\n".join("" if k > size_line and line.lstrip().startswith("%") else line
                        for k, line in enumerate(lines, start=1)).encode()
    try:
        matrix = sp.coo_array(scipy.io.mmread(io.BytesIO(raw if raw.endswith(b"\n") else raw + b"\n"),
                                              spmatrix=False))
    except (ValueError, OverflowError) as err:
        raise _located(err, lines, size_line, declared, layout, field, file) from None
    src, dst = matrix.row.astype(np.int64), matrix.col.astype(np.int64)
    weighted = field != "pattern" and options.weight != NO_WEIGHT
    weight = matrix.data.astype(np.float64) if weighted else None
    if weight is not None and not np.all((weight > 0) & (weight <= FLOAT32_MAX)):  # NaN fails too
        raise _located(ValueError("a weight is not positive"), lines, size_line, declared, layout, field,
                       file)
    # symmetric: undirected; general: directed unless every off-diagonal entry is stored both ways, one value
    note: tuple[str, ...] = ()
    if options.directed:
        directed, why = True, "as asked"
    elif symmetry == "symmetric":
        directed, why = False, "a symmetric matrix"
    elif unreciprocated(src, dst, weight) is None:
        directed, why, note = False, "", ("a general matrix holding every entry both ways: read undirected",)
    else:
        directed, why = True, "a general (non-symmetric) matrix"
    if not directed:  # scipy gives both triangles: one is the graph (the one a symmetric file stores)
        kept = src >= dst if symmetry == "symmetric" else src <= dst
        src, dst, weight = src[kept], dst[kept], weight[kept] if weight is not None else None
    graph = normalise([str(i) for i in range(1, n + 1)], src, dst, weight, directed, weighted, file)
    rows = tuple((str(s + 1), str(t + 1)) + ((f"{w:g}",) if weight is not None else ())
                 for s, t, w in zip(src[:FIRST_ROWS].tolist(), dst[:FIRST_ROWS].tolist(),
                                    (weight if weight is not None else src)[:FIRST_ROWS].tolist()))
    return graph, ReadReport(format="matrix-market", edges=len(src), directed=directed, directed_why=why,
                             weight=f"the matrix's {field} values" if weighted else None,
                             ignored=("the matrix's values (weight none)",) if field != "pattern"
                             and not weighted else (), rows=rows,
                             notes=(f"{n:,} × {n:,} {symmetry} {field} matrix",) + note)


def _header(lines: list[str], file: str) -> tuple[str, str, str, int, int, int]:
    """(layout, field, symmetry, the size line's number, n, entries declared) from the banner and the
    size line (the first line after it that is not a comment)."""
    line = lines[0] if lines else ""
    words = line.lower().split()
    if len(words) != 5 or words[0] != BANNER or words[1] != "matrix":
        raise GraphFormatError(file, "a Matrix Market banner must read '%%MatrixMarket matrix coordinate "
                                     f"<field> <symmetry>', got {line.strip()[:80]!r}", 1)
    _, _, layout, field, symmetry = words
    if layout not in ("coordinate", "array"):
        raise GraphFormatError(file, f"a Matrix Market layout is 'coordinate' or 'array', got {layout!r}", 1)
    if layout == "array" and field == "pattern":
        raise GraphFormatError(file, "a Matrix Market 'array pattern' matrix does not exist: a dense matrix "
                                     "holds values", 1)
    if field not in FIELDS:
        raise GraphFormatError(file, f"a Matrix Market '{field}' matrix: edge weights must be real numbers "
                                     f"(fields read: {', '.join(FIELDS)})", 1)
    if symmetry not in SYMMETRIES:
        raise GraphFormatError(file, f"a Matrix Market '{symmetry}' matrix: its mirrored entries are "
                                     f"negated or conjugated, not edges (read: {', '.join(SYMMETRIES)})", 1)
    number = next((k for k, line in enumerate(lines, start=1)
                   if k > 1 and line.strip() and not line.lstrip().startswith("%")), None)
    if number is None:
        raise GraphFormatError(file, "a Matrix Market banner without a size line", 1)
    shape = "'rows cols entries'" if layout == "coordinate" else "'rows cols'"
    words = lines[number - 1].split()
    if len(words) != shape.count(" ") + 1 or not all(w.isdecimal() for w in words):
        raise GraphFormatError(file, f"the size line must be {shape} (whole numbers), got "
                                     f"{lines[number - 1].strip()[:80]!r}", number)
    rows, cols = int(words[0]), int(words[1])
    if rows != cols:
        raise GraphFormatError(file, f"a rectangular {rows:,} × {cols:,} matrix (a bipartite graph?): an "
                                     "adjacency matrix is square", number)
    declared_nodes(rows, sum(len(line) + 1 for line in lines), file, number, f"a {rows:,} × {rows:,} matrix")
    if layout == "coordinate":
        return layout, field, symmetry, number, rows, int(words[2])
    declared = rows * (rows + 1) // 2 if symmetry == "symmetric" else rows * rows
    if len(lines) - number < declared:  # before scipy allocates the dense matrix
        raise GraphFormatError(file, f"the size line declares {declared:,} entries, the file holds "
                                     f"{len(lines) - number:,} lines (a truncated or edited file?)", number)
    return layout, field, symmetry, number, rows, declared


def _located(err: Exception, lines: list[str], size_line: int, declared: int, layout: str, field: str,
             file: str) -> GraphFormatError:
    """scipy's complaint as one line naming the file and line: the first entry that is wrong,
    said as the project says it; else scipy's own words with the line they name."""
    entries = [(k, line.split()) for k, line in enumerate(lines[size_line:], start=size_line + 1)
               if line.strip() and not line.lstrip().startswith("%")]
    n = int(lines[size_line - 1].split()[0])
    if len(entries) != declared:
        return GraphFormatError(file, f"the size line declares {declared:,} entries, the file holds "
                                      f"{len(entries):,} (a truncated or edited file?)", size_line)
    width = 1 if layout == "array" else 2 if field == "pattern" else 3
    for number, fields in entries:
        if len(fields) != width:
            return GraphFormatError(file, f"an entry must be {width} values, got {len(fields)} fields: "
                                          f"{' '.join(fields)[:80]!r}", number)
        for word in fields[:2] if layout == "coordinate" else ():
            if not word.isdecimal() or not 1 <= int(word) <= n:
                return GraphFormatError(file, f"node index {word[:40]!r} is not a whole number in 1..{n:,} "
                                              "(the size line's rows)", number)
        if field != "pattern" and not (layout == "array" and is_zero(fields[-1])):
            try:
                parse_weight(fields[-1], file, number, words_skipped=False)  # a word stops scipy anyway
            except GraphFormatError as bad:
                return bad
    said = str(err).splitlines()[0] if str(err) else type(err).__name__
    line = int(said.split(":")[0].split()[1]) if said.startswith("Line ") else None
    return GraphFormatError(file, f"scipy.io.mmread: {said.split(': ', 1)[-1] if line else said}", line)
