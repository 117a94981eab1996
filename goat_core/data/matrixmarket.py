"""Matrix Market coordinate files (``.mtx``): how SuiteSparse and Network Repository ship graphs.

A banner ``%%MatrixMarket matrix coordinate <field> <symmetry>``, ``%`` comments, a size line
``rows cols entries``, then one ``i j [value]`` line per stored entry, 1-based (or, for a dense
``array``, ``rows cols`` and every value column by column: what ``scipy.io.mmwrite`` writes for a
numpy array; zeros are no edge). The matrix is the
graph's adjacency matrix: nodes are named 1..n (an index without entries is an isolated node);
``pattern`` is unweighted, ``integer``/``real`` weighted. ``symmetric`` stores one triangle of an
undirected graph; ``general`` is directed unless every entry is stored both ways with one value.

Parsed here rather than by ``scipy.io.mmread`` so that a bad entry is reported with its line.
"""

from __future__ import annotations

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import FLOAT32_MAX, Graph, decode, is_zero, normalise, parse_weight, unreciprocated

BANNER = "%%matrixmarket"
FIELDS = ("pattern", "integer", "real")
SYMMETRIES = ("general", "symmetric")


def looks_matrix_market(head: str) -> bool:
    return head.lstrip().lower().startswith(BANNER)


def read_matrix_market(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    if options.source is not None:
        raise GraphFormatError(file, "a Matrix Market file has no columns to choose: leave source and target "
                                     "unset")
    lines = decode(raw, file).splitlines()
    layout, field, symmetry = _banner(lines[0], file)
    body = [(number, line.strip()) for number, line in enumerate(lines, start=1)
            if line.strip() and not line.lstrip().startswith("%")]
    if not body:
        raise GraphFormatError(file, "a Matrix Market banner without a size line", 1)
    n, declared = _size(*body[0], layout, symmetry, file)
    entries = body[1:]
    if len(entries) != declared:
        raise GraphFormatError(file, f"the size line declares {declared:,} entries, the file holds "
                                     f"{len(entries):,} (a truncated or edited file?)", body[0][0])
    if layout == "array":
        entries = _array_entries(entries, n, symmetry, file)
    width = 2 if field == "pattern" else 3
    values = _entries(entries, width, n, file)  # (m, width) float64
    src, dst = values[:, 0].astype(np.int64) - 1, values[:, 1].astype(np.int64) - 1
    weighted = width == 3 and options.weight != NO_WEIGHT
    weight = values[:, 2] if weighted else None
    directed, why, note = _direction(symmetry, src, dst, weight, options.directed)
    if symmetry == "symmetric" and directed:  # one triangle stored: both directions are edges
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        weight = np.concatenate([weight, weight]) if weight is not None else None
    elif symmetry == "general" and not directed:  # every entry twice: one triangle is the graph
        upper = src <= dst
        src, dst, weight = src[upper], dst[upper], weight[upper] if weight is not None else None
    graph = normalise([str(i) for i in range(1, n + 1)], src, dst, weight, directed, weighted, file)
    rows = tuple(tuple(line.split()[:width]) for _, line in entries[:FIRST_ROWS])
    report = ReadReport(format="matrix-market", edges=len(entries), directed=directed, directed_why=why,
                        weight=f"the matrix's {field} values" if weighted else None,
                        ignored=("the matrix's values (weight none)",) if width == 3 and not weighted else (),
                        rows=rows, notes=(f"{n:,} × {n:,} {symmetry} {field} matrix",) + note)
    return graph, report


def _banner(line: str, file: str) -> tuple[str, str, str]:
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
    return layout, field, symmetry


def _size(number: int, line: str, layout: str, symmetry: str, file: str) -> tuple[int, int]:
    """(n, entries the file must hold) from the size line: ``rows cols entries``, or ``rows cols``
    for a dense array (every entry, or one triangle of a symmetric one)."""
    words, shape = line.split(), "'rows cols entries'" if layout == "coordinate" else "'rows cols'"
    if len(words) != shape.count(" ") + 1 or not all(w.isdigit() for w in words):
        raise GraphFormatError(file, f"the size line must be {shape} (whole numbers), got {line[:80]!r}",
                               number)
    rows, cols = int(words[0]), int(words[1])
    if rows != cols:
        raise GraphFormatError(file, f"a rectangular {rows:,} × {cols:,} matrix (a bipartite graph?): an "
                                     "adjacency matrix is square", number)
    if rows == 0:
        raise GraphFormatError(file, "a 0 × 0 matrix: the graph has no nodes", number)
    if layout == "coordinate":
        return rows, int(words[2])
    return rows, rows * (rows + 1) // 2 if symmetry == "symmetric" else rows * rows


def _array_entries(values: list[tuple[int, str]], n: int, symmetry: str, file: str) -> list[tuple[int, str]]:
    """A dense array's values (column by column; a symmetric one's lower triangle) as coordinate
    entries 'i j value', zeros left out."""
    if symmetry == "symmetric":
        cells = [(i, j) for j in range(1, n + 1) for i in range(j, n + 1)]
    else:
        cells = [(i, j) for j in range(1, n + 1) for i in range(1, n + 1)]
    out = []
    for (number, value), (i, j) in zip(values, cells, strict=True):
        words = value.split()
        if len(words) != 1:
            raise GraphFormatError(file, f"a dense entry must be one value, got {value[:80]!r}", number)
        if is_zero(words[0]):
            continue  # no edge
        out.append((number, f"{i} {j} {words[0]}"))
    return out


def _entries(entries: list[tuple[int, str]], width: int, n: int, file: str) -> np.ndarray:
    """The entries as an (m, width) array: one numpy parse, and line by line only to report a
    bad line (so a million-entry file costs one split)."""
    tokens = " ".join(line for _, line in entries).split()
    try:
        if len(tokens) != width * len(entries):
            raise ValueError
        values = np.asarray(tokens, dtype=np.float64).reshape(-1, width)
        ends = values[:, :2]
        if not (np.all(ends == np.round(ends)) and np.all((ends >= 1) & (ends <= n))):
            raise ValueError
        if width == 3 and not np.all((values[:, 2] > 0) & (values[:, 2] <= FLOAT32_MAX)):
            raise ValueError
    except ValueError:
        _report_bad_line(entries, width, n, file)
        raise GraphFormatError(file, "an entry is not 'i j [value]' with 1-based node indices") from None
    return values


def _report_bad_line(entries: list[tuple[int, str]], width: int, n: int, file: str) -> None:
    shape = "'i j'" if width == 2 else "'i j value'"
    for number, line in entries:
        words = line.split()
        if len(words) != width:
            raise GraphFormatError(file, f"an entry must be {shape}, got {len(words)} fields: {line[:80]!r}",
                                   number)
        for word in words[:2]:
            if not word.isdigit() or not 1 <= int(word) <= n:
                raise GraphFormatError(file, f"node index {word[:40]!r} is not a whole number in 1..{n:,} "
                                             "(the size line's rows)", number)
        if width == 3:
            parse_weight(words[2], file, number)


def _direction(symmetry: str, src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None,
               asked: bool) -> tuple[bool, str, tuple[str, ...]]:
    """(directed, why, notes): symmetric is undirected; general is directed unless every
    off-diagonal entry is stored both ways with one value."""
    if asked:
        return True, "as asked", ()
    if symmetry == "symmetric":
        return False, "a symmetric matrix", ()
    if unreciprocated(src, dst, weight) is None:
        return False, "", ("a general matrix holding every entry both ways: read undirected",)
    return True, "a general (non-symmetric) matrix", ()
