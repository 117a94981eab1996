"""Edge tables as pandas writes them other than ``to_csv``: ``to_json`` (every orient), JSON Lines
and ``to_parquet``. Each becomes a DataFrame of text fields read by :func:`.delimited.read_fields`,
the path of every table, told whether it has a header; how each orient is recognised, and which
row index is left out, are in docs/formats.md. Errors name the JSON Lines line, or the row of the
table (1-based) for a JSON document. networkx's node-link JSON (a ``"nodes"`` key) is read by
:mod:`.nxformats`; :func:`read_json` decides.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import GraphFormatError
from .delimited import (
    HEAD_ROWS,
    STRONG_SOURCE,
    STRONG_TARGET,
    WEAK_SOURCE,
    WEAK_TARGET,
    WEIGHT_NAMES,
    Layout,
    read_fields,
)
from .formats import ReadOptions, ReadReport
from .graph import Graph, decode, first_line, header_key
from .nxformats import node_link_from_data, parse_json

# Names that say "this key is a column of an edge table" (compared as the CSV header's are).
COLUMN_NAMES = STRONG_SOURCE | STRONG_TARGET | WEAK_SOURCE | WEAK_TARGET | WEIGHT_NAMES
# What str.splitlines() splits on: a value holding one would split its row in two.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_BREAKS = re.compile("[" + "".join(sorted(LINE_BREAKS)) + "\x00]")
DEFAULT_MAX_BYTES = 2 * 2**30  # as readers.MAX_DECOMPRESSED: Parquet's content once decompressed


@dataclass
class Table:
    """A table as pandas wrote it: column names (None: no header), columns of values, and
    where each row came from (JSON Lines: its line; None: its 1-based row)."""

    names: list[str] | None
    columns: list[Sequence[Any]]
    how: str  # "orient 'records'", "JSON Lines", "Parquet", ...
    lines: list[int] | None = None

    @property
    def rows(self) -> int:
        return len(self.columns[0]) if self.columns else 0


# --------------------------------------------------------------------------- JSON


def looks_json_lines(text: str) -> bool:
    """JSON Lines: a first line that is a whole JSON object by itself, and another line after it
    (a one-line document is a document; networkx's and pandas' indented JSON opens with a bare ``{``)."""
    lines = [line for line in text[:65536].splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(lines[0]), dict)
    except (ValueError, RecursionError):
        return False


def read_json(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """A JSON file: networkx's node-link data, or a table as pandas writes it.

    With ``format`` given, only that one ("node-link" or "json-table"); found (``format`` None),
    node-link when the document has a ``"nodes"`` key or is not shaped as a table."""
    text = decode(raw, file)
    given = options.format
    if given != "node-link" and looks_json_lines(text):
        return read_frame(_json_lines(text, file), file, options, "json-table")
    data = parse_json(text, file)
    node_link = isinstance(data, dict) and ("nodes" in data or "links" in data)
    if given == "node-link":
        try:  # only to say so when it is a table
            table = None if node_link else json_table(data, file)
        except GraphFormatError:
            table = None
    else:
        table = None if node_link else json_table(data, file)
    if given == "node-link" or (given is None and table is None and isinstance(data, dict)):
        if given == "node-link" and table is not None:
            raise GraphFormatError(file, f"JSON without \"nodes\": a table as pandas' to_json writes it "
                                         f"({table.how}), not node-link JSON: read it with --format "
                                         "json-table or auto (library: format=)")
        return node_link_from_data(data, file, options)
    if table is None:
        found = ", ".join(map(str, list(data)[:6])) if isinstance(data, dict) else type(data).__name__
        also = " (networkx's node-link JSON: leave the format to be found)" if node_link else ""
        raise GraphFormatError(file, f"JSON that is not a table as pandas writes it ({found}){also}: "
                                     "expected to_json's records [{column: value}, ...], values [[...], "
                                     "...], columns {column: {row: value}}, index, split or table orient, or "
                                     "JSON Lines")
    return read_frame(table, file, options, "json-table")


def _json_lines(text: str, file: str) -> Table:
    """One JSON object per line (pandas' ``lines=True``); blank lines are skipped."""
    records, lines = [], []
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
        records.append(record)
        lines.append(number)
    names = _keys(records)
    return Table(names, [[r.get(k) for r in records] for k in names], "JSON Lines", lines)


def json_table(data: Any, file: str) -> Table | None:
    """The table a parsed JSON document holds, as ``to_json`` writes each orient; None when it
    is not shaped as one."""
    if isinstance(data, list):
        if not data:
            raise GraphFormatError(file, "an empty JSON list: no edges")
        if all(isinstance(r, dict) for r in data):
            names = _keys(data)
            return Table(names, [[r.get(k) for r in data] for k in names], "orient 'records'")
        if all(isinstance(r, list) for r in data):
            width = len(data[0])
            for number, row in enumerate(data, start=1):
                if len(row) != width:
                    raise GraphFormatError(file, f"row {number}: {len(row)} values, but row 1 has {width} "
                                                 "(ragged rows)")
            return Table(None, [[r[k] for r in data] for k in range(width)], "orient 'values'")
        return None
    if not isinstance(data, dict) or not data:
        return None
    schema, rows = data.get("schema"), data.get("data")
    if isinstance(schema, dict) and isinstance(schema.get("fields"), list) and isinstance(rows, list):
        return _table_orient(schema, rows, file)
    if isinstance(data.get("columns"), list) and isinstance(rows, list):
        return _split_orient(data, file)
    if all(isinstance(v, dict) for v in data.values()):
        return _keyed_orient(data, file)
    return None


def _table_orient(schema: dict, rows: list, file: str) -> Table:
    names = [str(f.get("name", "")) if isinstance(f, dict) else str(f) for f in schema["fields"]]
    if not all(isinstance(r, dict) for r in rows):
        raise GraphFormatError(file, "orient 'table' JSON whose \"data\" is not a list of objects")
    columns: list[Sequence[Any]] = [[r.get(k) for r in rows] for k in names]
    key = schema.get("primaryKey")
    if key == ["index"] and "index" in names and _is_default([r.get("index") for r in rows]):
        at = names.index("index")  # pandas' default row index: nothing to read
        del names[at], columns[at]
    return Table(names, columns, "orient 'table'")


def _split_orient(data: dict, file: str) -> Table:
    names = [str(c) for c in data["columns"]]
    rows = data["data"]
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, list) or len(row) != len(names):
            got = f"{len(row)} values" if isinstance(row, list) else _kind(row)
            raise GraphFormatError(file, f"row {number}: {got}, but \"columns\" names {len(names)} "
                                         "(orient 'split')")
    columns: list[Sequence[Any]] = [[r[k] for r in rows] for k in range(len(names))]
    index = data.get("index")
    if isinstance(index, list) and len(index) == len(rows) and not _is_default(index):
        names, columns = [""] + names, [index] + columns
    return Table(names, columns, "orient 'split'")


def _keyed_orient(data: dict, file: str) -> Table:
    """``{column: {row: value}}`` (orient 'columns', pandas' default) or ``{row: {column: value}}``
    (orient 'index'). Which keys are the columns: the side whose keys name edge columns (source,
    target, weight, ...) or whose other side is pandas' default index 0..n-1; when that does not
    tell, the side with fewer keys (an edge table has more rows than columns); refused when both
    sides have as many."""
    outer = list(data)
    inner = _keys(list(data.values()))
    as_columns = _names_columns(outer) + _is_default(inner)
    as_index = _names_columns(inner) + _is_default(outer)
    index_orient, how = as_index > as_columns, ""
    if as_columns == as_index:
        if len(outer) == len(inner):
            raise GraphFormatError(file, f"a JSON object of {len(outer)} objects of {len(inner)} keys: "
                                         "cannot tell whether its keys are the columns (to_json's default "
                                         "orient) or the rows (orient='index'); write it with "
                                         "to_json(orient='records') or name the columns source and target")
        index_orient, how = len(outer) > len(inner), " (the fewer keys taken as the columns)"
    if index_orient:
        rows = [data[k] for k in outer]
        table = Table(inner, [[r.get(c) for r in rows] for c in inner], "orient 'index'" + how)
        keys = outer
    else:
        table = Table(outer, [_column(data[c], inner) for c in outer], "orient 'columns'" + how)
        keys = inner
    if not _is_default(keys):  # row keys pandas did not make up: an unnamed index column
        table.names, table.columns = [""] + table.names, [keys] + table.columns  # type: ignore[operator]
    return table


def _names_columns(keys: list[str]) -> bool:
    """Whether keys name an edge table's columns (a source, target or weight name among them);
    never more than ``MAX_COLUMNS`` of them (those are a table's rows)."""
    return len(keys) <= MAX_COLUMNS and any(header_key(str(k)) in COLUMN_NAMES for k in keys)


MAX_COLUMNS = 1000


def _is_default(keys: Sequence[Any]) -> bool:
    """Whether row keys are pandas' default index: 0, 1, ..., n-1 (as numbers or as JSON keys)."""
    keys = list(keys)
    if not keys:
        return False
    if isinstance(keys[0], str):
        return keys == list(map(str, range(len(keys))))
    return all(type(k) is int for k in keys) and keys == list(range(len(keys)))


def _keys(records: list[dict]) -> list[str]:
    """The keys of all records, in first-seen order."""
    if records and all(r.keys() == records[0].keys() for r in records[1:]):
        return list(records[0])
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    return list(names)


def _column(record: dict, keys: list[str]) -> list[Any]:
    """A record's values in the order of ``keys`` (None where it has none)."""
    return list(record.values()) if list(record) == keys else [record.get(k) for k in keys]


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
    its columns take more than ``max_bytes`` once decompressed."""
    return read_frame(parquet_table(raw, file, max_bytes), file, options, "parquet")


def parquet_table(raw: bytes, file: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Table:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise GraphFormatError(file, "a Parquet file: reading it needs pyarrow (pip install pyarrow)"
                               ) from None
    try:
        parquet = pq.ParquetFile(io.BytesIO(raw))
        meta = parquet.metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        if size > max_bytes:
            raise GraphFormatError(file, f"Parquet content over {max_bytes / 2**20:,.0f} MB once "
                                         f"decompressed ({size / 2**20:,.0f} MB; the limit here): refused")
        frame = parquet.read().to_pandas()
    except GraphFormatError:
        raise
    except MemoryError:
        raise GraphFormatError(file, "Parquet content too large to read here") from None
    except Exception as err:  # pyarrow raises many types (ArrowInvalid, OSError, ...): all mean "bad file"
        raise GraphFormatError(file, f"cannot read Parquet: {first_line(err)}") from None
    return frame_table(frame, "Parquet")


def frame_table(frame: Any, how: str) -> Table:
    """A DataFrame's table: its columns, and its index unless it is pandas' default 0..n-1 (a
    named index is a column of that name; any other, an unnamed first column)."""
    import pandas as pd

    index = frame.index
    default = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and index.name is None
    names: list[str] = []
    columns: list[Sequence[Any]] = []
    if not default:
        for k, name in enumerate(index.names):
            names.append(str(name) if name is not None else "" if index.nlevels == 1 else f"level_{k}")
            columns.append(_values(pd.Series(index.get_level_values(k))))
    names += [str(c) for c in frame.columns]
    columns += [_values(frame.iloc[:, k]) for k in range(frame.shape[1])]
    return Table(names, columns, how)


def _values(series: Any) -> Sequence[Any]:
    """A column's values: a numpy array for plain numbers and booleans, else a list."""
    if series.dtype.kind in "iufb" and isinstance(series.dtype, np.dtype):
        return series.to_numpy()
    return series.astype(object).tolist()


# --------------------------------------------------------------------------- a table's rows as fields


def read_frame(table: Table, file: str, options: ReadOptions, fmt: str) -> tuple[Graph, ReadReport]:
    """The table's rows as text fields, read by :func:`.delimited.read_fields` (the path of every
    table): errors name the JSON Lines line, or the row of a JSON document or Parquet file."""
    width = len(table.columns)
    if width < 2:
        names = f" ({', '.join(map(repr, table.names))})" if table.names else ""
        raise GraphFormatError(file, f"{width} column{'s' if width != 1 else ''}{names} ({table.how}): an "
                                     "edge table needs a source and a target column")
    if table.rows == 0:
        raise GraphFormatError(file, f"no rows ({table.how}): no edges")
    for k, name in enumerate(table.names or ()):
        _one_line(name, k, None, table, file)
    import pandas as pd

    texts = [_column_texts(column, k, table, file) for k, column in enumerate(table.columns)]
    frame = pd.DataFrame({k: np.array(t, dtype=object) for k, t in enumerate(texts)})
    numbers = table.lines if table.lines is not None else range(1, table.rows + 1)

    def row(k: int) -> tuple[int, list[str]] | None:
        return (numbers[k], [t[k] for t in texts]) if k < table.rows else None

    header = tuple(table.names) if table.names is not None else None
    layout = Layout(",", header, None, width, None)
    sample = [r for k in range(min(table.rows, HEAD_ROWS)) if (r := row(k)) is not None]
    try:
        graph, report = read_fields(lambda columns, integers: [frame], layout, file, options, sample,
                                    row, has_header=header is not None)
    except GraphFormatError as err:
        if err.line is None or table.lines is not None:
            raise
        raise GraphFormatError(file, f"row {err.line}: {err.problem}") from None
    what = table.how if fmt == "parquet" else "pandas JSON Lines (orient 'records', lines=True)" \
        if table.lines is not None else f"pandas JSON, {table.how}"
    return graph, replace(report, format=fmt, separator=None, notes=(what,) + report.notes)


def table_header(table: Table) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """(header, the first row's values) as :func:`read_frame` lays the table out."""
    first = tuple(_text(c[0], k, 0, "") for k, c in enumerate(table.columns)) if table.rows else ()
    return (tuple(table.names) if table.names is not None else None), first


def _column_texts(column: Sequence[Any], k: int, table: Table, file: str) -> list[str]:
    """A column's values as text (:func:`_text`), whole columns of one kind at once."""
    if isinstance(column, np.ndarray):
        column = column.tolist()  # Python ints, floats and bools: str/repr as for a list
    kinds = set(map(type, column))
    if kinds <= {int}:
        return list(map(str, column))
    if kinds <= {int, float}:
        return ["" if x != x else repr(x) for x in column]  # x != x: NaN
    if kinds <= {str} and not _BREAKS.search("".join(column)):
        return list(column)
    return [_text(value, k, row, file, table) for row, value in enumerate(column)]


def _text(value: Any, column: int, row: int, file: str, table: Table | None = None) -> str:
    """One value as text: "" for a missing one, numbers as Python writes them."""
    if value is None:
        return ""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int)):
        return str(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, (dict, list, tuple, set, np.ndarray)):
        where = _where(table, row) if table is not None else ""
        raise GraphFormatError(file, f"{where}column {_name(table, column)} holds {_kind(value)}, not a "
                                     "single value: an edge table's cells are names and numbers",
                               _line(table, row))
    if not isinstance(value, str):
        import pandas as pd

        if pd.isna(value):  # pd.NA, NaT
            return ""
        value = str(value)  # a date, a Decimal, bytes: as text
    return _one_line(value, column, row, table, file) if table is not None else value


def _one_line(value: str, column: int, row: int | None, table: Table | None, file: str) -> str:
    """The value, when it is one line of text (a name is shown, listed and written one a line)."""
    if LINE_BREAKS.intersection(value) or "\x00" in value:
        where = _where(table, row) if row is not None and table is not None else "the header: "
        raise GraphFormatError(file, f"{where}a value in column {_name(table, column)} holds a line break "
                                     f"or NUL ({value[:40]!r}): names are one line of text",
                               _line(table, row) if row is not None else None)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise GraphFormatError(file, "a value is not valid Unicode text (a lone surrogate escape such as "
                                     "\\ud800)") from None
    return value


def _name(table: Table | None, column: int) -> str:
    if table is None or table.names is None:
        return str(column)
    return repr(table.names[column])


def _where(table: Table | None, row: int) -> str:
    return "" if table is None or table.lines is not None else f"row {row + 1}: "


def _line(table: Table | None, row: int | None) -> int | None:
    return table.lines[row] if table is not None and table.lines is not None and row is not None else None


# --------------------------------------------------------------------------- the app's column picker


def frame_columns(raw: bytes, file: str, fmt: str, max_bytes: int = DEFAULT_MAX_BYTES
                  ) -> tuple[tuple[str, ...] | None, tuple[str, ...]] | None:
    """(header, first row) of a JSON or Parquet table as :func:`read_frame` lays it out; None
    when it is not one (node-link JSON, a broken file)."""
    try:
        if fmt == "parquet":
            return table_header(parquet_table(raw, file, max_bytes))
        text = decode(raw, file)
        if looks_json_lines(text):
            return table_header(_json_lines(text, file))
        data = parse_json(text, file)
        if isinstance(data, dict) and ("nodes" in data or "links" in data):
            return None
        table = json_table(data, file)
        return table_header(table) if table is not None else None
    except GraphFormatError:
        return None
