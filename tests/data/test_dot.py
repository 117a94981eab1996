"""Graphviz DOT as networkx (``nx.nx_pydot.write_dot``) and people write it: the graph it holds,
its subgraphs included; the one-statement-per-line pattern and pydot's grammar agree."""

from __future__ import annotations

import shutil
import subprocess
import warnings

import networkx as nx
import numpy as np
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data import dot
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes


def write_dot(g: nx.Graph, tmp_path) -> bytes:
    path = tmp_path / "graph.dot"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # networkx's note that nx_pydot may move
        nx.nx_pydot.write_dot(g, path)
    return path.read_bytes()


def edges_of(graph) -> dict[frozenset, float]:
    pairs = zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist(), strict=True)
    return {frozenset((graph.names[s], graph.names[t])): w for s, t, w in pairs}


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
def test_networkx_write_dot_reads_back_the_same_graph(tmp_path, make):
    g = make()
    graph = read_graph_bytes(write_dot(g, tmp_path), "g.dot")
    assert graph.read.format == "dot" and not graph.directed and graph.weighted
    want = {frozenset((str(u), str(v))): float(d["weight"]) for u, v, d in g.edges(data=True)}
    assert edges_of(graph) == want


def test_karate_club_attribute_becomes_the_labels(tmp_path):
    graph = read_graph_bytes(write_dot(nx.karate_club_graph(), tmp_path), "karate.dot")
    assert graph.labels.classes == ("Mr. Hi", "Officer")


def test_line_pattern_and_pydot_read_the_same_graph(tmp_path, monkeypatch):
    g = nx.relabel_nodes(nx.gnm_random_graph(200, 600, seed=1, directed=True), lambda i: f"n {i}")
    for u, v in g.edges:
        g.edges[u, v]["weight"] = 1 + (hash((u, v)) % 5)
    raw = write_dot(g, tmp_path)
    assert dot.read_flat(raw.decode())[0] is not None  # networkx's file is one statement per line
    flat = read_graph_bytes(raw, "g.dot")
    monkeypatch.setattr(dot, "read_flat", lambda text: (None, 1))
    parsed = read_graph_bytes(raw, "g.dot")
    assert flat.names == parsed.names and flat.directed and parsed.directed
    for a, b in ((flat.src, parsed.src), (flat.dst, parsed.dst), (flat.weight, parsed.weight)):
        np.testing.assert_array_equal(a, b)


HANDWRITTEN = b"""// drawn for a class
digraph "Les Mis" {
  rankdir=LR; node [shape=box];
  "Jean Valjean" -> Javert [weight="2.5", label="chases"];
  Javert -> Cosette -> Marius;      /* a chain: two edges */
  subgraph cluster_0 { a; b; a -> b }
  Marius -> {a b};
  "Jean Valjean":n -> Marius:s [weight=3];
}
"""


def test_handwritten_dot_with_chains_subgraphs_and_ports():
    graph = read_graph_bytes(HANDWRITTEN, "lesmis.gv")
    assert graph.directed and graph.read.directed_why == "the file declares it"
    names = graph.names
    edges = {(names[s], names[t]): w for s, t, w in zip(graph.src, graph.dst, graph.weight, strict=True)}
    assert edges == {("Jean Valjean", "Javert"): 2.5, ("Javert", "Cosette"): 1.0, ("Cosette", "Marius"): 1.0,
                     ("a", "b"): 1.0, ("Marius", "a"): 1.0, ("Marius", "b"): 1.0,
                     ("Jean Valjean", "Marius"): 3.0}
    assert "edge attribute 'label'" in graph.read.ignored


def test_gml_is_not_taken_for_dot(tmp_path):
    path = tmp_path / "k.gml"
    nx.write_gml(nx.karate_club_graph(), path)
    assert load_graph(str(path)).read.format == "gml"


@pytest.mark.parametrize("raw, line, words", [
    (b"graph {\n  a -- b;\n  c -- ;\n}\n", 3, "not valid DOT"),
    (b"graph { a -- b }\ngraph { c -- d }\n", None, "2 graphs in one DOT file"),
    (b"graph { }\n", None, "without nodes"),
])
def test_bad_dot_is_one_line(raw, line, words):
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(raw, "bad.dot")
    message = str(err.value)
    prefix = f"bad.dot:{line}:" if line else "bad.dot:"
    assert message.startswith(prefix) and words in message and "\n" not in message


def test_a_large_dot_file_the_line_pattern_cannot_read_names_the_line(tmp_path):
    raw = write_dot(nx.barabasi_albert_graph(10_000, 2, seed=0), tmp_path)
    assert len(raw) > dot.MAX_GRAMMAR_CHARS
    assert read_graph_bytes(raw, "big.dot").num_nodes == 10_000  # one statement per line: read
    lines = raw.decode().splitlines()
    lines.insert(5, "a -- b -- c;")  # a chain: only pydot's grammar reads it
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes("\n".join(lines).encode(), "big.dot")
    assert str(err.value).startswith("big.dot:6: a DOT file over 200 kB")


# Graphviz's defaults: ``edge [weight=5]`` sets the weight of the edges after it (in subgraphs too);
# ``node [club=...]`` an attribute of the nodes after it
DEFAULTS = b"""digraph {
  a -> b;
  edge [weight=5];
  node [club=blue];
  b -> c;
  c;
  subgraph s { c -> d; edge [weight=2]; d -> e [weight=7]; e -> f }
  f -> g;
}
"""


@pytest.mark.parametrize("flat", [True, False])  # one statement a line (the pattern), or pydot's grammar
def test_edge_and_node_defaults_apply_to_the_statements_after_them(monkeypatch, flat):
    if not flat:
        monkeypatch.setattr(dot, "read_flat", lambda text: (None, 1))
    graph = read_graph_bytes(DEFAULTS, "defaults.gv")
    names = graph.names
    edges = {(names[s], names[t]): w for s, t, w in zip(graph.src, graph.dst, graph.weight, strict=True)}
    assert edges == {("a", "b"): 1.0, ("b", "c"): 5.0, ("c", "d"): 5.0, ("d", "e"): 7.0, ("e", "f"): 2.0,
                     ("f", "g"): 5.0}
    club = dict(zip(names, graph.node_attrs["club"], strict=True))
    assert club["a"] == "" and club["c"] == "blue" and club["g"] == "blue"


def test_negative_numeral_ids_as_graphviz_reads_them():
    # DOT's ids include numerals "[-]?(.[0-9]+ | [0-9]+(.[0-9]*)?)"; pydot's grammar stops at a bare "-3"
    graph = read_graph_bytes(b"graph { 0 -- 1; 1 -- -3; -3 -- .5 [w=-1]; -2.5 }", "numbers.gv")
    assert sorted(graph.names) == sorted(["0", "1", "-3", ".5", "-2.5"]) and graph.num_edges == 3


@pytest.mark.parametrize("attrs", ["src=1", "dst=x", "name", "obj_dict=1, weight=2", 'graph_type="y"'])
def test_attributes_named_as_pydots_own_arguments_are_attributes(attrs):
    """pydot passes a statement's attributes as keywords beside its own (name=, src=, ...): a clash
    was a TypeError; now they are attributes like any other (the weight still read). The subgraph makes
    it pydot's to read, not the line pattern's."""
    text = f"graph {{\n  subgraph s {{ a -- b [{attrs}] }}\n  c [{attrs}]\n  a -- c\n}}"
    graph = read_graph_bytes(text.encode(), "k.dot")
    weight = 2.0 if "weight" in attrs else 1.0
    assert edges_of(graph) == {frozenset("ab"): weight, frozenset("ac"): 1.0}


DOT_CLUSTERS = b"""digraph G {
  subgraph cluster_a { a1 -> a2; label="A"; }
  subgraph cluster_b { b1 -> b2 [weight=3]; }
  a2 -> b1; b2 -> a1; "x y" -> a1; lone;
}
"""


def graphviz(raw: bytes, fmt: str) -> bytes:
    """``raw`` laid out by Graphviz's own ``dot -T<fmt>``, given the DOT text as it is."""
    if shutil.which("dot") is None:
        pytest.fail("Graphviz's dot is not installed (CI installs Debian's graphviz: see scripts/test.sh)")
    return subprocess.run(["dot", f"-T{fmt}"], input=raw, capture_output=True, check=True).stdout


@pytest.mark.parametrize("fmt", ["xdot", "json", "json0"])
def test_graphviz_layouts_are_read_as_the_graph_without_its_drawing(fmt):
    """dot -Txdot (DOT with positions) and -Tjson/-Tjson0 (objects: clusters, then nodes; edges by _gvid)
    give the graph back; the layout's attributes (width, pos, draw ops) are neither kept nor labels."""
    graph = read_graph_bytes(graphviz(DOT_CLUSTERS, fmt), f"g.{fmt}")
    assert graph.directed and graph.names == ("a1", "a2", "b1", "b2", "x y", "lone")
    assert edges_of_directed(graph) == {("a1", "a2"): 1.0, ("a2", "b1"): 1.0, ("b1", "b2"): 3.0,
                                        ("b2", "a1"): 1.0, ("x y", "a1"): 1.0}
    assert set(graph.node_attrs) <= {"label"} and graph.labels is None
    lesmis = read_graph_bytes(graphviz(write_dot_bytes(nx.les_miserables_graph()), fmt), f"lm.{fmt}")
    assert edges_of(lesmis) == {frozenset((u, v)): float(w) for u, v, w in
                                nx.les_miserables_graph().edges(data="weight")}


def test_graphviz_json_that_is_not_as_dot_writes_it_is_one_line():
    bad = b'{"name": "G", "directed": true, "_subgraph_cnt": 0, "objects": [{"name": "a"}], "edges": []}'
    with pytest.raises(GraphFormatError, match="^g.json: Graphviz JSON whose objects or edges are not as"):
        read_graph_bytes(bad, "g.json")


def edges_of_directed(graph) -> dict[tuple, float]:
    pairs = zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist(), strict=True)
    return {(graph.names[s], graph.names[t]): w for s, t, w in pairs}


def write_dot_bytes(g: nx.Graph) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nx.nx_pydot.to_pydot(g).to_string().encode()


@pytest.mark.parametrize("fmt", ["plain", "plain-ext"])
def test_graphviz_plain_layouts_are_read_as_the_graph_they_lay_out(fmt):
    """dot -Tplain / -Tplain-ext (`node NAME x y …`, `edge TAIL[:PORT] HEAD …`; quoted names) give the
    graph back, lone nodes included; the layout does not say direction: undirected unless asked."""
    graph = read_graph_bytes(graphviz(DOT_CLUSTERS, fmt), f"g.{fmt}")
    assert graph.read.format == "dot" and not graph.directed
    assert graph.names == ("a1", "a2", "b1", "b2", "x y", "lone")
    assert set(edges_of(graph)) == {frozenset(p) for p in [("a1", "a2"), ("a2", "b1"), ("b1", "b2"),
                                                          ("b2", "a1"), ("x y", "a1")]}
    lesmis = nx.les_miserables_graph()
    asked = read_graph_bytes(graphviz(write_dot_bytes(lesmis), fmt), "lm.txt", ReadOptions(directed=True))
    assert asked.directed and asked.num_nodes == 77 and asked.num_edges == 254
    ports = b"digraph { node [shape=record]; a [label=\"<p> x|<q> y\"]; a:p -> b; a:q -> c; }"
    ported = read_graph_bytes(graphviz(ports, fmt), "p.txt")
    assert set(edges_of(ported)) == {frozenset("ab"), frozenset("ac")}


# Graphviz keeps a quoted name's backslashes but \" (it writes " back as \"); blanks, an empty name, a
# colon; -Tplain-ext writes a record's port after the name, quoted or not ("r s":q, r:"p:n")
DOT_NAMES = r"""digraph {
  "x y" -> a; "say \"hi\"" -> a; "back\\slash" -> a; "tab\there" -> "end\\"; "a\\\"b" -> a;
  "two  spaces" -> "é ü"; "" -> "a:b"; lone; "lone\\n";
  node [shape=record]; r [label="<p> x|<q> y"]; "r s" [label="<p> x|<q> y"];
  r:p -> c; "r s":q -> c; "r s":p:n -> d; "a:b" -> "r s":q;
}
""".encode()


@pytest.mark.parametrize("fmt", ["plain", "plain-ext"])
def test_graphviz_plain_names_are_read_as_the_dot_source_reads_them(fmt):
    """One unquoting rule for Graphviz's names: a plain layout's names and edges are the DOT source's."""
    laid_out = graphviz(DOT_NAMES, fmt)
    assert (b'edge "r s":q c ' in laid_out) == (fmt == "plain-ext")  # a quoted name with its port
    source = read_graph_bytes(DOT_NAMES, "g.dot")
    graph = read_graph_bytes(laid_out, "g.txt", ReadOptions(directed=True))
    assert graph.names == source.names == (
        "x y", "a", 'say "hi"', "back\\\\slash", "tab\\there", "end\\\\", 'a\\\\"b', "two  spaces", "é ü",
        "", "a:b", "lone", "lone\\\\n", "r", "r s", "c", "d")
    assert edges_of_directed(graph) == edges_of_directed(source) == {pair: 1.0 for pair in [
        ("x y", "a"), ('say "hi"', "a"), ("back\\\\slash", "a"), ("tab\\there", "end\\\\"), ('a\\\\"b', "a"),
        ("two  spaces", "é ü"), ("", "a:b"), ("r", "c"), ("r s", "c"), ("r s", "d"), ("a:b", "r s")]}


def test_a_graphviz_plain_line_that_is_not_a_layouts_stops_at_its_line():
    raw = (b"graph 1 2 3\nnode a 1 1 1 1 a solid ellipse black lightgrey\n"
           b"edge a b 4 1 1 1 1 solid black\nstop\n")  # b is no node
    with pytest.raises(GraphFormatError, match=r"^p.txt:3: a Graphviz plain layout line is graph, node NAME"):
        read_graph_bytes(raw, "p.txt")


def test_width_and_height_are_dropped_only_from_graphviz_layouts(tmp_path):
    """A GraphML node's height (a person's, in cm) is data; only Graphviz's layout sizes are drawing."""
    g = nx.path_graph(["a", "b", "c"])
    nx.set_node_attributes(g, {"a": 170, "b": 182, "c": 165}, "height")
    nx.write_graphml(g, tmp_path / "g.graphml")
    graph = read_graph_bytes((tmp_path / "g.graphml").read_bytes(), "g.graphml")
    assert graph.node_attrs["height"].tolist() == ["170", "182", "165"]
