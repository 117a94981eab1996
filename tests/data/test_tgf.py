"""TGF as yEd exports it (File → Save As → TGF): ``id label`` lines, a ``#`` line, ``from to [label]``
lines. Found by its ``#`` line; read as an edge list it would be a wrong graph (``1 Alice`` an edge)."""

from __future__ import annotations

import networkx as nx
import pytest

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes, sniff_format

from .reading import edges_of, read_error


def yed_tgf(g: nx.Graph, edge_labels: bool = False, label=str) -> bytes:
    """``g`` as yEd writes TGF: nodes numbered from 1 with their text, ``#``, then the edges by number."""
    number = {node: k for k, node in enumerate(g, start=1)}
    lines = [f"{number[node]} {label(node)}".rstrip() for node in g] + ["#"]
    lines += [f"{number[u]} {number[v]}" + (f" {d.get('weight', 'knows')}" if edge_labels else "")
              for u, v, d in g.edges(data=True)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
@pytest.mark.parametrize("edge_labels", [False, True])
def test_tgf_reads_back_the_graph_named_by_its_labels(make, edge_labels):
    g = nx.relabel_nodes(make(), {0: "Mr. Hi"}) if make is nx.karate_club_graph else make()
    graph = read_graph_bytes(yed_tgf(g, edge_labels), "g.tgf")
    assert (graph.read.format, graph.read.detected, graph.directed) == ("tgf", True, False)
    assert not graph.weighted
    assert edges_of(graph) == {frozenset((str(u), str(v))): 1.0 for u, v in g.edges}
    assert graph.read.notes[0] == "node names from their labels"
    assert (f"{g.number_of_edges():,} edge labels (not kept)" in graph.read.notes) == edge_labels


def test_nodes_without_a_label_or_sharing_one_are_named_by_id_and_direction_is_asked():
    g = nx.path_graph(["a", "b", "c", "d"])
    unlabelled = read_graph_bytes(yed_tgf(g, label=lambda node: "" if node == "c" else node), "g.tgf")
    assert unlabelled.names == ("1", "2", "3", "4")
    assert unlabelled.read.notes == ("node names are the ids: some nodes have no label",)
    shared = read_graph_bytes(yed_tgf(g, label=lambda node: "x"), "g.tgf")
    assert shared.read.notes == ("node names are the ids: two nodes share a label",)
    directed = read_graph_bytes(yed_tgf(g), "g.tgf", ReadOptions(directed=True))
    assert edges_of(directed) == {("a", "b"): 1.0, ("b", "c"): 1.0, ("c", "d"): 1.0}


@pytest.mark.parametrize("raw", [
    b"1 2\n2 3\n#\n3 4\n",  # an edge list with a bare comment: 1 is no declared node twice, but 4 is none
    b"1 2\n1 3\n#\n2 3\n",  # node 1 twice
    b"# source target\n1 2\n2 3\n#\n1 2\n",  # a comment before the '#' line
])
def test_an_edge_list_with_a_lone_hash_line_stays_an_edge_list(raw):
    assert sniff_format(raw, "e.txt") == "edgelist"


def test_networkx_adjacency_lists_stay_adjacency_lists(tmp_path):
    g = nx.path_graph(5)  # no name: networkx writes a "# " line
    for write, fmt in ((nx.write_adjlist, "adjlist"), (nx.write_multiline_adjlist, "multiline-adjlist")):
        path = tmp_path / f"{fmt}.txt"
        write(g, path)
        raw = open(path, "rb").read()
        assert b"\n# \n" in raw and read_graph_bytes(raw, "g.adjlist").read.format == fmt


@pytest.mark.parametrize("raw, line, words", [
    (b"1 a\n1 b\n#\n1 1\n", 2, "node '1' is declared twice"),
    (b"1 a\n2 b\n#\n1 2\n2 3\n", 5, "edge end '3' is not a node listed above the '#' line"),
    (b"1 a\n2 b\n#\n1 2\n2\n", 5, "one field: a TGF edge line is 'from to [label]'"),
])
def test_bad_tgf_lines_name_their_line(raw, line, words):
    assert read_error(raw, "bad.tgf", ReadOptions(format="tgf")) == f"bad.tgf:{line}: {words}" + (
        ": a TGF node line is 'id [label]', each id once" if "twice" in words else "")


def test_tgf_without_a_hash_line_or_edges_or_asked_for_weights_says_so():
    assert read_error(b"1 a\n2 b\n", "n.tgf", ReadOptions(format="tgf")) == \
        "n.tgf: no '#' line: TGF lists its nodes, then a line of '#', then its edges"
    assert read_error(b"1 a\n2 b\n#\n", "n.tgf", ReadOptions(format="tgf")) == \
        "n.tgf: no edges: no 'from to' line after the '#' line"
    assert "a TGF file has no weights" in read_error(yed_tgf(nx.path_graph(3)), "g.tgf",
                                                     ReadOptions(weight="weight"))
