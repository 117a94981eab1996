"""SIF files as Cytoscape exports them (``source<TAB>interaction<TAB>target``, a lone name for a node
without edges) and as people write them (``A pp B C D``): read to the graph they came from, the
interaction types counted in the report. Found from the content only when no edge table can be
meant: ordinary 3-column tables stay edge tables."""

from __future__ import annotations

import csv
import io

import networkx as nx
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes, sniff_format
from goat_core.data.sif import looks_sif

from .reading import edges_of, read_error


def cytoscape_sif(g: nx.Graph, interaction: str = "interacts with") -> bytes:
    """``g`` as Cytoscape 3's File → Export → Network → SIF writes it: one tab-separated line per
    edge (the type may hold spaces), then a line for each node without edges."""
    lines = [f"{u}\t{interaction}\t{v}" for u, v in g.edges]
    lines += [str(node) for node in g if g.degree(node) == 0]
    return ("\n".join(lines) + "\n").encode()


def shorthand_sif(g: nx.Graph) -> bytes:
    """``g`` in SIF's shorthand: ``source pp target target …``, blank-separated."""
    lines = []
    seen: set = set()
    for node in g:
        targets = [v for v in g[node] if frozenset((node, v)) not in seen]
        seen.update(frozenset((node, v)) for v in targets)
        if targets:
            lines.append(" ".join([str(node), "pp"] + [str(v) for v in targets]))
        elif g.degree(node) == 0:
            lines.append(str(node))
    return ("\n".join(lines) + "\n").encode()


def pairs(graph) -> set:
    ends = zip(graph.src.tolist(), graph.dst.tolist(), strict=True)
    if graph.directed:
        return {(graph.names[s], graph.names[t]) for s, t in ends}
    return {frozenset((graph.names[s], graph.names[t])) for s, t in ends}


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
@pytest.mark.parametrize("write", [cytoscape_sif, shorthand_sif])
def test_sif_reads_back_the_same_graph(make, write):
    g = make()
    g.add_node("Lone node" if write is cytoscape_sif else "Lone")  # a name with a space in a tab file
    graph = read_graph_bytes(write(g), "g.sif")
    assert graph.read.format == "sif" and graph.read.detected
    assert not graph.directed and not graph.weighted
    assert set(graph.names) == {str(n) for n in g}
    assert pairs(graph) == {frozenset((str(u), str(v))) for u, v in g.edges}
    kind = "interacts with" if write is cytoscape_sif else "pp"
    assert graph.read.notes[0] == f"1 interaction type (not kept): {kind!r} ×{g.number_of_edges()}"
    assert graph.read.separator == ("tab" if write is cytoscape_sif else "whitespace")
    assert "interaction types" in graph.read.ignored
    assert graph.report.isolated_nodes == (("Lone node",) if write is cytoscape_sif else ("Lone",))
    assert graph.read.summary().startswith(f"{g.number_of_edges()} edges read as SIF (Cytoscape), unweighted")


SMALL = b"A\tpp\tB\nB\tpd\tC\nC\tpp\tA\nA\tpd\tB\nB\tpp\tD E\nF\n"


def test_format_sif_reads_a_small_file_and_says_what_it_merged():
    """Too small to be told from a table by its content; --format sif reads it: a tab file's names
    may hold spaces, a pair joined by two types is one edge, a lone name is a node."""
    assert sniff_format(b"A\tpp\tB\nB\tpd\tC\n", "c.sif") == "edgelist"
    assert sniff_format(SMALL, "c.sif") == "sif"
    with pytest.raises(GraphFormatError, match="c.sif:1: weight 'B' is not a number; .*--format sif"):
        read_graph_bytes(b"A\tpp\tB\n", "c.sif")
    graph = read_graph_bytes(SMALL, "c.sif", ReadOptions(format="sif"))
    assert graph.names == ("A", "B", "C", "D E", "F")
    assert pairs(graph) == {frozenset("AB"), frozenset("BC"), frozenset("CA"), frozenset(("B", "D E"))}
    assert graph.read.notes == (
        "2 interaction types (not kept): 'pp' ×3, 'pd' ×2",
        "1 node pairs joined by more than one interaction type, each read as one edge",
        "1 lines of one node name: nodes without edges unless another line links them")
    assert graph.report.isolated_nodes == ("F",)
    directed = read_graph_bytes(SMALL, "c.sif", ReadOptions(format="sif", directed=True))
    assert directed.directed and directed.read.directed_why == "as asked"
    assert pairs(directed) == {("A", "B"), ("B", "C"), ("C", "A"), ("B", "D E")}


def test_types_and_counts_in_the_report():
    raw = b"".join(f"g{i} {'pp' if i % 3 else 'pd'} g{i + 1}{f' g{i + 2}' if i % 2 else ''}\n".encode()
                   for i in range(40))
    graph = read_graph_bytes(raw, "t.sif")
    assert graph.read.format == "sif"
    assert graph.read.notes[0] == "2 interaction types (not kept): 'pp' ×39, 'pd' ×21"
    assert graph.read.rows[:3] == (("g0", "g1"), ("g1", "g2"), ("g1", "g3"))


@pytest.mark.parametrize("raw", [
    # a weighted edge table: names, then numbers
    b"".join(f"{u} {v} {w}\n".encode() for u, v, w in nx.les_miserables_graph().edges(data="weight")),
    # integer ids with a text third column
    b"".join(f"{u} {v} friend\n".encode() for u, v in nx.karate_club_graph().edges),
    # a headerless a b c table: the middle column is nodes
    b"".join(f"{u} {v} knows\n".encode() for u, v in nx.les_miserables_graph().edges),
    b"a b c\nb c d\nc d e\n",
    b"alice bob friend\ncarol dave colleague\n",
    b"a b 2\nc b 3\nd b 1\ne b 2\n",  # one middle value, but a weight column
    # headers naming the ends
    b"source interaction target\n" + cytoscape_sif(nx.karate_club_graph()).replace(b"\t", b" ")[:400],
    b"source\tinteraction\ttarget\n" + cytoscape_sif(nx.karate_club_graph()),
    # CSV
    b"".join(f"{u},pp,{v}\n".encode() for u, v in nx.karate_club_graph().edges),
    b"".join(f"{u} x,pp,{v} y\n".encode() for u, v in nx.karate_club_graph().edges),
    # a table of four columns, every line as wide (Pathway Commons' extended SIF)
    b"".join(f"{u}\tpp\t{v}\tReactome\n".encode() for u, v in nx.karate_club_graph().edges),
    b"".join(f"{u}\tpp\t{v}\t\t123\n".encode() for u, v in nx.karate_club_graph().edges),
    b"a pp b\nc d\n",  # a two-field line is no SIF line
])
def test_edge_tables_are_not_taken_for_sif(raw):
    assert not looks_sif(raw.decode().splitlines())
    assert sniff_format(raw, "e.txt") == "edgelist"


def test_a_sif_file_is_found_by_content_under_any_name(tmp_path):
    path = tmp_path / "karate.txt"
    path.write_bytes(cytoscape_sif(nx.karate_club_graph(), "pp"))
    graph = load_graph(str(path))
    assert graph.read.format == "sif" and (graph.num_nodes, graph.num_edges) == (34, 78)


@pytest.mark.parametrize("raw, line, words", [
    (b"a pp b\nb pp\n", 2, "2 fields ('b', 'pp'): a SIF line is one node, or source, interaction type"),
    (b"a\tpp\tb\nb\t\tc\n", 2, "an empty field between two tabs"),
])
def test_bad_lines_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.sif", ReadOptions(format="sif"))
    assert message.startswith(f"bad.sif:{line}:") and words in message


def test_a_file_without_edges_and_weight_or_columns_asked_say_so():
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(b"# nodes only\na\nb\n", "n.sif", ReadOptions(format="sif"))
    assert str(err.value) == "n.sif: a SIF file without edges (no line of source, interaction type, target)"
    with pytest.raises(GraphFormatError, match="a SIF file has no weights"):
        read_graph_bytes(SMALL, "c.sif", ReadOptions(format="sif", weight="score"))
    with pytest.raises(GraphFormatError, match="choose columns of an edge table"):
        read_graph_bytes(SMALL, "c.sif", ReadOptions(format="sif", source=0, target=2))
    assert not read_graph_bytes(SMALL, "c.sif", ReadOptions(format="sif", weight="none")).weighted


def cytoscape_edge_table(g: nx.Graph, sep: str = ",", weighted: bool = False) -> bytes:
    """``g``'s edge table as Cytoscape 3 exports it (File → Export → Table to File, opencsv: every
    field quoted): no source or target column; each edge named ``SOURCE (interaction) TARGET``."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["SUID", "shared name", "shared interaction", "name", "selected", "interaction",
                     "EdgeBetweenness", *(["weight"] if weighted else [])])
    for k, (u, v, w) in enumerate(g.edges(data="weight", default=1)):
        kind = "pp" if k % 3 else "interacts with"
        name = f"{u} ({kind}) {v}"
        writer.writerow([100 + k, name, kind, name, "false", kind, 2.5 * k, *([w] if weighted else [])])
    return out.getvalue().encode()


@pytest.mark.parametrize("sep", [",", "\t"])
@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
def test_a_cytoscape_edge_table_reads_its_ends_from_the_edge_names(make, sep):
    """Its only columns of ends are in each edge's name; a number column (EdgeBetweenness) is no
    weight unless named one; a name with a space or a bracket is kept whole."""
    g = nx.relabel_nodes(make(), {0: "Mr. Hi (club) 0"}) if make is nx.karate_club_graph else make()
    graph = read_graph_bytes(cytoscape_edge_table(g, sep), "edges.csv")
    assert (graph.read.format, graph.weighted, graph.directed) == ("edgelist", False, False)
    assert pairs(graph) == {frozenset((str(u), str(v))) for u, v in g.edges}
    assert "'EdgeBetweenness'" in graph.read.ignored
    assert graph.read.notes[0].startswith("Cytoscape edge table: each edge's ends read from its 'name'")
    weighted = read_graph_bytes(cytoscape_edge_table(g, sep, weighted=True), "edges.csv",
                                ReadOptions(directed=True))
    assert weighted.directed and weighted.weighted  # both graphs' edges have weights (karate's: 1 to 7)
    assert edges_of(weighted) == {(str(u), str(v)): w for u, v, w in g.edges(data="weight", default=1)}


def test_a_cytoscape_edge_table_names_a_bad_row_and_leaves_other_tables_alone():
    raw = cytoscape_edge_table(nx.path_graph(4))
    lines = raw.decode().splitlines()
    broken = "\n".join(lines[:3] + [lines[3].replace("2 (pp) 3", "2 and 3")]).encode()
    assert read_error(broken, "e.csv") == "e.csv:4: the edge name '2 and 3' is not 'SOURCE (pp) TARGET' " \
                                          "once: a Cytoscape edge table's edges are told by their names"
    ragged = "\n".join(lines[:2] + [lines[2] + ',"x"'] + lines[3:]).encode()
    assert read_error(ragged, "e.csv") == "e.csv:3: 8 fields where the header has 7"
    table = b"name,interaction,partner\nA,pp,B\nB,pp,C\n"  # names not 'A (pp) B': an edge table as before
    assert read_error(table, "t.csv").startswith("t.csv:1: weight 'partner' is not a number")
    named = read_graph_bytes(raw, "e.csv", ReadOptions(source="SUID", target="selected"))  # columns told
    assert set(named.names) == {"100", "101", "102", "false"}
