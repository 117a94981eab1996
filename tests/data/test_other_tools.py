"""Files as other tools write them (igraph's writers, R's write.csv, pandas' options, a spreadsheet,
a hand-edited list), written inside each test, each read to the graph that was written."""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pytest

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes
from tests.data.reading import edges_of, read_error

ig = pytest.importorskip("igraph")


def karate(named: bool, weighted: bool):
    """Zachary's karate club as igraph holds it: names n0..n33 and weights 1-4 when asked."""
    g = ig.Graph.Famous("Zachary")
    if named:
        g.vs["name"] = [f"n{i}" for i in range(g.vcount())]
    if weighted:
        g.es["weight"] = [1 + i % 4 for i in range(g.ecount())]
    return g


def expected(g, unnamed: str = "{0}") -> dict:
    """{frozenset((u, v)): weight} by name; unnamed vertices as ``unnamed`` spells vertex v: {0}
    is v, {1} is v + 1."""
    numbered = [unnamed.format(v, v + 1) for v in range(g.vcount())]
    names = g.vs["name"] if "name" in g.vs.attributes() else numbered
    weights = g.es["weight"] if "weight" in g.es.attributes() else [1.0] * g.ecount()
    return {frozenset((names[e.source], names[e.target])): float(w) for e, w in zip(g.es, weights)}


def written(tmp_path, g, writer: str) -> bytes:
    path = tmp_path / f"g.{writer}"
    with warnings.catch_warnings():  # igraph warns that an unnamed/unweighted graph has no such attribute
        warnings.simplefilter("ignore", RuntimeWarning)
        getattr(g, f"write_{writer}")(str(path))
    return path.read_bytes()


# igraph's writers: (writer, format found, an unnamed vertex's name in the file: Pajek and LEDA count from 1,
# GraphML's ids are n0, n1, ...)
IGRAPH = [("ncol", "edgelist", "{0}"), ("lgl", "lgl", "{0}"), ("gml", "gml", "{0}"),
          ("graphml", "graphml", "n{0}"), ("pajek", "pajek", "{1}"), ("dot", "dot", "{0}"),
          ("edgelist", "edgelist", "{0}"), ("leda", "leda", "{1}")]


CASES = [(*case, named) for case in IGRAPH for named in (True, False) if case[0] != "edgelist" or not named]


@pytest.mark.parametrize("writer, fmt, unnamed, named", CASES,  # write_edgelist writes numbers only
                         ids=[f"{w}-{'named' if n else 'plain'}" for w, _, _, n in CASES])
def test_igraph_writers_are_read_to_the_graph_they_wrote(tmp_path, writer, fmt, unnamed, named):
    weighted = named  # named and weighted, or neither
    g = karate(named, weighted)
    graph = read_graph_bytes(written(tmp_path, g, writer), f"g.{writer}")
    assert graph.read.format == fmt and not graph.directed
    assert (graph.num_nodes, graph.num_edges) == (34, 78)
    assert edges_of(graph) == expected(g, unnamed)
    assert graph.weighted == weighted


@pytest.mark.parametrize("named", [True, False])
def test_igraph_write_ncol_read_by_igraph_s_ncol_reader(tmp_path, named):
    from goat_core.data.formats import ReadOptions
    from goat_core.data.nxformats import read_ncol

    g = karate(named, named)
    raw = written(tmp_path, g, "ncol")
    graph, report = read_ncol(raw, "g.ncol", ReadOptions())
    assert report.format == "ncol" and not graph.directed and graph.weighted == named
    assert (graph.num_nodes, graph.num_edges) == (34, 78) and edges_of(graph) == expected(g)
    as_edge_list = read_graph_bytes(raw, "g.ncol")  # how NCOL was read before: the same nodes, in order
    assert graph.names == as_edge_list.names
    for mine, before in ((graph.src, as_edge_list.src), (graph.dst, as_edge_list.dst),
                         (graph.weight, as_edge_list.weight)):
        assert mine.tolist() == before.tolist()
    directed, _ = read_ncol(b"a b 2\nb a 3\n", "d.ncol", ReadOptions(directed=True))
    assert directed.directed and directed.num_edges == 2
    excel, _ = read_ncol(b"\xef\xbb\xbfa b 1\r\nb c 2\r\n", "bom.ncol", ReadOptions())  # a BOM and CRLF
    assert excel.names == ("a", "b", "c")


def test_an_lgl_file_with_a_bom_is_read():
    from goat_core.data.formats import ReadOptions

    graph = read_graph_bytes(b"\xef\xbb\xbf# a\nb 2\n# b\nc 3\n", "bom.lgl", ReadOptions(format="lgl"))
    assert graph.names == ("a", "b", "c") and edges_of(graph) == {frozenset("ab"): 2.0, frozenset("bc"): 3.0}


def test_a_bad_ncol_weight_names_its_line():
    from goat_core import GraphFormatError
    from goat_core.data.formats import ReadOptions
    from goat_core.data.nxformats import read_ncol

    with pytest.raises(GraphFormatError) as err:
        read_ncol(b"a b 1\nb c heavy\n", "bad.ncol", ReadOptions())
    assert str(err.value).startswith("bad.ncol:2: cannot parse NCOL") and "\n" not in str(err.value)
    with pytest.raises(GraphFormatError, match="^bad.ncol:2: cannot parse NCOL"):
        read_ncol(b"a b\nc\nd e\n", "bad.ncol", ReadOptions())
    with pytest.raises(GraphFormatError, match="^bad.ncol:2: a '#' line: NCOL has no comments"):
        read_ncol(b"a b\n # c d\n", "bad.ncol", ReadOptions())
    with pytest.raises(GraphFormatError, match="^bad.ncol:1: a '#' line"):
        read_ncol(b"\xef\xbb\xbf# written by hand\na b\n", "bad.ncol", ReadOptions())


def test_igraph_gml_with_its_creator_line_before_graph(tmp_path):
    raw = written(tmp_path, karate(True, False), "gml")
    assert raw.startswith(b'Creator "igraph') and b"graph\n[" in raw
    assert read_graph_bytes(raw, "g.gml").read.names_from == "GML name"


def test_igraph_dot_with_names_as_attributes(tmp_path):
    raw = written(tmp_path, karate(True, True), "dot")
    assert b"name=n0" in raw  # igraph's node statement: 0 [ name=n0 ];
    graph = read_graph_bytes(raw, "g.dot")
    assert graph.names[0] == "n0" and graph.weighted


@pytest.mark.parametrize("header", [True, False])  # header=False: nauty's own files, one line of 63..126
@pytest.mark.parametrize("writer", ["write_graph6", "write_sparse6"])
def test_networkx_graph6_and_sparse6_with_and_without_their_header(writer, header):
    import io

    import networkx as nx

    g, out = nx.karate_club_graph(), io.BytesIO()
    getattr(nx, writer)(g, out, header=header)
    graph = read_graph_bytes(out.getvalue(), "k.g6")
    assert graph.read.format == "graph6" and set(edges_of(graph)) == {frozenset(map(str, e)) for e in g.edges}


def test_pydot_reads_an_attribute_called_name():
    raw = b'graph { subgraph s { a [name=x]; b [name=y] } a -- b; b -- "c name = 1" }'
    graph = read_graph_bytes(raw, "s.dot")
    assert graph.names == ("a", "b", "c name = 1") and graph.node_attrs["name"].tolist() == ["x", "y", ""]


def table(g) -> list[tuple[str, str, int]]:
    return [(g.vs[e.source]["name"], g.vs[e.target]["name"], w) for e, w in zip(g.es, g.es["weight"])]


def r_write_csv(rows) -> bytes:
    """R's ``write.csv(df)`` as documented: every field quoted but numbers, row names 1..n as an
    unnamed first column whose header is ``""``."""
    lines = ['"","from","to","weight"'] + [f'"{i}","{u}","{v}",{w}' for i, (u, v, w) in enumerate(rows, 1)]
    return ("\n".join(lines) + "\n").encode()


def pandas_csv(rows, **options) -> bytes:
    import pandas as pd

    return pd.DataFrame(rows, columns=["from", "to", "weight"]).to_csv(**options).encode()


def spreadsheet(rows) -> bytes:
    """A sheet saved as CSV with two empty columns after the data and a blank last row."""
    lines = ["Source,Target,Weight,,"] + [f"{u},{v},{w},," for u, v, w in rows] + [",,,,"]
    return ("\r\n".join(lines) + "\r\n").encode()


def french(rows) -> bytes:
    """A French sheet: ``;`` between fields, decimal commas, unknown names for target and weight."""
    return ("source;cible;poids\n" + "".join(f"{u};{v};{w},5\n" for u, v, w in rows)).encode()


TABLES = {
    "r-write-csv": (r_write_csv, 0.0),
    "pandas-quote-all": (lambda rows: pandas_csv(rows, quoting=csv.QUOTE_ALL), 0.0),
    "pandas-tab": (lambda rows: pandas_csv(rows, sep="\t", index=False), 0.0),
    "pandas-tab-quote-all": (lambda rows: pandas_csv(rows, sep="\t", quoting=csv.QUOTE_ALL, index=False),
                             0.0),
    "spreadsheet": (spreadsheet, 0.0),
    "french": (french, 0.5),
    "excel-sep-hint": (lambda rows: b"sep=;\r\n" + french(rows), 0.5),  # Excel's separator line
    "excel-sep-hint-comma": (lambda rows: b"sep=,\n" + spreadsheet(rows), 0.0),
}


def unicode_text(rows) -> bytes:
    """Excel's "Unicode Text" export from a German sheet: UTF-16 LE with a BOM, tabs, CRLF, decimal commas."""
    lines = ["Quelle\tZiel\tGewicht"] + [f"{u}\t{v}\t{w},5" for u, v, w in rows]
    return "".join(line + "\r\n" for line in lines).encode("utf-16")


TABLES |= {
    "pandas-tab-decimal-comma": (lambda rows: pandas_csv([(u, v, w + 0.5) for u, v, w in rows], sep="\t",
                                                         decimal=",", index=False), 0.5),
    "excel-unicode-text-german": (unicode_text, 0.5),
}


def european(rows) -> bytes:
    """A European sheet saved without its header: ";" between fields, decimal commas."""
    return "".join(f"{u};{v};{w},5\r\n" for u, v, w in rows).encode()


TABLES |= {"european-headerless": (european, 0.5),
           "european-headerless-sep-hint": (lambda rows: b"sep=;\r\n" + european(rows), 0.5)}
TABLES |= {  # Neo4j's relationship CSVs: neo4j-admin import's header, APOC's export.csv
    "neo4j-admin-import": (lambda rows: b":START_ID,:END_ID,:TYPE,weight:float\n" + "".join(
        f"{u},{v},KNOWS,{w}\n" for u, v, w in rows).encode(), 0.0),
    "neo4j-apoc-export": (lambda rows: b'"_start","_end","_type","weight"\n' + "".join(
        f'"{u}","{v}","KNOWS","{w}"\n' for u, v, w in rows).encode(), 0.0),
}


def test_decimal_commas_in_a_comma_separated_file_say_so():
    from goat_core.data.formats import ReadOptions
    from tests.data.reading import read_error

    raw = pandas_csv([("a", "b", 1.5), ("b", "c", 2.5)], decimal=",", index=False)  # "1,5" quoted
    assert read_error(raw, "d.csv").startswith("d.csv:2: weight '1,5' is not a number: a decimal comma")
    assert read_graph_bytes(raw, "d.csv", ReadOptions(weight="none")).num_edges == 2


@pytest.mark.parametrize("name", TABLES)
def test_tables_as_other_tools_write_them(name):
    write, extra = TABLES[name]
    g = karate(True, True)
    graph = read_graph_bytes(write(table(g)), f"{name}.csv")
    assert graph.read.format == "edgelist" and graph.weighted
    assert edges_of(graph) == {pair: w + extra for pair, w in expected(g).items()}


def test_the_french_sheet_says_what_it_took_as_the_weight():
    report = read_graph_bytes(french(table(karate(True, True))), "fr.csv").read
    assert (report.source, report.target, report.weight) == ("'source'", "'cible'", "'poids'")
    assert any("'poids' read as the weight" in note for note in report.notes)


def test_unix_times_under_an_unknown_name_are_not_taken_as_the_weight():
    graph = read_graph_bytes(b"a,b,sent\nx,y,1700000000\ny,z,1700000500\n", "t.csv")
    assert not graph.weighted and graph.read.ignored == ("'sent'",)


def test_a_hand_edited_list_mixing_tabs_and_spaces():
    graph = read_graph_bytes(b"1\t2\n2  3\n3 \t 1\n4\t 5 \n", "hand.txt")
    assert set(edges_of(graph)) == {frozenset(p) for p in [("1", "2"), ("2", "3"), ("3", "1"), ("4", "5")]}
    assert graph.read.separator == "whitespace"


def test_a_hand_edited_weighted_list_mixing_tabs_and_spaces_but_not_a_tsv_of_names_with_blanks():
    mixed = read_graph_bytes(b"1\t2 0.5\n2\t3 1.5\n3 \t 1\t2\n", "hand.txt")
    assert edges_of(mixed) == {frozenset("12"): 0.5, frozenset("23"): 1.5, frozenset("31"): 2.0}
    names = read_graph_bytes(b"New York\tLos Angeles\nLos Angeles\tSan Jose\n", "cities.tsv")
    assert set(edges_of(names)) == {frozenset(("New York", "Los Angeles")),
                                    frozenset(("Los Angeles", "San Jose"))}


def test_an_lgl_file_is_not_taken_for_an_edge_list_under_a_comment():
    graph = read_graph_bytes(b"# edges\n1 2\n2 3\n", "e.txt")
    assert graph.read.format == "edgelist" and set(edges_of(graph)) == {frozenset("12"), frozenset("23")}
    sections = read_graph_bytes(b"# c\n1 2\n2 3\n# mid\n3 4\n", "e.txt")  # a comment after data
    assert sections.read.format == "edgelist"
    assert set(edges_of(sections)) == {frozenset("12"), frozenset("23"), frozenset("34")}


@pytest.mark.parametrize("raw, fmt, words", [
    (b"*Vertices 3\n1 \"a\"\n2 \"b\"\n*Edges\n1 2\n1 x\n", "pajek", "g.net:6"),
    (b"# a\nb\n# c\nd e f\n", "lgl", "g.lgl:4"),
    (b"# a\nb 1\nc x\n", "lgl", "g.lgl:3"),
    (b"*Vertices 2\n1 a\n2 b\n*Edges\n1\n", "pajek", "g.net:5"),  # igraph names the line after
    (b"*Vertices 2\n1 a\n2 b\n*Edges\n1", "pajek", "g.net:5"),  # ... unless the file ends there
    (b"# a\nb\n# \n# c\nd\n", "lgl", "g.lgl:3"),
])
def test_igraph_read_errors_name_the_line(raw, fmt, words):
    from goat_core.data.formats import ReadOptions
    from tests.data.reading import read_error

    message = read_error(raw, words.split(":")[0], ReadOptions(format=fmt))
    assert message.startswith(words) and "cannot parse" in message


def test_igraph_graphml_nodes_take_their_names_not_the_n0_ids(tmp_path):
    g = ig.Graph([(0, 1), (1, 2), (2, 0), (3, 2)])  # vertex 4 isolated after add_vertices
    g.add_vertices(1)
    g.vs["name"] = ["Alice Smith", "-3", "Zoë 東京", "it's", "lonely"]
    graph = read_graph_bytes(written(tmp_path, g, "graphml"), "g.graphml")
    assert sorted(graph.names) == sorted(g.vs["name"])
    assert edges_of(graph) == expected(g)


def test_a_name_longer_than_csv_s_field_limit_is_read_not_a_traceback():
    long_name = "x" * 200_000  # Python's csv module stops at 131,072 characters a field by default
    graph = read_graph_bytes(f"a,b\nb,{long_name}\n".encode(), "long.csv")
    assert sorted(graph.names) == sorted(["a", "b", long_name])
    assert read_error(long_name.encode() + b"\n", "one.txt").startswith("one.txt:1: only 1 column")


@pytest.mark.parametrize("writer", ["write_adjlist", "write_multiline_adjlist"])
@pytest.mark.parametrize("delimiter", [" ", ","])
def test_networkx_adjacency_lists_of_names_holding_the_delimiter_are_refused(writer, delimiter):
    import io

    import networkx as nx

    g, out = nx.Graph([("Alice Smith", "a, b"), ("a, b", "c"), ("c", "Alice Smith")]), io.BytesIO()
    getattr(nx, writer)(g, out, delimiter=delimiter)  # networkx cannot read these back either
    message = read_error(out.getvalue(), "names.adjlist")
    assert message.startswith("names.adjlist:") and "holding the delimiter" in message


def test_igraph_leda_with_a_repeated_weighted_edge_is_refused_not_read_with_one_weight(tmp_path):
    from goat_core.data.formats import ReadOptions

    g = ig.Graph([(0, 1), (0, 1), (1, 2)])  # networkx's LEDA reader keeps one weight of the repeated edge
    g.es["weight"] = [1.5, 2.0, 3.0]
    raw = written(tmp_path, g, "leda")
    message = read_error(raw, "multi.gw")
    assert message.startswith("multi.gw:") and "--weight none" in message
    graph = read_graph_bytes(raw, "multi.gw", ReadOptions(weight="none"))
    assert edges_of(graph) == {frozenset(("1", "2")): 1.0, frozenset(("2", "3")): 1.0}


def test_igraph_pajek_names_holding_a_double_quote(tmp_path):
    g = ig.Graph([(0, 1), (1, 2)])
    g.vs["name"] = ['say "hi"', "AT&T", "it's"]  # igraph writes the quote as &#34; (and nothing else escaped)
    raw = written(tmp_path, g, "pajek")
    assert b"&#34;" in raw
    assert sorted(read_graph_bytes(raw, "q.net").names) == sorted(g.vs["name"])


# Cytoscape 3.10's File > Export > Network to File > .cyjs (Cytoscape.js JSON), as it writes it
CYJS = b"""{
  "format_version" : "1.0", "generated_by" : "cytoscape-3.10.1", "target_cytoscapejs_version" : "~2.1",
  "data" : { "shared_name" : "net", "name" : "net", "SUID" : 52, "selected" : true },
  "elements" : {
    "nodes" : [
      { "data" : { "id" : "58", "shared_name" : "Alice Smith", "name" : "Alice Smith", "SUID" : 58,
                   "selected" : false }, "position" : { "x" : -1.5, "y" : 2.0 }, "selected" : false },
      { "data" : { "id" : "59", "shared_name" : "Zo\\u00eb", "name" : "Zo\\u00eb", "SUID" : 59,
                   "selected" : false }, "position" : { "x" : 1.0, "y" : 0.5 }, "selected" : false },
      { "data" : { "id" : "60", "shared_name" : "lonely", "name" : "lonely", "SUID" : 60,
                   "selected" : false }, "position" : { "x" : 0.0, "y" : 0.0 }, "selected" : false }
    ],
    "edges" : [ { "data" : { "id" : "61", "source" : "58", "target" : "59",
                             "shared_name" : "Alice Smith (pp) Zo\\u00eb", "interaction" : "pp",
                             "weight" : 2.5, "SUID" : 61, "selected" : false },
                  "selected" : false } ]
  }
}"""


@pytest.mark.parametrize("write", ["cyjs", "cytoscape_data", "adjacency_data"])
def test_json_graphs_other_than_node_link(write):
    import json

    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(["Alice Smith", "Zoë", "lonely"])
    g.add_edge("Alice Smith", "Zoë", weight=2.5)
    if write == "cyjs":
        raw, g = CYJS, g.to_undirected()  # a .cyjs says nothing of direction
    else:
        raw = json.dumps(getattr(nx, write)(g)).encode()
    graph = read_graph_bytes(raw, f"g.{write}")
    assert sorted(graph.names) == ["Alice Smith", "Zoë", "lonely"] and graph.directed == g.is_directed()
    assert "value" not in graph.node_attrs
    assert list(edges_of(graph).values()) == [2.5]
    assert "'source'" not in graph.read.summary()  # the ends are not named as ignored attributes


# Gephi's GML export and Newman's GML files (lesmis.gml, netscience.gml) weigh an edge by its `value`
GEPHI_GML = b"""Creator "Gephi"
graph
[
  directed 0
  node [ id 0 label "Alice Smith" graphics [ x -1.5 y 2.0 fill "#990000" ] ]
  node [ id 1 label "Zo&#235;" ]
  node [ id 2 label "lonely" ]
  edge [ id 0 source 0 target 1 value 2.5 ]
  edge [ id 1 source 1 target 2 value 4 ]
]
"""


def test_gml_edge_values_are_the_weights_as_gephi_and_newman_write_them():
    from goat_core.data.formats import ReadOptions

    graph = read_graph_bytes(GEPHI_GML, "gephi.gml")
    assert graph.weighted and edges_of(graph) == {frozenset(("Alice Smith", "Zoë")): 2.5,
                                                  frozenset(("Zoë", "lonely")): 4.0}
    assert graph.read.weight == "edge attribute 'value'"
    assert not read_graph_bytes(GEPHI_GML, "gephi.gml", ReadOptions(weight="none")).weighted


@pytest.mark.parametrize("value", [b"0", b"-1", b'"friend"'])
def test_gml_values_that_are_not_all_positive_are_left_out_not_refused_as_weights(value):
    raw = GEPHI_GML.replace(b"value 4", b"value " + value)
    graph = read_graph_bytes(raw, "values.gml")  # a 0 or a word: value is not a weight there
    assert not graph.weighted and graph.num_edges == 2
    assert "edge attribute 'value'" in graph.read.ignored


@pytest.mark.parametrize("raw, words", [
    (b"graph [\n" + b"a [ " * 100_000 + b"] " * 100_000 + b"\nnode [ id 0 ] ]", "nested too deeply"),
    (b"LEDA.GRAPH\nstring\nshort\n-2\n2\n|{a}|\n|{b}|\n1\n1 9 0 |{}|\n", "no node 9"),
])
def test_hostile_files_for_networkx_s_readers_are_one_line_saying_what_is_wrong(raw, words):
    assert words in read_error(raw, "hostile")


# Pajek writes a mixed network (arcs and edges) as an *Arcs and an *Edges section; igraph's reader makes
# the whole graph one kind (undirected when *Edges comes last, each edge one arc when *Arcs does)
@pytest.mark.parametrize("sections", [(b"*Arcs\n1 2 2.5\n", b"*Edges\n2 3 1\n"),
                                      (b"*Edges\n2 3 1\n", b"*Arcs\n1 2 2.5\n")])
def test_a_mixed_pajek_network_is_directed_with_its_edges_both_ways(sections):
    raw = b'*Network mixed\n*Vertices 3\n1 "a b" 0.1 0.2 0.5\n2 "c"\n3 "d"\n' + b"".join(sections)
    graph = read_graph_bytes(raw, "mixed.net")
    assert graph.directed and edges_of(graph) == {("a b", "c"): 2.5, ("c", "d"): 1.0, ("d", "c"): 1.0}
    assert any(note.startswith("a mixed graph") for note in graph.read.notes)


def test_networkx_pajek_of_a_name_holding_a_double_quote_names_its_line():
    import io

    import networkx as nx

    out = io.BytesIO()
    nx.write_pajek(nx.Graph([("a", 'say "hi"')]), out)  # written as "say "hi"": no reader can undo it
    message = read_error(out.getvalue(), "quote.net")
    assert message.startswith("quote.net:3:") and "double quote" in message


# node-link JSON as other tools write it: d3's miserables.json (v3: nodes by "name", links by position;
# v4+: by "id"), networkx 1.x (links by position), graphology/sigma.js ("key", nested "attributes")
NODE_LINK = {
    "d3 v3": {"nodes": [{"name": "Myriel", "group": 1}, {"name": "Napoleon", "group": 1}, {"name": "lonely"}],
              "links": [{"source": 1, "target": 0, "value": 2.5}]},
    "d3 v4": {"nodes": [{"id": "Myriel", "group": 1}, {"id": "Napoleon", "group": 1}, {"id": "lonely"}],
              "links": [{"source": "Napoleon", "target": "Myriel", "value": 2.5}]},
    "networkx 1.x": {"directed": False, "multigraph": False, "graph": {},
                     "nodes": [{"id": "Myriel"}, {"id": "Napoleon"}, {"id": "lonely"}],
                     "links": [{"source": 1, "target": 0, "weight": 2.5}]},
    "graphology": {"options": {"type": "undirected", "multi": False}, "attributes": {},
                   "nodes": [{"key": "m", "attributes": {"label": "Myriel"}},
                             {"key": "n", "attributes": {"label": "Napoleon"}}, {"key": "lonely"}],
                   "edges": [{"key": "e0", "source": "n", "target": "m", "attributes": {"weight": 2.5}}]},
    "vis.js": {"nodes": [{"id": 1, "label": "Myriel"}, {"id": 2, "label": "Napoleon"},
                         {"id": 3, "label": "lonely"}],
               "edges": [{"from": 2, "to": 1, "value": 2.5}]},
    "JSON Graph Format 1": {"graph": {
        "nodes": [{"id": "m", "label": "Myriel"}, {"id": "n", "label": "Napoleon"},
                  {"id": "l", "label": "lonely"}],
        "edges": [{"source": "n", "target": "m", "metadata": {"weight": 2.5}}]}},
    "JSON Graph Format 2": {"graph": {
        "nodes": {"m": {"label": "Myriel"}, "n": {"label": "Napoleon"}, "l": {"label": "lonely"}},
        "edges": [{"source": "n", "target": "m", "metadata": {"weight": 2.5}}]}},
    "sigma.js legacy": {"nodes": [{"id": "n0", "label": "Myriel", "x": 0, "y": 1, "size": 3},
                                  {"id": "n1", "label": "Napoleon"}, {"id": "n2", "label": "lonely"}],
                        "edges": [{"id": "e0", "source": "n1", "target": "n0", "weight": 2.5}]},
    "d3 after its force layout": {"nodes": [{"id": "Myriel", "x": 1.5}, {"id": "Napoleon"}, {"id": "lonely"}],
                                  "links": [{"source": {"id": "Napoleon", "x": 3}, "target": {"id": "Myriel"},
                                             "value": 2.5}]},
}


@pytest.mark.parametrize("tool", NODE_LINK)
def test_node_link_json_as_other_tools_write_it(tool):
    import json

    graph = read_graph_bytes(json.dumps(NODE_LINK[tool]).encode(), "miserables.json")
    assert sorted(graph.names) == ["Myriel", "Napoleon", "lonely"] and not graph.directed
    assert edges_of(graph) == {frozenset(("Myriel", "Napoleon")): 2.5}


APOC = [{"type": "node", "id": "0", "labels": ["Person"], "properties": {"name": "Ann"}},
        {"type": "node", "id": "1", "labels": ["Person"], "properties": {"name": "Dan", "age": 40}},
        {"type": "node", "id": "2", "labels": ["Person"], "properties": {"name": "Eve"}},
        {"id": "0", "type": "relationship", "label": "KNOWS", "properties": {"weight": 2.5},
         "start": {"id": "0", "labels": ["Person"]}, "end": {"id": "1", "labels": ["Person"]}},
        {"id": "1", "type": "relationship", "label": "KNOWS", "start": {"id": "1"}, "end": {"id": "2"}}]


@pytest.mark.parametrize("layout", ["JSON Lines", "ARRAY_JSON"])
def test_neo4j_apoc_json_export(layout):
    """apoc.export.json.all: a record a line (the default) or, with jsonFormat 'ARRAY_JSON', a list."""
    import json

    raw = ("\n".join(map(json.dumps, APOC)) if layout == "JSON Lines" else json.dumps(APOC)).encode()
    graph = read_graph_bytes(raw, "all.json")
    assert sorted(graph.names) == ["Ann", "Dan", "Eve"] and not graph.directed
    assert edges_of(graph) == {frozenset(("Ann", "Dan")): 2.5, frozenset(("Dan", "Eve")): 1.0}
    assert graph.node_attrs["labels"].tolist() == ["Person"] * 3


def test_vis_js_edges_with_arrows_are_directed():
    raw = b'{"nodes": [{"id": "a"}, {"id": "b"}], "edges": [{"from": "a", "to": "b", "arrows": "to"}]}'
    graph = read_graph_bytes(raw, "network.json")
    assert graph.directed and edges_of(graph) == {("a", "b"): 1.0}


def test_node_link_json_of_tuple_named_nodes_is_refused_saying_so():
    import json

    import networkx as nx

    data = nx.node_link_data(nx.grid_2d_graph(2, 2), edges="links")
    message = read_error(json.dumps(data).encode(), "grid.json")
    assert "a node id or an edge's end is a list or an object (a graph of tuple-named nodes?)" in message


def test_d3_json_whose_names_repeat_keeps_its_nodes_apart():
    import json

    data = {"nodes": [{"name": "Bob"}, {"name": "Bob"}, {"name": "Ann"}],
            "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2}]}
    graph = read_graph_bytes(json.dumps(data).encode(), "d3.json")
    assert (graph.num_nodes, graph.num_edges) == (3, 2)


# A mixed graph (directed and undirected edges) as Gephi 0.10 exports it (defaultedgetype="mixed", each
# edge's type) and as GraphML says it (edgedefault, and an edge's own directed=); networkx refuses both
MIXED = {
    "gexf": b'<?xml version="1.0" encoding="UTF-8"?>\n<gexf xmlns="http://gexf.net/1.3" version="1.3">\n'
            b'<graph defaultedgetype="mixed" mode="static">\n<nodes>\n<node id="0" label="a"/>\n'
            b'<node id="1" label="b"/>\n<node id="2" label="c"/>\n</nodes>\n<edges>\n'
            b'<edge id="0" source="0" target="1" type="directed" weight="2.5"/>\n'
            b'<edge id="1" source="1" target="2" type="undirected"/>\n</edges>\n</graph>\n</gexf>\n',
    "graphml": b'<?xml version="1.0" encoding="UTF-8"?>\n'
               b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
               b'<key id="w" for="edge" attr.name="weight" attr.type="double"/>\n'
               b'<graph edgedefault="undirected">\n<node id="a"/>\n<node id="b"/>\n<node id="c"/>\n'
               b'<edge source="a" target="b" directed="true"><data key="w">2.5</data></edge>\n'
               b'<edge source="b" target="c"/>\n</graph>\n</graphml>\n',
}


MIXED["graphology"] = (b'{"options": {"type": "mixed"}, "nodes": [{"key": "a"}, {"key": "b"}, {"key": "c"}], '
                       b'"edges": [{"source": "a", "target": "b", "attributes": {"weight": 2.5}}, '
                       b'{"source": "b", "target": "c", "undirected": true}]}')  # graphology's export


@pytest.mark.parametrize("fmt", MIXED)
def test_a_mixed_graph_is_directed_with_its_undirected_edges_both_ways(fmt):
    graph = read_graph_bytes(MIXED[fmt], f"mixed.{fmt}")
    assert graph.directed and edges_of(graph) == {("a", "b"): 2.5, ("b", "c"): 1.0, ("c", "b"): 1.0}
    assert any(note.startswith("a mixed graph") for note in graph.read.notes)


def test_graphml_edges_saying_what_the_graph_says_are_not_mixed():
    raw = MIXED["graphml"].replace(b' directed="true"', b' directed="false"')
    graph = read_graph_bytes(raw, "undirected.graphml")
    assert not graph.directed and edges_of(graph) == {frozenset("ab"): 2.5, frozenset("bc"): 1.0}


HUGE = [(str(2**64 + 1), str(2**63), 1.0), (str(2**63), "-5", 2.0), ("-5", "007", 3.0)]


@pytest.mark.parametrize("writer", ["to_csv", "to_parquet", "to_json"])
def test_ids_beyond_int64_keep_their_digits(tmp_path, writer):
    """pandas writes ids past 2**63 (a uint64 or text column) as their digits: read as those names."""
    import pandas as pd

    frame = pd.DataFrame(HUGE, columns=["source", "target", "weight"])
    path = tmp_path / "huge"
    getattr(frame, writer)(path, **({} if writer == "to_json" else {"index": False}))
    graph = read_graph_bytes(path.read_bytes(), "huge")
    assert edges_of(graph) == {frozenset((u, v)): w for u, v, w in HUGE}
    unsigned = pd.DataFrame({"source": np.array([2**64 - 1, 0], np.uint64), "target": np.array([1, 2])})
    getattr(unsigned, writer)(path, **({} if writer == "to_json" else {"index": False}))
    assert set(edges_of(read_graph_bytes(path.read_bytes(), "u64"))) == {
        frozenset((str(2**64 - 1), "1")), frozenset(("0", "2"))}


@pytest.mark.parametrize("delimiter", [",", ";", "\t", " "])
def test_numpy_savetxt_with_a_header_comment(tmp_path, delimiter):
    """np.savetxt's header is a '# ' comment line: over "0,1" lines it is not LGL's '# node'."""
    g = karate(False, False)
    path = tmp_path / "k.txt"
    np.savetxt(path, np.array(g.get_edgelist()), fmt="%d", delimiter=delimiter,
               header=delimiter.join(["source", "target"]))
    graph = read_graph_bytes(path.read_bytes(), "k.txt")
    assert graph.read.format == "edgelist" and edges_of(graph) == expected(g)


@pytest.mark.parametrize("writer", ["to_csv", "to_parquet", "to_json"])
def test_a_float_column_of_ids_beside_an_integer_one_names_the_same_nodes(tmp_path, writer):
    """pandas turns an id column with a missing value into floats: after dropna() it writes 2.0
    in one column and 2 in the other, which are one node."""
    import pandas as pd

    frame = pd.DataFrame({"source": [1, 2, None, 3], "target": [2, 3, 1, 1]}).dropna()
    path = tmp_path / "ids"
    getattr(frame, writer)(path, **({} if writer == "to_json" else {"index": False}))
    graph = read_graph_bytes(path.read_bytes(), "ids")
    assert graph.names == ("1", "2", "3") and set(edges_of(graph)) == {frozenset(("1", "2")),
                                                                       frozenset(("2", "3")),
                                                                       frozenset(("3", "1"))}


def test_ids_spelled_with_an_exponent_but_no_point_are_names_not_floats():
    """PDB ids (1E10, 2E30) and the like: numpy and pandas write a float with its point, so 1E5 is a name,
    not node 100000 (which would merge with a node 100000 beside it)."""
    graph = read_graph_bytes(b"1E5,100000\n100000,3\n1E5,2\n2E30,1E10\n", "ids.csv")
    assert sorted(graph.names) == sorted(["1E5", "100000", "3", "2", "2E30", "1E10"]) and graph.num_edges == 4


def test_ids_written_as_floats_past_2_53_are_refused_not_split():
    """Twitter-sized ids in a pandas float column (a missing value made it float) lose digits when
    written (1.2345678901234568e+18): not the same node as the integer beside it, nor a name."""
    import pandas as pd

    from tests.data.reading import read_error

    frame = pd.DataFrame({"source": [1234567890123456789, None, 2], "target": [2, 3, 1234567890123456789]})
    message = read_error(frame.dropna().to_csv(index=False).encode(), "t.csv")
    assert message.startswith("t.csv: id 1.2345678901234568e+18 is a float past 2**53")


@pytest.mark.parametrize("sep", [" ", "\t", ","])
def test_r_write_table_s_escaped_quotes_are_refused_not_misread(sep):
    """R's write.table escapes a quote in a name as \\" (qmethod='escape', its default); CSV doubles it."""
    from tests.data.reading import read_error

    lines = ['"from"', '"to"', '"weight"'], ['"1"', '"O\\"Brien"', '"b"', "1.5"], ['"2"', '"b"', '"c"', "2"]
    raw = "".join(sep.join(fields) + "\n" for fields in lines).encode()
    assert read_error(raw, "r.txt").startswith("r.txt:2: a \\\" inside a quoted name")


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize("names", [("source", "target"), ("a", "b")])
def test_a_table_saved_again_by_pandas_keeps_its_old_index_apart(names, index):
    """read_csv then to_csv again: the old index comes back as 'Unnamed: 0' (after a new unnamed one)."""
    import io

    import pandas as pd

    first = pd.DataFrame({names[0]: ["x", "y", "z"], names[1]: ["y", "z", "w"]}).to_csv()
    raw = pd.read_csv(io.StringIO(first)).to_csv(index=index).encode()
    graph = read_graph_bytes(raw, "again.csv")
    assert set(edges_of(graph)) == {frozenset("xy"), frozenset("yz"), frozenset("zw")}


# Pajek files with a blank line inside a section (hand-edited class notes): igraph's reader ends the
# file at a blank line, which read "1 2, blank, 2 3" as one edge
def test_a_blank_line_inside_a_pajek_section_does_not_end_the_file():
    raw = b'*Vertices 3\n1 "a"\n2 "b"\n\n3 "c"\n*Edges\n1 2\n  \n2 3\n\n'
    assert edges_of(read_graph_bytes(raw, "blank.net")) == {frozenset("ab"): 1.0, frozenset("bc"): 1.0}


# igraph's Pajek reader only warns, then stops reading, at a line a section's number does not lead
# (Karate's 78 edges were read as 30 after a hand edit left "- 29 1"), and keeps the later of a vertex's
# two lines: both are refused with their line
NUMBER_FIRST = "a Pajek line must start with a vertex number"


@pytest.mark.parametrize(("edit", "said"), [
    (lambda lines: lines.__setitem__(60, "- 29 1"), f"g.net:61: {NUMBER_FIRST}, got '-'"),
    (lambda lines: lines.__setitem__(20, '19<v18"'), f"g.net:21: {NUMBER_FIRST}"),
    (lambda lines: lines.__setitem__(35, "*Edges%"), "g.net:36: '*Edges%' is no Pajek section"),
    (lambda lines: lines.insert(5, '4 "again"'),
     "g.net:6: vertex 4 is listed twice in *Vertices (first on line 5)"),
])
def test_a_pajek_line_igraph_would_pass_over_is_refused_with_its_line(tmp_path, edit, said):
    g = ig.Graph.Famous("Zachary")
    g.vs["name"] = [f"v{k}" for k in range(g.vcount())]
    lines = written(tmp_path, g, "pajek").decode().splitlines()
    assert read_graph_bytes("\n".join(lines).encode(), "g.net").num_edges == 78
    edit(lines)
    assert read_error("\n".join(lines).encode(), "g.net").startswith(said)


# A first field of punctuation only ("--", "->") is a node's name, not pandas' unnamed index column:
# networkx's tab-separated list below was read with its first edge as a header, the weights as nodes
@pytest.mark.parametrize("delimiter", ["\t", " "])
def test_a_node_named_by_punctuation_first_is_no_index_column(tmp_path, delimiter):
    import networkx as nx

    g = nx.Graph()
    g.add_weighted_edges_from([("--", "x", 0.5), ("--", "y", 2.0), ("x", "->", 3.25), ("y", "z", 1.0)])
    nx.write_weighted_edgelist(g, tmp_path / "g.txt", delimiter=delimiter)
    graph = read_graph_bytes((tmp_path / "g.txt").read_bytes(), "g.txt")
    assert edges_of(graph) == {frozenset(e[:2]): e[2] for e in g.edges(data="weight")}


# Pajek's project files (.paj): networks, then partitions and vectors of their vertices
PROJECT = (b'*Network one\n*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\n1 2\n2 3\n\n'
           b"*Partition groups\n*Vertices 3\n1\n1\n2\n\n*Vector sizes\n*Vertices 3\n0.5\n0.1\n0.2\n")


def test_a_pajek_project_s_partitions_and_vectors_are_left_out_and_named():
    graph = read_graph_bytes(PROJECT, "project.paj")
    assert edges_of(graph) == {frozenset("ab"): 1.0, frozenset("bc"): 1.0}
    assert "*Partition groups (line 10)" in " ".join(graph.read.notes)


def test_a_pajek_project_of_two_networks_is_refused_naming_the_second():
    raw = PROJECT + b'*Network two\n*Vertices 2\n1 "x"\n2 "y"\n*Edges\n1 2\n'
    message = read_error(raw, "two.paj")
    assert message.startswith("two.paj:21:") and "2 networks" in message


def test_igraph_s_lgl_reads_to_the_same_graph_as_its_edge_list(tmp_path):
    g = karate(named=False, weighted=False)  # LGL lists nodes first-seen: 9 appears after 10
    lgl, edges = read_graph_bytes(written(tmp_path, g, "lgl"), "k.lgl"), read_graph_bytes(
        written(tmp_path, g, "edgelist"), "k.txt")
    assert lgl.names == edges.names and lgl.fingerprint() == edges.fingerprint()


def test_a_semicolon_sheet_of_names_holding_a_comma_and_a_blank_is_split_at_its_semicolons():
    """A sheet of authors ("Smith, J") saved with ";" and no header: its commas are in the names."""
    raw = b"Smith, J;Doe, A\r\nDoe, A;Roe, B\r\nRoe, B;Smith, J\r\n"
    graph = read_graph_bytes(raw, "authors.csv")
    assert graph.read.separator == "semicolon" and set(graph.names) == {"Smith, J", "Doe, A", "Roe, B"}


# networkit's METIS writer ('n m 0', then each node's neighbours, numbered from 1, a blank line for a
# node alone; a self-loop written once and counted in m), exactly as networkit 11.3 writes a triangle
# 1-2-3, a loop on 4 and node 5 alone: networkit is not a dependency, so its output is kept here.
NETWORKIT_METIS = b"5 4 0\n2 3 \n1 3 \n2 1 \n4 \n\n"


def test_networkit_metis_output_is_read_as_metis():
    graph = read_graph_bytes(NETWORKIT_METIS, "g.graph")
    assert graph.read.format == "metis" and graph.names == ("1", "2", "3", "4", "5")
    assert edges_of(graph) == {frozenset(p): 1.0 for p in (("1", "2"), ("2", "3"), ("1", "3"))}
    assert graph.report.self_loops_dropped == 1


def networkit_file(nk, tmp_path, edges, n, fmt, weighted=False, directed=False) -> bytes:
    g = nk.Graph(n, weighted=weighted, directed=directed)
    for u, v, w in edges:
        g.addEdge(u, v, w) if weighted else g.addEdge(u, v)
    path = tmp_path / "networkit.out"
    nk.graphio.writeGraph(g, str(path), getattr(nk.graphio.Format, fmt))
    return path.read_bytes()


def test_the_copies_of_networkit_output_are_what_networkit_writes(tmp_path):
    nk = pytest.importorskip("networkit")
    triangle_and_loop = [(0, 1, 1), (1, 2, 1), (2, 0, 1), (3, 3, 1)]
    assert networkit_file(nk, tmp_path, triangle_and_loop, 5, "METIS") == NETWORKIT_METIS
    path = [(0, 1, 2.5), (1, 2, 1.0)]
    assert networkit_file(nk, tmp_path, path, 3, "GraphML", weighted=True) == NETWORKIT_GRAPHML


def test_networkit_metis_writer_is_read_to_the_graph_it_wrote(tmp_path):
    nk = pytest.importorskip("networkit")
    for weighted in (False, True):
        g = nk.Graph(36, weighted=weighted)  # karate and two nodes alone
        for k, (u, v) in enumerate(ig.Graph.Famous("Zachary").get_edgelist()):
            g.addEdge(u, v, 0.5 + k % 4) if weighted else g.addEdge(u, v)
        path = tmp_path / "k.graph"
        nk.graphio.writeGraph(g, str(path), nk.graphio.Format.METIS)
        graph = read_graph_bytes(path.read_bytes(), "k.graph")
        assert graph.read.format == "metis" and graph.num_nodes == 36 and graph.weighted == weighted
        wrote = {frozenset((str(u + 1), str(v + 1))): g.weight(u, v) for u, v in g.iterEdges()}
        assert edges_of(graph) == wrote


# networkit's GraphML writer spells the namespace attribute `xmlnsi=`, so its elements are in no namespace
# (networkx's reader then fails on its own str/bytes bug); networkit 11.3's file for a weighted path 0-1-2
NETWORKIT_GRAPHML = (
    b"<?xml version='1.0' encoding='utf-8'?>\n<graphml xmlnsi=\"http://graphml.graphdrawing.org/xmlns\" "
    b"xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://graphml."
    b"graphdrawing.org/xmlns &#09;&#09;&#09;http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\"><key "
    b"for=\"edge\" id=\"d1\" attr.name=\"weight\" attr.type=\"double\" /><graph edgedefault=\"undirected\">"
    b"<node id=\"0\" /><node id=\"1\" /><node id=\"2\" /><edge directed=\"false\" target=\"0\" source=\"1\" "
    b"id=\"e0\"><data key=\"d1\">2.5</data></edge><edge directed=\"false\" target=\"1\" source=\"2\" "
    b"id=\"e1\"><data key=\"d1\">1.0</data></edge></graph></graphml>")


def test_networkit_graphml_without_a_namespace_is_read():
    graph = read_graph_bytes(NETWORKIT_GRAPHML, "g.graphml")
    assert graph.read.format == "graphml" and not graph.directed
    assert edges_of(graph) == {frozenset(("0", "1")): 2.5, frozenset(("1", "2")): 1.0}


def test_networkit_graphml_writer_is_read_to_the_graph_it_wrote(tmp_path):
    nk = pytest.importorskip("networkit")
    for directed in (False, True):
        g = nk.Graph(36, weighted=True, directed=directed)  # karate and two nodes alone
        for k, (u, v) in enumerate(ig.Graph.Famous("Zachary").get_edgelist()):
            g.addEdge(u, v, 0.5 + k % 4)
        path = tmp_path / "k.graphml"
        nk.graphio.writeGraph(g, str(path), nk.graphio.Format.GraphML)
        graph = read_graph_bytes(path.read_bytes(), "k.graphml")
        assert graph.num_nodes == 36 and graph.directed == directed
        pair = tuple if directed else frozenset
        assert edges_of(graph) == {pair((str(u), str(v))): g.weight(u, v) for u, v in g.iterEdges()}


# rustworkx 0.18's writers for a path a-b-c weighted 2.5 and 1 (payloads {"name": ...} and {"weight": ...}):
# node_link_json nests each payload under "data" (strings: its callbacks must return them), and
# write_graphml numbers each domain's keys apart, so a node key and an edge key are both "d1".
# rustworkx is not a dependency: its output is kept here.
RUSTWORKX_NODE_LINK = (
    b'{"directed":false,"multigraph":true,"attrs":null,"nodes":[{"id":0,"data":{"name":"a"}},{"id":1,"data":'
    b'{"name":"b"}},{"id":2,"data":{"name":"c"}}],"links":[{"source":0,"target":1,"id":0,"data":{"weight":'
    b'"2.5"}},{"source":1,"target":2,"id":1,"data":{"weight":"1.0"}}]}')
RUSTWORKX_GRAPHML = (
    b'<?xml version="1.0" encoding="UTF-8"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns'
    b':xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.o'
    b'rg/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd"><key id="d1" for="node" attr.name='
    b'"name" attr.type="string"></key><key id="d1" for="edge" attr.name="weight" attr.type="float"></key'
    b'><graph edgedefault="undirected"><node id="n0"><data key="d1">a</data></node><node id="n1"><data k'
    b'ey="d1">b</data></node><node id="n2"><data key="d1">c</data></node><edge source="n0" target="n1"><'
    b'data key="d1">2.5</data></edge><edge source="n1" target="n2"><data key="d1">1</data></edge></graph'
    b'></graphml>')


def test_rustworkx_node_link_json_and_graphml_are_read_with_their_weights():
    path = {frozenset(("0", "1")): 2.5, frozenset(("1", "2")): 1.0}
    graph = read_graph_bytes(RUSTWORKX_NODE_LINK, "g.json")  # nodes by id, the payload's name kept
    assert edges_of(graph) == path and graph.node_attrs["name"].tolist() == ["a", "b", "c"]
    graph = read_graph_bytes(RUSTWORKX_GRAPHML, "g.graphml")  # the unique names name the nodes
    assert edges_of(graph) == {frozenset(("a", "b")): 2.5, frozenset(("b", "c")): 1.0}


def test_the_copies_of_rustworkx_output_are_what_rustworkx_writes(tmp_path):
    rx = pytest.importorskip("rustworkx")
    g = rx.PyGraph()
    g.add_nodes_from([{"name": "a"}, {"name": "b"}, {"name": "c"}])
    g.add_edges_from([(0, 1, {"weight": 2.5}), (1, 2, {"weight": 1.0})])
    text = rx.node_link_json(g, node_attrs=dict, edge_attrs=lambda d: {k: str(v) for k, v in d.items()})
    assert text.encode() == RUSTWORKX_NODE_LINK
    rx.write_graphml(g, str(tmp_path / "g.graphml"))
    assert (tmp_path / "g.graphml").read_bytes() == RUSTWORKX_GRAPHML


def test_hashtags_that_open_a_csv_row_are_nodes_not_comments():
    """A hashtag network from pandas (or polars): '#python,#data,3' is a row; dropping it as a comment
    lost those edges without a word."""
    pd = pytest.importorskip("pandas")
    rows = [("alice", "#python", 1), ("#python", "#data", 3), ("#data", "bob", 2), ("%rate", "bob", 1)]
    raw = pd.DataFrame(rows, columns=["source", "target", "weight"]).to_csv(index=False).encode()
    graph = read_graph_bytes(raw, "tags.csv")
    assert edges_of(graph) == {frozenset((u, v)): float(w) for u, v, w in rows}
    headless = b"# a comment before the data stays one\nalice;#python\n#python;#data\n"
    assert edges_of(read_graph_bytes(headless, "tags.csv")) == {frozenset(("alice", "#python")): 1.0,
                                                                  frozenset(("#python", "#data")): 1.0}
    assert read_graph_bytes(b"a,b\nb,c\n# the end\n", "tail.csv").num_edges == 2  # no separator: a comment
    assert read_error(b"source,target\na,b\n#t,c,d\nx,y\n", "t.csv").startswith("t.csv:3: 3 columns")


def test_a_numpy_savetxt_footer_holding_the_separator_is_a_comment(tmp_path):
    """np.savetxt(footer=) writes '# n,m' under the rows: '# ' (a blank after it) opens a comment, never a
    hashtag; it was read as the edge '# n' - 'm' (or refused as ragged rows)."""
    np = pytest.importorskip("numpy")
    np.savetxt(tmp_path / "e.csv", [[1, 2], [2, 3]], fmt="%d", delimiter=",", footer="n,m")
    np.savetxt(tmp_path / "w.csv", [[1, 2, 0.5], [2, 3, 1.5]], fmt="%g", delimiter=",", footer="all, 2")
    assert edges_of(read_graph_bytes((tmp_path / "e.csv").read_bytes(), "e.csv")) == {
        frozenset(("1", "2")): 1.0, frozenset(("2", "3")): 1.0}
    assert edges_of(read_graph_bytes((tmp_path / "w.csv").read_bytes(), "w.csv")) == {
        frozenset(("1", "2")): 0.5, frozenset(("2", "3")): 1.5}


# networkit's "SNAP" writer writes Georgia Tech's SNAP format (not Stanford's): "p n m u u 0" (undirected,
# unweighted, ids from 0; networkit writes "u u 0" whatever the graph), then one "u v" line an edge.
# networkit 11.3's file for a path 0-1-2 and node 3 alone:
NETWORKIT_SNAP = b"p 4 2 u u 0\n1 0\n2 1\n"


def test_networkit_snap_output_is_read_with_its_declared_nodes():
    graph = read_graph_bytes(NETWORKIT_SNAP, "g.snap")  # refused; --source 0 --target 1 made 'p' a node
    assert graph.names == ("0", "1", "2", "3") and not graph.directed
    assert edges_of(graph) == {frozenset(("0", "1")): 1.0, frozenset(("1", "2")): 1.0}
    directed = read_graph_bytes(b"p 3 2 d f 1\n1 2 0.5\n3 1 2\n", "g.snap")  # the format's other options
    assert directed.directed and edges_of(directed) == {("1", "2"): 0.5, ("3", "1"): 2.0}
    assert read_error(b"p 3 1 u u 0\n0 3\n", "g.snap").startswith("g.snap:2:")  # ids 0..2
    assert read_error(b"p 100000001 1 u u 0\n0 3\n", "g.snap").startswith("g.snap:1:")


def test_the_copy_of_networkit_snap_output_is_what_networkit_writes(tmp_path):
    nk = pytest.importorskip("networkit")
    assert networkit_file(nk, tmp_path, [(0, 1, 1), (1, 2, 1)], 4, "SNAP") == NETWORKIT_SNAP


def test_a_pyvis_page_is_refused_as_html_not_offered_to_adjlist(tmp_path, monkeypatch):
    """pyvis' write_html (the app's own drawing library) writes a page, not a graph file; it was refused as
    'only 1 column ... --format adjlist', which reads the page's words as nodes."""
    network = pytest.importorskip("pyvis.network")
    import networkx as nx

    monkeypatch.chdir(tmp_path)  # pyvis copies its scripts into lib/ beside the working directory
    net = network.Network()
    net.from_nx(nx.karate_club_graph())
    net.write_html(str(tmp_path / "k.html"))
    message = read_error((tmp_path / "k.html").read_bytes(), "k.html")
    assert "<html>" in message and "adjlist" not in message



def test_a_pandas_html_table_is_refused_as_html_saying_how_to_save_it(tmp_path):
    """DataFrame.to_html starts with <table> (it was refused as 'only 1 column ... --format adjlist')."""
    import pandas as pd

    edges = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"]})
    edges.to_html(tmp_path / "e.html", index=False)
    message = read_error((tmp_path / "e.html").read_bytes(), "e.html")
    assert "HTML (<table>)" in message and "to_csv" in message and "adjlist" not in message


def test_a_tulip_file_is_refused_by_name_not_as_a_ragged_table():
    tlp = b'(tlp "2.3"\n(nb_nodes 3)\n(nodes 0..2)\n(edge 0 0 1)\n(edge 1 1 2)\n)\n'
    message = read_error(tlp, "g.tlp")
    assert "Tulip" in message and "GraphML" in message and "adjlist" not in message

# networkit's EdgeListWriter(" ", 0, bothDirections=True) for a triangle weighted 2.5, 1 and 4: every edge
# written both ways with its weight (as SNAP's SaveMatlabSparseMtx and MATLAB's find of a symmetric
# matrix write them); summed as duplicates, every weight was doubled
NETWORKIT_BOTH_DIRECTIONS = b"0 1 2.5\n0 2 4\n1 0 2.5\n1 2 1\n2 1 1\n2 0 4\n"


def test_an_edge_list_giving_every_edge_both_ways_with_one_weight_reads_each_edge_once():
    graph = read_graph_bytes(NETWORKIT_BOTH_DIRECTIONS, "b.txt")
    assert edges_of(graph) == {frozenset("01"): 2.5, frozenset("02"): 4.0, frozenset("12"): 1.0}
    assert any("both ways" in note for note in graph.read.notes)
    directed = read_graph_bytes(NETWORKIT_BOTH_DIRECTIONS, "b.txt", ReadOptions(directed=True))
    assert directed.num_edges == 6  # directed: each way its own arc
    uneven = read_graph_bytes(b"a b 1\nb a 2\n", "u.txt")  # not one weight: duplicates, summed as before
    assert edges_of(uneven) == {frozenset("ab"): 3.0}


def test_the_copy_of_networkit_both_directions_is_what_networkit_writes(tmp_path):
    nk = pytest.importorskip("networkit")
    g = nk.Graph(3, weighted=True)
    for u, v, w in [(0, 1, 2.5), (1, 2, 1.0), (2, 0, 4)]:
        g.addEdge(u, v, w)
    nk.graphio.EdgeListWriter(" ", 0, True).write(g, str(tmp_path / "b.txt"))
    assert (tmp_path / "b.txt").read_bytes() == NETWORKIT_BOTH_DIRECTIONS


def test_decimal_commas_with_an_exponent_are_numbers():
    """pandas' to_csv(sep=';', decimal=',', float_format='%.1e') writes 7,5e-01; it was 'not a number'."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "weight": [0.75, 12000.0]})
    for sep in (";", "\t"):
        raw = frame.to_csv(sep=sep, decimal=",", float_format="%.1e", index=False).encode()
        assert b"7,5e-01" in raw
        assert edges_of(read_graph_bytes(raw, "e.csv")) == {frozenset("ab"): 0.75, frozenset("bc"): 12000.0}
