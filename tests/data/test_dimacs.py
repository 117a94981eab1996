"""DIMACS graphs: igraph's write_dimacs (max-flow arcs) and the colouring challenge's .col files."""

from __future__ import annotations

import igraph as ig
import networkx as nx
import pytest

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes, sniff_format
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


def metis_file(g: nx.Graph, header: str | None = None, weights: bool = False) -> bytes:
    """A graph as METIS's manual (and the DIMACS10 challenge's .graph files) writes it: 'n m [fmt]',
    then node i's line lists its neighbours (each followed by the edge's weight when fmt is 1)."""
    lines = ["% a comment", header or f"{g.number_of_nodes()} {g.number_of_edges()}"]
    for u in sorted(g):
        fields = [f"{v + 1} {g[u][v]['weight']}" if weights else str(v + 1) for v in sorted(g[u])]
        lines.append(" ".join(fields))
    return "\n".join(lines).encode() + b"\n"


def test_a_metis_file_whose_nodes_all_have_two_neighbours_is_read_as_metis_not_as_an_edge_list():
    cycle = nx.cycle_graph(12)  # every line 'a b': an edge list's shape, read so before
    graph = read_graph_bytes(metis_file(cycle), "cycle.graph")
    assert graph.read.format == "metis" and not graph.directed and not graph.weighted
    assert graph.names == tuple(str(i) for i in range(1, 13))
    assert edges_of(graph) == {frozenset((str(u + 1), str(v + 1))): 1.0 for u, v in cycle.edges}


def test_metis_edge_weights_vertex_weights_and_isolated_nodes():
    g = nx.petersen_graph()  # three neighbours a line: an edge list of 'a b weight' before
    nx.set_edge_attributes(g, {e: 1 + k % 3 for k, e in enumerate(g.edges)}, "weight")
    g.add_node(10)  # its line is blank
    graph = read_graph_bytes(metis_file(g, "11 15 1", weights=True), "p.graph")
    assert graph.read.format == "metis" and graph.weighted and graph.num_nodes == 11
    wrote = {frozenset((str(u + 1), str(v + 1))): float(w) for u, v, w in g.edges(data="weight")}
    assert edges_of(graph) == wrote
    header, *lines = metis_file(g, "11 15 10").decode().splitlines()[1:]
    vertex_weighted = "\n".join([header] + [f"7 {line}" for line in lines]).encode()  # each node weighs 7
    assert edges_of(read_graph_bytes(vertex_weighted, "p.graph", ReadOptions(format="metis"))) == \
        {frozenset((str(u + 1), str(v + 1))): 1.0 for u, v in g.edges}


def test_an_edge_list_whose_first_line_could_be_a_metis_header_stays_an_edge_list():
    graph = read_graph_bytes(b"3 3\n1 2\n2 3\n3 1\n", "e.txt")  # 3 lines, 6 ids, but not symmetric
    assert graph.read.format == "edgelist" and graph.num_edges == 3 and graph.report.self_loops_dropped == 1


def test_a_broken_metis_file_stops_at_its_line():
    message = read_error(b"3 2\n2\n1 4\n2\n", "m.graph", ReadOptions(format="metis"))
    assert message.startswith("m.graph:3:") and "4" in message and "--format" not in message
    assert read_error(b"3 2\n2\n1\n", "m.graph", ReadOptions(format="metis")).startswith("m.graph:")
    for bad in (b"0", b"99999999999999999999"):  # numbered from 1; past any node count
        message = read_error(b"2 1\n2\n" + bad + b"\n", "m.graph", ReadOptions(format="metis"))
        assert message.startswith("m.graph:3:")


def test_a_metis_weight_that_is_no_number_stops_at_its_line_and_directed_reads_both_ways():
    assert read_error(b"2 1 1\n2 x\n1 x\n", "w.graph", ReadOptions(format="metis")).startswith("w.graph:2:")
    assert "different" in read_error(b"2 1 1\n2 3\n1 5\n", "w.graph", ReadOptions(format="metis"))
    graph = read_graph_bytes(b"2 1\n2\n1\n", "d.graph", ReadOptions(format="metis", directed=True))
    assert graph.directed and edges_of(graph) == {("1", "2"): 1.0, ("2", "1"): 1.0}


def test_weight_none_reads_metis_and_georgia_tech_snap_weights_as_1(tmp_path):
    """networkit's METIS writer writes a signed weight (-2) as it is: refused, the message names --weight
    none, which must then read the file (it kept the weights, refusing again; the app's Ignore weights
    box did nothing). Georgia Tech SNAP's weighted 'p' line alike."""
    nk = pytest.importorskip("networkit")
    g = nk.Graph(3, weighted=True)
    g.addEdge(0, 1, -2.0)
    g.addEdge(1, 2, 0.5)
    nk.graphio.METISGraphWriter().write(g, str(tmp_path / "s.graph"))
    raw = (tmp_path / "s.graph").read_bytes()
    assert "weight none" in read_error(raw, "s.graph")
    graph = read_graph_bytes(raw, "s.graph", ReadOptions(weight="none"))
    assert graph.read.format == "metis" and not graph.weighted
    assert edges_of(graph) == {frozenset(("1", "2")): 1.0, frozenset(("2", "3")): 1.0}
    snap = b"p 3 2 u f 0\n0 1 -2\n1 2 0.5\n"
    assert "weight none" in read_error(snap, "s.txt")
    graph = read_graph_bytes(snap, "s.txt", ReadOptions(weight="none"))
    assert not graph.weighted and edges_of(graph) == {frozenset(("0", "1")): 1.0, frozenset(("1", "2")): 1.0}


def algs4_text(g: nx.Graph, nodes: int, weight: str | None = None) -> bytes:
    """``g`` (nodes 0..nodes-1) as Sedgewick & Wayne's algs4 data files are (tinyG.txt, tinyEWG.txt):
    V, E, then one ``v w [weight]`` line per edge."""
    lines = [str(nodes), str(g.number_of_edges())]
    lines += [f"{u} {v}" + (f" {d[weight]:.2f}" if weight else "") for u, v, d in g.edges(data=True)]
    return ("\n".join(lines) + "\n").encode()


def test_algs4_graphs_are_read_under_their_counts_with_declared_lone_nodes():
    g = nx.convert_node_labels_to_integers(nx.les_miserables_graph())
    graph = read_graph_bytes(algs4_text(g, 80), "mediumG.txt")  # nodes 77..79 have no edge
    assert (graph.read.format, graph.read.detected, graph.weighted, graph.directed) == (
        "counted", True, False, False)
    assert graph.names == tuple(str(i) for i in range(80))
    assert graph.report.isolated_nodes[-3:] == ("77", "78", "79")
    assert edges_of(graph) == {frozenset((str(u), str(v))): 1.0 for u, v in g.edges}
    assert graph.read.notes == ("algs4 graph: its V and E lines declare 80 nodes (0 to 79) and 254 edges",)
    weighted = read_graph_bytes(algs4_text(g, 77, "weight"), "tinyEWG.txt", ReadOptions(directed=True))
    assert weighted.directed and edges_of(weighted) == {(str(u), str(v)): float(w)
                                                        for u, v, w in g.edges(data="weight")}
    assert not read_graph_bytes(algs4_text(g, 77, "weight"), "g.txt", ReadOptions(weight="none")).weighted


@pytest.mark.parametrize("base", [0, 1])
@pytest.mark.parametrize("make", [lambda: nx.path_graph(6), lambda: nx.complete_graph(5)])
def test_a_counts_line_over_exactly_that_many_edges_is_asked_about(make, base):
    """An ``n m`` first line (course assignments' format) over exactly m lines, as an edge naming a node
    that no other line does, may be counts or an edge: the one-line error names the format for each."""
    g = make()
    raw = f"{len(g)} {g.number_of_edges()}\n".encode() + b"".join(f"{u + base} {v + base}\n".encode()
                                                                 for u, v in g.edges)
    want = {frozenset((str(u + base), str(v + base))): 1.0 for u, v in g.edges}
    if base and len(g) == 6:  # "6 5" over a path 1..6 is also its edge 5-6: an edge list, the same graph
        graph = read_graph_bytes(raw, "g.txt")
        assert graph.read.format == "edgelist" and graph.report.duplicates_merged == 1
        assert edges_of(graph) == want
        return
    assert read_error(raw, "g.txt") == (
        f"g.txt:1: the first line '{len(g)} {g.number_of_edges()}': counts ({len(g)} nodes, "
        f"{g.number_of_edges()} edges, as the {g.number_of_edges()} lines after it are) or an edge? "
        "--format counted reads it as counts, --format edgelist as an edge (library: format=)")
    counted = read_graph_bytes(raw, "g.txt", ReadOptions(format="counted"))
    assert counted.read.notes[0].startswith("a line of counts, not an edge") and edges_of(counted) == want
    edge = read_graph_bytes(raw, "g.txt", ReadOptions(format="edgelist"))
    assert edge.num_edges == g.number_of_edges() + 1


@pytest.mark.parametrize("raw", [
    b"3 3\n1 2\n2 3\n3 1\n",  # every number of the first line is a node of another line
    b"007 1\n7 2\n",  # not a count as written
    b"5 1\n2 3\n",  # too small to tell
    b"6 5\n0 1\n1 2\n2 3\n",  # 3 lines, not 5
    b"4 3\n1 2\n2 9\n3 1\n",  # node 9 past 4
    b"1000000000 5\n1 2\n3 4\n5 6\n7 8\n9 10\n",  # more nodes than 34 bytes may declare
])
def test_edge_lists_that_open_like_counts_stay_edge_lists(raw):
    assert read_graph_bytes(raw, "e.txt").read.format == "edgelist"


@pytest.mark.parametrize("raw, line, words", [
    (b"4\n3\n0 1\n1 2\n", 2, "the counts say 3 edges, one line each; 2 lines follow"),
    (b"4\n2\n0 1\n1 4\n", 4, "a node past the 4 the counts declare (numbered 0 to 3)"),
    (b"4\n2\n0 1\n1 2 0.5\n", 4, "expected 'v w' or 'v w weight', every line alike: '1 2 0.5'"),
])
def test_a_broken_counted_file_stops_at_its_line(raw, line, words):
    assert read_error(raw, "c.txt", ReadOptions(format="algs4")) == f"c.txt:{line}: {words}"


def lg_text(g: nx.Graph, nodes: int, name: str = "graph") -> bytes:
    """``g`` (nodes 1..nodes) as Graphs.jl's ``savegraph(path, g; compress=false)`` writes it (its LG
    format, src/persistence/lg.jl's ``savelg``): ``nv,ne,u|d,name,2,Int64,simplegraph``, then ``src,dst``."""
    kind = "d" if g.is_directed() else "u"
    lines = [f"{nodes},{g.number_of_edges()},{kind},{name},2,Int64,simplegraph"]
    return ("\n".join(lines + [f"{u},{v}" for u, v in g.edges]) + "\n").encode()


def test_graphs_jl_lg_files_are_read_with_their_declared_nodes_and_direction():
    g = nx.convert_node_labels_to_integers(nx.karate_club_graph(), first_label=1)
    graph = read_graph_bytes(lg_text(g, 36), "karate.lg")  # nodes 35 and 36 have no edge
    assert (graph.read.format, graph.read.detected, graph.directed) == ("counted", True, False)
    assert graph.names == tuple(str(i) for i in range(1, 37)) and graph.report.isolated_nodes == ("35", "36")
    assert edges_of(graph) == {frozenset((str(u), str(v))): 1.0 for u, v in g.edges}
    assert graph.read.notes == (
        "Graphs.jl LG graph 'graph': its header declares 36 nodes (1 to 36) and 78 edges",)
    cycle = nx.DiGraph([(1, 2), (2, 3), (3, 1)])
    directed = read_graph_bytes(b"# a comment\n3,3,d,cycle\n1,2\n2,3\n3,1\n", "c.lg")  # the older header
    assert directed.directed and directed.read.directed_why == "its LG header says d"
    assert edges_of(directed) == {(str(u), str(v)): 1.0 for u, v in cycle.edges}
    assert sniff_format(b"1,2,u,x\n2,3,u,y\n", "e.csv") == "edgelist"  # rows alike: a table's


@pytest.mark.parametrize("raw, line, words", [
    (b"3,2,u,a\n1,2\n2,3\n2,1,u,b\n1,2\n", 4, "a second graph's header: several graphs in one LG file"),
    (b"3,2,u,a\n1,2\n2,4\n", 3, "a node past the 3 the counts declare (numbered 1 to 3)"),
    (b"3,3,u,a\n1,2\n2,3\n", 1, "the counts say 3 edges, one line each; 2 lines follow"),
])
def test_a_broken_lg_file_stops_at_its_line(raw, line, words):
    assert read_error(raw, "g.lg").startswith(f"g.lg:{line}: {words}")
