"""UCINET DL files (``.dl``; Gephi exports them): ``fullmatrix`` (with or without its diagonal),
``lowerhalf``, ``upperhalf``, ``edgelist1`` and ``nodelist1``, labelled or not (docs/formats.md).
Parsed here: igraph's ``Read_DL`` (1.0) refuses Gephi's files (``n =`` on a line after ``dl``) and
names no line for a node outside 1..n.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from typing import NamedTuple

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import FLOAT32_MAX, Graph, declared_nodes, decode, is_zero, normalise, parse_weight, tie_direction

LISTS = ("edgelist1", "nodelist1")
HALVES = ("lowerhalf", "upperhalf")  # one triangle of a symmetric matrix
FORMATS = ("fullmatrix",) + HALVES + LISTS
# whose labels a "... labels" statement gives (UCINET's level labels name matrices too)
WHOSE = {"row": ("row",), "col": ("column",), "column": ("column",), "matrix": ("matrix",),
         "level": ("matrix",)}
SETTINGS = ("n", "nm", "nr", "nc", "format", "diagonal")
_HEAD = re.compile(r"\s*dl\b[^\n]*?(?:\n[^\n]*?){0,20}?\bn[rcm]?\s*=", re.IGNORECASE)
_HEAD_TOKEN = re.compile(r'"([^"]*)"|[^\s,=:"]+|[=:]|"')
_DATA_TOKEN = re.compile(r'"([^"]*)"|[^\s,"]+|"')

Token = tuple[int, str, bool]  # (line number, text, quoted)


def looks_dl(head: str) -> bool:
    """The first word is ``dl`` (any case) and ``n =`` (or ``nr``/``nc``/``nm =``) follows."""
    return _HEAD.match(head) is not None


def read_dl(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("UCINET DL", file)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, "a DL file's values are its weights: weight none reads it unweighted, "
                                     "no other column can be chosen")
    header, data = _split_header(decode(raw, file).splitlines(), file)
    head = _settings(header, file, len(raw))
    signed = options.weight == NO_WEIGHT  # any value but 0 is a tie
    read = _lists if head.fmt in LISTS else _matrix
    names, src, dst, values, rows, notes = read(data, head, file, signed)
    if len(src) == 0:
        raise GraphFormatError(file, "a DL file without ties (every value 0, or no data)")
    valued = bool(np.any(values != 1))
    weight = values if valued and not signed else None
    if head.fmt not in HALVES:  # directed unless each tie has its mirror
        directed, why, more, keep = tie_direction(names, src, dst, weight, options.directed)
        src, dst, weight = src[keep], dst[keep], None if weight is None else weight[keep]
    elif options.directed:  # half a symmetric matrix: each tie both ways
        directed, why, more = True, "as asked", ()
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        weight = None if weight is None else np.concatenate([weight, weight])
    else:
        directed, why, more = False, f"{head.fmt}: half a symmetric matrix", ()
    graph = normalise(names, src, dst, weight, directed, weight is not None, file)
    absent = ", diagonal absent" if head.absent and head.fmt not in LISTS else ""
    report = ReadReport(format="dl", edges=len(src), directed=directed, directed_why=why,
                        weight=None if weight is None else f"the {head.fmt} values",
                        ignored=("the values (weight none)",) if signed and valued else (),
                        rows=rows if weight is not None else tuple(row[:2] for row in rows),
                        notes=(f"n = {head.n:,}, format = {head.fmt}{absent}",) + head.notes + notes + more)
    return graph, report


# --------------------------------------------------------------------------- header


def _split_header(lines: list[str], file: str) -> tuple[list[Token], list[tuple[int, str]]]:
    """(the header's tokens, the data's lines and their numbers): the data starts after ``data:``."""
    header: list[Token] = []
    for number, line in enumerate(lines, start=1):
        for text, quoted, end in quoted_tokens(_HEAD_TOKEN, line, number, file):
            last = header[-1] if header else (0, "", True)
            if (text, quoted, last[1].lower(), last[2]) == (":", False, "data", False):
                header.pop()
                return header, [(number, line[end:])] + list(enumerate(lines[number:], start=number + 1))
            header.append((number, text, quoted))
    raise GraphFormatError(file, "a DL file without a 'data:' line", len(lines))


def quoted_tokens(pattern: re.Pattern, line: str, number: int, file: str,
                  what: str = "label") -> list[tuple[str, bool, int]]:
    """(text, quoted, end) of the pattern's matches in the line (group 1: a double-quoted word's
    text); an unclosed quote (a lone ``"``) is an error. VNA's values are split here too."""
    tokens = []
    for match in pattern.finditer(line):
        if match[0] == '"':
            raise GraphFormatError(file, f"a {what} opened with \" is not closed: "
                                         f"{line[match.start():][:40]!r}", number)
        tokens.append((match[0] if match[1] is None else match[1], match[1] is not None, match.end()))
    return tokens


def _words(line: str, number: int, file: str) -> list[str]:
    """A data line's words (separated by blanks or commas; a double-quoted one may hold either)."""
    if '"' not in line:
        return line.replace(",", " ").split()
    return [text for text, _, _ in quoted_tokens(_DATA_TOKEN, line, number, file)]


class Header(NamedTuple):
    n: int
    fmt: str
    absent: bool  # diagonal = absent: a matrix without its diagonal cells
    names: list[str] | None  # labels:, row labels:, column labels: (one-mode: one list)
    given: dict[str, tuple[int, list[str]]]  # "row"/"column" -> (line, labels) as the header lists them
    embedded: frozenset[str]  # "row", "column": labels written in the data
    notes: tuple[str, ...]


def _settings(tokens: list[Token], file: str, size: int) -> Header:
    """The header's settings (``n =``, ``format =``...) and label statements (``labels:``, ``row
    labels:``, ``column labels embedded``...; UCINET's keywords, any case), checked."""
    if not tokens or tokens[0][2] or tokens[0][1].lower() != "dl":
        raise GraphFormatError(file, "a UCINET DL file starts with 'dl'", tokens[0][0] if tokens else 1)
    settings = {"format": (0, "fullmatrix"), "diagonal": (0, "present"), "nm": (0, "1")}  # (line, value)
    given: dict[str, tuple[int, list[str]]] = {}
    embedded: dict[str, int] = {}  # side -> its statement's line
    i = 1
    while i < len(tokens):
        number, text, _ = tokens[i]
        after = tokens[i + 1][1].lower() if i + 1 < len(tokens) else None
        if after == "=":
            if i + 2 >= len(tokens):
                raise GraphFormatError(file, f"'{text} =' without a value", number)
            if text.lower() not in SETTINGS:
                raise GraphFormatError(file, f"unknown DL setting {text!r} (read: {', '.join(SETTINGS)})",
                                       number)
            settings[text.lower()] = (number, tokens[i + 2][1].lower())
            i += 3
        elif text.lower() == "diagonal" and after in ("present", "absent"):  # UCINET's own "DIAGONAL PRESENT"
            settings["diagonal"] = (number, after)
            i += 2
        elif (statement := _label_statement(tokens, i)) is None:
            raise GraphFormatError(file, f"unexpected {text[:40]!r} in the DL header (expected n =, "
                                         "format =, labels:, labels embedded or data:)", number)
        elif statement[2]:
            sides, i, _ = statement
            if sides == ("matrix",):
                raise GraphFormatError(file, "matrix labels embedded is not read", number)
            embedded.update(dict.fromkeys(sides, number))
        else:  # the labels run to the next statement
            sides, start, _ = statement
            i = start
            while i < len(tokens) and (tokens[i][2] or [t[1] for t in tokens[i + 1:i + 2]] != ["="]
                                       and _label_statement(tokens, i) is None):
                i += 1
            for side in sides:
                if side in given:
                    raise GraphFormatError(file, f"{side} labels listed twice (labels: lists the row and the "
                                                 "column labels)", number)
                given[side] = (tokens[start][0] if start < i else number, [t[1] for t in tokens[start:i]])
    for key in ("nr", "nc"):
        if key in settings:
            raise GraphFormatError(file, f"{key} = …: a two-mode (rectangular) DL file, not a graph's "
                                         "adjacency matrix", settings[key][0])
    if "n" not in settings:
        raise GraphFormatError(file, "the DL header has no 'n =' (the number of nodes)", tokens[0][0])
    number, value = settings["n"]
    if not value.isdecimal() or int(value) == 0:
        raise GraphFormatError(file, f"n must be a whole number of nodes, got {value!r}", number)
    n = declared_nodes(int(value), size, file, number, "the DL header")
    if settings["nm"][1] != "1":
        raise GraphFormatError(file, f"nm = {settings['nm'][1]}: several matrices in one DL file; keep the "
                                     "one to read", settings["nm"][0])
    line, matrix = given.pop("matrix", (0, []))
    if len(matrix) > 1:
        raise GraphFormatError(file, f"{len(matrix)} matrix labels: several matrices in one DL file; keep "
                                     "the one to read", line)
    line, fmt = settings["format"]
    if fmt not in FORMATS:
        two = " (a two-mode format: rows and columns are different nodes)" if fmt[-1:] == "2" else ""
        raise GraphFormatError(file, f"DL format {fmt!r} is not read{two} (read: {', '.join(FORMATS)})", line)
    line, diagonal = settings["diagonal"]
    if diagonal not in ("present", "absent"):
        raise GraphFormatError(file, f"diagonal = {diagonal!r}: present or absent", line)
    if fmt in LISTS and len(embedded) == 1:
        [(side, line)] = embedded.items()
        raise GraphFormatError(file, f"{side} labels embedded alone: an {fmt} file's labels are embedded on "
                                     "both sides (labels embedded)", line)
    for line, labels in given.values():
        if len(labels) != n:
            raise GraphFormatError(file, f"{len(labels):,} labels for n = {n:,} nodes", line)
        _unique(labels, file, line)
    names = _same_labels([(f"{side} labels", line, labels) for side, (line, labels) in given.items()], file)
    notes = tuple(f"matrix label {label!r} left out" for label in matrix)
    return Header(n, fmt, diagonal == "absent", names, given, frozenset(embedded), notes)


def _label_statement(tokens: list[Token], i: int) -> tuple[tuple[str, ...], int, bool] | None:
    """(whose labels, the token after the statement, embedded) of ``[row|column|matrix] labels
    embedded`` or ``...labels:`` at ``i``; None for anything else."""
    words = ["" if quoted else text.lower() for _, text, quoted in tokens[i:i + 4]] + [""] * 3
    skip = 0 if words[0] == "labels" else 1 if words[1] == "labels" and words[0] in WHOSE else None
    if skip is None or words[skip + 1] not in ("embedded", ":"):
        return None
    sides = WHOSE[words[0]] if skip else ("row", "column")
    if words[skip + 1] == ":":
        return sides, i + skip + 2, False
    return sides, i + skip + 2 + (words[skip + 2] == ":"), True


def _same_labels(lists: list[tuple[str, int, list[str]]], file: str) -> list[str] | None:
    """The one list of node labels that every list (the header's, the embedded ones) gives."""
    for what, line, labels in lists[1:]:
        k = next((k for k, (a, b) in enumerate(zip(lists[0][2], labels)) if a != b), None)
        if k is not None:
            raise GraphFormatError(file, f"node {k + 1} is labelled {lists[0][2][k]!r} by the {lists[0][0]}, "
                                         f"{labels[k]!r} by the {what}: a one-mode matrix (n =) has one "
                                         "label per node; a two-mode one (nr =, nc =) is not read", line)
    return lists[0][2] if lists else None


def _unique(labels: list[str], file: str, number: int | None) -> None:
    twice = next((label for label, count in Counter(labels).items() if count > 1), None)
    if twice is not None:
        raise GraphFormatError(file, f"label {twice!r} names two nodes", number)


# --------------------------------------------------------------------------- data


def _matrix(data: list[tuple[int, str]], head: Header, file: str, signed: bool):
    """A matrix's rows (each after its label, when row labels are embedded) after the column labels
    (when embedded): n values a row, n - 1 without the diagonal, a half matrix its triangle's."""
    n, fmt, absent = head.n, head.fmt, int(head.absent)
    cells = n * (n - absent) if fmt == "fullmatrix" else n * (n + 1) // 2 - absent * n
    # embedded labels, unless listed too and the data holds only the values (DNA's export says both)
    values = None if head.embedded and head.names is None else _parsed(data, cells, signed)
    names = head.names
    if values is None:  # labels in the data, a word or a wrong count: word by word, naming the line
        names, values = _cells(data, head, cells, file, signed)
    names = names or [str(i) for i in range(1, n + 1)]
    counts = _row_counts(head)  # only now: the data holds n²/2 values or more, n is not hostile
    found = np.flatnonzero(values)  # 0 is no tie
    src = np.repeat(np.arange(n), counts)[found]
    column = found - np.repeat(np.cumsum(counts) - counts, counts)[found]  # the cell's place in its row
    dst = column + {"fullmatrix": absent * (column >= src), "lowerhalf": 0, "upperhalf": src + absent}[fmt]
    rows = tuple((names[s], names[t], f"{values[k]:g}") for s, t, k in zip(src[:FIRST_ROWS], dst[:FIRST_ROWS],
                                                                           found[:FIRST_ROWS], strict=True))
    return names, src.astype(np.int64), dst.astype(np.int64), values[found], rows, ()


def _parsed(data: list[tuple[int, str]], cells: int, signed: bool) -> np.ndarray | None:
    """The cells parsed by numpy in C, without a Python string per cell (a 5,000-node matrix has 25
    million); None where the word path must name a line: a quote, a word, a wrong count, a bad value."""
    text = "\n".join(line for _, line in data).replace(",", " ")
    if '"' in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numpy < 2.3 warns at a word, returning what it read
            values = np.fromstring(text, sep=" ")
    except (ValueError, DeprecationWarning):
        return None
    good = np.isfinite(values) if signed else (values >= 0) & (values <= FLOAT32_MAX)
    return values if len(values) == cells and good.all() else None


def _row_counts(head: Header) -> np.ndarray:
    at, absent = np.arange(head.n), int(head.absent)
    return {"fullmatrix": np.full(head.n, head.n - absent), "lowerhalf": at + 1 - absent,
            "upperhalf": head.n - at - absent}[head.fmt]


def _cells(data: list[tuple[int, str]], head: Header, cells: int, file: str,
           signed: bool) -> tuple[list[str] | None, np.ndarray]:
    """(the labels, the cells' values) word by word: the labels in the data checked, the first bad
    count or value named with its line."""
    n = head.n
    words: list[str] = []
    numbers: list[int] = []
    for number, text in data:
        split = _words(text, number, file)
        words += split
        numbers += [number] * len(split)
    lead, labelled = n if "column" in head.embedded else 0, "row" in head.embedded
    need = lead + cells + (n if labelled else 0)
    if len(words) != need:
        what = [f"{n:,} × {n:,} values" if head.fmt == "fullmatrix" and not head.absent else
                f"{cells:,} values ({head.fmt}{', diagonal absent' if head.absent else ''})"]
        what += [f"{n:,} column labels first"] * bool(lead) + ["each row after its label"] * labelled
        short = " (a truncated file?)" if len(words) < need else ""
        line = numbers[need] if len(words) > need else numbers[-1] if numbers else None
        raise GraphFormatError(file, f"the matrix holds {len(words):,} entries, n = {n:,} needs {need:,}: "
                                     f"{', '.join(what)}{short}", line)
    starts = lead + np.concatenate([[0], np.cumsum(_row_counts(head) + labelled)[:-1]]).astype(np.int64)
    lists = [(f"{side} labels", line, labels) for side, (line, labels) in head.given.items()]
    if lead:
        _unique(words[:n], file, numbers[0])
        lists.append(("embedded column labels", numbers[0], words[:n]))
    if labelled:
        lists.append(("embedded row labels", numbers[int(starts[0])], [words[k] for k in starts]))
        _unique(lists[-1][2], file, lists[-1][1])
    names = _same_labels(lists, file)
    kept = np.setdiff1d(np.arange(lead, len(words)), starts if labelled else [])  # the cells, not the labels
    return names, _numbers([words[k] for k in kept], [numbers[k] for k in kept], file, signed)


def _numbers(words: list[str], lines: list[int], file: str, signed: bool = False) -> np.ndarray:
    """Values in one numpy parse: 0 (no tie) or weights (any number but 0 is a tie when ``signed``:
    weight none); the first bad one is named with its line."""
    try:
        values = np.asarray(words, dtype=np.float64)
        if np.all(np.isfinite(values) if signed else (values >= 0) & (values <= FLOAT32_MAX)):  # NaN fails
            return values
    except ValueError:
        pass
    for word, line in zip(words, lines, strict=True):
        if signed and not _finite(word):
            raise GraphFormatError(file, f"value {word[:40]!r} is not a number", line)
        if not signed and not is_zero(word):
            parse_weight(word, file, line, words_skipped=False)  # a word stops the read, whatever the weight
    return np.array([0.0 if is_zero(word) else float(word) for word in words], dtype=np.float64)


def _finite(word: str) -> bool:
    try:
        return math.isfinite(float(word))
    except ValueError:
        return False


def _lists(data: list[tuple[int, str]], head: Header, file: str, signed: bool):
    """edgelist1 (``from to [value]`` a line) or nodelist1 (``ego alter alter …`` a line)."""
    n, edges, labels, embedded = head.n, head.fmt == "edgelist1", head.names, bool(head.embedded)
    names: list[str] = list(labels) if labels is not None else [] if embedded else \
        [str(i) for i in range(1, n + 1)]
    index = {name: i for i, name in enumerate(names)}

    def node(word: str, number: int) -> int:
        """A label when embedded (a new one is the next node), else a number 1..n."""
        if not embedded:
            if not word.isdecimal() or not 1 <= int(word) <= n:
                raise GraphFormatError(file, f"node {word[:40]!r} is not a number in 1..{n:,} (labels "
                                             "embedded names nodes by label)", number)
            return int(word) - 1
        if word not in index:
            if labels is not None:
                raise GraphFormatError(file, f"{word[:40]!r} is not one of the labels", number)
            if len(names) == n:
                raise GraphFormatError(file, f"label {word[:40]!r} is node {n + 1:,}, n = {n:,}", number)
            index[word] = len(names)
            names.append(word)
        return index[word]

    src: list[int] = []
    dst: list[int] = []
    given: list[str] = []  # edgelist1's values, as written ("1" where none is)
    lines: list[int] = []
    for number, words in ((number, words) for number, text in data if (words := _words(text, number, file))):
        if edges and not 2 <= len(words) <= 3:
            raise GraphFormatError(file, f"an edgelist1 line is 'from to [value]', got {len(words)} values",
                                   number)
        ego, *alters = [node(word, number) for word in (words[:2] if edges else words)]
        src += [ego] * len(alters)
        dst += alters
        given += (words[2:] or ["1"]) if edges else ["1"] * len(alters)
        lines += [number] * len(alters)
    values = _numbers(given, lines, file, signed)
    ties = values != 0  # an edge list's value 0 is no tie
    notes: tuple[str, ...] = ()
    if not ties.all():
        notes += (f"{int((~ties).sum()):,} lines with value 0 (no tie) skipped",)
    if len(names) < n:
        notes += (f"n = {n:,}, {len(names):,} nodes named in the data: the {n - len(names):,} without ties "
                  "have no label and are left out",)
    rows = tuple((names[src[k]], names[dst[k]]) + (given[k],) * edges
                 for k in np.flatnonzero(ties)[:FIRST_ROWS])
    src_a, dst_a = np.asarray(src, dtype=np.int64)[ties], np.asarray(dst, dtype=np.int64)[ties]
    return names, src_a, dst_a, values[ties], rows, notes
