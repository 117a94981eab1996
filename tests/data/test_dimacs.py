"""DIMACS graphs: igraph's write_dimacs (max-flow arcs) and the colouring challenge's .col files."""

from __future__ import annotations

import igraph as ig
import networkx as nx
import pytest

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes
from tests.data.reading import edges_of, read_error


def test_igraph_write_dimacs_is_read_as_the_directed_arcs_it_wrote(tmp_path):
    g = ig.Graph.Barabasi(200, 2, directed=True)
    g.es["capacity"] = [1 + i % 5 for i in range(g.ecount())]
    path = tmp_path / "flow.max"
    g.write_dimacs(str(path), source=0, target=199, capacity="capacity")
    graph = read_graph_bytes(path.read_bytes(), "flow.max")
    assert graph.read.format == "dimacs" and graph.read.detected and graph.directed and not graph.weighted
    assert graph.names == tuple(str(i) for i in range(1, 201))
    loops = sum(e.source == e.target for e in g.es)
    arcs = {(str(e.source + 1), str(e.target + 1)): 1.0 for e in g.es if e.source != e.target}
    assert edges_of(graph) == arcs
    assert graph.read.edges == g.ecount() and graph.report.self_loops_dropped == loops
    assert "arc values (capacities, lengths) left out" in graph.read.notes


def col_file(g: nx.Graph, nodes: int) -> bytes:
    """A graph as the DIMACS colouring challenge writes it (Trick's myciel3.col, for one)."""
    lines = ["c FILE: myciel3.col", "c SOURCE: Michael Trick", "c", f"p edge {nodes} {g.number_of_edges()}"]
    return "\n".join(lines + [f"e {u + 1} {v + 1}" for u, v in g.edges()]).encode() + b"\n"


def test_a_colouring_file_is_undirected_with_its_declared_nodes():
    g = nx.mycielski_graph(4)  # myciel3.col: 11 nodes, 20 edges
    graph = read_graph_bytes(col_file(g, 13), "myciel3.col")  # 13 declared: 12 and 13 have no edge
    assert graph.read.format == "dimacs" and not graph.directed and graph.num_nodes == 13
    assert edges_of(graph) == {frozenset((str(u + 1), str(v + 1))): 1.0 for u, v in g.edges()}
    assert read_graph_bytes(col_file(g, 11), "m.col", ReadOptions(directed=True)).directed


@pytest.mark.parametrize("raw, words", [
    (b"p edge 3 1\ne 1 4\n", "m.col:2: an e line names two nodes numbered 1 to 3, got 'e 1 4'"),
    (b"c x\np edge 3 1\ne 1 2\np edge 3 1\n", "m.col:4: a DIMACS line is c (comment), then one p line"),
    (b"c x\np edge 3 2\ne 1 2\nx 2 3\n", "m.col:4: a DIMACS line is c"),
    (b"c x\np edge 0 0\ne 1 2\n", "m.col:2: expected 'p KIND NODES EDGES' with 1 to 100,000,000 nodes"),
    (b"c x\np edge 3 0\n", "m.col: a DIMACS file without edges"),
])
def test_broken_dimacs_files_are_one_line_errors(raw, words):
    assert read_error(raw, "m.col", ReadOptions(format="dimacs")).startswith(words)


def test_found_only_from_a_problem_line_and_weights_cannot_be_chosen():
    assert read_graph_bytes(b"a b\nc d\np q\n", "names.txt").read.format == "edgelist"  # c and p: names
    assert read_graph_bytes(b"c x\np edge 2 1\ne 1 2\n", "g.txt").read.format == "dimacs"
    message = read_error(b"p sp 2 1\na 1 2 7\n", "g.gr", ReadOptions(weight="2"))
    assert message.startswith("g.gr: DIMACS edges are read unweighted")
