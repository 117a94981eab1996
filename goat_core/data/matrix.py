"""Adjacency matrices in a table (``--format matrix``), as pandas, numpy, igraph, R and Gephi write
them (docs/formats.md). pandas reads the cells, a block of rows at a time; a cell is its tie's
weight, 0 or empty no tie, as in a UCINET DL full matrix."""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pandas as pd

from ..errors import GraphFormatError
from .delimited import HEAD_ROWS, SEPARATORS, sniff_separator, split_rows, table_rows
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import FLOAT32_MAX, HEADER_WORDS, Graph, decode, first_line, is_number, normalise, tie_direction

MIN_FOUND = 4  # fewer numbered nodes are a matrix only when told: 2 or 3 numbers a line are edges
NO_VALUES = "--weight none reads every non-zero cell as a tie; library: weight='none'"
CHUNK_CELLS = 1 << 24  # cells pandas reads at a time


def matrix_shape(head: list[tuple[int, list[str]]], count: int | None, file: str
                 ) -> tuple[list[str] | None, list[str] | None, int]:
    """(the header's names, what each row starts with: those names or (pandas' and R's default index)
    0.. or 1..; None for nothing, n) from the first two rows and the rows' ``count`` (None: a head,
    whose numbers are a header only when they count 0..n-1 or 1..n)."""
    if len(head) < 2:
        raise GraphFormatError(file, "one row: an adjacency matrix has a row for each column", head[0][0])
    (line, first), (_, second) = head
    header = len(set(first)) == len(first) and (count == len(first) + 1 if count else first in (
        [str(i) for i in range(start, start + len(first))] for start in (0, 1)))
    if all(is_number(f) for f in first) and len(second) == len(first) and not header:
        return None, None, len(first)
    if len(second) not in (len(first), len(first) + 1):
        raise GraphFormatError(file, f"{len(second)} fields under a header of {len(first)}: a matrix's rows "
                                     "hold a value for each column (and maybe their label first)", head[1][0])
    labelled = len(second) == len(first) + 1 or first[0] == "" or second[:1] == first[1:2]
    labels = first if len(second) == len(first) + 1 or not labelled else first[1:]
    bad = next((label for label, times in Counter(labels).items() if times > 1 or not label), None)
    if bad is not None:
        raise GraphFormatError(file, f"the header names node {bad[:40]!r} twice (or a column without a "
                                     "name): each column of an adjacency matrix is one node", line)
    if not labels:
        raise GraphFormatError(file, "a header of no node names: each column of an adjacency matrix is one "
                                     "node", line)
    start = second[0] if labelled and second[0] != labels[0] and second[0] in ("0", "1") else None
    numbers = [str(k + int(start)) for k in range(len(labels))] if start else labels
    return labels, numbers if labelled else None, len(labels)


def looks_matrix(rows: list[str], complete: bool) -> bool:
    """An unmistakable adjacency matrix in the first rows (else an edge table): a header of n names
    over n rows of n numbers, each led by its name in the header's order (n >= 2; numbered names:
    n >= 4); or n >= 4 rows of n numbers whose diagonal is 0 (``u v w time`` rows are not), under no
    header or one holding under two names an edge table uses (``source,target,weight,time``)."""
    rows = [text for _, text in table_rows("\n".join(rows))]  # Excel's sep=; line and empty last columns out
    sep = sniff_separator(rows[:HEAD_ROWS]) if len(rows) > 1 else None
    fields = split_rows(rows, sep)
    try:
        count = len(fields) if complete else None
        labels, row_names, n = matrix_shape(list(enumerate(fields[:2])), count, "")
    except (GraphFormatError, IndexError):
        return False
    body, labelled = fields[labels is not None:], row_names is not None
    named = labelled and row_names is labels  # else only numbers or none: as likely an edge table's rows
    numbered = not named or all(re.fullmatch(r"-?\d+", label) for label in labels or ())
    fits = all(len(row) == n + labelled and (not labelled or row[0] == name) and all(is_number(cell) or cell
               == "" for cell in row[labelled:]) for row, name in zip(body, row_names or body))
    if not fits or n < (MIN_FOUND if numbered else 2) or not (len(body) == n if complete else len(body) <= n):
        return False
    edge_words = sum(label.lower() in HEADER_WORDS for label in labels or ())  # source,target,weight,…
    return named or edge_words < 2 and all(row[k + labelled] in ("", "0") or float(row[k + labelled]) == 0
                                           for k, row in enumerate(body))


def read_matrix(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    if not (rows := table_rows(decode(raw, file))):
        raise GraphFormatError(file, "no rows: the file holds only comments or blank lines")
    sep = sniff_separator([text for _, text in rows[:HEAD_ROWS]])
    labels, row_names, n = matrix_shape([(k, split_rows([t], sep)[0]) for k, t in rows[:2]], len(rows), file)
    body = rows[labels is not None:]
    if len(body) != n:
        raise GraphFormatError(file, f"{len(body):,} rows of {n:,} columns: an adjacency matrix is square",
                               body[min(n, len(body) - 1)][0] if body else rows[0][0])
    names = labels or [str(i) for i in range(n)]
    values = _values(body, sep, row_names, file)
    src, dst = np.divmod(np.flatnonzero(values), n)  # the non-zero cells are the ties
    graph, report = read_ties(names, src, dst, values[src, dst], options, file,
                              lambda r, c: (f"{names[r]} → {names[c]}", body[r][0]))
    numbered = "" if labels else f" without a header: nodes 0..{n - 1}, as numpy and igraph number them"
    return graph, replace(report, separator=SEPARATORS[sep], notes=(f"{n:,} × {n:,} matrix{numbered}",))


def read_ties(names: list[str], src: np.ndarray, dst: np.ndarray, ties: np.ndarray, options: ReadOptions,
              file: str, cell: Callable[[int, int], tuple[str, int | None]]) -> tuple[Graph, ReadReport]:
    """The graph of an adjacency matrix's non-zero cells (row ``src``, column ``dst``, value ``ties``,
    each checked to be a weight; ``cell(row, column)``: how an error names a cell, and its file line):
    weighted when a value is not 1, undirected when the matrix is symmetric (each pair once)."""
    if options.source is not None or options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, f"an adjacency matrix has no columns to choose: its cells are the "
                                     f"weights ({NO_VALUES})")
    if options.weight != NO_WEIGHT and len(bad := np.flatnonzero(~((ties > 0) & (ties <= FLOAT32_MAX)))):
        where, line = cell(int(src[bad[0]]), int(dst[bad[0]]))
        empty = " or empty" if line is not None else ""  # a text file's empty cell
        raise GraphFormatError(file, f"cell {where} is {ties[bad[0]]:g}: a weight is positive, up to "
                                     f"{FLOAT32_MAX:.3g}; 0{empty}: no tie ({NO_VALUES})", line)
    if len(ties) == 0:
        raise GraphFormatError(file, "an adjacency matrix with no ties (every cell 0 or empty)")
    valued = bool(np.any(ties != 1))
    weighted = options.weight != NO_WEIGHT and valued
    directed, why, _, keep = tie_direction(names, src, dst, ties if weighted else None, options.directed)
    graph = normalise(names, src[keep], dst[keep], ties[keep] if weighted else None, directed, weighted, file)
    shown = zip(*(edges[:FIRST_ROWS].tolist() for edges in (graph.src, graph.dst, graph.weight)))
    return graph, ReadReport(
        "matrix", int(keep.sum()), directed, why if directed else "a symmetric matrix",
        weight="the cells" if weighted else None,
        ignored=("the cells' values (weight none)",) if valued and not weighted else (),
        rows=tuple((names[s], names[t]) + ((f"{w:g}",) if weighted else ()) for s, t, w in shown))


def _values(body: list[tuple[int, str]], sep: str | None, row_names: list[str] | None, file: str
            ) -> np.ndarray:
    """The cells (empty: 0) read by pandas' C parser, a block of rows at a time, once each row holds n
    values after its label (pandas would fill a short row with NaN, as an empty cell) and that label is
    the row's name."""
    labelled, n = row_names is not None, len(body)
    for k, (number, text) in enumerate(body):
        fields = split_rows([text], sep)[0] if '"' in text else text.split(sep)  # sep None: blanks
        if len(fields) != n + labelled:
            raise GraphFormatError(file, f"a row of {len(fields) - labelled:,} values in a matrix of {n:,} "
                                         "columns (ragged rows)", number)
        if row_names is not None and fields[0].strip() != row_names[k]:
            raise GraphFormatError(file, f"row {k + 1} is labelled {fields[0][:40]!r}, not "
                                         f"{row_names[k][:40]!r}: rows are named as the columns (or numbered "
                                         "0.. or 1..)", number)
    values, step = np.empty((n, n)), max(1, CHUNK_CELLS // n)
    for at in range(0, n, step):  # in blocks of rows: pandas' columns never hold all n² cells
        rows = body[at:at + step]
        try:
            frame = pd.read_csv(io.StringIO("\n".join(text for _, text in rows)), sep=sep or r"\s+",
                                header=None, index_col=0 if labelled else None,
                                dtype={0: str} if labelled else None, keep_default_na=False, na_values=[""],
                                skipinitialspace=True, engine="c")
        except (pd.errors.ParserError, ValueError) as err:
            raise GraphFormatError(file, f"pandas could not read the matrix: {first_line(err)}") from None
        bad = [(int(np.argmax(wrong)), k) for k, (_, cells) in enumerate(frame.items())
               if cells.dtype.kind not in "iuf"
               and (wrong := (pd.to_numeric(cells, errors="coerce").isna() & cells.notna())).any()]
        if bad:  # the first cell that is not a number, named with its line
            r, c = min(bad)
            raise GraphFormatError(file, f"cell {str(frame.iat[r, c])[:40]!r} is not a number: an "
                                         "adjacency matrix holds a weight (0 or empty: no tie) in every cell",
                                   rows[r][0])
        values[at:at + step] = frame.to_numpy(dtype=np.float64, na_value=0.0)
    return values

