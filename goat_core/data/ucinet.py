"""UCINET DL files (``.dl``; Gephi exports them): ``fullmatrix``, ``edgelist1`` and ``nodelist1``,
labelled or not (docs/formats.md). Parsed here: igraph's ``Read_DL`` (1.0) refuses Gephi's files
(``n =`` on a line after ``dl``) and names no line for a node outside 1..n.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import FLOAT32_MAX, MAX_NODES, Graph, decode, is_zero, normalise, parse_weight, tie_direction

FORMATS = ("fullmatrix", "edgelist1", "nodelist1")
SETTINGS = ("n", "nm", "nr", "nc", "format", "diagonal")
_HEAD = re.compile(r"\s*dl\b[^\n]*?(?:\n[^\n]*?){0,20}?\bn[rcm]?\s*=", re.IGNORECASE)
_HEAD_TOKEN = re.compile(r'"([^"]*)"|[^\s,=:"]+|[=:]|"')
_DATA_TOKEN = re.compile(r'"([^"]*)"|[^\s,"]+|"')

Token = tuple[int, str, bool]  # (line number, text, quoted)


def looks_dl(head: str) -> bool:
    """The first word is ``dl`` (any case) and ``n =`` (or ``nr``/``nc``/``nm =``) follows within
    the next lines."""
    return _HEAD.match(head) is not None


def read_dl(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    options.refuse_columns("UCINET DL", file)
    if options.weight not in (None, NO_WEIGHT):
        raise GraphFormatError(file, "a DL file's values are its weights: weight none reads it unweighted, "
                                     "no other column can be chosen")
    lines = decode(raw, file).splitlines()
    header, data = _split_header(lines, file)
    n, fmt, labels, embedded = _settings(header, file)
    if fmt == "fullmatrix":
        names, src, dst, values, rows = _full_matrix(data, n, labels, embedded, file)
        notes: tuple[str, ...] = ()
    else:
        names, src, dst, values, rows, notes = _lists(data, n, fmt, labels, embedded, file)
    if len(src) == 0:
        raise GraphFormatError(file, "a DL file without ties (every value 0, or no data)")
    weighted = bool(np.any(values != 1)) and options.weight != NO_WEIGHT
    weight = values if weighted else None
    directed, why, more, keep = tie_direction(names, src, dst, weight, options.directed)
    graph = normalise(names, src[keep], dst[keep], weight[keep] if weight is not None else None, directed,
                      weighted, file)
    rows = rows if weighted else tuple(row[:2] for row in rows)
    ignored = ("the values (weight none)",) if options.weight == NO_WEIGHT and np.any(values != 1) else ()
    report = ReadReport(format="dl", edges=len(src), directed=directed, directed_why=why,
                        weight=f"the {fmt} values" if weighted else None, ignored=ignored, rows=rows,
                        notes=(f"n = {n:,}, format = {fmt}",) + notes + more)
    return graph, report


# --------------------------------------------------------------------------- header


def _split_header(lines: list[str], file: str) -> tuple[list[Token], list[tuple[int, list[str]]]]:
    """(the header's tokens, the data's lines as words): the data starts after ``data:``."""
    header: list[Token] = []
    for number, line in enumerate(lines, start=1):
        for match in _tokens(_HEAD_TOKEN, line, number, file):
            quoted = match.group(1) is not None
            text = match.group(1) if quoted else match.group(0)
            if not quoted and text == ":" and header and header[-1][1].lower() == "data" \
                    and not header[-1][2]:
                header.pop()
                rest = [(number, line[match.end():])] + list(enumerate(lines[number:], start=number + 1))
                return header, [(n, words) for n, text in rest if (words := _words(text, n, file))]
            header.append((number, text, quoted))
    raise GraphFormatError(file, "a DL file without a 'data:' line", len(lines))


def _tokens(pattern: re.Pattern, line: str, number: int, file: str) -> list[re.Match]:
    """The pattern's matches in the line; an unclosed quote (a lone ``"``) is an error."""
    matches = list(pattern.finditer(line))
    bad = next((m for m in matches if m.group(0) == '"'), None)
    if bad is not None:
        raise GraphFormatError(file, f"a label opened with \" is not closed: {line[bad.start():][:40]!r}",
                               number)
    return matches


def _words(line: str, number: int, file: str) -> list[str]:
    """A data line's words (separated by blanks or commas; a double-quoted one may hold either)."""
    if '"' not in line:
        return line.replace(",", " ").split()
    matches = _tokens(_DATA_TOKEN, line, number, file)
    return [m.group(1) if m.group(1) is not None else m.group(0) for m in matches]


def _settings(tokens: list[Token], file: str) -> tuple[int, str, list[str] | None, bool]:
    """(n, format, labels given by ``labels:`` or None, labels embedded) from the header."""
    if not tokens or tokens[0][2] or tokens[0][1].lower() != "dl":
        raise GraphFormatError(file, "a UCINET DL file starts with 'dl'", tokens[0][0] if tokens else 1)
    settings: dict[str, tuple[int, str]] = {}
    labels: list[str] | None = None
    labels_at = tokens[0][0]
    embedded = False
    i = 1
    while i < len(tokens):
        number, text, _ = tokens[i]
        key = text.lower()
        after = tokens[i + 1][1].lower() if i + 1 < len(tokens) else None
        if after == "=":
            if i + 2 >= len(tokens):
                raise GraphFormatError(file, f"'{text} =' without a value", number)
            if key not in SETTINGS:
                raise GraphFormatError(file, f"unknown DL setting {text!r} (read: {', '.join(SETTINGS)})",
                                       number)
            settings[key] = (number, tokens[i + 2][1].lower())
            i += 3
        elif key in ("row", "col", "column") and after == "labels":
            raise GraphFormatError(file, "row and column labels: a two-mode (rectangular) DL file, not a "
                                         "graph's adjacency matrix", number)
        elif key == "labels" and after == "embedded":
            embedded = True
            i += 3 if i + 2 < len(tokens) and tokens[i + 2][1] == ":" else 2
        elif key == "labels" and after == ":":
            labels_at = tokens[i + 2][0] if i + 2 < len(tokens) else number
            i += 2
            labels = []
            while i < len(tokens) and not _starts_statement(tokens, i):
                labels.append(tokens[i][1])
                i += 1
        else:
            raise GraphFormatError(file, f"unexpected {text[:40]!r} in the DL header (expected n =, "
                                         "format =, labels:, labels embedded or data:)", number)
    return _checked(settings, labels, labels_at, embedded, tokens, file)


def _starts_statement(tokens: list[Token], i: int) -> bool:
    number, text, quoted = tokens[i]
    after = tokens[i + 1][1].lower() if i + 1 < len(tokens) else None
    return not quoted and (after == "=" or text.lower() == "labels" and after in ("embedded", ":"))


def _checked(settings: dict[str, tuple[int, str]], labels: list[str] | None, labels_at: int, embedded: bool,
             tokens: list[Token], file: str) -> tuple[int, str, list[str] | None, bool]:
    for key in ("nr", "nc"):
        if key in settings:
            raise GraphFormatError(file, f"{key} = …: a two-mode (rectangular) DL file, not a graph's "
                                         "adjacency matrix", settings[key][0])
    if "n" not in settings:
        raise GraphFormatError(file, "the DL header has no 'n =' (the number of nodes)", tokens[0][0])
    number, value = settings["n"]
    if not value.isdigit() or int(value) == 0:
        raise GraphFormatError(file, f"n must be a whole number of nodes, got {value!r}", number)
    if int(value) > MAX_NODES:
        raise GraphFormatError(file, f"n = {int(value):,} nodes (read: up to {MAX_NODES:,})", number)
    n = int(value)
    if "nm" in settings and settings["nm"][1] != "1":
        raise GraphFormatError(file, f"nm = {settings['nm'][1]}: several matrices in one DL file; keep the "
                                     "one to read", settings["nm"][0])
    fmt = settings.get("format", (0, "fullmatrix"))[1]
    if fmt not in FORMATS:
        raise GraphFormatError(file, f"DL format {fmt!r} is not read (read: {', '.join(FORMATS)})",
                               settings["format"][0])
    if fmt == "fullmatrix" and settings.get("diagonal", (0, "present"))[1] != "present":
        raise GraphFormatError(file, "diagonal = absent is not read: write the full matrix",
                               settings["diagonal"][0])
    if labels is not None:
        if len(labels) != n:
            raise GraphFormatError(file, f"{len(labels):,} labels for n = {n:,} nodes", labels_at)
        _unique(labels, file, labels_at)
    return n, fmt, labels, embedded


def _unique(labels: list[str], file: str, number: int | None) -> None:
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise GraphFormatError(file, f"label {label!r} names two nodes", number)
        seen.add(label)


# --------------------------------------------------------------------------- data


def _full_matrix(data: list[tuple[int, list[str]]], n: int, labels: list[str] | None, embedded: bool,
                 file: str):
    """n rows of n values (after the column labels, each row after its label, when embedded)."""
    words = [word for _, line in data for word in line]
    numbers = [number for number, line in data for _ in line]
    names = labels if labels is not None else [str(i) for i in range(1, n + 1)]
    width = n + 1 if embedded else n
    need = n * width + (n if embedded else 0)
    if len(words) != need:
        shape = f"{n:,} labels, then {n:,} rows of a label and {n:,} values" if embedded \
            else f"{n:,} × {n:,} values"
        line = numbers[need] if len(words) > need else numbers[-1] if numbers else None
        raise GraphFormatError(file, f"the matrix holds {len(words):,} entries, n = {n:,} needs {shape} "
                                     f"({need:,}){' (a truncated file?)' if len(words) < need else ''}", line)
    if embedded:
        columns = words[:n]
        _unique(columns, file, numbers[0])
        if labels is not None and columns != labels:
            raise GraphFormatError(file, "the embedded column labels differ from the labels: list",
                                   numbers[0])
        names = columns
        for row in range(n):
            at = n + row * width
            if words[at] != columns[row]:
                raise GraphFormatError(file, f"row {row + 1} is labelled {words[at]!r}, column {row + 1} "
                                             f"{columns[row]!r}: a one-mode matrix has one label per node",
                                       numbers[at])
        cells = [k for k in range(n, need) if (k - n) % width]
        words, numbers = [words[k] for k in cells], [numbers[k] for k in cells]
    values = _numbers(words, numbers, file)
    found = np.flatnonzero(values)  # 0 is no tie
    src, dst = found // n, found % n
    rows = tuple((names[s], names[t], words[k]) for s, t, k in zip(src[:FIRST_ROWS], dst[:FIRST_ROWS],
                                                                   found[:FIRST_ROWS], strict=True))
    return names, src.astype(np.int64), dst.astype(np.int64), values[found], rows


def _numbers(words: list[str], lines: list[int], file: str) -> np.ndarray:
    """Values in one numpy parse: 0 (no tie) or weights; the first bad one is named with its line."""
    try:
        values = np.asarray(words, dtype=np.float64)
        if np.all((values >= 0) & (values <= FLOAT32_MAX)):  # NaN fails
            return values
    except ValueError:
        pass
    for word, line in zip(words, lines, strict=True):
        if not is_zero(word):
            parse_weight(word, file, line)
    return np.array([0.0 if is_zero(word) else float(word) for word in words], dtype=np.float64)


def _lists(data: list[tuple[int, list[str]]], n: int, fmt: str, labels: list[str] | None, embedded: bool,
           file: str):
    """edgelist1 (``from to [value]`` a line) or nodelist1 (``ego alter alter …`` a line)."""
    names: list[str] = list(labels) if labels is not None else [] if embedded else \
        [str(i) for i in range(1, n + 1)]
    index = {name: i for i, name in enumerate(names)}
    src: list[int] = []
    dst: list[int] = []
    given: list[str] = []  # edgelist1's values, as written ("1" where none is)
    lines: list[int] = []
    for number, words in data:
        if fmt == "edgelist1" and not 2 <= len(words) <= 3:
            raise GraphFormatError(file, f"an edgelist1 line is 'from to [value]', got {len(words)} values",
                                   number)
        ends = [_node(word, index, names, n, labels is not None, embedded, number, file)
                for word in (words[:2] if fmt == "edgelist1" else words)]
        alters = ends[1:]
        src.extend([ends[0]] * len(alters))
        dst.extend(alters)
        given.extend(words[2:3] if len(words) == 3 and fmt == "edgelist1" else ["1"] * len(alters))
        lines.extend([number] * len(alters))
    values = _numbers(given, lines, file)
    ties = values != 0  # an edge list's value 0 is no tie
    notes: tuple[str, ...] = ()
    if not ties.all():
        notes += (f"{int((~ties).sum()):,} lines with value 0 (no tie) skipped",)
    if len(names) < n:
        notes += (f"n = {n:,}, {len(names):,} nodes named in the data: the {n - len(names):,} without ties "
                  "have no label and are left out",)
    src_a, dst_a = np.asarray(src, dtype=np.int64)[ties], np.asarray(dst, dtype=np.int64)[ties]
    shown = np.flatnonzero(ties)[:FIRST_ROWS]
    rows = tuple((names[src[k]], names[dst[k]]) + ((given[k],) if fmt == "edgelist1" else ()) for k in shown)
    return names, src_a, dst_a, values[ties], rows, notes


def _node(word: str, index: dict[str, int], names: list[str], n: int, listed: bool, embedded: bool,
          number: int, file: str) -> int:
    """A node of an edge or node list: a label when embedded (a new one is the next node), else
    a number 1..n."""
    if embedded:
        at = index.get(word)
        if at is not None:
            return at
        if listed:
            raise GraphFormatError(file, f"{word[:40]!r} is not one of the labels", number)
        if len(names) == n:
            raise GraphFormatError(file, f"label {word[:40]!r} is node {n + 1:,}, n = {n:,}", number)
        index[word] = len(names)
        names.append(word)
        return index[word]
    if not word.isdigit() or not 1 <= int(word) <= n:
        raise GraphFormatError(file, f"node {word[:40]!r} is not a number in 1..{n:,} (labels embedded names "
                                     "nodes by label)", number)
    return int(word) - 1
