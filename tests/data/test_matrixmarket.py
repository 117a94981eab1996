"""Matrix Market files as scipy.io.mmwrite writes them (the format of SuiteSparse and Network
Repository): read to the graph they came from, the direction the matrix declares, bad entries
reported with their line."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from goat_core import load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import read_error


def mtx(tmp_path, matrix, name="graph.mtx", **kwargs) -> bytes:
    path = tmp_path / name
    scipy.io.mmwrite(path, matrix, **kwargs)
    return path.read_bytes()


def edges_of(graph) -> dict[tuple[str, str], float]:
    pairs = zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist(), strict=True)
    return {tuple(sorted((graph.names[s], graph.names[t]))) if not graph.directed
            else (graph.names[s], graph.names[t]): w for s, t, w in pairs}


def karate_weighted() -> dict[tuple[str, str], float]:
    """karate's edges with 1-based names, as a Matrix Market file numbers them."""
    g = nx.karate_club_graph()
    return {tuple(sorted((str(u + 1), str(v + 1)))): float(d["weight"]) for u, v, d in g.edges(data=True)}


@pytest.mark.parametrize("layout", ["sparse", "dense"])
def test_symmetric_matrix_is_the_undirected_weighted_graph(tmp_path, layout):
    a = nx.to_numpy_array(nx.karate_club_graph())  # weights 1..7
    raw = mtx(tmp_path, sp.coo_matrix(a) if layout == "sparse" else a)
    assert b"symmetric" in raw.splitlines()[0]
    graph = read_graph_bytes(raw, "karate.mtx")
    assert (graph.num_nodes, graph.num_edges, graph.directed, graph.weighted) == (34, 78, False, True)
    assert edges_of(graph) == karate_weighted()
    assert graph.read.format == "matrix-market" and graph.read.directed_why == "a symmetric matrix"


def test_a_banner_in_lower_case_as_rustworkx_writes_it(tmp_path):
    import rustworkx as rx

    path = tmp_path / "rx.mtx"
    rx.write_matrix_market(rx.networkx_converter(nx.karate_club_graph()), str(path))
    assert path.read_bytes().startswith(b"%%matrixmarket matrix coordinate")  # scipy.io.mmread refuses it
    graph = read_graph_bytes(path.read_bytes(), "rx.mtx")
    assert (graph.num_nodes, graph.num_edges, graph.directed) == (34, 78, False)
    assert set(edges_of(graph)) == set(karate_weighted())


def test_general_matrix_of_a_directed_graph_stays_directed(tmp_path):
    d = nx.gnp_random_graph(30, 0.15, seed=3, directed=True)
    graph = read_graph_bytes(mtx(tmp_path, sp.coo_matrix(nx.to_scipy_sparse_array(d))), "d.mtx")
    assert graph.directed
    assert set(edges_of(graph)) == {(str(u + 1), str(v + 1)) for u, v in d.edges}


def test_general_matrix_holding_both_directions_is_undirected_once(tmp_path):
    """A symmetric graph stored 'general' (every entry twice): the edges once, weights not summed."""
    a = nx.to_numpy_array(nx.karate_club_graph())
    raw = mtx(tmp_path, sp.coo_matrix(a), symmetry="general")
    assert b"general" in raw.splitlines()[0]
    graph = read_graph_bytes(raw, "karate.mtx")
    assert not graph.directed
    assert edges_of(graph) == karate_weighted()
    assert any("both ways" in note for note in graph.read.notes)


def test_pattern_matrix_is_unweighted_and_keeps_isolated_nodes(tmp_path):
    g = nx.path_graph(4)
    g.add_node(4)  # no edge: row 5 of the matrix is empty
    pattern = sp.coo_matrix(nx.to_scipy_sparse_array(g, weight=None))
    raw = mtx(tmp_path, pattern, field="pattern")
    graph = read_graph_bytes(raw, "path.mtx")
    assert not graph.weighted and graph.num_nodes == 5 and graph.num_edges == 3
    assert graph.report.isolated_nodes == ("5",)


def test_self_loops_on_the_diagonal_are_dropped(tmp_path):
    a = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    graph = read_graph_bytes(mtx(tmp_path, sp.coo_matrix(a)), "loops.mtx")
    assert graph.num_edges == 2 and graph.report.self_loops_dropped == 1


def test_directed_asked_for_a_symmetric_matrix_gives_both_directions(tmp_path):
    raw = mtx(tmp_path, sp.coo_matrix(nx.to_numpy_array(nx.path_graph(3))))
    graph = read_graph_bytes(raw, "p.mtx", ReadOptions(directed=True))
    assert graph.directed and set(edges_of(graph)) == {("1", "2"), ("2", "1"), ("2", "3"), ("3", "2")}


@pytest.mark.parametrize("end", [b" ", b"\t", b"\r"])
def test_a_last_line_ending_in_a_blank_without_a_newline(end):
    """scipy 1.17's reader crashes the process on such a file (a segfault, no exception)."""
    raw = b"%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 5\n3 2 1" + end
    graph = read_graph_bytes(raw, "edited.mtx")
    assert edges_of(graph) == {("1", "2"): 5.0, ("2", "3"): 1.0}
    truncated = read_error(b"%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n2 1 5 ", "cut.mtx")
    assert truncated.startswith("cut.mtx:2:") and "declares 3 entries, the file holds 1" in truncated


def test_found_by_its_banner_under_any_name_and_inside_gzip(tmp_path):
    raw = mtx(tmp_path, sp.coo_matrix(nx.to_numpy_array(nx.karate_club_graph())))
    path = tmp_path / "karate.txt.gz"
    path.write_bytes(gzip.compress(raw))
    graph = load_graph(str(path))
    assert graph.read.format == "matrix-market" and graph.num_edges == 78


HEAD = b"%%MatrixMarket matrix coordinate real symmetric\n% comment\n3 3 2\n"


@pytest.mark.parametrize("raw, line, words", [
    (HEAD + b"2 1 1.5\n", 3, "declares 2 entries, the file holds 1"),  # a truncated download
    (HEAD + b"2 1 1.5\n4 1 1\n", 5, "node index '4' is not a whole number in 1..3"),
    (HEAD + b"2 1 1.5\n0 1 1\n", 5, "node index '0'"),
    (HEAD + b"2 1 1.5\n3 1 -2\n", 5, "weight -2 is not positive"),
    (HEAD + b"2 1 1.5\n3 1 x\n", 5, "weight 'x' is not a number"),
    (HEAD + b"2 1\n3 1 1\n", 4, "got 2 fields"),
    (b"%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n2 1 1\n", 2, "rectangular 3 × 4"),
    (b"%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1 0\n", 1, "'complex'"),
    (b"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", 1, "'skew-symmetric'"),
    (b"%%MatrixMarket vector coordinate real general\n", 1, "banner must read"),
    (b"%%MatrixMarket matrix array real general\n2 2\n0\n1\n1\n", 2, "declares 4 entries"),
    # hostile size lines: refused before anything of their size is allocated
    (b"%%MatrixMarket matrix array real general\n100000 100000\n1\n", 2, "declares 10,000,000,000 entries"),
    (b"%%MatrixMarket matrix coordinate pattern general\n99999999999 99999999999 1\n1 2\n", 2,
     "99,999,999,999 nodes"),
])
def test_bad_files_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.mtx")
    assert message.startswith(f"bad.mtx:{line}:") and words in message
