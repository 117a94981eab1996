"""GDF files as Gephi's exporter writes them (``nodedef> name VARCHAR,label VARCHAR,...``, quoted
labels and colours, x/y columns, a ``directed`` column): read to the graph they came from, its
direction from that column, its categorical node attribute as labels; bad rows are one line
naming their line."""

from __future__ import annotations

import gzip
import random

import networkx as nx
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import edges_of, read_error


def gephi_gdf(g: nx.Graph, directed: dict | None = None) -> bytes:
    """``g`` as Gephi 0.10's GDF exporter writes it: node ids unquoted, labels and text attributes
    in double quotes, colours in single quotes, drawing columns first, ``directed`` per edge."""
    rng = random.Random(0)
    attrs = list(dict.fromkeys(k for _, data in g.nodes(data=True) for k in data))
    lines = ["nodedef> name VARCHAR,label VARCHAR,width DOUBLE,height DOUBLE,x DOUBLE,y DOUBLE,color VARCHAR"
             + "".join(f",{a} VARCHAR" for a in attrs)]
    for node, data in g.nodes(data=True):
        colour = ",".join(str(rng.randrange(256)) for _ in range(3))
        values = "".join(f',"{data[a]}"' if a in data else "," for a in attrs)
        lines.append(f'{node},"{node}",10.0,10.0,{rng.uniform(-900, 900):.5f},{rng.uniform(-900, 900):.5f},'
                     f"'{colour}'{values}")
    lines.append("edgedef> node1,node2,weight DOUBLE,directed BOOLEAN,color VARCHAR")
    for u, v, data in g.edges(data=True):
        flag = directed.get((u, v), g.is_directed()) if directed else g.is_directed()
        lines.append(f"{u},{v},{float(data.get('weight', 1))},{str(flag).lower()},'153,153,153'")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
def test_gephi_gdf_reads_back_the_same_graph(make):
    g = make()
    graph = read_graph_bytes(gephi_gdf(g), "g.gdf")
    assert graph.read.format == "gdf" and graph.read.detected
    assert not graph.directed and graph.weighted
    assert graph.names == tuple(str(n) for n in g)
    want = {frozenset((str(u), str(v))): float(d["weight"]) for u, v, d in g.edges(data=True)}
    assert edges_of(graph) == want
    assert graph.read.weight == "column 'weight'"
    assert "node column 'x'" in graph.read.ignored and "node column 'color'" in graph.read.ignored
    assert "edge column 'color'" in graph.read.ignored


def test_karate_club_column_becomes_the_labels():
    graph = read_graph_bytes(gephi_gdf(nx.karate_club_graph()), "karate.gdf")
    assert graph.labels.classes == ("Mr. Hi", "Officer")
    assert graph.read.labels_from == "'club'"
    assert list(graph.node_attrs["club"][:2]) == ["Mr. Hi", "Mr. Hi"]


def test_a_directed_column_true_makes_the_graph_directed():
    d = nx.gnm_random_graph(30, 90, seed=2, directed=True)
    for u, v in d.edges:
        d.edges[u, v]["weight"] = 1 + (u * v) % 4
    graph = read_graph_bytes(gephi_gdf(d), "d.gdf")
    assert graph.directed and graph.read.directed_why == "90 of 90 edges' directed column is true"
    assert edges_of(graph) == {(str(u), str(v)): float(w) for u, v, w in d.edges(data="weight")}


def test_a_mixed_graph_is_directed_its_undirected_edges_both_ways():
    g = nx.path_graph(4)
    raw = gephi_gdf(g, directed={(0, 1): True})
    graph = read_graph_bytes(raw, "mixed.gdf")
    assert graph.directed and graph.read.directed_why == "1 of 3 edges' directed column is true"
    assert set(edges_of(graph)) == {("0", "1"), ("1", "2"), ("2", "1"), ("2", "3"), ("3", "2")}
    assert any("mixed graph: 2 undirected edges read both ways" in note for note in graph.read.notes)


def test_directed_asked_gives_undirected_edges_both_ways():
    graph = read_graph_bytes(gephi_gdf(nx.path_graph(3)), "p.gdf", ReadOptions(directed=True))
    assert graph.directed and graph.read.directed_why == "as asked"
    assert set(edges_of(graph)) == {("0", "1"), ("1", "0"), ("1", "2"), ("2", "1")}


GUESS = b"""NODEDEF>name VARCHAR,label VARCHAR,kind VARCHAR,visible BOOLEAN,x DOUBLE
'a b',Ann,'person',true,1.5
"c,d",'O'Brien',"place",true,2.5
e,,null,false,3.5
EdgeDef>node1 VARCHAR,node2 VARCHAR,weight DOUBLE default 2.5,kind VARCHAR
'a b',"c,d",1.25,friend
"c,d",e,,
e,zed
"""


def test_guess_style_file_quotes_defaults_and_undeclared_ends():
    """Both quote styles (a quoted value may hold commas and the other quote), upper-case
    keywords, a default weight for empty values, null, and an edge end no node row declares."""
    graph = read_graph_bytes(GUESS, "guess.gdf")
    assert graph.read.format == "gdf" and not graph.directed
    assert graph.names == ("a b", "c,d", "e", "zed")
    assert edges_of(graph) == {frozenset(("a b", "c,d")): 1.25, frozenset(("c,d", "e")): 2.5,
                               frozenset(("e", "zed")): 2.5}
    assert list(graph.node_attrs["kind"]) == ["person", "place", "", ""]
    assert list(graph.node_attrs["label"]) == ["Ann", "O'Brien", "", ""]
    assert "visible" not in graph.node_attrs and "x" not in graph.node_attrs
    assert any("1 edge ends not declared by a node row, added as nodes: zed" in n for n in graph.read.notes)
    assert "edge column 'kind'" in graph.read.ignored
    assert graph.read.rows == (("a b", "c,d", "1.25"), ("c,d", "e", "2.5"), ("e", "zed", "2.5"))


def test_edges_only_and_weight_options():
    raw = b"edgedef>node1,node2,directed BOOLEAN,score DOUBLE,weight DOUBLE\na,b,false,3,1\nb,c,false,4,1\n"
    graph = read_graph_bytes(raw, "e.gdf")
    assert graph.num_nodes == 3 and edges_of(graph) == {frozenset("ab"): 1.0, frozenset("bc"): 1.0}
    assert not graph.read.notes  # no node section: nothing to call undeclared
    scored = read_graph_bytes(raw, "e.gdf", ReadOptions(weight="score"))
    assert edges_of(scored) == {frozenset("ab"): 3.0, frozenset("bc"): 4.0}
    assert scored.read.weight == "column 'score'"
    assert not read_graph_bytes(raw, "e.gdf", ReadOptions(weight="none")).weighted
    with pytest.raises(GraphFormatError, match="no edge column 'size'; edgedef> names 'directed', 'score'"):
        read_graph_bytes(raw, "e.gdf", ReadOptions(weight="size"))


def test_found_by_content_under_any_name_and_inside_gzip(tmp_path):
    path = tmp_path / "karate.txt.gz"
    path.write_bytes(gzip.compress(gephi_gdf(nx.karate_club_graph())))
    graph = load_graph(str(path))
    assert graph.read.format == "gdf" and (graph.num_nodes, graph.num_edges) == (34, 78)
    assert graph.read.compression == "gzip"


HEAD = b"nodedef> name VARCHAR,label VARCHAR,color VARCHAR\na,\"A\",'1,2,3'\nb,\"B\",'1,2,3'\n"


@pytest.mark.parametrize("raw, line, words", [
    (HEAD + b"c,C,1,2,3\n", 4, "5 values, the header declares 3 columns"),  # an unquoted colour
    (HEAD + b"c,\"C,'1,2,3'\n", 4, "a value opened with \" is not closed"),
    (HEAD + b"a,\"A2\",\n", 4, "node 'a' declared twice (lines 2 and 4)"),
    (HEAD + b",\"X\",\n", 4, "a node row without a 'name'"),
    (HEAD + b"edgedef> node1,node2,weight DOUBLE\na,b,1\nb,a,heavy\n", 6, "weight 'heavy' is not a number"),
    (HEAD + b"edgedef> node1,node2,weight DOUBLE\na,b,-2\n", 5, "weight -2 is not positive"),
    (HEAD + b"edgedef> node1,node2,weight DOUBLE\na,b,\n", 5, "an edge without a 'weight' value"),
    (HEAD + b"edgedef> node1,node2,directed BOOLEAN\na,b,maybe\n", 5, "directed must be true or false"),
    (HEAD + b"edgedef> node1,node2\na\n", 5, "1 values, the header declares 2 columns"),
    (HEAD + b"edgedef> node1,node2\n,b\n", 5, "an edge row without both ends"),
    (HEAD + b"edgedef> node1,node2\na,b\nnodedef> name\n", 6, "a second nodedef> line"),
    (HEAD + b"edgedef> node1\na\n", 4, "edgedef> must name the two ends first"),
    (b"nodedef> name VARCHAR,x DOUBLE,X DOUBLE\n", 1, "column 'X' named twice"),
])
def test_bad_files_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.gdf")
    assert message.startswith(f"bad.gdf:{line}:") and words in message


@pytest.mark.parametrize("raw, words", [
    (HEAD, "a GDF file without edges (no edgedef> section)"),
    (HEAD + b"edgedef> node1,node2\n", "a GDF file whose edgedef> section has no rows"),
])
def test_a_file_without_edges_says_so(raw, words):
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(raw, "bad.gdf")
    assert str(err.value) == f"bad.gdf: {words}"


def test_a_weight_with_an_underscore_is_refused_as_in_a_table():
    """numpy's float parse takes Python's 1_000; a file's weight is not Python: one rule for every reader."""
    gdf = b"nodedef>name VARCHAR\na\nb\nedgedef>node1 VARCHAR,node2 VARCHAR,weight DOUBLE\na,b,1_000\n"
    assert read_error(gdf, "g.gdf") == read_error(b"a,b,w\nx,y,1_000\n", "g.gdf").replace(":2:", ":5:")
