"""Tables from pandas' ``to_json`` (every orient, JSON Lines) and ``to_parquet``, read by pandas, and
Excel workbooks, read by openpyxl; :func:`read_frame` takes any table (the formats' table sections too)
to the shared table path."""

from __future__ import annotations

import datetime
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from ..errors import GraphFormatError
from .delimited import COLUMN_NAMES, HEAD_BYTES, HEAD_ROWS, Layout, looks_like_header, read_fields
from .formats import NO_WEIGHT, ReadOptions, ReadReport
from .graph import Graph, decode, first_line, header_key, refuse_size, zip_names
from .matrix import looks_matrix, read_matrix
from .nxformats import is_json_graph_format, neo4j_graph, neo4j_records, node_link_from_data, parse_json

# What str.splitlines() splits on (a name holding one would split its row when written), and NUL.
_BREAKS = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029\x00]")
# A \uXXXX escape of half a surrogate pair: pandas' JSON parser drops it silently or fails on it
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")
DEFAULT_MAX_BYTES = 2 * 2**30  # as readers.MAX_DECOMPRESSED: Parquet's content once decompressed
_LONG_DIGITS = re.compile(r"\d{20}")  # 2**64 has 20 digits
MAX_COLUMNS = 1000  # more keys than this are a table's rows, never its columns


@dataclass
class Table:
    """A table as pandas read it: column names (None: no header), columns of values, and where
    each row came from (its file line; None: its 1-based row)."""

    names: list[str] | None
    columns: list[Sequence[Any]]
    how: str  # "orient 'records'", "JSON Lines", "Parquet", "GDF edge section", ...
    lines: list[int] | None = None
    guessed: bool = False  # the header was told from the values, as a CSV's is (a sheet), not said

    @property
    def rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0


# --------------------------------------------------------------------------- JSON


def looks_json_lines(text: str) -> bool:
    """JSON Lines: a first line that is a whole JSON object, and another line after it (pandas'
    and networkx's indented JSON opens with a bare ``{``)."""
    lines = [line for line in text[:HEAD_BYTES].splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(lines[0]), dict)
    except (ValueError, RecursionError):
        return False


def read_json(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """networkx's node-link data, or a table as pandas writes it. With ``format`` given, only that
    one; found, node-link when the document has a ``"nodes"`` key or is not shaped as a table."""
    found = json_table(decode(raw, file), file, options.format)
    if isinstance(found, Table):
        return read_frame(found, file, options, "json-table")
    return node_link_from_data(found, file, options)


def json_table(text: str, file: str, given: str | None) -> Table | Any:
    """The table of a JSON document, or its parsed data when that is to be read as node-link."""
    if given != "node-link" and looks_json_lines(text):
        lines = text.splitlines()
        return neo4j_records(lines, file) or _json_lines(text, lines, file)
    data = parse_json(text, file)
    records = neo4j_graph(data) if isinstance(data, list) else None  # APOC's ARRAY_JSON: records in a list
    if records is not None:
        return records
    node_link = isinstance(data, dict) and ("nodes" in data or "links" in data) or is_json_graph_format(data)
    orient = None
    try:
        orient = None if node_link else json_orient(data, file)
    except GraphFormatError:
        if given != "node-link":
            raise
    if given == "node-link" and orient is not None:
        raise GraphFormatError(file, f"JSON without \"nodes\": a table as pandas' to_json writes it "
                                     f"(orient '{orient[0]}'), not node-link JSON: read it with --format "
                                     "json-table or auto (library: format=)")
    if given == "node-link" or (given is None and orient is None and isinstance(data, dict)):
        return data
    if orient is None:
        found = ", ".join(map(str, list(data)[:6])) if isinstance(data, dict) else type(data).__name__
        also = " (networkx's node-link JSON: leave the format to be found)" if node_link else ""
        raise GraphFormatError(file, f"JSON that is not a table as pandas writes it ({found}){also}: "
                                     "expected to_json's records [{column: value}, ...], values [[...], "
                                     "...], columns {column: {row: value}}, index, split or table orient, or "
                                     "JSON Lines")
    # read by pd.read_json: values as JSON spells them (no dtype guessing), row keys as written
    _refuse_what_pandas_misreads(text, file)
    name, told = orient
    try:
        frame = pd.read_json(io.StringIO(text), orient=name, dtype=False, convert_axes=False)
    # "Value is too big!", a table schema without types, numpy's SyntaxError on an extDtype of ","
    except (ValueError, KeyError, TypeError, SyntaxError) as err:
        raise GraphFormatError(file, f"pandas cannot read this JSON as orient '{name}': {first_line(err)}"
                               ) from None
    # orient 'table' names pandas' unnamed index "index" (read_json gives it back unnamed)
    return frame_table(frame, f"orient '{name}'{told}", unnamed="index" if name == "table" else "")


def _json_lines(text: str, lines: list[str], file: str) -> Table:
    """JSON Lines (``text``, split into ``lines``) as pandas reads them: row k is the k-th non-blank
    line; a line pandas cannot read is found (only then) line by line."""
    rows = [number for number, line in enumerate(lines, start=1) if line.strip()]
    _refuse_what_pandas_misreads(text, file, lines=True)
    try:
        frame = pd.read_json(io.StringIO(text), lines=True, dtype=False)
    except (ValueError, TypeError) as err:
        _bad_json_line(text, file, f"not JSON Lines pandas can read: {first_line(err)}")
    if len(frame) != len(rows):
        _bad_json_line(text, file, f"{len(rows)} JSON Lines read by pandas as {len(frame)} rows")
    return replace(frame_table(frame, "JSON Lines"), lines=rows)


def _bad_json_line(text: str, file: str, problem: str) -> NoReturn:
    """Raises the one-line error of the first line that is not a JSON object; ``problem`` when all are."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise GraphFormatError(file, f"not valid JSON: {err.msg} (column {err.colno})", number) from None
        except RecursionError:
            raise GraphFormatError(file, "JSON nested too deeply", number) from None
        if not isinstance(record, dict):
            raise GraphFormatError(file, f"a JSON Lines line holds {_kind(record)}: expected one object "
                                         "({column: value}) per line, as to_json(orient='records', "
                                         "lines=True) writes", number)
    raise GraphFormatError(file, problem) from None


def json_orient(data: Any, file: str) -> tuple[str, str] | None:
    """(orient, the note on how it was told) of a parsed JSON document as ``to_json`` writes it;
    None when it is not shaped as a table. Rows of the wrong length are refused here, naming
    the row (pandas would pad them)."""
    if isinstance(data, list):
        if not data:
            raise GraphFormatError(file, "an empty JSON list: no edges")
        if all(isinstance(r, dict) for r in data):
            return "records", ""
        if all(isinstance(r, list) for r in data):
            _same_lengths(data, len(data[0]), "row 1 has", " (ragged rows)", file)
            return "values", ""
        return None
    if not isinstance(data, dict) or not data:
        return None
    schema, rows = data.get("schema"), data.get("data")
    if isinstance(schema, dict) and isinstance(schema.get("fields"), list) and isinstance(rows, list):
        if not all(isinstance(r, dict) for r in rows):
            raise GraphFormatError(file, "orient 'table' JSON whose \"data\" is not a list of objects")
        return "table", ""
    if isinstance(data.get("columns"), list) and isinstance(rows, list):
        _same_lengths(rows, len(data["columns"]), "\"columns\" names", " (orient 'split')", file)
        return "split", ""
    if not all(isinstance(v, dict) for v in data.values()):
        return None
    # {column: {row: value}} (orient 'columns') or {row: {column: value}} (orient 'index'): the columns
    # are the side whose keys name edge columns or whose other side is pandas' default index 0..n-1;
    # failing that, the side with fewer keys (an edge table has more rows than columns)
    outer = list(data)
    inner = list(dict.fromkeys(k for v in data.values() for k in v))
    as_columns = _names_columns(outer) + _is_default(inner)
    as_index = _names_columns(inner) + _is_default(outer)
    if as_columns != as_index:
        return ("index" if as_index > as_columns else "columns"), ""
    if len(outer) == len(inner):
        raise GraphFormatError(file, f"a JSON object of {len(outer)} objects of {len(inner)} keys: "
                                     "cannot tell whether its keys are the columns (to_json's default "
                                     "orient) or the rows (orient='index'); write it with "
                                     "to_json(orient='records') or name the columns source and target")
    return ("index" if len(outer) > len(inner) else "columns"), " (the fewer keys taken as the columns)"


def _same_lengths(rows: list, width: int, what: str, why: str, file: str) -> None:
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, list) or len(row) != width:
            got = f"{len(row)} values" if isinstance(row, list) else _kind(row)
            raise GraphFormatError(file, f"row {number}: {got}, but {what} {width}{why}")


def _names_columns(keys: list[str]) -> bool:
    """Whether keys name an edge table's columns (a source, target or weight name among them)."""
    return len(keys) <= MAX_COLUMNS and any(header_key(str(k)) in COLUMN_NAMES for k in keys)


def _is_default(keys: Sequence[Any]) -> bool:
    """Whether row keys are pandas' default index: 0, 1, ..., n-1 (as numbers or as JSON keys)."""
    keys = list(keys)
    if not keys or isinstance(keys[0], str):
        return bool(keys) and keys == list(map(str, range(len(keys))))
    return all(type(k) is int for k in keys) and keys == list(range(len(keys)))


def _refuse_what_pandas_misreads(text: str, file: str, lines: bool = False) -> None:
    """Refuses half a surrogate pair (pandas drops it or fails on it) and an integer past 2**64
    (pandas wraps 123456789012345678901 to 12776324570088369205), naming the line; only a document
    holding a 20-digit run is parsed again, by Python's json, to find its integers."""
    found = _LONE_SURROGATE.search(text)
    if found:
        raise GraphFormatError(file, f"{found[0]} is half a surrogate pair: not valid Unicode text",
                               text.count("\n", 0, found.start()) + 1)
    if not _LONG_DIGITS.search(text):
        return

    def exact(token: str) -> int:
        if not -2**63 <= int(token) < 2**64:
            raise GraphFormatError(file, f"the integer {token[:40]} is past 2**64, which pandas' JSON reader "
                                         "wraps around: write such ids as strings",
                                   text.count("\n", 0, text.find(token)) + 1)
        return 0
    for document in text.splitlines() if lines else [text]:
        try:
            json.loads(document, parse_int=exact)
        except (json.JSONDecodeError, RecursionError):
            pass  # pandas' own error, or the line's, names it


def _kind(value: Any) -> str:
    """What a JSON value is, with its article: "a list", "an object", ..."""
    if isinstance(value, (list, tuple, set, np.ndarray)):
        return "a list"
    kinds = {dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


# --------------------------------------------------------------------------- Parquet


def read_parquet(raw: bytes, file: str, options: ReadOptions, max_bytes: int = DEFAULT_MAX_BYTES
                 ) -> tuple[Graph, ReadReport]:
    """A Parquet file (``DataFrame.to_parquet``), read by pyarrow; refused before it is read when
    its columns take more than ``max_bytes`` once decompressed; an adjacency matrix's as a matrix."""
    frame = parquet_frame(raw, file, max_bytes)
    found = matrix_read(frame, file, options, "Parquet", index=not isinstance(frame.index, pd.RangeIndex))
    return found or read_frame(frame_table(frame, "Parquet"), file, options, "parquet")


def matrix_read(frame: pd.DataFrame, file: str, options: ReadOptions, how: str, **to_csv: Any
                ) -> tuple[Graph, ReadReport] | None:
    """A table (a sheet's cells, a Parquet file's frame) read as an adjacency matrix when --format matrix
    asks or its CSV looks like one, as a CSV is found; None otherwise."""
    asked = options.format == "matrix"
    if not asked and (options.format is not None or abs(frame.shape[0] - frame.shape[1]) > 1):
        return None  # not n rows of n cells (a header and labels aside): an edge table
    text = frame.to_csv(lineterminator="\n", **to_csv)
    if not asked and not looks_matrix(text.splitlines(), True):
        return None
    graph, report = read_matrix(text.encode(), file, options)
    return graph, replace(report, notes=report.notes + (how,))


def parquet_frame(raw: bytes, file: str, max_bytes: int = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    with library_errors(file, "Parquet file", "pyarrow"):  # pyarrow raises ArrowInvalid, OSError, ...
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(io.BytesIO(raw))
        meta = parquet.metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        refuse_size(size, max_bytes, "Parquet", file)
        table = parquet.read()
        table.validate(full=True)  # text that is not UTF-8 fails here, not later in pandas' conversion
        return table.to_pandas()


@contextmanager
def library_errors(file: str, what: str, package: str, problem: Callable[[Exception], str] = first_line
                   ) -> Iterator[None]:
    """A reading library's own errors, of many types that all mean "a bad file", as one line each: its
    absence, memory, and ``problem(err)`` for the rest."""
    try:
        yield
    except GraphFormatError:
        raise
    except ImportError:
        article = "an" if what[0] in "AEIOU" else "a"
        raise GraphFormatError(file, f"{article} {what}: reading it needs {package} (pip install {package})"
                               ) from None
    except MemoryError:
        raise GraphFormatError(file, f"{what} too large to read here") from None
    except Exception as err:
        raise GraphFormatError(file, f"cannot read this {what}: {problem(err)}") from None


# --------------------------------------------------------------------------- Excel workbooks

MAX_CELLS = 2**23  # a sheet's cells looked at: a million rows of 8 columns (Excel's limit is 1,048,576 rows)
HINT_BYTES = 2**22  # why a cell is empty is looked up (all cells in memory, ~50x) in workbooks this small


def looks_workbook(raw: bytes) -> bool:
    """An Office Open XML workbook (.xlsx, .xlsm, .xlsb): a zip of ``[Content_Types].xml`` and ``xl/``."""
    names = zip_names(raw)
    return "[Content_Types].xml" in names and any(name.startswith("xl/") for name in names)


def read_excel(raw: bytes, file: str, options: ReadOptions, max_bytes: int = DEFAULT_MAX_BYTES
               ) -> tuple[Graph, ReadReport]:
    """The first sheet of a workbook that holds cells, read by openpyxl and then as a CSV is; errors
    name the sheet's row (row 1 is the sheet's first)."""
    name, cells, others = excel_sheet(raw, file, max_bytes)
    if found := matrix_read(cells, file, options, f"Excel sheet {name!r}", header=False, index=False):
        return found
    table = sheet_table(name, cells, others, options)
    try:
        graph, report = read_frame(table, file, options, "excel")
    except GraphFormatError as err:
        raise _why_empty(err, raw, name, cells) from None
    # a date or time as a node id: Excel stores ids typed as 1-2 or SEPT2 as dates, losing them
    for k in (report.positions or ())[:2]:
        column = pd.Series(table.columns[k])
        dated = column.map(lambda v: isinstance(v, (datetime.date, datetime.time, datetime.timedelta)))
        if dated.any():
            at = int(np.argmax(dated))
            name = repr(table.names[k]) if table.names is not None else str(k)
            raise GraphFormatError(file, f"column {name} holds a date ({column.iloc[at]}), not a node id: "
                                         "Excel turns ids typed as 1-2 or SEPT2 into dates; format the "
                                         "column as Text and type them again, or choose other columns: "
                                         "--source COL --target COL (library: source=, target=)",
                                   table.lines[at] if table.lines else None)
    return graph, report


def excel_sheet(raw: bytes, file: str, max_bytes: int) -> tuple[str, pd.DataFrame, list[str]]:
    """(name, cells, the other sheets holding cells, as shown) of the first sheet holding cells (one named
    for edges first, hidden sheets last), read by openpyxl (whole numbers as int, text, datetime), empty
    rows and columns left out, the index being the sheet's row - 1. The members' sizes are checked before
    anything is read; openpyxl parses the XML with defusedxml (no DTD entities: XML bombs)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as err:
        raise GraphFormatError(file, f"not an Excel workbook (.xlsx): {first_line(err)}") from None
    size = sum(info.file_size for info in members)  # a member read stops at its declared size
    refuse_size(size, max_bytes, "Excel workbook", file)
    if any(info.filename.endswith(".bin") and info.filename.startswith("xl/workbook") for info in members):
        raise GraphFormatError(file, "an Excel binary workbook (.xlsb): save it as .xlsx or CSV to read it "
                                     "here")
    with library_errors(file, "Excel workbook", "openpyxl", _xml_bomb_or_first_line):
        from openpyxl import load_workbook

        book = load_workbook(io.BytesIO(raw), read_only=True, data_only=True, keep_links=False)
        found: list[tuple[str, pd.DataFrame]] = []
        cap = min(MAX_CELLS, max_bytes // 8)
        # visible sheets first, and among them one named for edges ("Edges", "Edge list": a workbook with a
        # Nodes sheet in front of it), else the workbook's order
        order = sorted(book.worksheets, key=lambda sheet: (sheet.sheet_state != "visible",
                                                           header_key(sheet.title) not in EDGE_SHEETS))
        for sheet in order:
            sheet.reset_dimensions()  # its declared size may be wrong, or hostile (pandas resets it too)
            state = f" ({sheet.sheet_state})" if sheet.sheet_state != "visible" else ""
            if found:
                if _holds_cells(sheet, cap):
                    found.append((repr(sheet.title) + state, pd.DataFrame()))
            elif (cells := _sheet_cells(sheet, file, cap)).size:
                found.append((sheet.title, cells))
    if not found:
        raise GraphFormatError(file, "an Excel workbook whose sheets are empty: no edges")
    return found[0][0], found[0][1], [name for name, _ in found[1:]]


EDGE_SHEETS = {"edges", "edge", "edgelist", "links", "link", "ties", "relations", "relationships", "network",
               "connections", "interactions", "arcs"}  # Kumu's workbook: Elements, then Connections


def _sheet_cells(sheet: Any, file: str, max_cells: int) -> pd.DataFrame:
    """A sheet's cells as pandas' read_excel gives them (a whole number as int, Excel's errors as NaN),
    row k at index k - 1, empty rows and columns left out. Read here rather than by read_excel, which
    pads every row to the widest (one cell at XFD1048576 in a 5 kB file made a table of 17 billion
    cells); the cells looked at, empty ones before a row's last included, are capped."""
    from openpyxl.cell.cell import ERROR_CODES

    rows: list[list[Any]] = []
    numbers: list[int] = []
    seen = width = 0
    for number, row in enumerate(sheet.iter_rows(values_only=True)):
        seen += len(row)
        if seen > max_cells or len(rows) * width > max_cells:
            raise GraphFormatError(file, f"Excel sheet {sheet.title!r} of over {max_cells:,} cells (empty "
                                         "ones before a row's last counted): more than read here; save it as "
                                         "CSV")
        values = [np.nan if v in ERROR_CODES else int(v) if isinstance(v, float) and v.is_integer()
                  and abs(v) < 2**53 else v for v in row]  # past 2**53 a float's digits are lost: refused
        while values and _blank(values[-1]):
            values.pop()
        if values:
            rows.append(values)
            numbers.append(number)
            width = max(width, len(values))
    cells = pd.DataFrame([row + [None] * (width - len(row)) for row in rows], index=numbers, dtype=object)
    return cells.loc[:, ~cells.map(_blank).all()]  # a row kept holds a cell: only empty columns are left


def _xml_bomb_or_first_line(err: Exception) -> str:
    """openpyxl's error in one line, or what defusedxml refused (openpyxl wraps its error in its own)."""
    from defusedxml import DefusedXmlException

    cause: BaseException | None = err
    while cause is not None and not isinstance(cause, DefusedXmlException):
        cause = cause.__cause__ or cause.__context__
    return first_line(err) if cause is None else ("XML with a DTD or entities (<!DOCTYPE …>/<!ENTITY …>) "
                                                  "refused: they are how XML bombs work")


def _holds_cells(sheet: Any, max_cells: int) -> bool:
    """Whether a sheet holds a cell that is not blank (past ``max_cells`` looked at, taken as yes)."""
    seen = 0
    for row in sheet.iter_rows(values_only=True):
        seen += len(row)
        if seen > max_cells or not all(map(_blank, row)):
            return True
    return False


def _blank(value: Any) -> bool:
    """An empty cell: nothing, blanks, or Excel's error value (NaN; v != v)."""
    return value is None or value != value or (isinstance(value, str) and not value.strip())


def sheet_table(name: str, cells: pd.DataFrame, others: list[str], options: ReadOptions) -> Table:
    """A sheet's table: its first row is the header when a CSV's would be (or holds the columns the
    options name), past titles above it (rows with an empty cell over a header that has none, as
    NodeXL's group titles); numbers stay numbers (integer ids as int64)."""
    texts = cells.apply(_texts).values.tolist()
    top = 0
    while top + 1 < len(texts) and "" in texts[top] and "" not in texts[top + 1] and looks_like_header(
            texts[top + 1], texts[top + 2:top + 2 + HEAD_ROWS]):
        top += 1
    first = texts[top]
    named = [v for v in (options.source, options.target, options.weight)
             if isinstance(v, str) and v != NO_WEIGHT and not v.strip().isdecimal()]
    header = looks_like_header(first, texts[top + 1:top + 1 + HEAD_ROWS]) or bool(named) and all(
        v.strip().lower() in {f.lower() for f in first} for v in named)
    body = cells.iloc[top + header:]
    notes = [f"its header on row {cells.index[top] + 1}: the rows above left out"] if top else []
    notes += [f"also in the workbook, not read: {', '.join(others)}"] if others else []
    columns = [body[k].infer_objects().reset_index(drop=True) for k in body.columns]  # row k at k
    how = f"Excel sheet {name!r}" + (f" ({'; '.join(notes)})" if notes else "")
    return Table(first if header else None, columns, how, lines=(body.index + 1).tolist(), guessed=True)


def _why_empty(err: GraphFormatError, raw: bytes, name: str, cells: pd.DataFrame) -> GraphFormatError:
    """A row's error, saying why a cell of the row is empty (or 0) when the workbook tells: a formula
    whose result was never saved (openpyxl saves none; XlsxWriter saves 0), inside merged cells, or
    Excel's error value (#N/A, #REF!)."""
    if err.line is None or err.line - 1 not in cells.index or len(raw) > HINT_BYTES:
        return err
    row = cells.loc[err.line - 1]
    suspects = [k for k in cells.columns if _blank(row[k]) or row[k] == 0]
    if not suspects:
        return err
    from openpyxl import load_workbook

    try:
        sheet = load_workbook(io.BytesIO(raw), data_only=False)[name]  # formulas as written, merged ranges
    except Exception:  # what the read-only pass did not look at (a broken part): the error as it was
        return err
    for k in suspects:
        cell = sheet.cell(err.line, k + 1)
        merged = next((r for r in sheet.merged_cells.ranges if cell.coordinate in r), None)
        blank = _blank(row[k])
        if blank and (cell.data_type == "e" or row[k] is not None and row[k] != row[k]):  # NaN: an error
            why = f"cell {cell.coordinate} holds an Excel error value ({cell.value})"
        elif cell.data_type == "f":
            why = (f"cell {cell.coordinate} holds a formula ({cell.value}) whose result was never computed "
                   "(as programs write workbooks): open and save it in Excel or LibreOffice, or write values")
        elif blank and merged is not None and cell.coordinate != merged.start_cell.coordinate:
            why = (f"cell {cell.coordinate} is inside the merged cells {merged.coord}, whose value only "
                   f"{merged.start_cell.coordinate} holds: unmerge them and fill in every row")
        else:
            continue
        return GraphFormatError(err.file, f"{err.problem} ({why})", err.line)
    return err


def frame_table(frame: pd.DataFrame, how: str, unnamed: str = "") -> Table:
    """A DataFrame's table: its columns (no header when they are numbered 0..k-1, as orient 'values'
    and ``read_csv(header=None)`` number them), and its index unless it is pandas' default 0..n-1
    (a named index is a column of that name; any other, a column named ``unnamed``)."""
    index = frame.index
    headerless = list(frame.columns) == list(range(frame.shape[1]))
    if not (index.nlevels == 1 and index.name is None and _is_default(index.tolist())):
        levels = [str(name) if name is not None else unnamed if index.nlevels == 1 else f"level_{k}"
                  for k, name in enumerate(index.names)]
        frame = frame.reset_index(names=levels, allow_duplicates=True)
    columns: list[Sequence[Any]] = [frame.iloc[:, k].reset_index(drop=True) for k in range(frame.shape[1])]
    return Table(None if headerless else [str(c) for c in frame.columns], columns, how)


# --------------------------------------------------------------------------- a table's graph


def read_frame(table: Table | pd.DataFrame, file: str, options: ReadOptions, fmt: str
               ) -> tuple[Graph, ReadReport]:
    """The graph of a table (or DataFrame) by :func:`.delimited.read_fields`, the path of every
    table: integer ends stay integers, other values are read as text; errors name the row's file
    line, or its 1-based row when the table has no lines."""
    table = table if isinstance(table, Table) else frame_table(table, fmt)
    width = len(table.columns)
    if width < 2:
        names = f" ({', '.join(map(repr, table.names))})" if table.names else ""
        raise GraphFormatError(file, f"{width} column{'s' if width != 1 else ''}{names} ({table.how}): an "
                                     "edge table needs a source and a target column")
    if table.rows == 0:
        raise GraphFormatError(file, f"no rows ({table.how}): no edges")
    for k, name in enumerate(table.names or ()):
        if _BREAKS.search(name):
            raise GraphFormatError(file, f"the header: a value in column {k} holds a line break or NUL "
                                         f"({name[:40]!r}): names are one line of text")
    typed = [pd.Series(c).reset_index(drop=True) for c in table.columns]
    texts = pd.DataFrame({k: _texts(column) for k, column in enumerate(typed)})
    integers = pd.DataFrame({k: c if c.dtype.kind == "i" or c.dtype.kind == "u" and c.dtype.itemsize < 8
                             else texts[k] for k, c in enumerate(typed)})  # uint64 as text: past int64
    numbers = table.lines if table.lines is not None else range(1, table.rows + 1)

    def row(k: int) -> tuple[int, list[str]] | None:
        return (numbers[k], texts.iloc[k].tolist()) if k < table.rows else None

    header = tuple(table.names) if table.names is not None else None
    sample = [(numbers[k], texts.iloc[k].tolist()) for k in range(min(table.rows, HEAD_ROWS))]
    try:  # a row's error below names its line, or its row (here) when the table has no lines
        # refused: a cell holding a list or an object, or a line break (a name is shown, written one a line)
        for k, column in enumerate(typed):
            name = repr(table.names[k]) if table.names is not None else str(k)
            kinds = column.map(_kind) if column.dtype == object else pd.Series("a number", index=column.index)
            nested = kinds.isin(("a list", "an object")).to_numpy()
            broken = texts[k].str.contains(_BREAKS.pattern, regex=True).to_numpy()
            if nested.any():
                at = int(np.argmax(nested))
                raise GraphFormatError(file, f"column {name} holds {kinds[at]}, not a single value: an edge "
                                             "table's cells are names and numbers", numbers[at])
            if broken.any():
                at = int(np.argmax(broken))
                raise GraphFormatError(file, f"a value in column {name} holds a line break or NUL "
                                             f"({texts[k][at][:40]!r}): names are one line of text",
                                       numbers[at])
        graph, report = read_fields(lambda columns, whole: [integers if whole else texts],
                                    Layout(",", header, None, width, None), file, options, sample, row,
                                    has_header=None if table.guessed else header is not None,
                                    integer_ids=True, strings=frozenset(
                                        k for k, c in enumerate(typed) if _holds_strings(c)))
    except GraphFormatError as err:
        if err.line is None or table.lines is not None:
            raise
        raise GraphFormatError(file, f"row {err.line}: {err.problem}") from None
    what = table.how if fmt != "json-table" else "pandas JSON Lines (orient 'records', lines=True)" \
        if table.lines is not None else f"pandas JSON, {table.how}"
    return graph, replace(report, format=fmt, separator=None, notes=(what,) + report.notes)


def _holds_strings(column: pd.Series) -> bool:
    """A column of text, where "1.0" is a name (not the id 1, as a float column of ids writes it)."""
    values = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    return pd.api.types.infer_dtype(values, skipna=True) in ("string", "mixed", "mixed-integer")


def _texts(column: pd.Series) -> pd.Series:
    """A column as text, as pandas writes its values; "" where a value is missing."""
    return column.astype(object).where(column.notna(), "").astype(str)


def table_header(table: Table) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """(header, the first row's values) as :func:`read_frame` lays the table out."""
    first = tuple(_texts(pd.Series(c[:1])).iloc[0] for c in table.columns) if table.rows else ()
    return (tuple(table.names) if table.names is not None else None), first


# --------------------------------------------------------------------------- the app's column picker


def frame_columns(raw: bytes, file: str, fmt: str, max_bytes: int = DEFAULT_MAX_BYTES
                  ) -> tuple[tuple[str, ...] | None, tuple[str, ...]] | None:
    """(header, first row) of a JSON, Parquet or Excel table as :func:`read_frame` lays it out; None
    when it is not one (node-link JSON, a broken file)."""
    try:
        if fmt == "parquet":
            return table_header(frame_table(parquet_frame(raw, file, max_bytes), "Parquet"))
        if fmt == "excel":
            return table_header(sheet_table(*excel_sheet(raw, file, max_bytes), ReadOptions()))
        found = json_table(decode(raw, file), file, None)
        return table_header(found) if isinstance(found, Table) else None
    except GraphFormatError:
        return None
