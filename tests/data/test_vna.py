"""VNA (NetDraw) files as Gephi's exporter writes them: ``*Node data`` when nodes carry
attributes, ``*Node properties`` always, ``*Tie data`` with every undirected edge as two ties.
Read to the graph they came from: undirected when every tie has its mirror, directed otherwise;
bad rows are one line naming their line."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import edges_of, read_error


def quoted(value) -> str:
    """Gephi's printParameter: a value holding a blank in double quotes, "" for none."""
    text = str(value).replace('"', " ")
    return f'"{text}"' if " " in text or not text else text


def gephi_vna(g: nx.Graph) -> bytes:
    """``g`` as Gephi 0.10's VNA exporter writes it."""
    rng = random.Random(0)
    lines = []
    attrs = list(dict.fromkeys(k for _, data in g.nodes(data=True) for k in data))
    if attrs:
        lines += ["*Node data", "ID " + " ".join(a.replace(" ", "_") for a in attrs)]
        lines += [" ".join([quoted(node)] + [quoted(data.get(a, "")) for a in attrs])
                  for node, data in g.nodes(data=True)]
    lines += ["*Node properties", "ID x y size color shortlabel"]
    lines += [f"{node} {rng.uniform(-900, 900):.4f} {rng.uniform(-900, 900):.4f} 10.0 153 {quoted(node)}"
              for node in g]
    lines += ["*Tie data", "from to strength"]
    for u, v, data in g.edges(data=True):
        w = float(data.get("weight", 1))
        lines.append(f"{quoted(u)} {quoted(v)} {w}")
        if not g.is_directed() and u != v:
            lines.append(f"{quoted(v)} {quoted(u)} {w}")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
def test_gephi_vna_reads_back_the_same_undirected_graph(make):
    g = make()
    raw = gephi_vna(g)
    graph = read_graph_bytes(raw, "g.vna")
    assert graph.read.format == "vna" and graph.read.detected
    assert not graph.directed and graph.weighted and graph.read.directed_why == "every tie stored both ways"
    assert graph.names == tuple(str(n) for n in g)
    want = {frozenset((str(u), str(v))): float(d["weight"]) for u, v, d in g.edges(data=True)}
    assert edges_of(graph) == want
    assert graph.read.edges == 2 * g.number_of_edges() and graph.read.weight == "column 'strength'"
    assert any("as Gephi writes an undirected graph" in note for note in graph.read.notes)


def test_karate_club_column_becomes_the_labels():
    raw = gephi_vna(nx.karate_club_graph())
    assert raw.startswith(b"*Node data\nID club\n0 \"Mr. Hi\"\n")
    graph = read_graph_bytes(raw, "karate.vna")
    assert graph.labels.classes == ("Mr. Hi", "Officer") and graph.read.node_attributes == ("club",)
    drawing = "*Node properties (x, y, size, color, shortlabel: how nodes are drawn)"
    assert drawing in graph.read.ignored


def test_a_tie_without_its_mirror_makes_the_graph_directed():
    d = nx.gnm_random_graph(30, 90, seed=4, directed=True)
    for u, v in d.edges:
        d.edges[u, v]["weight"] = 1 + (u + v) % 3
    graph = read_graph_bytes(gephi_vna(d), "d.vna")
    assert graph.directed and graph.read.directed_why.startswith("tie ")
    assert edges_of(graph) == {(str(u), str(v)): float(w) for u, v, w in d.edges(data="weight")}


def test_mirrored_ties_of_different_strength_are_directed():
    raw = b"*Tie data\nfrom to strength\na b 1\nb a 2\n"
    graph = read_graph_bytes(raw, "t.vna")
    assert graph.directed and edges_of(graph) == {("a", "b"): 1.0, ("b", "a"): 2.0}
    assert graph.read.directed_why == "tie a → b has no b → a of value 1"


def test_directed_asked_keeps_both_ties():
    graph = read_graph_bytes(gephi_vna(nx.path_graph(3)), "p.vna", ReadOptions(directed=True))
    assert graph.directed and set(edges_of(graph)) == {("0", "1"), ("1", "0"), ("1", "2"), ("2", "1")}


def test_quoted_names_isolated_nodes_and_other_tie_columns():
    g = nx.relabel_nodes(nx.les_miserables_graph(), {"Valjean": "Jean Valjean"})
    g.add_node("Lonely")  # in *Node properties only: an isolated node
    raw = gephi_vna(g)
    assert b'"Jean Valjean"' in raw
    graph = read_graph_bytes(raw.replace(b"from to strength", b"from to strength kind")
                             .replace(b".0\n", b".0 x\n"), "lesmis.vna")
    assert "Jean Valjean" in graph.names and graph.report.isolated_nodes == ("Lonely",)
    assert graph.num_edges == g.number_of_edges() and "tie column 'kind'" in graph.read.ignored


def test_weight_options_and_an_undeclared_end():
    raw = b"*Node data\nID group\na x\nb y\n*Tie data\nFROM TO Strength Weight\na b 2 5\nb c 3 6\n"
    graph = read_graph_bytes(raw, "w.vna")
    assert graph.directed and edges_of(graph) == {("a", "b"): 2.0, ("b", "c"): 3.0}
    assert any("1 tie ends not declared in a node section, added as nodes: c" in n for n in graph.read.notes)
    assert list(graph.node_attrs["group"]) == ["x", "y", ""]
    assert edges_of(read_graph_bytes(raw, "w.vna", ReadOptions(weight="weight"))) == {("a", "b"): 5.0,
                                                                                       ("b", "c"): 6.0}
    assert not read_graph_bytes(raw, "w.vna", ReadOptions(weight="none")).weighted
    with pytest.raises(GraphFormatError, match="no tie column 'size'"):
        read_graph_bytes(raw, "w.vna", ReadOptions(weight="size"))


def test_found_by_content_under_any_name(tmp_path):
    path = tmp_path / "lesmis.txt"
    path.write_bytes(gephi_vna(nx.les_miserables_graph()))  # no attributes: *Node properties first
    graph = load_graph(str(path))
    assert graph.read.format == "vna" and (graph.num_nodes, graph.num_edges) == (77, 254)


HEAD = b"*Node data\nID group\na x\nb y\n*Tie data\nfrom to strength\n"


@pytest.mark.parametrize("raw, line, words", [
    (HEAD + b"a b 1\nb c\n", 8, "2 values, the *Tie Data header names 3 (from to strength)"),
    (HEAD + b"a b 1\nb \"c d 1\n", 8, "a value opened with \" is not closed"),
    (HEAD + b"a b 1\nb c heavy\n", 8, "weight 'heavy' is not a number"),
    (HEAD + b"a b 0\n", 7, "weight 0 is not positive"),
    (b"*Node data\nID group\na x y\n", 3, "3 values, the *Node Data header names 2"),
    (b"*Node data\nID group\na x\na y\n", 4, "node 'a' in *Node data twice (lines 3 and 4)"),
    (b"*Tie data\nfrom\n", 2, "*Tie data's header must name from and to first"),
    (HEAD + b"a b 1\n*Tie data\nfrom to\n", 9, "a second *Tie data section"),
])
def test_bad_files_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.vna")
    assert message.startswith(f"bad.vna:{line}:") and words in message


@pytest.mark.parametrize("raw, words", [
    (b"*Node data\nID group\na x\n", "a VNA file without ties (no *Tie data section)"),
    (HEAD, "a VNA file whose *Tie data section has no rows"),
])
def test_a_file_without_ties_says_so(raw, words):
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(raw, "bad.vna")
    assert str(err.value) == f"bad.vna: {words}"
