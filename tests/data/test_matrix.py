"""Adjacency matrices as the tools write them: pandas (``nx.to_pandas_adjacency(G).to_csv()``, with or
without its index), numpy (``np.savetxt(nx.to_numpy_array(G))``), igraph's ``write_adjacency``, and
by hand the layouts of R's ``write.csv``/``write.table`` and Gephi's spreadsheet matrix. Each is read to
the graph it came from; a broken one is refused with its line; an edge list stays an edge list."""

from __future__ import annotations

import csv
import io

import igraph
import networkx as nx
import numpy as np
import pandas as pd
import pytest

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import edges_of, read_error


def nx_edges(g: nx.Graph, weighted: bool = True) -> dict:
    """``edges_of`` for a networkx graph: node names as text, weight 1 when unweighted."""
    pairs = ((str(u), str(v), float(d.get("weight", 1)) if weighted else 1.0)
             for u, v, d in g.edges(data=True))
    if g.is_directed():
        return {(u, v): w for u, v, w in pairs}
    return {frozenset((u, v)): w for u, v, w in pairs}


def pandas_matrix(tmp_path, g: nx.Graph, name: str = "matrix.csv", **to_csv) -> bytes:
    path = tmp_path / name
    nx.to_pandas_adjacency(g).to_csv(path, **to_csv)
    return path.read_bytes()


def savetxt(tmp_path, g: nx.Graph, **kwargs) -> bytes:
    path = tmp_path / "matrix.txt"
    np.savetxt(path, nx.to_numpy_array(g), **kwargs)
    return path.read_bytes()


def assert_graph(graph, g: nx.Graph, weighted: bool = True) -> None:
    assert graph.read.format == "matrix"
    assert (graph.num_nodes, graph.num_edges) == (g.number_of_nodes(), g.number_of_edges())
    assert set(graph.names) == {str(v) for v in g.nodes}
    assert graph.directed == g.is_directed() and graph.weighted == weighted
    assert edges_of(graph) == nx_edges(g, weighted)


@pytest.mark.parametrize("to_csv", [{}, {"sep": ";"}, {"sep": "\t"}, {"quoting": csv.QUOTE_ALL}],
                         ids=["comma", "semicolon", "tab", "quote-all"])
def test_pandas_adjacency_csv_is_the_weighted_graph(tmp_path, to_csv):
    raw = pandas_matrix(tmp_path, nx.karate_club_graph(), **to_csv)
    graph = read_graph_bytes(raw, "karate.csv")
    assert_graph(graph, nx.karate_club_graph())
    assert graph.read.detected and graph.read.directed_why == "a symmetric matrix"


def test_les_miserables_matrix_keeps_names_and_weights(tmp_path):
    g = nx.les_miserables_graph()
    graph = read_graph_bytes(pandas_matrix(tmp_path, g), "lesmis.csv")
    assert_graph(graph, g)
    assert graph.names[:3] == ("Napoleon", "Myriel", "MlleBaptistine")  # the file's order


@pytest.mark.parametrize("name", ["karate", "lesmis"])
def test_pandas_matrix_without_its_index_column(tmp_path, name):
    """to_csv(index=False): the header names the columns, the rows are bare values."""
    g = nx.karate_club_graph() if name == "karate" else nx.les_miserables_graph()
    graph = read_graph_bytes(pandas_matrix(tmp_path, g, index=False), "matrix.csv")
    assert_graph(graph, g)


@pytest.mark.parametrize("kwargs", [{"fmt": "%d"}, {"fmt": "%d", "delimiter": ","}, {}],
                         ids=["blanks", "comma", "float"])
def test_numpy_savetxt_square_is_nodes_0_to_n_minus_1(tmp_path, kwargs):
    g = nx.karate_club_graph()
    graph = read_graph_bytes(savetxt(tmp_path, g, **kwargs), "karate.txt")
    assert_graph(graph, g)
    assert graph.names == tuple(str(i) for i in range(34))
    assert any("0..33" in note for note in graph.read.notes)


def test_igraph_write_adjacency(tmp_path):
    path = tmp_path / "zachary.txt"
    ig = igraph.Graph.Famous("Zachary")
    ig.write_adjacency(str(path))
    graph = read_graph_bytes(path.read_bytes(), "zachary.txt")
    assert_graph(graph, nx.Graph(ig.get_edgelist()), weighted=False)


def test_igraph_directed_matrix_is_directed(tmp_path):
    path = tmp_path / "directed.txt"
    arcs = list(nx.gnm_random_graph(12, 40, seed=2, directed=True).edges)
    ig = igraph.Graph(n=12, edges=arcs, directed=True)
    ig.write_adjacency(str(path))
    graph = read_graph_bytes(path.read_bytes(), "directed.txt")
    expected = nx.DiGraph(ig.get_edgelist())
    expected.add_nodes_from(range(12))
    assert_graph(graph, expected, weighted=False)
    assert "has no" in graph.read.directed_why


def test_directed_weighted_pandas_matrix_and_weight_none(tmp_path):
    g = nx.DiGraph()
    g.add_weighted_edges_from([("a", "b", 2.5), ("b", "c", 1), ("c", "a", 4), ("a", "c", 4), ("d", "a", 1)])
    raw = pandas_matrix(tmp_path, g)
    assert_graph(read_graph_bytes(raw, "d.csv"), g)
    unweighted = read_graph_bytes(raw, "d.csv", ReadOptions(weight="none"))
    assert_graph(unweighted, g, weighted=False)


R_WRITE_CSV = b'"","A","B","C","D"\n"A",0,1,1,0\n"B",1,0,0,1\n"C",1,0,0,0\n"D",0,1,0,0\n'
R_WRITE_TABLE = b'"A" "B" "C" "D"\n"A" 0 1 1 0\n"B" 1 0 0 1\n"C" 1 0 0 0\n"D" 0 1 0 0\n'
GEPHI_MATRIX = b";A;B;C\nA;0;1;0\nB;1;0;1\nC;0;1;0\n"  # a small one: 3 named nodes


def test_rows_numbered_as_pandas_and_r_number_them_take_the_header_names(tmp_path):
    """pd.DataFrame(matrix, columns=names).to_csv(): rows 0..n-1 (with names n0..n33, 'n1' and 'n2'
    were read as an edge list's ends: 7 nodes); R's write.csv of a matrix without dimnames: columns
    V1..Vn, rows 1..n."""
    path = tmp_path / "m.csv"
    pd.DataFrame(nx.to_numpy_array(nx.karate_club_graph()), columns=[f"n{i}" for i in range(34)]).to_csv(path)
    graph = read_graph_bytes(path.read_bytes(), "m.csv")
    assert graph.read.format == "matrix" and graph.names[:2] == ("n0", "n1") and graph.num_edges == 78
    r_csv = b'"","V1","V2","V3","V4"\n"1",0,1,1,0\n"2",1,0,0,1\n"3",1,0,0,0\n"4",0,1,0,0\n'
    expected = {frozenset(e) for e in [("V1", "V2"), ("V1", "V3"), ("V2", "V4")]}
    assert set(edges_of(read_graph_bytes(r_csv, "r.csv"))) == expected


@pytest.mark.parametrize("raw", [R_WRITE_CSV, R_WRITE_TABLE, GEPHI_MATRIX],
                         ids=["R write.csv", "R write.table", "Gephi matrix"])
def test_hand_written_r_and_gephi_matrices(raw):
    """R's write.csv(as.matrix(as_adjacency_matrix(g))) quotes the names and a "" corner;
    write.table leaves the corner out; Gephi's spreadsheet matrix is `;`-separated."""
    graph = read_graph_bytes(raw, "m.csv")
    assert graph.read.format == "matrix"
    expected = {frozenset(e) for e in ([("A", "B"), ("A", "C"), ("B", "D")] if raw != GEPHI_MATRIX
                                       else [("A", "B"), ("B", "C")])}
    assert set(edges_of(graph)) == expected and not graph.directed and not graph.weighted


def test_diagonal_is_a_self_loop_dropped_as_other_matrices_do():
    graph = read_graph_bytes(b",a,b,c\na,1,1,0\nb,1,0,1\nc,0,1,0\n", "m.csv")
    assert graph.num_edges == 2 and graph.report.self_loops_dropped == 1


def test_a_headerless_square_with_a_diagonal_is_an_edge_table_unless_told():
    """Four edges of 'u v weight time' are four rows of four numbers: a matrix only when told."""
    raw = b"1 2 1 1000\n2 3 1 1001\n3 4 1 1002\n4 1 1 1003\n"
    assert "--format matrix" in read_error(raw, "m.txt")
    assert read_graph_bytes(raw, "m.txt", ReadOptions(format="matrix")).report.self_loops_dropped == 4


def test_a_small_headerless_square_is_read_as_a_matrix_only_when_told():
    raw = b"0 1 1\n1 0 1\n1 1 0\n"
    assert read_graph_bytes(raw, "m.txt", ReadOptions(weight="none")).read.format == "edgelist"
    for name in ("matrix", "adjacency-matrix"):
        graph = read_graph_bytes(raw, "m.txt", ReadOptions(format=name))
        assert set(edges_of(graph)) == {frozenset(e) for e in [("0", "1"), ("0", "2"), ("1", "2")]}


EDGE_LISTS = {
    "named columns over a square of numbers": b"source,target,weight,time\n1,2,3,100\n2,3,1,200\n3,4,1,300\n"
                                              b"4,1,2,400\n",
    "pandas edge frame with integer columns": b",0,1,2\n0,5,7,1\n1,3,4,1\n2,7,3,2\n",
    "networkx edge table": None,
    "three unknown names over three rows": b"Person,Friend,Strength\n1,2,5\n2,3,1\n3,1,2\n",
}


@pytest.mark.parametrize("name", EDGE_LISTS)
def test_an_edge_list_stays_an_edge_list(tmp_path, name):
    raw = EDGE_LISTS[name]
    if raw is None:
        raw = nx.to_pandas_edgelist(nx.karate_club_graph()).to_csv(index=False).encode()
    assert read_graph_bytes(raw, "edges.csv").read.format == "edgelist"


def test_unknown_names_over_a_square_whose_diagonal_is_not_0_are_refused_as_before():
    message = read_error(b"p,q,r,s\n1,2,3,4\n2,3,4,5\n3,4,5,6\n4,5,6,0\n", "edges.csv")
    assert "cannot tell which columns are source and target" in message and "--format matrix" in message


BROKEN = {
    "short row": (b",a,b,c,d\na,0,1,0,1\nb,1,0,1\nc,0,1,0,0\nd,1,0,0,0\n", 3, "3 values"),
    "long row": (b"0 1 0 1\n1 0 1 0\n0 1 0 0 1\n1 0 0 0\n", 3, "5 values"),
    "row label": (b",a,b,c,d\na,0,1,0,1\nb,1,0,1,0\nx,0,1,0,0\nd,1,0,0,0\n", 4, "'x'"),
    "text cell": (b",a,b,c,d\na,0,1,0,1\nb,1,0,yes,0\nc,0,1,0,0\nd,1,0,0,0\n", 3, "'yes'"),
    "nan cell": (b",a,b,c,d\na,0,1,0,1\nb,1,0,1,0\nc,0,1,0,nan\nd,1,0,0,0\n", 4, "'nan'"),
    "negative": (b"0 1 0 1\n1 0 1 0\n0 -1 0 0\n1 0 0 0\n", 3, "--weight none"),
    "infinite": (b"0 1 0 1\n1 0 1 0\n0 1 0 0\n1 0 inf 0\n", 4, "--weight none"),
    "not square": (b"0 1 0 1\n1 0 1 0\n0 1 0 0\n1 0 0 0\n0 0 0 1\n", 5, "square"),
    "two labels alike": (b",a,b,a\na,0,1,0\nb,1,0,1\na,0,1,0\n", 1, "'a'"),
    "no ties": (b"0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n", None, "no ties"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_matrix_is_refused_with_its_line(name):
    raw, line, words = BROKEN[name]
    message = read_error(raw, "m.csv", ReadOptions(format="matrix"))
    assert message.startswith(f"m.csv:{line}:" if line else "m.csv: "), message
    assert words in message


def test_weight_none_reads_negative_cells_as_ties():
    graph = read_graph_bytes(BROKEN["negative"][0], "m.txt", ReadOptions(format="matrix", weight="none"))
    assert graph.num_edges == 3 and not graph.directed and not graph.weighted  # -1 mirrors a 1


def test_a_wide_header_that_is_not_quite_a_matrix_is_refused_briefly_pointing_at_the_format(tmp_path):
    """A matrix with one row label edited: not told from a table by its content, so refused; the
    message lists a few of the 77 names, not all of them twice, and names --format matrix."""
    raw = pandas_matrix(tmp_path, nx.les_miserables_graph()).replace(b"\nValjean,", b"\nJean Valjean,")
    message = read_error(raw, "lesmis.csv")
    assert "Gavroche" not in message and "more" in message and "--format matrix" in message
    assert len(message) < 600
    assert "Jean Valjean" in read_error(raw, "lesmis.csv", ReadOptions(format="matrix"))


def test_a_headerless_square_and_one_row_more_is_refused_naming_the_format():
    message = read_error(BROKEN["not square"][0], "m.txt")
    assert message.startswith("m.txt:1: 4 columns") and "--format matrix" in message


def test_a_2000_node_matrix_reads(tmp_path):
    g = nx.gnm_random_graph(2000, 8000, seed=1)
    graph = read_graph_bytes(savetxt(tmp_path, g, fmt="%d"), "big.txt")
    assert (graph.num_nodes, graph.num_edges) == (2000, 8000)


@pytest.mark.parametrize("to_csv", [{}, {"index": False}], ids=["with-index", "without"])
def test_a_matrix_whose_lines_are_wider_than_the_sniffed_head_is_found(tmp_path, to_csv):
    """A header line past 64 kB (10,000 nodes named "n17": 60 kB) was read as an edge table from its
    columns "n1" and "n2" (names edge tables use): 2 nodes, 1 edge, in two minutes. Long names make one
    here of 600 nodes."""
    g = nx.relabel_nodes(nx.barabasi_albert_graph(600, 2, seed=1), lambda v: f"n{v}" + "x" * 120 * (v > 2))
    path = tmp_path / "wide.csv"
    nx.to_pandas_adjacency(g).to_csv(path, **to_csv)
    raw = path.read_bytes()
    assert raw.index(b"\n") > 65536  # the header alone is wider than the 64 kB sniffed before
    assert_graph(read_graph_bytes(raw, "wide.csv"), g, weighted=False)


def test_a_konect_file_of_four_columns_and_four_rows_stays_an_edge_list():
    raw = b"% asym posweighted\n% 4 4 4\n1 2 3 1000\n2 3 1 1001\n3 1 2 1002\n3 4 5 1003\n"
    assert read_graph_bytes(raw, "out.konect").read.format == "edgelist"


@pytest.mark.parametrize("raw", [b"1\n", b",a,b,c\n"], ids=["one cell", "a header alone"])
def test_one_row_is_refused_as_a_matrix(raw):
    assert read_error(raw, "m.csv", ReadOptions(format="matrix")).startswith("m.csv:1: one row")


def test_excel_sep_line_and_empty_trailing_columns_read_as_a_matrix():
    raw = b"sep=;\n;a;b;c;;\na;0;1;0;;\nb;1;0;1;;\nc;0;1;0;;\n"
    graph = read_graph_bytes(raw, "sheet.csv")
    assert graph.read.format == "matrix" and set(edges_of(graph)) == {frozenset("ab"), frozenset("bc")}


def test_columns_cannot_be_chosen_in_a_matrix():
    message = read_error(R_WRITE_CSV, "m.csv", ReadOptions(format="matrix", source="A", target="B"))
    assert "no columns to choose" in message and "--weight none" in message


def test_a_long_word_in_a_matrix_or_a_weight_is_shown_cut_in_the_one_line_error():
    """pandas writes a 20,000-character cell as it is; the refusal quoted it whole (20 kB a line)."""
    frame = nx.to_pandas_adjacency(nx.cycle_graph(4)).astype(object)
    frame.iloc[0, 3] = "x" * 20_000
    raw = frame.to_csv().encode()
    assert len(read_error(raw, "m.csv", ReadOptions(format="matrix"))) < 300
    frame.iloc[0, 3], frame.index = 1.0, ["y" * 20_000, 1, 2, 3]
    assert len(read_error(frame.to_csv().encode(), "m.csv", ReadOptions(format="matrix"))) < 300
    edges = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "weight": [1, "w" * 20_000]})
    assert len(read_error(edges.to_csv(index=False).encode(), "e.csv")) < 300
    wide = pd.DataFrame([[1, 2, 3, 4]], columns=["a" * 20_000, "b" * 20_000, "c", "d"])
    assert len(read_error(wide.to_csv(index=False).encode(), "w.csv")) < 600


def test_an_adjacency_matrix_in_an_excel_sheet_or_parquet_is_read_as_one():
    """pandas' to_excel / to_parquet of to_pandas_adjacency (Les Misérables; a numbered cycle): refused as
    an edge table naming --format matrix, which then said 'binary content'; they are read as matrices."""
    g = nx.les_miserables_graph()
    table = io.BytesIO()
    nx.to_pandas_adjacency(g).to_parquet(table)
    graph = read_graph_bytes(table.getvalue(), "lesmis.parquet")
    assert graph.read.format == "matrix" and edges_of(graph) == {
        frozenset((u, v)): float(w) for u, v, w in g.edges(data="weight")}
    sheet = io.BytesIO()
    nx.to_pandas_adjacency(g).to_excel(sheet)
    graph = read_graph_bytes(sheet.getvalue(), "lesmis.xlsx")
    assert graph.read.format == "matrix" and edges_of(graph) == {
        frozenset((u, v)): float(w) for u, v, w in g.edges(data="weight")}
    numbered = io.BytesIO()
    nx.to_pandas_adjacency(nx.cycle_graph(5)).to_excel(numbered)
    graph = read_graph_bytes(numbered.getvalue(), "c.xlsx", ReadOptions(format="matrix"))
    assert set(edges_of(graph)) == {frozenset((str(u), str(v))) for u, v in nx.cycle_graph(5).edges}
