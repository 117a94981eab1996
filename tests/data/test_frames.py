"""Edge tables as pandas writes them other than to_csv: to_json in every orient, JSON Lines and
to_parquet, each read to the graph it came from with the CSV's column logic; every file that
cannot be read is a one-line error naming the file (and its line or row)."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest

from goat_core import GraphFormatError, load_graph, parse_edge_list, read_graph_file
from goat_core.data.readers import read_graph_bytes, table_columns

from .test_readers import assert_same, karate, lesmis

ROOT = Path(__file__).resolve().parents[2]

WRITERS = {
    # name: (bytes pandas writes, the note the read gives)
    "columns": (lambda df: df.to_json().encode(), "pandas JSON, orient 'columns'"),
    "records": (lambda df: df.to_json(orient="records").encode(), "pandas JSON, orient 'records'"),
    "split": (lambda df: df.to_json(orient="split").encode(), "pandas JSON, orient 'split'"),
    "table": (lambda df: df.to_json(orient="table").encode(), "pandas JSON, orient 'table'"),
    "index": (lambda df: df.to_json(orient="index").encode(), "pandas JSON, orient 'index'"),
    "values": (lambda df: df.to_json(orient="values").encode(), "pandas JSON, orient 'values'"),
    "lines": (lambda df: df.to_json(orient="records", lines=True).encode(),
              "pandas JSON Lines (orient 'records', lines=True)"),
    "parquet": (lambda df: df.to_parquet(), "Parquet"),
}
NAMED = [w for w in WRITERS if w != "values"]  # the writers that keep the column names
KEYED = ["columns", "split", "index", "parquet"]  # ... and the row index, unnamed ("table": as "index")


def frame(g: nx.Graph) -> pd.DataFrame:
    return nx.to_pandas_edgelist(g)  # source, target, weight


def read(raw: bytes, name: str = "t", **options):
    return parse_edge_list(raw, name, **options)


def one_line(raw: bytes, name: str = "t", **options) -> str:
    with pytest.raises(GraphFormatError) as info:
        read(raw, name, **options)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{name}")
    return message


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("make", [karate, lesmis], ids=["karate", "lesmis"])
def test_every_pandas_writer_is_read_to_the_graph_it_wrote(tmp_path, writer, make):
    write, note = WRITERS[writer]
    g = make()
    path = tmp_path / "no-suffix-hint"
    path.write_bytes(write(frame(g)))
    graph = read_graph_file(path)  # the content decides, not the name
    assert_same(graph, g)
    assert graph.read.format == ("parquet" if writer == "parquet" else "json-table") and graph.read.detected
    assert graph.read.notes[0] == note and graph.read.index_column is None
    named = ("'source'", "'target'", "'weight'") if writer != "values" else \
        ("column 0", "column 1", "column 2")
    assert (graph.read.source, graph.read.target, graph.read.weight) == named
    assert graph.read.summary().startswith(f"{g.number_of_edges()} edges read as "
                                           + ("Parquet" if writer == "parquet" else "pandas JSON table"))


def excel(df: pd.DataFrame) -> bytes:
    out = io.BytesIO()
    df.to_excel(out, index=False)
    return out.getvalue()


@pytest.mark.parametrize("write", [w for w, _ in WRITERS.values()] + [excel], ids=[*WRITERS, "excel"])
def test_string_ids_are_names_as_written_and_a_float_column_s_are_integers(write):
    """"1.0" is a name beside "1" where the table holds text (a typed format says so); a float column
    of ids (pandas writes ints as floats beside a missing value) is the integers it holds."""
    texts = pd.DataFrame({"source": ["1.0", "1", "2"], "target": ["2", "3", "1.0"]})
    strings = read_graph_bytes(write(texts), "t")
    assert sorted(strings.names) == ["1", "1.0", "2", "3"] and strings.num_edges == 2  # 2-1.0 twice
    floats = read_graph_bytes(write(pd.DataFrame({"source": [1.0, 1.0, 2.0], "target": [2, 3, 1]})), "t")
    assert floats.names == ("1", "2", "3") and floats.num_edges == 2  # 1-2 twice, undirected: one edge


@pytest.mark.parametrize("writer", NAMED)
def test_columns_in_another_order_are_chosen_by_name(writer):
    g = lesmis()
    graph = read(WRITERS[writer][0](frame(g)[["weight", "target", "source"]]))
    assert_same(graph, g)
    assert graph.read.header == ("weight", "target", "source") and graph.read.positions == (2, 1, 0)


@pytest.mark.parametrize("writer", NAMED)
def test_an_extra_column_is_ignored_and_named(writer):
    g = karate()
    table = frame(g)
    table.insert(2, "kind", "friend")
    graph = read(WRITERS[writer][0](table))
    assert_same(graph, g)
    assert graph.read.ignored == ("'kind'",) and "ignored 'kind'" in graph.read.summary()


@pytest.mark.parametrize("writer", KEYED + ["table"])
def test_a_row_index_that_is_not_pandas_default_is_left_out_as_to_csv_s_is(writer):
    g = lesmis()
    table = frame(g)
    table.index = [f"edge {i}" for i in range(len(table))]  # kept by these writers; 0..n-1 is dropped
    graph = read(WRITERS[writer][0](table))
    assert_same(graph, g)
    assert graph.read.index_column == ("index" if writer == "table" else "")
    assert graph.read.header[0] == graph.read.index_column


@pytest.mark.parametrize("writer", ["table", "parquet"])
def test_a_named_index_is_the_column_it_names(writer):
    g = karate()
    graph = read(WRITERS[writer][0](frame(g).set_index("source")))  # the sources live in the index
    assert_same(graph, g)
    assert graph.read.source == "'source'" and graph.read.index_column is None


def test_an_unnamed_index_that_holds_the_sources_asks_for_the_columns():
    raw = frame(karate()).set_index("source").to_json(orient="split").encode()  # the name is lost
    assert "cannot tell which columns are source and target" in one_line(raw)
    assert_same(read(raw, source=0, target="target"), karate())


@pytest.mark.parametrize("orient", ["columns", "index"])
def test_keyed_orients_tell_columns_from_rows_without_source_target_names(orient):
    g = lesmis()
    table = frame(g).rename(columns={"source": "person", "target": "friend", "weight": "w"})
    graph = read(table.to_json(orient=orient).encode())  # the default index says which keys are rows
    assert_same(graph, g) and graph.read.header == ("person", "friend", "w")
    headerless = pd.DataFrame(frame(g)[["source", "target"]].to_numpy())  # keys 0, 1 and 0..n-1
    graph = read(headerless.to_json(orient=orient).encode())
    assert_same(graph, g, weighted=False) and graph.read.header == ("0", "1")
    assert graph.read.notes[0] == f"pandas JSON, orient '{orient}' (the fewer keys taken as the columns)"


def test_keyed_orients_that_cannot_be_told_apart_are_refused():
    square = pd.DataFrame({"p": ["a", "b"], "q": ["b", "c"]}, index=["x", "y"])
    assert "cannot tell whether its keys are the columns" in one_line(square.to_json().encode())


def test_columns_are_chosen_with_the_same_options_and_questions_as_csv(tmp_path):
    g = karate()
    table = frame(g).rename(columns={"source": "a", "target": "b", "weight": "score"})
    for writer in ("records", "parquet"):
        raw = WRITERS[writer][0](table)
        guessed = read(raw)
        assert_same(guessed, g)
        assert "'score' read as the weight: a number on every row" in " ".join(guessed.read.notes)
        assert_same(read(raw, weight="score"), g)
        assert_same(read(raw, source="b", target=0, weight="none"), g, weighted=False)
        assert "no source column 'nobody'" in one_line(raw, source="nobody", target="b")
        assert read(raw, format="jsonl" if writer == "records" else "pq", weight=2).read.detected is False


def test_json_lines_errors_name_their_line():
    good = '{"source": "a", "target": "b"}\n'
    assert one_line((good + '{"source": "b", "target": \n').encode(), "e.jsonl") == \
        "e.jsonl:2: not valid JSON: Expecting value (column 27)"
    assert one_line((good + "\n" + '["b", "c"]\n').encode(), "e.jsonl").startswith(
        "e.jsonl:3: a JSON Lines line holds a list")
    weights = good.replace("}", ', "weight": 2}') + '{"source": "b", "target": "c", "weight": "heavy"}\n'
    assert one_line(weights.encode(), "e.jsonl") == (
        "e.jsonl:2: weight 'heavy' is not a number (--weight none reads every edge with weight 1; library: "
        "weight='none')")
    spaced = good + "\n\n" + '{"source": "b", "target": "c\\u2028d"}\n'  # row 2 on line 4
    assert one_line(spaced.encode(), "e.jsonl").startswith("e.jsonl:4: a value in column 'target' holds")


@pytest.mark.parametrize("raw, words", [
    ('[{"source": "a", "target": "b"}, {"source": null, "target": "c"}]', "t: row 2: empty node id"),
    ('[{"source": "a", "target": ["b", "c"]}]', "t: row 1: column 'target' holds a list, not a single value"),
    ('[{"source": "a\\nb", "target": "c"}]', "t: row 1: a value in column 'source' holds a line break"),
    ('[["a", "b"], ["b", "c", 2]]', "t: row 2: 3 values, but row 1 has 2 (ragged rows)"),
    ('{"columns": ["source", "target"], "data": [["a", "b"], ["c"]]}', "t: row 2: 1 values, but \"columns\""),
    ('[{"source": "a"}]', "t: 1 column ('source')"),
    ("[]", "t: an empty JSON list"),
    ("[1, 2]", "t: JSON that is not a table as pandas writes it (list)"),
    ('{"a": {"x": {"weight": 1}}, "b": {"x": {}}}', "holds an object, not a single value"),
    ('[{"source": "a\\ud800b", "target": "b"}]', "t:1: \\ud800 is half a surrogate pair"),  # pandas drops it
    ('[{"source": "a", "target": "\\udc00"}]', "t:1: \\udc00 is half a surrogate pair"),
    ('[{"source": 100000000000000000000000, "target": 2}]', "t:1: the integer 1000000000000"),
])
def test_malformed_tables_are_one_line_errors(raw, words):
    assert words in one_line(raw.encode())


def test_an_explicit_format_reads_only_that_format():
    records = WRITERS["records"][0](frame(karate()))
    assert "read it with --format json-table or auto" in one_line(records, format="node-link")
    node_link = json.dumps(nx.node_link_data(karate())).encode()
    refused = one_line(node_link, format="json-table")
    assert "networkx's node-link JSON: leave the format to be found" in refused
    assert read(node_link).read.format == "node-link"  # node-link first: found as before
    assert read(records).read.format == "json-table"


def test_parquet_errors_are_one_line():
    raw = frame(karate()).to_parquet()
    assert "t: cannot read this Parquet file: " in one_line(raw[:-12])
    listed = pd.DataFrame({"source": [[1, 2], [3]], "target": [1, 2]}).to_parquet()
    assert "column 'source' holds a list" in one_line(listed)
    with pytest.raises(GraphFormatError, match="Parquet content over 0 MB once decompressed"):
        read_graph_bytes(raw, "t", max_bytes=100)
    assert read_graph_bytes(gzip.compress(raw), "k.parquet.gz").read.compression == "gzip"
    feather = io.BytesIO()
    frame(karate()).to_feather(feather)
    assert "binary content (an Arrow/Feather file)" in one_line(feather.getvalue())
    assert "graphs are text, CSV, GEXF, GraphML, GML, Pajek, JSON, Parquet" in one_line(feather.getvalue())


def test_a_parquet_file_whose_text_is_not_utf8_is_one_line():
    """A damaged byte inside a string was found by pyarrow only when pandas converted the column: a
    traceback (ArrowException) instead of a line."""
    raw = pd.DataFrame({"source": ["Alice", "Bob"], "target": ["Bob", "Carol"]}).to_parquet(compression=None)
    assert b"Carol" in raw  # uncompressed: its bytes are there to damage
    assert "Invalid UTF8" in one_line(raw.replace(b"Carol", b"Ca\xffol"))


def test_parquet_without_pyarrow_says_what_to_install(monkeypatch):
    raw = frame(karate()).to_parquet()
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import pyarrow.parquet fails
    assert one_line(raw) == "t: a Parquet file: reading it needs pyarrow (pip install pyarrow)"


def test_the_column_picker_gets_the_header_and_the_format():
    table = frame(lesmis())
    assert table_columns(WRITERS["records"][0](table), "t") == (("source", "target", "weight"),
                                                                ("Napoleon", "Myriel", "1"), "json-table")
    assert table_columns(WRITERS["parquet"][0](table), "t").format == "parquet"
    assert table_columns(WRITERS["values"][0](table), "t")[:2] == (None, ("Napoleon", "Myriel", "1"))
    assert table_columns(json.dumps(nx.node_link_data(karate())).encode(), "t") is None
    sheet = b"person,friend,score,,\r\nann,bob,2,,\r\n,,,,\r\n"  # a spreadsheet's empty trailing columns
    assert table_columns(sheet, "t") == (("person", "friend", "score"), ("ann", "bob", "2"), "edgelist")


def test_load_graph_and_the_cli_read_parquet_and_json_lines(tmp_path):
    g = karate()
    frame(g).to_parquet(tmp_path / "k.parquet")
    frame(g).to_json(tmp_path / "k.jsonl", orient="records", lines=True)
    assert_same(load_graph(tmp_path / "k.parquet"), g)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    for name in ("k.parquet", "k.jsonl"):
        proc = subprocess.run([sys.executable, "-m", "goat_core", "info", str(tmp_path / name), "--json"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        info = json.loads(proc.stdout)
        assert (info["nodes"], info["edges"], info["weighted"]) == (34, 78, True)


def test_a_format_reader_s_table_section_takes_the_same_path():
    """The contract the format readers use (GDF's and VNA's edge sections, SIF rows): a Table
    with its rows' file lines, or a DataFrame as pd.read_csv gives it, headerless or named."""
    from goat_core.data.formats import ReadOptions
    from goat_core.data.frames import Table, read_frame

    section = Table(["node1", "node2", "weight"], [["a", "b"], ["b", "c"], ["1.5", "-2"]], "GDF edge section",
                    lines=[5, 9])
    with pytest.raises(GraphFormatError, match=r"^x.gdf:9: weight -2 is not positive"):
        read_frame(section, "x.gdf", ReadOptions(), "gdf")
    rows = pd.read_csv(io.StringIO("a\tb\t2\nb\tc\t3\n"), sep="\t", header=None, dtype=str)
    graph, report = read_frame(rows, "x.sif", ReadOptions(), "sif")
    assert graph.names == ("a", "b", "c") and graph.weight.tolist() == [2.0, 3.0]
    assert (report.format, report.header, report.weight) == ("sif", None, "column 2")


@pytest.mark.parametrize("lines", [False, True])
def test_json_integers_past_2_64_are_refused_not_wrapped(lines):
    """pandas' JSON parser reads 123456789012345678901 as 12776324570088369205 (modulo 2**64)."""
    from tests.data.reading import read_error

    rows = [{"source": 123456789012345678901, "target": 1}, {"source": 1, "target": 2}]
    raw = ("\n".join(map(json.dumps, rows)) if lines else json.dumps(rows, indent=1)).encode()
    message = read_error(raw, "big.json")
    assert message.startswith("big.json:") and "123456789012345678901 is past 2**64" in message


def test_an_empty_weight_column_is_named_as_such():
    """pandas writes a weight column of NaN as empty fields ("a,b,"): not a ragged row."""
    from goat_core.data.formats import ReadOptions
    from tests.data.reading import read_error

    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "weight": [None, None]})
    raw = frame.to_csv(index=False)
    message = read_error(raw.encode(), "e.csv")
    assert message.startswith("e.csv:2: weight '' is not a number") and "--weight none" in message
    assert read_graph_bytes(raw.encode(), "e.csv", ReadOptions(weight="none")).num_edges == 2


# --------------------------------------------------------------------------- Excel workbooks (.xlsx)


def workbook(fill) -> bytes:
    """An .xlsx written by openpyxl: ``fill(sheet)`` writes the first sheet's cells."""
    from openpyxl import Workbook

    book = Workbook()
    fill(book.active)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def to_excel(df: pd.DataFrame, **options) -> bytes:
    out = io.BytesIO()
    df.to_excel(out, **options)
    return out.getvalue()


@pytest.mark.parametrize("options", [{}, {"index": False}, {"index": False, "sheet_name": "edges"}],
                         ids=["index", "no-index", "sheet-name"])
@pytest.mark.parametrize("make", [karate, lesmis], ids=["karate", "lesmis"])
def test_pandas_to_excel_is_read_to_the_graph_it_wrote(make, options):
    g = make()
    graph = read(to_excel(frame(g), **options))
    assert_same(graph, g)
    assert graph.read.format == "excel" and graph.read.detected and graph.read.compression is None
    assert graph.read.notes[0] == f"Excel sheet {options.get('sheet_name', 'Sheet1')!r}"
    assert graph.read.index_column == (None if "index" in options else "")
    assert (graph.read.source, graph.read.target, graph.read.weight) == ("'source'", "'target'", "'weight'")
    assert graph.read.summary().startswith(f"{g.number_of_edges()} edges read as Excel workbook from")
    assert table_columns(to_excel(frame(g), **options), "t") == (
        ("",) * ("index" not in options) + ("source", "target", "weight"),
        ("0",) * ("index" not in options) + tuple(map(str, frame(g).iloc[0])), "excel")


def test_the_first_sheet_holding_cells_is_read_and_the_others_are_named():
    g = karate()
    out = io.BytesIO()
    with pd.ExcelWriter(out) as writer:
        pd.DataFrame().to_excel(writer, sheet_name="notes")  # an empty first sheet is passed over
        frame(g).to_excel(writer, sheet_name="edges", index=False)
        nodes = pd.DataFrame({"id": list(g), "club": [g.nodes[n]["club"] for n in g]})
        nodes.to_excel(writer, sheet_name="nodes")
    graph = read(out.getvalue())
    assert_same(graph, g)
    assert graph.read.notes[0] == "Excel sheet 'edges' (also in the workbook, not read: 'nodes')"


@pytest.mark.parametrize("nodes, edges", [("Nodes", "Edge list"), ("Elements", "Connections")])  # Kumu's
def test_a_sheet_named_for_edges_is_read_before_a_nodes_sheet_in_front_of_it(nodes, edges):
    """A workbook as people keep a network: a Nodes sheet first, then an "Edge list" sheet."""
    g = karate()
    out = io.BytesIO()
    with pd.ExcelWriter(out) as writer:
        pd.DataFrame({"id": list(g), "club": [g.nodes[n]["club"] for n in g]}).to_excel(
            writer, sheet_name=nodes, index=False)
        frame(g).to_excel(writer, sheet_name=edges, index=False)
    graph = read(out.getvalue())
    assert_same(graph, g)
    assert graph.read.notes[0] == f"Excel sheet {edges!r} (also in the workbook, not read: {nodes!r})"


def test_a_sheet_as_people_fill_it_in_is_read():
    """A blank first row and column, Gephi's header, ids typed as 1.0, empty trailing rows and
    columns that hold only blanks, and a formula in a column that is not read."""
    g = karate()

    def fill(sheet):
        sheet.append([])
        sheet.append([None, "Source", "Target", "Weight", "Note"])
        for u, v, w in g.edges(data="weight"):
            sheet.append([None, float(u), v, w, "=B3*2"])
        for row in range(90, 95):
            sheet.cell(row, 9).value = " "  # spreadsheets' trailing cells of blanks
    graph = read(workbook(fill))
    assert_same(graph, g)
    assert graph.read.ignored == ("'Note'",) and graph.read.header == ("Source", "Target", "Weight", "Note")
    assert graph.names[:3] == ("0", "1", "2")  # integer ids, in numeric order


def test_a_sheet_without_a_header_is_read_by_position():
    g = karate()
    graph = read(to_excel(frame(g), index=False, header=False))
    assert_same(graph, g)
    assert (graph.read.header, graph.read.source, graph.read.weight) == (None, "column 0", "column 2")
    pairs = to_excel(pd.DataFrame({"a": ["ann", "bob"], "b": ["bob", "cat"]}), index=False)
    assert "t:1: the first line (a,b) is a header or an edge?" in one_line(pairs)  # as a CSV says
    assert read(pairs, source="a", target="b").names == ("ann", "bob", "cat")


def test_errors_name_the_sheet_row():
    def fill(sheet):
        sheet.append(["source", "target", "weight"])
        sheet.append([1, 2, 1.5])
        sheet.append([2, 3, "heavy"])
    assert one_line(workbook(fill)).startswith("t:3: weight 'heavy' is not a number")

    def dated(sheet):
        sheet.append(["source", "target"])
        sheet.append(["a", "b"])
        sheet.append(["b", pd.Timestamp("2026-01-02").to_pydatetime()])  # "1-2" as Excel stores it
    assert one_line(workbook(dated)).startswith("t:3: column 'target' holds a date (2026-01-02 00:00:00)")


def test_a_formula_saved_with_the_result_0_says_so():
    """XlsxWriter (pandas' engine where it is installed) saves 0 as every formula's result until Excel
    opens the file: the weight 0 refused names the formula. Written as XlsxWriter writes the cell."""
    def formula(sheet):
        sheet.append(["source", "target", "weight"])
        sheet.append(["a", "b", 1])
        sheet.append(["b", "c", "=C2*2"])
    raw = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(workbook(formula))) as book, zipfile.ZipFile(raw, "w") as out:
        for item in book.infolist():
            data = book.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":  # <f>C2*2</f> then XlsxWriter's <v>0</v>
                data = data.replace(b"<f>C2*2</f><v></v>", b"<f>C2*2</f><v>0</v>").replace(
                    b"<f>C2*2</f><v />", b"<f>C2*2</f><v>0</v>")
                assert b"<v>0</v>" in data
            out.writestr(item, data)
    message = one_line(raw.getvalue())
    assert message.startswith("t:3: weight 0 is not positive") and "C3 holds a formula (=C2*2)" in message


def test_empty_cells_say_why_they_are_empty():
    """openpyxl saves no result of a formula (only Excel or LibreOffice compute one); merged cells
    hold their value in their first cell only; both read as empty cells, and the error says why."""
    def formula(sheet):
        sheet.append(["source", "target", "weight"])
        sheet.append([1, 2, 1])
        sheet.append([2, 3, "=C2+1"])
    message = one_line(workbook(formula))
    assert message.startswith("t:3: weight '' is not a number") and "C3 holds a formula (=C2+1)" in message

    def merged(sheet):
        sheet.append(["source", "target"])
        sheet.append([1, 2])
        sheet.append([1, 3])
        sheet.merge_cells("A2:A3")
    message = one_line(workbook(merged))
    assert message.startswith("t:3: empty node id") and "A3 is inside the merged cells A2:A3" in message

    def error(sheet):
        sheet.append(["source", "target"])
        sheet.append([1, 2])
        sheet.append([1, "#N/A"])  # a lookup that found nothing, as Excel saves it
    assert one_line(workbook(error)) == "t:3: empty node id (cell B3 holds an Excel error value (#N/A))"


BOMB = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">'
        + "".join(f'<!ENTITY lol{k} "{f"&lol{k - 1};" * 10}">' for k in range(1, 10))
        + ']><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
          '<row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData></worksheet>')


def replaced(raw: bytes, member: str, content: bytes) -> bytes:
    """The workbook ``raw`` with one member's content replaced."""
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            copy.writestr(info.filename, content if info.filename == member else source.read(info))
    return out.getvalue()


def test_broken_and_hostile_workbooks_are_one_line_errors():
    raw = to_excel(frame(karate()), index=False)
    assert one_line(raw[: len(raw) // 2]).startswith("t: not a readable zip file")
    assert one_line(replaced(raw, "xl/worksheets/sheet1.xml", b"<worksheet><sheetData><row"
                             )).startswith("t: cannot read this Excel workbook: ")
    assert "DTD or entities" in one_line(replaced(raw, "xl/worksheets/sheet1.xml", BOMB.encode()))
    with pytest.raises(GraphFormatError, match=r"^t: Excel workbook content over 0 MB once decompressed"):
        read_graph_bytes(raw, "t", max_bytes=1000)  # checked before anything is read
    assert read_graph_bytes(gzip.compress(raw), "k.xlsx.gz").read.compression == "gzip"
    assert "save it as .xlsx or CSV" in one_line(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))  # .xls
    binary = raw.replace(b"xl/workbook.xml", b"xl/workbook.bin")  # .xlsb's part, renamed in place
    assert one_line(binary) == "t: an Excel binary workbook (.xlsb): save it as .xlsx or CSV to read it here"
    empty = to_excel(pd.DataFrame(), index=False)
    assert one_line(empty) == "t: an Excel workbook whose sheets are empty: no edges"


def test_an_opendocument_spreadsheet_is_refused_saying_what_to_save_it_as():
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as ods:  # as LibreOffice lays one out
        ods.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        ods.writestr("content.xml", "<office:document-content/>")
        ods.writestr("META-INF/manifest.xml", "<manifest/>")
    assert one_line(out.getvalue()) == ("t: an OpenDocument spreadsheet (.ods): save it as .xlsx or CSV "
                                        "to read it here")


def test_a_far_cell_is_not_a_table_of_billions_of_empty_cells():
    """pandas' read_excel pads every row to the widest: one blank cell at XFD1048576 made a 5 kB file a
    table of 17 billion cells (it did not finish); a sheet whose rows reach far right is refused."""
    def far(sheet):
        sheet.append(["source", "target"])
        sheet.append(["a", "b"])
        sheet["XFD1048576"] = " "
    assert read(workbook(far)).names == ("a", "b")

    def wide(sheet):
        for row in range(1, 700):
            sheet.append(["a", "b"])
            sheet.cell(row, 16384).value = " "
    assert "cells (empty ones before a row's last counted): more than read here" in one_line(workbook(wide))


def test_a_title_above_the_header_is_left_out_and_nodexl_s_columns_are_known():
    """A title (merged across the table) above the header, and NodeXL's Edges sheet: group titles
    over its columns on row 1, Vertex 1 and Vertex 2 on row 2."""
    g = karate()

    def titled(sheet):
        sheet.append(["Karate club, Zachary (1977)"])
        sheet.merge_cells("A1:C1")
        sheet.append(["Source", "Target", "Weight"])
        for edge in g.edges(data="weight"):
            sheet.append(list(edge))
    graph = read(workbook(titled))
    assert_same(graph, g)
    assert graph.read.notes[0] == "Excel sheet 'Sheet' (its header on row 2: the rows above left out)"

    def nodexl(sheet):
        sheet.append([None, None, "Visual Properties", None, None, "Labels", None, "Graph Metrics"])
        sheet.append(["Vertex 1", "Vertex 2", "Color", "Width", "Style", "Label", "Reciprocated?",
                      "Edge Weight"])
        for u, v, w in g.edges(data="weight"):
            sheet.append([f"n{u}", f"n{v}", None, None, None, None, None, w])
    graph = read(workbook(nodexl))
    assert (graph.num_nodes, graph.num_edges, graph.read.weight) == (34, 78, "'Edge Weight'")
    assert graph.weight.sum() == sum(w for _, _, w in g.edges(data="weight"))


def test_an_id_past_2_53_whose_digits_excel_lost_is_refused():
    def long_ids(sheet):
        sheet.append(["source", "target"])
        sheet.append([123456789012345678.0, 1])  # Excel keeps 15 digits: stored as 1.23456789012346E+17
        sheet.append([1, 2])
    assert "is a float past 2**53, whose digits were lost" in one_line(workbook(long_ids))


def test_a_hidden_sheet_is_passed_over_for_the_sheet_people_see():
    """A hidden sheet first (lookup lists, a template's settings) is not what a user means."""
    from openpyxl import Workbook

    book = Workbook()
    lists = book.active
    lists.title, lists.sheet_state = "lists", "hidden"
    lists.append(["red", "green"])
    lists.append(["blue", "black"])
    edges = book.create_sheet("edges")
    edges.append(["source", "target"])
    edges.append(["a", "b"])
    out = io.BytesIO()
    book.save(out)
    graph = read(out.getvalue())
    assert graph.names == ("a", "b")
    assert graph.read.notes[0] == "Excel sheet 'edges' (also in the workbook, not read: 'lists' (hidden))"
