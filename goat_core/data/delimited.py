"""Edge tables in delimited text, and :func:`read_fields`, the path of every table (JSON and Parquet
too): layout from the first lines, rows by pandas in chunks, a bad row's line found only then."""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import (
    FLOAT32_MAX,
    HEADER_WORDS,
    MAX_ATTRIBUTES_CHARS,
    NO_WEIGHT_HINT,
    Graph,
    build_graph,
    data_lines,
    decode,
    first_line,
    header_key,
    is_number,
    normalise,
    parse_weight,
    sorted_unique,
    weight_problem,
)

# Header names, compared lower-case with everything but letters and digits removed
# ("Source ID" = "source_id" = "sourceid"). Strong names make a first line a header by themselves;
# weak ones (plausible node names) only choose columns once a header has been recognised.
STRONG_SOURCE = {"source", "src", "from", "sourceid", "fromid", "sourcenode", "fromnode", "node1", "tail",
                 "origin", "sender", "srcid", "srcnode", "sourcenodeid", "fromnodeid", "sourcevertex",
                 "fromvertex", "startnode", "startid", "start", "vertex1"}  # Neo4j: :START_ID, _start; NodeXL
STRONG_TARGET = {"target", "dst", "dest", "destination", "to", "targetid", "toid", "targetnode", "tonode",
                 "node2", "head", "receiver", "dstid", "dstnode", "destid", "destnode", "destinationid",
                 "destinationnode", "targetnodeid", "tonodeid", "targetvertex", "tovertex", "endnode",
                 "recipient", "endid", "end", "vertex2"}
WEAK_SOURCE = {"u", "n1", "v1", "id1", "nodea", "a1"}
WEAK_TARGET = {"v", "n2", "v2", "id2", "nodeb", "a2"}
WEIGHT_NAMES = {"weight", "weights", "w", "value", "strength", "count", "edgeweight"}  # NodeXL: Edge Weight
COLUMN_NAMES = STRONG_SOURCE | STRONG_TARGET | WEAK_SOURCE | WEAK_TARGET | WEIGHT_NAMES  # any edge column
INDEX_NAMES = {"", "index", "idx", "rowid", "row"}  # and pandas' "Unnamed: 0": is_index
# Columns that are never an edge's end (Gephi's Type/Id/Label, times): left out when the ends are
# taken in order because the header does not name them.
NOT_ENDS = {"type", "id", "label", "timestamp", "time", "date", "datetime", "ts", "year", "key", "kind",
            "color", "colour", "sign"}
SEPARATORS = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe", None: "whitespace"}
KONECT = re.compile(r"%[ \t]*(sym|asym|bip)\b[ \t]*(\S*)", re.IGNORECASE)
RowAt = Callable[[int], tuple[int, list[str]] | None]  # data row k's (file line, fields), None past the end
HEAD_ROWS = 21  # what the header and separator are decided on (the first 21 data lines)
_QUOTED = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
_INTEGER = re.compile(r"-?\d+")
_NOT_DECIMAL_COMMA = re.compile(r"(?<!\d),(?! )|,(?![\d ])")  # nor a name's ("Smith, J")
_DECIMAL_COMMA = re.compile(r"([+-]?\d+),(\d+(?:[eE][+-]?\d+)?)")  # 2,5 and pandas' float_format 7,5e-01
DECIMAL_COMMA_SEPARATORS = (";", "\t")  # where "2,5" is 2.5: a comma-separated file quotes it, maybe 2,500
# a float as numpy and pandas write one, with its point (1.0, 2.000e+00); 1E5 or 4e2 is a name (a PDB id)
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SEPARATOR_LINE = re.compile(r"sep=.", re.IGNORECASE)  # Excel's "sep=;" first line
_BLANK_ROW = re.compile(rb"\n[ \t,;|]+\r?(?:\n|$)")  # a leading "\n", not "^|\n": 10x faster
# SNAP's first comment line: "# Directed graph (each unordered pair of nodes is saved once): Wiki-Vote.txt"
SNAP_DIRECTION = re.compile(r"#\s*(directed|undirected)\s+graph\b", re.IGNORECASE)
# Integers in these ranges are Unix times (seconds, or milliseconds, 1973 to 2100), not weights:
# SNAP's temporal graphs (CollegeMsg, sx-*) are "SRC DST UNIXTS" without a header.
UNIX_SECONDS = (1e8, 4.2e9)
UNIX_MILLISECONDS = (1e11, 4.2e12)
# Ids whose integer value would not give back their text: "007", "+7", "-0" (distinct names,
# which int64 columns would merge): such a file's ids are read as text.
_LEADING_ZERO = re.compile(rb"[\s,]-?0\d")  # after a blank or comma; the file's start apart (3x faster)
HEAD_BYTES = 65536  # the head a text's layout is found on
MAX_COLUMNS = 10_000  # an edge table's; pandas takes ~0.1 ms a column, a matrix is read as one
# Rows per chunk of the table path: one chunk's tokens (text ids: two Python strings per row,
# ~60 bytes each) are what loading holds beyond the arrays, ~8 MB at this size.
CHUNK_ROWS = 1 << 16
# The refusals' ways out
WIDE_HINT = ("; or say which columns hold the edge: --source COL --target COL [--weight COL|none], 0-based "
             "(library: source=, target=, weight=)")
SIF_HINT = "; or a Cytoscape SIF file (source, interaction type, target): --format sif"
ADJLIST_HINT = " (an adjacency list? --format adjlist; library: format='adjlist')"
ADJLIST_WAY = "; or an adjacency list (a node, then its neighbors): --format adjlist (library: format=)"
MATRIX_HINT = "; or an adjacency matrix: --format matrix (library: format='matrix')"
COMMA_HINT = (": a decimal comma? in a comma-separated file a weight takes a decimal point (2.5); --weight "
              "none reads every edge with weight 1")


def is_index(key: str) -> bool:
    """A row index's column name (as :func:`header_key` spells it): pandas' ``Unnamed: 0`` of a
    table saved again, ``index``, ... never an edge's end nor its weight."""
    return key in INDEX_NAMES or re.fullmatch(r"unnamed\d+", key) is not None


def is_decimal(token: str) -> bool:
    """A number, written with a decimal point or (spreadsheets in comma-decimal locales) a comma."""
    return is_number(token) or _DECIMAL_COMMA.fullmatch(token) is not None


# --------------------------------------------------------------------------- how a table is laid out


# csv's default limit (131,072 characters a field) would end a long name in a traceback; the text is in
# memory already, so a field may be as long as the file
csv.field_size_limit(2**31 - 1)


def sniff_separator(lines: list[str]) -> str | None:
    """Tab, comma, semicolon or pipe when it splits every line into as many (>= 2) fields, unless
    tabs and blanks are mixed (:func:`_mixed_blanks`); else the first in line 1; else None (blanks)."""
    blanks = len({len(line.split()) for line in lines}) == 1 and len(lines[0].split()) >= 2
    for sep in ("\t", ",", ";", "|"):  # SEPARATORS' order
        if sep == "," and _splits(lines, ";") and not _NOT_DECIMAL_COMMA.search("\n".join(lines)):
            continue  # "a;b;1,5", "Smith, J;Doe, A": decimal commas, commas in names, not the separator
        if _splits(lines, sep):
            return None if sep == "\t" and blanks and _mixed_blanks(lines) else sep
    if blanks:
        return None  # a hand-edited list mixing tabs and spaces: whitespace, whatever its mix
    first = lines[0] if lines else ""
    return next((sep for sep in (",", ";", "\t", "|") if sep in first), None)


def _splits(lines: list[str], sep: str) -> bool:
    """Whether ``sep`` splits every line into as many fields, two or more."""
    counts = {len(row) for row in csv.reader(lines, delimiter=sep)}
    return len(counts) == 1 and counts.pop() >= 2


def _mixed_blanks(lines: list[str]) -> bool:
    """Tabs and spaces mixed as separators (``3 <TAB> 1``, ``1<TAB>2 0.5``), which a TSV of names
    with blanks ("New York") is not: a blank beside a tab, or only numbers."""
    text = "\n".join(lines)
    return " \t" in text or "\t " in text or (" " in text and all(is_number(token) for token in text.split()))


def split_rows(texts: list[str], sep: str | None) -> list[list[str]]:
    """Fields of each line: csv quoting for a delimiter; whitespace runs (with "double quotes"
    keeping a name together) otherwise. Fields are stripped."""
    if sep is None:
        return [line.split() if '"' not in line else
                [q.replace('""', '"') if q or not plain else plain for q, plain in _QUOTED.findall(line)]
                for line in texts]
    return [[field.strip() for field in row]
            for row in csv.reader(texts, delimiter=sep, skipinitialspace=True)]


def looks_like_header(first: list[str], rest: list[list[str]]) -> bool:
    """Whether the first line names columns rather than holding an edge."""
    keys = [header_key(tok.strip("\"'")) for tok in first]
    if all(tok.lower().strip("\"'") in HEADER_WORDS for tok in first):
        return True
    if any(k in STRONG_SOURCE for k in keys) and any(k in STRONG_TARGET for k in keys):
        return True
    if first and (first[0] == "" or keys[0] and is_index(keys[0])) and rest and all(r and r[0] != ""
                                                                                for r in rest[:20]):
        return True  # pandas' to_csv: an unnamed index column (not a name of punctuation only: "--")
    if len(first) >= 3 and not is_decimal(first[2]) and rest and all(
            len(r) >= 3 and is_decimal(r[2]) for r in rest[:20]):
        return True
    ids_numeric = rest and all(is_number(r[0]) and is_number(r[1]) for r in rest[:20] if len(r) >= 2)
    return bool(ids_numeric) and len(first) >= 2 and not (is_number(first[0]) or is_number(first[1]))


@dataclass(frozen=True)
class Layout:
    """How an edge table is laid out, decided on its first lines."""

    separator: str | None
    header: tuple[str, ...] | None  # with a leading "" when rows carry one more field (R's row names)
    header_line: int | None
    width: int  # fields in the first row after the header
    konect: tuple[str, str] | None  # ("asym", "posweighted") from a KONECT first line


def konect_header(text: str) -> tuple[str, str] | None:
    found = KONECT.match(text.lstrip())
    return (found.group(1).lower(), found.group(2).lower()) if found else None


def sniff_layout(rows: list[tuple[int, str]], konect: tuple[str, str] | None) -> Layout:
    head = rows[:HEAD_ROWS]
    sep = None if konect else sniff_separator([text for _, text in head])
    tokens = split_rows([text for _, text in head], sep)
    header = tuple(tokens[0]) if not konect and looks_like_header(tokens[0], tokens[1:]) else None
    body = tokens[1:] if header is not None else tokens
    width = len(body[0]) if body else len(tokens[0])
    if header is not None and body and all(len(r) == len(header) + 1 for r in body):
        header = ("",) + header  # every row has one more field: row names (R's write.table)
    return Layout(sep, header, head[0][0] if header is not None else None, width, konect)


def header_by_names(layout: Layout, rows: list[tuple[int, str]], options: ReadOptions) -> Layout:
    """The first line as the header when the caller names columns by words it holds (``--source
    person --target friend`` on a file whose header was not recognised: :meth:`_Edges.refuse_lone_first`)."""
    named = [v for v in (options.source, options.target, options.weight)
             if isinstance(v, str) and v != NO_WEIGHT and not v.strip().isdecimal()]
    if layout.header is not None or layout.konect or not named or not rows:
        return layout
    first = split_rows([rows[0][1]], layout.separator)[0]
    if not all(v in first or v.strip().lower() in {f.lower() for f in first} for v in named):
        return layout
    body = split_rows([text for _, text in rows[1:2]], layout.separator)
    return Layout(layout.separator, tuple(first), rows[0][0], len(body[0]) if body else len(first), None)


@dataclass(frozen=True)
class Columns:
    """The fields an edge takes (0-based), and what it leaves."""

    source: int
    target: int
    weight: int | None
    index: int | None = None
    ignored: tuple[int, ...] = ()
    given: bool = False  # chosen by the caller's options
    weight_guessed: bool = False  # an unknown name over numbers, taken as the weight


def _listed(names: Sequence[str], few: int = 6) -> str:
    """The first few names and how many more: a wide header (a matrix's 77 names) in one short line."""
    more = f" … {len(names) - few:,} more" if len(names) > few + 1 else ""
    return ", ".join(name[:40] for name in (names[:few] if more else names)) + more  # a 20 kB name cut too


def _choice_hint(layout: Layout, sample: list[list[str]] | None = None) -> str:
    names = _listed(layout.header) if layout.header is not None else ""
    where = f"the header names {names}" if names else \
        f"there is no header: give 0-based positions (0 to {layout.width - 1})"
    square = layout.header is not None and len(layout.header) >= 4 and bool(sample) and all(
        is_decimal(cell) or cell == "" for row in sample or () for cell in row[1:])
    return (f"say which columns hold the edges: --source COL --target COL [--weight COL|none] "
            f"(library: source=, target=, weight=); {where}" + (MATRIX_HINT if square else ""))


def _resolve(value: str | int, layout: Layout, what: str, file: str) -> int:
    """A column by header name (exact, then case-insensitive) or 0-based position."""
    header = layout.header
    if isinstance(value, str) and header is not None:
        for match in (lambda h: h == value, lambda h: h.strip().lower() == value.strip().lower()):
            found = [i for i, h in enumerate(header) if match(h)]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise GraphFormatError(file, f"{what} column {value!r}: the header has it {len(found)} "
                                             "times; give its 0-based position instead")
    text = str(value).strip()
    width = len(header) if header is not None else layout.width
    if re.fullmatch(r"\d+", text) and int(text) < width:
        return int(text)
    known = f"the header names {_listed([repr(h) for h in header])}" if header is not None else \
        f"there is no header and {width} columns (0-based positions 0 to {width - 1})"
    raise GraphFormatError(file, f"no {what} column {value!r}: {known}")


def choose_columns(layout: Layout, options: ReadOptions, file: str,
                   sample: list[list[str]] | None = None) -> Columns:
    """The columns an edge takes: the caller's choice, else the header's names, else position."""
    header, width = layout.header, layout.width if layout.header is None else len(layout.header)
    index = 0 if header is not None and is_index(header_key(header[0])) and width > 2 else None
    keys = [header_key(h) for h in header] if header is not None else []
    given_weight = None if options.weight in (None, NO_WEIGHT) else _resolve(options.weight, layout, "weight",
                                                                              file)
    if options.source is not None:
        source = _resolve(options.source, layout, "source", file)
        target = _resolve(options.target if options.target is not None else 1, layout, "target", file)
        index = None if index in (source, target) else index
    elif header is not None:
        source, target = _named_ends(keys, {index, given_weight}, layout, file, sample)
    else:
        source, target = 0, 1
    if source == target:
        raise GraphFormatError(file, f"source and target are the same column ({source}); "
                                     + _choice_hint(layout))
    weight, guessed = given_weight, False  # the caller's, None for --weight none
    if options.weight is None and header is not None:
        named = [i for i, k in enumerate(keys) if k in WEIGHT_NAMES and i not in (source, target, index)]
        weight = named[0] if named else None
        if weight is None and options.source is None and width - (index is not None) == 3:
            third = next(i for i in range(width) if i not in (source, target, index))
            numeric = bool(sample) and all(len(r) > third and is_decimal(r[third]) for r in sample or ())
            values = np.array([float(r[third].replace(",", ".")) for r in sample or ()]) if numeric else None
            times = values is not None and _unix_times(values)
            if numeric and not times and keys[third] not in NOT_ENDS and not is_index(keys[third]):
                weight, guessed = third, True
    elif options.weight is None and options.source is None:
        weight = 2 if width == 3 or (layout.konect and width >= 3) else None
        if layout.konect and layout.konect[1] == "unweighted":
            weight = None
    if weight is not None and weight in (source, target):
        raise GraphFormatError(file, f"the weight column is also an end of the edge ({weight}); "
                                     + _choice_hint(layout))
    used = {source, target, weight, index}
    return Columns(source, target, weight, index, tuple(i for i in range(width) if i not in used),
                   given=options.source is not None or options.weight is not None, weight_guessed=guessed)


def _numbers_columns(keys: list[str]) -> set[str]:
    """The names of a header that numbers five or more columns with one stem (V1 … V5, as R names a
    headerless table's, or n1 … n10000): the set of those names, else empty."""
    stems = defaultdict(set)
    for key in keys:
        if numbered := re.fullmatch(r"([a-z]+)(\d+)", key):
            stems[numbered[1]].add(key)
    return set().union(*(names for names in stems.values() if len(names) >= 5))


def _named_ends(keys: list[str], taken: set[int | None], layout: Layout, file: str,
                sample: list[list[str]] | None) -> tuple[int, int]:
    """Source and target by the header's names; else the only two (or first two of three) columns
    that are not an index, a weight or something else by name."""
    def one(names: set[str], what: str) -> int | None:
        found = [i for i, k in enumerate(keys) if k in names and i not in taken]
        if len(found) > 1:
            shown = ", ".join(repr(layout.header[i]) for i in found)  # type: ignore[index]
            raise GraphFormatError(file, f"header has {len(found)} {what} columns ({shown}); "
                                         + _choice_hint(layout))
        return found[0] if found else None

    numbered = _numbers_columns(keys)  # n1, n2 … n5 name columns, not ends: weak names choose none there
    source = one(STRONG_SOURCE, "source")
    source = one(WEAK_SOURCE - numbered, "source") if source is None else source
    target = one(STRONG_TARGET, "target")
    target = one(WEAK_TARGET - numbered, "target") if target is None else target
    if source is not None and target is not None:
        return source, target
    candidates = [i for i, k in enumerate(keys)
                  if i not in taken and k not in WEIGHT_NAMES and k not in NOT_ENDS and not is_index(k)]
    others = [i for i in candidates if i not in (source, target)]
    if len(candidates) in (2, 3) and others:  # the missing ends in order; a third is a weight or ignored
        first = source if source is not None else others.pop(0)
        return first, target if target is not None else others[0]  # source;cible;poids: cible
    raise GraphFormatError(file, "cannot tell which columns are source and target; "
                                 + _choice_hint(layout, sample), layout.header_line)


# --------------------------------------------------------------------------- reading


def read_table(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """A delimited text's graph and the account of how it was read."""
    if not raw or raw.isspace() or b"\x00" in raw:
        decode(raw, file)  # empty or binary: its one-line error
    if b"\r" in raw[:HEAD_BYTES] and b"\n" not in raw[:HEAD_BYTES]:
        raw = raw.replace(b"\r", b"\n")  # classic Mac line ends: lines the reader can skip and count
    head = _head(raw)
    text = head if head is not None else decode(raw, file)
    rows = table_rows(text)
    if len(rows) < 2 and len(raw) > HEAD_BYTES:  # more comments than the head holds, or a long line
        text = decode(raw, file)
        rows = table_rows(text)
    if not rows:
        raise GraphFormatError(file, "no edges: the file holds only comments or blank lines")
    if _dict_row(rows[0][1]) is not None:
        return _read_dict_rows(table_rows(decode(raw, file)), file, options)
    if (escaped := raw.find(b'\\"')) >= 0:  # R's write.table (qmethod="escape"): csv would keep the \\
        raise GraphFormatError(file, 'a \\" inside a quoted name (R\'s write.table escapes quotes so): write '
                                     'the file with qmethod = "double" (or write.csv): CSV doubles it',
                               raw.count(b"\n", 0, escaped) + 1)
    layout = header_by_names(sniff_layout(rows, konect_header(text)), rows, options)
    if layout.konect and layout.konect[0] == "bip":
        raise GraphFormatError(file, "a KONECT bipartite file (% bip): each side numbers its nodes from 1, "
                                     "so left node 1 is not right node 1; prefix one side's ids to read it",
                               1)
    body = rows[layout.header_line is not None:HEAD_ROWS + 1]
    sample = list(zip([n for n, _ in body], split_rows([text for _, text in body], layout.separator)))
    skip = layout.header_line if layout.header_line is not None else rows[0][0] - 1
    return read_fields(partial(_text_chunks, raw, layout, skip), layout, file, options, sample,
                       _line_index(raw, file, layout.separator, skip), text=text,
                       integer_ids=not _not_canonical(raw))  # "007" stays a name apart from "7"


def _text_chunks(raw: bytes, layout: Layout, skip: int, columns: Columns, integers: bool) -> Iterator[Any]:
    """The data rows after line ``skip`` as DataFrames of CHUNK_ROWS rows (pandas' C parser): text
    fields, the ends as int64 when ``integers``. Comment and blank lines are blanked first, so that
    pandas' line numbers are the file's."""
    import pandas as pd

    at = 0
    for _ in range(skip):
        at = raw.find(b"\n", at) + 1 or len(raw)
    body = raw[at:]
    if b"#" in body or b"%" in body or _BLANK_ROW.search(b"\n" + body[:256]) or _BLANK_ROW.search(body):
        body = re.sub(_skipped(layout.separator).encode(), b"", body)
    ends = (columns.source, columns.target) if integers else ()
    types: dict = defaultdict(lambda: str, dict.fromkeys(ends, np.int64))
    sep = layout.separator if layout.separator is not None else r"\s+"
    yield from pd.read_csv(io.BytesIO(body), sep=sep, header=None, dtype=types, na_filter=False,
                           skipinitialspace=True, skip_blank_lines=True, encoding="utf-8-sig",
                           chunksize=CHUNK_ROWS, engine="c", index_col=False)


def _skipped(sep: str | None) -> str:
    """The pattern of the lines the table reader skips (pandas' bytes, and a bad row's finder's text):
    blank rows (",,," of a sheet) and comments; in a delimited table a #/% line holding the separator
    is a row ("#python,#data,3": hashtags) unless a blank follows the # (np.savetxt's footer "# n,m")."""
    return r"(?m)^(?:[ \t]*[#%](?:[ \t][^\r\n]*|[^\r\n" + re.escape(sep or "") + r"]*)|[ \t,;|]+)(?=\r?$)"


def _line_index(raw: bytes, file: str, sep: str | None, skip: int) -> RowAt:
    """Data row k's file line and fields, the lines found only when a row is wrong."""
    rows: list[tuple[int, str]] = []
    skipped = re.compile(_skipped(sep))

    def row(k: int) -> tuple[int, list[str]] | None:
        if not rows:  # once: a bad row's search asks for every row after it
            lines = enumerate(decode(raw, file).splitlines(), start=1)
            rows.extend((n, t) for n, t in ((n, t.strip()) for n, t in lines if n > skip)
                        if t and not skipped.match(t))
        if k >= len(rows):
            return None
        return rows[k][0], split_rows([rows[k][1]], sep)[0]
    return row


def read_fields(chunks: Callable[[Columns, bool], Iterable[Any]], layout: Layout, file: str,
                options: ReadOptions, sample: list[tuple[int, list[str]]], row: RowAt, *, text: str = "",
                has_header: bool | None = None, integer_ids: bool = False,
                strings: frozenset[int] = frozenset()) -> tuple[Graph, ReadReport]:
    """The graph of any table: ``chunks(columns, integers)`` gives its rows as DataFrames of text
    (the ends as int64 when ``integers``); the columns are chosen on ``sample``, its first (line,
    fields); ``row(k)`` names a bad row; ``text``: a text file's head, whose comments may say the
    direction; ``has_header``: said by the format (JSON, Parquet) rather than guessed; ``strings``:
    the columns a typed table holds as strings, whose "1.0" is a name, not the id 1 written as a float."""
    if not sample:
        raise GraphFormatError(file, "no edges: only a header line")
    columns = choose_columns(layout, options, file, _sample(sample))
    integer_ids = integer_ids and all(len(f) > max(columns.source, columns.target) and _INTEGER.fullmatch(
        f[columns.source]) and _INTEGER.fullmatch(f[columns.target]) for _, f in sample)
    # the ambiguities to refuse: none the caller settled by naming columns, the format or the header
    guess = {"index": not columns.given, "adjlist": not columns.given and options.format is None,
             "first_line": not columns.given and has_header is None}
    table = _Edges(layout, columns, file, sample, row, guess,
                   floats_are_ids=not {columns.source, columns.target} & strings)
    directed, why = _direction(options, layout, sample, text, table.type_at)
    try:
        graph = table.graph(chunks(columns, integer_ids), directed, integer_ids)
    except (ValueError, OverflowError) as err:
        if not integer_ids or isinstance(err, GraphFormatError):
            raise
        graph = table.graph(chunks(columns, False), directed, False)  # text after all: as text
    if not options.directed and {"directed", "undirected"} <= table.kinds:
        raise GraphFormatError(file, "its Type column has both Directed and Undirected edges (Gephi's mixed "
                                     "graph): --directed reads every edge as directed, as written")
    return graph, _report(graph, sample, layout, columns, directed, why, table.notes)


class _Edges:
    """Builds the graph from a table's chunks, checked column-wise; :meth:`refuse` names a bad row."""

    def __init__(self, layout: Layout, columns: Columns, file: str, sample: list[tuple[int, list[str]]],
                 row: RowAt, guess: dict[str, bool], floats_are_ids: bool = True):
        self.layout, self.columns, self.file, self.sample, self.row, self.guess = \
            layout, columns, file, sample, row, guess
        self.width = len(layout.header) if layout.header is not None else layout.width
        self.positional = layout.header is None and not columns.given and not layout.konect
        self.notes: list[str] = []
        keys = [header_key(h) for h in layout.header or ()]
        self.type_at = keys.index("type") if "type" in keys else None  # Gephi's Directed/Undirected
        self.kinds: set[str] = set()  # the values seen in it
        self.floats_are_ids = floats_are_ids  # "1.0" beside "1" is one node (a float column of ids)

    def graph(self, chunks: Iterable[Any], directed: bool, integers: bool) -> Graph:
        import pandas as pd

        if self.positional and not 2 <= self.width <= 3:  # refused whatever the rows hold: before pandas
            self.refuse(0)  # reads them (a million columns take it minutes)
        if self.width > MAX_COLUMNS:
            raise GraphFormatError(self.file, f"{self.width:,} columns: an edge table holds a source, a "
                                              f"target and a few more (over {MAX_COLUMNS:,} are not read)"
                                              + MATRIX_HINT, self.layout.header_line or self.sample[0][0])
        names: dict[str, int] = {}
        parts: list[list[np.ndarray]] = [[], [], []]
        done = 0
        try:
            for chunk in chunks:
                ends, weight = self.chunk(chunk, done)
                if integers and any(e.dtype.kind not in "iu" for e in ends):
                    raise ValueError("text ids after all")
                if not integers:
                    ends = _text_codes(ends[0], ends[1], names)
                for part, array in zip(parts, ends if weight is None else [*ends, weight]):
                    part.append(array)
                done += len(chunk)
                del chunk, ends
        except pd.errors.ParserError as err:
            self.refuse(done, first_line(err))
        except pd.errors.EmptyDataError:
            parts[0].clear()
        except UnicodeDecodeError:
            self.row(0)  # decodes the whole text: its one-line error names the line
            raise
        if not parts[0]:
            raise GraphFormatError(self.file, "no edges: only a header line")
        src, dst = _joined(parts[0]), _joined(parts[1])
        weights = _joined(parts[2]) if parts[2] else None
        if integers:
            nodes = sorted_unique(np.concatenate([src, dst]))  # numerically, as node_order does
            self.refuse_ambiguous(src, dst, weights)
            self.refuse_times(weights)
            src, dst = _ranks(nodes, src), _ranks(nodes, dst)
            node_names = nodes.astype(str).tolist()
        else:
            node_names = list(names)
            integral = all(_INTEGER.fullmatch(name) for name in node_names)
            whole = None if integral or not self.floats_are_ids else _whole_floats(node_names, self.file)
            if integral:  # "007": integers as text
                node_names, src, dst = _integer_order(node_names, src, dst)
            elif whole is not None:
                nodes, codes = np.unique(whole, return_inverse=True)
                node_names, src, dst = nodes.astype(str).tolist(), codes[src], codes[dst]
                self.notes.append("ids written as floats (as np.savetxt writes them) read as integers")
            if integral or whole is not None:
                values = _integers([int(name) for name in node_names])
                self.refuse_ambiguous(values[src], values[dst], weights)
            self.refuse_times(weights)
            self.refuse_lone_first(node_names, src, dst)
        if not directed and weights is not None:
            src, dst, weights = self.each_edge_once(src, dst, weights)
        return normalise(node_names, src, dst, weights, directed, self.columns.weight is not None, self.file,
                         self.layout.header_line is not None)

    def each_edge_once(self, src: np.ndarray, dst: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, ...]:
        """Rows that give every edge both ways with one weight (networkit's bothDirections, SNAP's
        SaveMatlabSparseMtx, MATLAB's find of a symmetric matrix) as each edge once: summed as
        duplicates, every weight would double. Any other rows as they are."""
        if np.count_nonzero(src < dst) != np.count_nonzero(src > dst):  # cheap: most tables stop here
            return src, dst, weights
        n = int(max(src.max(), dst.max())) + 1
        forward = np.lexsort((weights, src * n + dst))
        backward = np.lexsort((weights, dst * n + src))
        if not (np.array_equal((src * n + dst)[forward], (dst * n + src)[backward])
                and np.array_equal(weights[forward], weights[backward])):
            return src, dst, weights
        self.notes.append("every edge given both ways with one weight: read once")
        keep = src <= dst
        return src[keep], dst[keep], weights[keep]

    def chunk(self, chunk: Any, first: int) -> tuple[list[np.ndarray], np.ndarray | None]:
        """A chunk's ends (text stripped, or int64) and weights, or the first bad row refused."""
        c, extra = self.columns, chunk.shape[1] - self.width
        if extra > 0 and all((chunk[k] == "").all() for k in range(self.width, chunk.shape[1])):
            chunk = chunk.iloc[:, :self.width]  # a spreadsheet's empty trailing columns
        if chunk.shape[1] != self.width or max(c.source, c.target) >= self.width or (
                self.positional and not 2 <= self.width <= 3):
            self.refuse(first)
        if self.type_at is not None:
            self.kinds.update(chunk[self.type_at].astype(str).str.strip().str.lower().unique())
        ends = [self.text(chunk[k]) for k in (c.source, c.target)]
        if any(e.dtype == object and (e == "").any() for e in ends):
            self.refuse(first)
        if c.weight is None:
            return ends, None
        values = _floats(chunk[c.weight], self.layout.separator)
        if not np.all((values > 0) & (values <= FLOAT32_MAX)):  # NaN fails too
            self.refuse(first)
        return ends, values

    def text(self, column: Any) -> np.ndarray:
        """A column of ends: int64 as read, text without surrounding blanks."""
        if column.dtype.kind in "iu":
            return column.to_numpy()
        return (column.str.strip() if self.layout.separator is not None else column).to_numpy(object)

    def refuse(self, first: int, fallback: str = "a row pandas could not read") -> None:
        """Raises the one-line error of the first bad row from data row ``first`` on."""
        for weights in (False, True):  # every row's shape before any weight, as people fix files
            k = first
            while (found := self.row(k)) is not None:
                self.check(*found, weights)
                k += 1
        if unclosed := re.search(r"EOF inside string starting at row (\d+)", fallback):  # pandas counts
            skip = self.layout.header_line or self.sample[0][0] - 1  # from 0 after the lines it skipped
            raise GraphFormatError(self.file, 'a quote (") opens a field and no quote closes it before the '
                                              "file ends", skip + int(unclosed[1]) + 1)
        raise GraphFormatError(self.file, fallback)

    def check(self, number: int, fields: list[str], weights: bool) -> None:
        """One row's checks: its field count and its ends, or its weight."""
        c, width, header = self.columns, self.width, self.layout.header is not None
        while len(fields) > max(width, 2) and fields[-1] == "" and self.layout.separator in (",", ";", "\t"):
            fields = fields[:-1]  # a spreadsheet's empty trailing columns
        if self.positional or width <= max(c.source, c.target):  # a KONECT file of one field a row too
            if len(fields) < 2:
                konect = self.layout.konect and \
                    f" (a KONECT file, by its '% {self.layout.konect[0]}' line: blanks separate its fields)"
                raise GraphFormatError(self.file, f"only {len(fields)} column; expected 'source target "
                                                  "[weight]'" + (konect or ADJLIST_HINT), number)
            if len(fields) > 3:
                square = all(is_decimal(field) or field == "" for field in fields)
                hint = WIDE_HINT + (MATRIX_HINT if square else "") if len(fields) == width else ""
                raise GraphFormatError(self.file, f"{len(fields)} columns; expected 'source target [weight]'"
                                                  f"{hint}", number)
        if len(fields) != width:
            where = f"the header (line {self.layout.header_line})" if header else f"line {self.sample[0][0]}"
            hint = ADJLIST_HINT if self.positional else ""
            raise GraphFormatError(self.file, f"{len(fields)} columns, but {where} has {width} (ragged rows)"
                                              f"{hint}", number)
        if fields[c.source] == "" or fields[c.target] == "":
            raise GraphFormatError(self.file, "empty node id", number)
        if c.weight is None or not weights:
            return
        token = fields[c.weight]
        comma = _DECIMAL_COMMA.fullmatch(token)  # 2,5 in a French sheet
        decimal = comma and self.layout.separator in DECIMAL_COMMA_SEPARATORS
        problem = weight_problem(token.replace(",", ".") if decimal else token)
        if problem is None:
            return
        text = self.positional and token and not is_number(token)  # a third column of text: what is it?
        hint = COMMA_HINT if comma and not decimal else WIDE_HINT if text else NO_WEIGHT_HINT
        if text and token in {name for fields in _sample(self.sample) for name in fields[:2]}:
            hint += ADJLIST_WAY  # a node's name where a weight would be: Gephi's CSV adjacency list
        if self.positional and self.layout.separator in ("\t", None) and not is_number(token) and not any(
                len(f) > 1 and is_number(f[1]) for f in _sample(self.sample)):
            hint += SIF_HINT  # a small SIF file is not told from a table by its content
        raise GraphFormatError(self.file, problem + hint, number)

    def refuse_ambiguous(self, first: np.ndarray, second: np.ndarray, weights: np.ndarray | None) -> None:
        """Integer ids and a third integer column without a header: a row index or an adjacency
        list's neighbors? refused, saying why."""
        if not (self.positional and self.width == 3) or weights is None or (weights % 1).any():
            return
        m, third = len(first), weights.astype(np.int64)
        if self.guess["index"] and m >= 2 and first[0] in (0, 1) and (np.diff(first) == 1).all():
            raise GraphFormatError(self.file, (
                f"3 integer columns and column 0 counts the rows ({first[0]}, {first[0] + 1}, …, "
                f"{first[-1]}): a row index (as pandas' to_csv writes) or the source nodes? say --source 1 "
                "--target 2 for an index, or --source 0 --target 1 --weight 2 for an edge list with weights "
                "(library: source=, target=, weight=)"))
        if self.guess["adjlist"] and m >= 2 and len(np.unique(first)) == m and np.isin(
                np.concatenate([second, third]), first).all():  # each node first on exactly one line
            raise GraphFormatError(self.file, (
                "3 integer columns, each node first on exactly one line and every value a node: an edge list "
                "with weights, or an adjacency list (two neighbors per node)? say --format adjlist, or "
                "--weight 2 for an edge list with weights (library: format=, weight=)"))

    def refuse_times(self, weights: np.ndarray | None) -> None:
        """A headerless third column of Unix times is not taken as weights (SNAP's CollegeMsg)."""
        if self.positional and self.width == 3 and weights is not None and (times := _unix_times(weights)):
            raise GraphFormatError(self.file, times)

    def refuse_lone_first(self, names: list[str], src: np.ndarray, dst: np.ndarray) -> None:
        """A first line of two words that appear on no other line (``person,friend``) is a header
        or an edge alone: refused (a whitespace list's header is a comment, so not there)."""
        if not (self.positional and self.guess.get("first_line", True) and self.layout.separator is not None):
            return
        first, second = names[src[0]], names[dst[0]]
        counts = (int(np.count_nonzero(src == src[0]) + np.count_nonzero(dst == src[0])),
                  int(np.count_nonzero(src == dst[0]) + np.count_nonzero(dst == dst[0])))
        if counts != (1, 1) or is_number(first) or is_number(second):
            return
        raise GraphFormatError(self.file, f"the first line ({first}{self.layout.separator}{second}) is a "
                                          f"header or an edge? neither name appears on another line. say "
                                          f"--source {_shell(first)} --target {_shell(second)} to read it as "
                                          "the header, or --source 0 --target 1 to read it as an edge "
                                          "(library: source=, target=)", self.sample[0][0])


def _floats(column: Any, separator: str | None) -> np.ndarray:
    """A column of weights as numbers (NaN where one is not): a decimal comma read as a point
    where the separator is ";" or a tab (spreadsheets in comma-decimal locales)."""
    import pandas as pd

    texts = column.astype(str).str.strip()
    if separator in DECIMAL_COMMA_SEPARATORS:
        texts = texts.str.replace(f"^{_DECIMAL_COMMA.pattern}$", r"\1.\2", regex=True)
    return pd.to_numeric(texts, errors="coerce").to_numpy(np.float64, na_value=np.nan)


def _whole_floats(names: list[str], file: str) -> np.ndarray | None:
    """The integers that names written as floats stand for ("1.0", "2.000000e+00"; beside integers,
    as pandas writes a float column of ids next to an int one), or None when a name is not a whole
    number; a float past 2**53 (whose digits were lost when written) is refused."""
    if not all(_FLOAT.fullmatch(name) or _INTEGER.fullmatch(name) for name in names):
        return None
    floats = [name for name in names if not _INTEGER.fullmatch(name)]
    values = np.array(floats, dtype=np.float64)
    if not np.all(values == np.floor(values)):
        return None
    if (lost := np.flatnonzero(np.abs(values) >= 2**53)).size:
        raise GraphFormatError(file, f"id {floats[lost[0]]} is a float past 2**53, whose digits were lost "
                                     "when written: write the ids as integers (pandas: astype('Int64'))")
    return _integers([int(name) if _INTEGER.fullmatch(name) else int(float(name)) for name in names])


def _integers(values: list[int]) -> np.ndarray:
    """Python ints as int64, or as objects past it: numpy makes float64 of [0, 2**63], losing digits."""
    exact = np.array(values, dtype=object)
    try:
        return exact.astype(np.int64)
    except OverflowError:
        return exact


def _integer_order(names: list[str], src: np.ndarray, dst: np.ndarray
                   ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names numbered in first-seen order, renumbered numerically when every one is an integer
    (as node_order orders them)."""
    order = sorted(range(len(names)), key=lambda i: int(names[i]))
    new = np.empty(len(names), dtype=src.dtype)
    new[order] = np.arange(len(names), dtype=src.dtype)
    return [names[i] for i in order], new[src], new[dst]


def table_rows(text: str) -> list[tuple[int, str]]:
    """(line, text) of a table's data lines: Excel's ``sep=;`` first line left out (sniffing finds
    the separator it names), a spreadsheet's empty trailing columns (``a,b,3,,``) trimmed, only when
    every row ends with one, so that a row missing its last field is still named."""
    rows = data_lines(text)
    rows = rows[1:] if rows and _SEPARATOR_LINE.fullmatch(rows[0][1]) else rows
    for sep in (",", ";", "\t"):
        if rows and all(line.endswith(sep) for _, line in rows):
            return [(number, line.rstrip(sep + " ")) for number, line in rows]
    return rows


def first_rows(raw: bytes) -> tuple[tuple[str, ...] | None, tuple[str, ...]] | None:
    """(header or None, the first data row's fields) as :func:`read_table` lays the table out;
    None for no rows, text that is not UTF-8, or networkx's attribute-dict lines."""
    head = _head(raw)
    rows = table_rows(head) if head is not None else []
    if not rows or _dict_row(rows[0][1]) is not None:
        return None
    layout = sniff_layout(rows, konect_header(head or ""))
    split = split_rows([text for _, text in rows[:2]], layout.separator)
    return layout.header, tuple(split[1 if layout.header is not None and len(split) > 1 else 0])


def _head(raw: bytes) -> str | None:
    """The whole lines in the first 64 kB as text; None when they are not UTF-8."""
    cut = raw[:HEAD_BYTES]
    if len(raw) > HEAD_BYTES:
        cut = cut[:cut.rfind(b"\n") + 1]
    try:
        return cut.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _sample(body: list[tuple[int, list[str]]]) -> list[list[str]]:
    """The fields of the first data rows, on which columns are chosen."""
    return [fields for _, fields in body[:HEAD_ROWS]]


def _direction(options: ReadOptions, layout: Layout, body: list[tuple[int, list[str]]],
               text: str, type_at: int | None) -> tuple[bool, str]:
    if options.directed:
        return True, "as asked"
    if layout.konect and layout.konect[0] == "asym":
        return True, "the KONECT header says asym"
    first_data = layout.header_line or (body[0][0] if body else 0)
    for line in text.splitlines()[:max(first_data - 1, 0)]:  # the comment lines before the data
        found = SNAP_DIRECTION.match(line.strip())
        if found:
            directed = found.group(1).lower() == "directed"
            return directed, "the header comment says Directed graph" if directed else ""
    kinds = {r[type_at].lower() for r in _sample(body) if len(r) > type_at} if type_at is not None else set()
    if kinds == {"directed"}:  # Gephi's edge table: Type is Directed or Undirected on every row
        return True, "its Type column says Directed"
    return False, ""


def _report(graph: Graph, body: list[tuple[int, list[str]]], layout: Layout, columns: Columns,
            directed: bool, why: str, extra: list[str]) -> ReadReport:
    header = layout.header
    name = (lambda i: repr(header[i]) if header[i] else "(unnamed)") if header is not None else \
        (lambda i: f"column {i}")
    shown = [fields for _, fields in body[:FIRST_ROWS]]
    wanted = [columns.source, columns.target] + ([columns.weight] if columns.weight is not None else [])
    notes = list(extra)
    if layout.konect:
        notes.append(f"KONECT header: {' '.join(layout.konect)}")
    if layout.separator in DECIMAL_COMMA_SEPARATORS and columns.weight is not None and any(
            "," in f[columns.weight] for _, f in body if len(f) > columns.weight):
        notes.append("weights with a decimal comma (2,5) read as 2.5")
    if columns.weight_guessed:
        notes.append(f"{name(columns.weight)} read as the weight: a number on every row "
                     "(--weight none leaves it out)")
    return ReadReport(
        format="edgelist", edges=graph.report.input_edges if graph.report else graph.num_edges,
        directed=directed, directed_why=why, separator=SEPARATORS[layout.separator],
        header=header,
        source=name(columns.source), target=name(columns.target),
        weight=name(columns.weight) if columns.weight is not None else None,
        index_column=None if columns.index is None else header[columns.index] if header is not None else "",
        ignored=tuple(name(i) for i in columns.ignored),
        positions=(columns.source, columns.target, columns.weight),
        rows=tuple(tuple(r[i] if i < len(r) else "" for i in wanted) for r in shown),
        notes=tuple(notes),
    )


def _unix_times(third: np.ndarray) -> str | None:
    """Why a headerless third column of only integer Unix times is not the weights, or None."""
    if len(third) == 0:
        return None
    low, high = float(third.min()), float(third.max())
    if not any(lo <= low and high < hi for lo, hi in (UNIX_SECONDS, UNIX_MILLISECONDS)):
        return None
    if not (third == np.floor(third)).all():
        return None
    return (f"column 2 holds integers from {low:.0f} to {high:.0f}: Unix times rather than weights? say "
            "--weight none to leave it out, or --weight 2 to read it as weights (library: weight=)")


def _shell(word: str) -> str:
    return word if re.fullmatch(r"[\w.-]+", word) else "'" + word.replace("'", "'\\''") + "'"


# --------------------------------------------------------------------------- networkx's write_edgelist


def _dict_row(text: str) -> tuple[str, str] | None:
    """(ends, attributes) of a ``u v {'weight': 2}`` line, None for any other line."""
    at = text.find("{")
    if at <= 0 or not text.endswith("}"):
        return None
    return text[:at].strip().rstrip(",;|").strip(), text[at:]  # "0,1,{...}": write_edgelist(delimiter=",")


def _read_dict_rows(rows: list[tuple[int, str]], file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """networkx's ``write_edgelist`` with data (``u v {'weight': 4, 'color': 'red'}`` per line), read
    by ``nx.parse_edgelist`` (``ast.literal_eval``, never ``eval``) a line at a time: errors name it."""
    import networkx as nx

    sep = sniff_separator([e[0] for e in map(_dict_row, (text for _, text in rows[:HEAD_ROWS])) if e])
    wanted = options.weight_attribute
    heads, tails, weights, keys = [], [], [], {}
    for number, text in rows:
        if _dict_row(text) is None:
            raise GraphFormatError(file, "expected 'source target {attributes}' as on the lines above "
                                         "(networkx's write_edgelist)", number)
        if len(text) > MAX_ATTRIBUTES_CHARS:
            raise GraphFormatError(file, f"edge attributes longer than {MAX_ATTRIBUTES_CHARS:,} characters",
                                   number)
        try:
            [(u, v, attrs)] = nx.parse_edgelist([text], comments=None, delimiter=sep,
                                                create_using=nx.MultiDiGraph).edges(data=True)
        except (TypeError, ValueError):
            ends, attributes = _dict_row(text) or ("", "")
            fields = len(ends.split(sep))
            if fields > 2:
                raise GraphFormatError(file, f"{fields} fields before the edge's attributes, not 'source "
                                             "target': networkx writes a name holding the delimiter as it is "
                                             "(write it with a delimiter= no name holds)", number) from None
            raise GraphFormatError(file, f"edge attributes {attributes[:40]!r} are not a Python dict literal "
                                         "after 'source target'", number) from None
        if "" in (u, v):
            raise GraphFormatError(file, "empty node id", number)
        keys.update(dict.fromkeys(map(str, attrs)))
        value = attrs.get(wanted) if wanted else None
        weights.append(None if value is None else parse_weight(str(value), file, number))
        heads.append(u)
        tails.append(v)
    weighted = any(w is not None for w in weights)
    graph = build_graph(heads, tails, [1.0 if w is None else w for w in weights] if weighted else None,
                        options.directed, weighted, file, False)
    report = ReadReport(
        format="edgelist", edges=len(heads), directed=options.directed,
        directed_why="as asked" if options.directed else "", separator=SEPARATORS[sep],
        source="column 0", target="column 1", weight=f"attribute {wanted!r}" if weighted else None,
        ignored=tuple(f"attribute {k!r}" for k in keys if k != wanted),
        rows=tuple((h, t) + ((f"{w or 1:g}",) if weighted else ()) for h, t, w in
                   list(zip(heads, tails, weights))[:FIRST_ROWS]),
        notes=("networkx edge list with attribute dicts",),
    )
    return graph, report


def _not_canonical(raw: bytes) -> bool:
    """Whether an id may be "007", "+7" or "-0" (a "+" or "-0" anywhere says maybe)."""
    return b"+" in raw or b"-0" in raw or _LEADING_ZERO.search(b" " + raw[:64]) is not None or \
        _LEADING_ZERO.search(raw) is not None


def _text_codes(src_ids: np.ndarray, dst_ids: np.ndarray, names: dict[str, int]) -> list[np.ndarray]:
    """One chunk's text ids as node indices (int32), new names numbered in ``names`` in first-seen
    order over s0, t0, s1, t1, ...; one chunk's strings alive at a time (all of them took 15-22x the
    file's size)."""
    import pandas as pd

    interleaved = np.empty(2 * len(src_ids), dtype=object)  # s0, t0, s1, t1: first-seen order
    interleaved[0::2], interleaved[1::2] = src_ids, dst_ids
    codes, uniques = pd.factorize(interleaved, sort=False)  # first-seen order within the chunk
    del interleaved
    # len(names) is read before each insertion: a new name takes the next index
    index = np.fromiter((names.setdefault(u, len(names)) for u in uniques), np.int64, len(uniques))
    coded = index[codes].astype(np.int32 if len(names) < 2**31 else np.int64)
    return [coded[0::2].copy(), coded[1::2].copy()]


# Loading memory (issue "Training at scale": at most 10x the file): the helpers below keep one
# copy of each column alive at a time, sort in place, and index nodes with int32 where they fit.

def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """The chunks as one array, each chunk released as soon as it is copied."""
    out = np.empty(sum(len(c) for c in chunks), chunks[0].dtype)
    at = 0
    while chunks:
        c = chunks.pop(0)
        out[at:at + len(c)] = c
        at += len(c)
    return out


def _ranks(nodes: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Index of each id in the sorted ``nodes``: int32 when the nodes fit."""
    ranks = np.searchsorted(nodes, ids)
    return ranks.astype(np.int32) if len(nodes) < 2**31 else ranks
