"""UCINET DL files as Gephi's exporter writes them (``edgelist1`` with embedded labels, every
undirected edge as two lines; ``fullmatrix`` with a ``labels:`` line) and as UCINET writes them
(``dl n=5`` on one line, embedded matrix labels, ``nodelist1``): read to the graph they came
from, undirected when the ties are symmetric; bad files are one line naming their line."""

from __future__ import annotations

import networkx as nx
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import edges_of, read_error


def label(node) -> str:
    return str(node).replace(" ", "_")  # Gephi's formatLabel


def gephi_edgelist1(g: nx.Graph) -> bytes:
    """``g`` as Gephi 0.10's DL exporter writes it by default (list format, labels embedded)."""
    lines = ["dl", "format = edgelist1", f"n = {g.number_of_nodes()}", "labels embedded:", "data:"]
    for u, v, data in g.edges(data=True):
        w = float(data.get("weight", 1))
        lines.append(f"{label(u)} {label(v)} {w}")
        if not g.is_directed():
            lines.append(f"{label(v)} {label(u)} {w}")
    return ("\n".join(lines) + "\n").encode()


def gephi_fullmatrix(g: nx.Graph) -> bytes:
    """``g`` as Gephi's DL exporter writes it in matrix format: ``labels:`` comma separated, each
    row's values with a trailing blank, 0.0 for no edge."""
    nodes = list(g)
    lines = ["dl", "format = fullmatrix", f"n = {len(nodes)}", "labels:", ",".join(label(n) for n in nodes),
             "data:"]
    matrix = nx.to_numpy_array(g, nodelist=nodes)
    lines += ["".join(f"{value} " for value in row.tolist()) for row in matrix]
    return ("\n".join(lines) + "\n").encode()


def weighted_edges(g: nx.Graph) -> dict:
    return {frozenset((label(u), label(v))): float(d["weight"]) for u, v, d in g.edges(data=True)}


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
@pytest.mark.parametrize("write", [gephi_edgelist1, gephi_fullmatrix])
def test_gephi_dl_reads_back_the_same_undirected_graph(make, write):
    g = make()
    graph = read_graph_bytes(write(g), "g.dl")
    assert graph.read.format == "dl" and graph.read.detected
    assert not graph.directed and graph.weighted and graph.read.directed_why == "every tie stored both ways"
    assert set(graph.names) == {label(n) for n in g}
    assert edges_of(graph) == weighted_edges(g)


def test_a_directed_graph_stays_directed():
    d = nx.gnm_random_graph(25, 80, seed=5, directed=True)
    for u, v in d.edges:
        d.edges[u, v]["weight"] = 1 + (u * 7 + v) % 5
    want = {(str(u), str(v)): float(w) for u, v, w in d.edges(data="weight")}
    for write in (gephi_edgelist1, gephi_fullmatrix):
        graph = read_graph_bytes(write(d), "d.dl")
        assert graph.directed and graph.read.directed_why.startswith("tie ")
        assert edges_of(graph) == want


def test_a_binary_matrix_is_unweighted_and_numbered_without_labels():
    a = nx.to_numpy_array(nx.path_graph(4), weight=None).astype(int)
    raw = ("DL N=4\ndata:\n" + "\n".join(" ".join(map(str, row)) for row in a) + "\n").encode()
    graph = read_graph_bytes(raw, "p.dl")
    assert not graph.weighted and not graph.directed and graph.names == ("1", "2", "3", "4")
    assert set(edges_of(graph)) == {frozenset(("1", "2")), frozenset(("2", "3")), frozenset(("3", "4"))}
    assert "n = 4, format = fullmatrix" in graph.read.notes


UCINET_MATRIX = b"""DL n=3
format = fullmatrix
labels embedded
data:
  ann bob "cat c"
ann 0 1 0
bob 1 0 2.5
"cat c" 0 2.5 0
"""


def test_ucinet_matrix_with_embedded_labels():
    graph = read_graph_bytes(UCINET_MATRIX, "m.dl")
    assert graph.names == ("ann", "bob", "cat c") and not graph.directed
    assert edges_of(graph) == {frozenset(("ann", "bob")): 1.0, frozenset(("bob", "cat c")): 2.5}


def test_nodelist1_with_labels_line_and_an_isolated_node():
    raw = b"dl n=5 format=nodelist1\nlabels:\nA B C D E\ndata:\n1 2 3\n2 1\n3 1\n4\n"
    graph = read_graph_bytes(raw, "n.dl")
    assert graph.names == ("A", "B", "C", "D", "E") and not graph.directed and not graph.weighted
    assert set(edges_of(graph)) == {frozenset("AB"), frozenset("AC")}
    assert graph.report.isolated_nodes == ("D", "E")


def test_edgelist1_numbered_with_missing_values_and_zero_values():
    raw = b"dl n=4\nformat = edgelist1\ndata:\n1 2\n2 3 2\n3 4 0\n"
    graph = read_graph_bytes(raw, "e.dl")
    assert graph.directed and edges_of(graph) == {("1", "2"): 1.0, ("2", "3"): 2.0}
    assert graph.report.isolated_nodes == ("4",)
    assert any("1 lines with value 0 (no tie) skipped" in note for note in graph.read.notes)


def test_embedded_labels_fewer_than_n_are_noted():
    raw = b"dl\nformat = edgelist1\nn = 4\nlabels embedded:\ndata:\na b 1.0\nb a 1.0\n"
    graph = read_graph_bytes(raw, "few.dl")
    assert graph.names == ("a", "b") and not graph.directed and not graph.weighted
    assert any("n = 4, 2 nodes named in the data" in note for note in graph.read.notes)


def test_options_directed_and_weight_none():
    raw = gephi_fullmatrix(nx.karate_club_graph())
    graph = read_graph_bytes(raw, "k.dl", ReadOptions(directed=True))
    assert graph.directed and graph.num_edges == 156
    flat = read_graph_bytes(raw, "k.dl", ReadOptions(weight="none"))
    assert not flat.weighted and flat.num_edges == 78 and "the values (weight none)" in flat.read.ignored
    with pytest.raises(GraphFormatError, match="a DL file's values are its weights"):
        read_graph_bytes(raw, "k.dl", ReadOptions(weight="strength"))


def test_found_by_content_under_any_name(tmp_path):
    path = tmp_path / "karate.txt"
    path.write_bytes(gephi_edgelist1(nx.karate_club_graph()))
    graph = load_graph(str(path))
    assert graph.read.format == "dl" and (graph.num_nodes, graph.num_edges) == (34, 78)
    path.write_bytes(b"dl 2\n2 3\n")  # an edge list whose first node is named dl: no n =, not DL
    assert load_graph(str(path)).read.format == "edgelist"


def test_a_600_node_full_matrix():
    g = nx.gnm_random_graph(600, 3000, seed=1)
    graph = read_graph_bytes(gephi_fullmatrix(g), "big.dl")  # 360,000 values, one numpy parse
    assert graph.num_edges == 3000 and not graph.weighted
    assert graph.names == tuple(str(i) for i in range(600))


M = b"dl n=3\nformat = fullmatrix\ndata:\n"


@pytest.mark.parametrize("raw, line, words", [
    (M + b"0 1 0\n1 0 1\n0 1\n", 6, "the matrix holds 8 entries, n = 3 needs 9: 3 × 3 values (a truncated"),
    (M + b"0 1 0\n1 0 1\n0 1 0\n1\n", 7, "the matrix holds 10 entries"),
    (M + b"0 1 0\n1 0 x\n0 1 0\n", 5, "weight 'x' is not a number"),
    (M + b"0 1 0\n1 0 -1\n0 1 0\n", 5, "weight -1 is not positive"),
    (b"dl n=3 format=edgelist1\ndata:\n1 2\n1 7\n", 4, "node '7' is not a number in 1..3"),
    (b"dl n=3 format=edgelist1\ndata:\n1 2 1 1\n", 3, "an edgelist1 line is 'from to [value]', got 4"),
    (b"dl n=3 format=edgelist1\ndata:\n1 2 heavy\n", 3, "weight 'heavy' is not a number"),
    (b"dl n=2 format=edgelist1 labels embedded\ndata:\na b\nb c\n", 4, "label 'c' is node 3, n = 2"),
    (b"dl n=3\nformat = edgelist2\ndata:\n1 2\n", 2, "DL format 'edgelist2' is not read (a two-mode format"),
    (b"dl n=3\nformat = nodelist2\ndata:\n1 2\n", 2, "DL format 'nodelist2' is not read (a two-mode format"),
    (b"dl n=3\ndiagonal = missing\ndata:\n", 2, "diagonal = 'missing': present or absent"),
    (b"dl n=2\nlabels:\na b\nlabels:\nc d\ndata:\n0 1 1 0\n", 4, "row labels listed twice"),
    (b"dl n=2\nlabels:\na b\ncolumn labels:\na b\ndata:\n0 1 1 0\n", 4, "column labels listed twice"),
    (b"dl n=2 nm=2\nlevel labels:\nfriend foe\ndata:\n", 1, "nm = 2: several matrices"),
    (b"dl n=2\nlevel labels:\nfriend foe\ndata:\n0 1 1 0\n", 3, "2 matrix labels: several matrices"),
    (b"dl n=2\nmatrix labels embedded\ndata:\n0 1 1 0\n", 2, "matrix labels embedded is not read"),
    (b"dl n=2 format=edgelist1\nrow labels embedded\ndata:\na 2\n", 2,
     "row labels embedded alone: an edgelist1 file's labels are embedded on both sides"),
    (b"dl n=2\nrow labels:\na b\ncolumn labels:\na c\ndata:\n0 1 1 0\n", 5,
     "node 2 is labelled 'b' by the row labels, 'c' by the column labels: a one-mode"),
    (b"dl n=2\nrow labels embedded\ncolumn labels:\na b\ndata:\nb 0 1\na 1 0\n", 6,
     "node 1 is labelled 'a' by the column labels, 'b' by the embedded row labels"),
    (b"dl n=3\nformat = lowerhalf\ndata:\n0\n1 0\n", 5, "n = 3 needs 6: 6 values (lowerhalf)"),
    (b"dl nr=3, nc=2\ndata:\n", 1, "nr = …: a two-mode (rectangular) DL file"),
    (b"dl n=3 nm=2\ndata:\n", 1, "nm = 2: several matrices"),
    (b"dl n=3\nlabels:\na,b\ndata:\n", 3, "2 labels for n = 3 nodes"),
    (b"dl n=2\nlabels:\na,a\ndata:\n", 3, "label 'a' names two nodes"),
    (b"dl n=x\ndata:\n", 1, "n must be a whole number of nodes, got 'x'"),
    (b"dl n=99999999999 format=edgelist1\ndata:\n1 2\n", 1, "99,999,999,999 nodes"),  # refused, not allocated
    (b"dl n=2\nweights = yes\ndata:\n", 2, "unknown DL setting 'weights'"),
    (b"dl n=2\nrow labels:\na b\ndata:\n0 1\n", 5, "the matrix holds 2 entries, n = 2 needs 4: 2 × 2 values"),
    (b"dl n=2\n0 1\n1 0\n", 3, "a DL file without a 'data:' line"),
    (b"dl n=2\nformat = edgelist1\ndata:\n1 \"2\n", 4, "a label opened with \" is not closed"),
])
def test_bad_files_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.dl")
    assert message.startswith(f"bad.dl:{line}:") and words in message


def test_a_file_without_ties_says_so():
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(M + b"0 0 0\n0 0 0\n0 0 0\n", "zero.dl")
    assert str(err.value) == "zero.dl: a DL file without ties (every value 0, or no data)"


# As UCINET 6 writes and documents DL (its user's guide, "DL Filetype"; from memory: no UCINET runs
# here): labels as one list (labels:) or a row and a column list, either embedded in the data; a
# matrix without its diagonal (diagonal = absent); a half matrix, one triangle of a symmetric one.

def ucinet_dl(g: nx.Graph, fmt: str = "fullmatrix", diagonal: bool = True, labels: str = "labels:") -> bytes:
    """``g`` as a DL file UCINET writes: ``labels`` is ``labels:``, ``row labels:`` (a row and a
    column list), ``labels embedded``, ``row labels embedded`` or ``column labels embedded``."""
    nodes = [str(node) for node in g]
    quoted = [f'"{node}"' if " " in node or "," in node else node for node in nodes]
    a = nx.to_numpy_array(g, weight="weight")
    keep = {"fullmatrix": lambda i, j: diagonal or i != j, "lowerhalf": lambda i, j: j < i + diagonal,
            "upperhalf": lambda i, j: j > i - diagonal}[fmt]
    head = [f"DL N = {len(nodes)}", f"FORMAT = {fmt.upper()}"] + ([] if diagonal else ["DIAGONAL = ABSENT"])
    rows = [[f"{a[i, j]:g}" for j in range(len(nodes)) if keep(i, j)] for i in range(len(nodes))]
    if labels.endswith(":"):
        head += [labels.upper(), ",".join(quoted)] + (["COLUMN LABELS:", ",".join(quoted)] if "row" in labels
                                                      else [])
    else:
        head.append(labels.upper())
        if "column" not in labels:  # each row after its label
            rows = [[quoted[i]] + row for i, row in enumerate(rows)]
        if "row" not in labels:  # the column labels open the data
            rows = [quoted] + rows
    return ("\n".join(head + ["DATA:"] + [" ".join(row) for row in rows]) + "\n").encode()


def signed_karate() -> nx.Graph:
    g = nx.karate_club_graph()
    nx.relabel_nodes(g, {0: "Mr Hi", 33: "Officer, J"}, copy=False)  # a blank and a comma: quoted labels
    for u, v in g.edges:
        g.edges[u, v]["weight"] = 1.0
    return g


@pytest.mark.parametrize("labels", ["labels:", "row labels:", "labels embedded", "row labels embedded",
                                    "column labels embedded"])
def test_ucinet_labels_as_one_list_two_lists_or_embedded(labels):
    g = signed_karate()
    graph = read_graph_bytes(ucinet_dl(g, labels=labels), "k.dl")
    assert graph.names == tuple(str(node) for node in g) and not graph.directed and not graph.weighted
    assert set(edges_of(graph)) == {frozenset((str(u), str(v))) for u, v in g.edges}


@pytest.mark.parametrize("fmt, diagonal", [("fullmatrix", False), ("lowerhalf", True), ("lowerhalf", False),
                                           ("upperhalf", True), ("upperhalf", False)])
@pytest.mark.parametrize("labels", ["labels:", "labels embedded"])
def test_a_matrix_without_its_diagonal_or_half_of_it(fmt, diagonal, labels):
    g = nx.les_miserables_graph()
    graph = read_graph_bytes(ucinet_dl(g, fmt, diagonal, labels), "m.dl")
    assert not graph.directed and graph.weighted and edges_of(graph) == weighted_edges(g)
    assert f"n = 77, format = {fmt}" + ("" if diagonal else ", diagonal absent") in graph.read.notes
    if fmt != "fullmatrix":
        assert graph.read.directed_why == f"{fmt}: half a symmetric matrix"
        both = read_graph_bytes(ucinet_dl(g, fmt, diagonal, labels), "m.dl", ReadOptions(directed=True))
        assert both.directed and both.num_edges == 2 * g.number_of_edges()


def test_a_directed_matrix_without_diagonal_stays_directed():
    d = nx.gnm_random_graph(30, 90, seed=2, directed=True)
    graph = read_graph_bytes(ucinet_dl(d, diagonal=False), "d.dl")
    assert graph.directed and set(edges_of(graph)) == {(str(u), str(v)) for u, v in d.edges}


def test_signed_ties_read_unweighted_with_weight_none():
    g = signed_karate()
    for u, v in list(g.edges)[::3]:
        g.edges[u, v]["weight"] = -1.0  # a signed network: UCINET's -1 for a negative tie
    raw = ucinet_dl(g, "lowerhalf")
    message = read_error(raw, "s.dl")
    assert "weight -1 is not positive" in message and "(--weight none reads every edge with weight" in message
    graph = read_graph_bytes(raw, "s.dl", ReadOptions(weight="none"))
    assert not graph.weighted and graph.num_edges == g.number_of_edges()
    assert "the values (weight none)" in graph.read.ignored
    signed = b"dl n=3 format=edgelist1\ndata:\n1 2 -1\n2 3 1\n"
    edges = read_graph_bytes(signed, "e.dl", ReadOptions(weight="none"))
    assert edges.num_edges == 2 and edges.directed
    assert read_error(M + b"0 1 0\n1 0 x\n0 1 0\n", "x.dl", ReadOptions(weight="none")) == \
        "x.dl:5: value 'x' is not a number"


def test_one_matrix_label_is_left_out():
    raw = b"dl n=2\nmatrix labels:\nfriendship\nlabels:\na b\ndata:\n0 1\n1 0\n"
    graph = read_graph_bytes(raw, "one.dl")
    assert graph.names == ("a", "b") and graph.num_edges == 1
    assert "matrix label 'friendship' left out" in graph.read.notes


def test_a_plain_matrix_is_parsed_without_a_string_per_cell(monkeypatch):
    """A matrix of numbers only is parsed by numpy (a 5,000-node one has 25 million cells); the
    word-by-word path is for labels in the data and for naming a bad line."""
    from goat_core.data import ucinet

    g = nx.gnm_random_graph(300, 900, seed=3)
    monkeypatch.setattr(ucinet, "_cells", lambda *args: pytest.fail("read word by word"))
    for raw in (gephi_fullmatrix(g), ucinet_dl(g, "lowerhalf", diagonal=False)):
        graph = read_graph_bytes(raw, "p.dl")
        assert set(edges_of(graph)) == {frozenset((str(u), str(v))) for u, v in g.edges}


def sna_write_dl(g: nx.Graph, names: bool = True) -> bytes:
    """``g`` as R's sna ``write.dl`` writes one sociomatrix: ``nm = 1``, the vertex labels quoted and
    comma-separated, a ``matrix labels:`` line (1 when unnamed), each nonzero cell ``i j value ``
    both ways for an undirected graph."""
    nodes = list(g)
    a = nx.to_numpy_array(g, nodelist=nodes)
    labels = [f'"{node}"' for node in nodes] if names else [str(i) for i in range(1, len(nodes) + 1)]
    n = len(nodes)
    lines = [f"DL n = {n}, nm = 1, format = edgelist1", "labels:", ",".join(labels), "matrix labels:", "1",
             "data:"]
    lines += [f"{i + 1} {j + 1} {a[i, j]:g} " for j in range(n) for i in range(n) if a[i, j]]  # column-major
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("names", [True, False])
def test_r_sna_write_dl_with_its_matrix_label(names):
    g = nx.les_miserables_graph()
    graph = read_graph_bytes(sna_write_dl(g, names), "sna.dl")
    assert not graph.directed and graph.weighted and graph.num_edges == g.number_of_edges()
    if names:
        assert edges_of(graph) == weighted_edges(g)
    assert "matrix label '1' left out" in graph.read.notes


def test_ucinet_s_own_format_line_with_diagonal_present_and_level_labels():
    """UCINET's export (and the Add Health files it wrote, NodeXL's DL writer) says 'FORMAT = FULLMATRIX
    DIAGONAL PRESENT': no '=' before PRESENT; it was refused as "unexpected 'DIAGONAL'"."""
    raw = (b'DL\r\nN=3\r\nFORMAT = FULLMATRIX DIAGONAL PRESENT\r\nROW LABELS:\r\n"a"\r\n"b"\r\n"c"\r\n'
           b'COLUMN LABELS:\r\n"a"\r\n"b"\r\n"c"\r\nLEVEL LABELS:\r\n"friends"\r\n'
           b'DATA:\r\n0 1 0\r\n1 0 2\r\n0 2 0\r\n')
    assert edges_of(read_graph_bytes(raw, "u.dl")) == {frozenset("ab"): 1.0, frozenset("bc"): 2.0}
    absent = b"dl n=3 format = fullmatrix diagonal absent\ndata:\n1 0\n1 1\n0 1\n"
    assert edges_of(read_graph_bytes(absent, "a.dl")) == {frozenset("12"): 1.0, frozenset("23"): 1.0}


def test_dna_s_dl_export_listing_its_labels_and_saying_embedded_reads_its_plain_values():
    """Discourse Network Analyzer's DL export lists ROW and COLUMN LABELS, says LABELS EMBEDDED too, then
    writes only the values (' %.6f'): refused as 'needs 15 entries, a truncated file?'."""
    raw = (b'DL\nN=3\nFORMAT = FULLMATRIX DIAGONAL PRESENT\nROW LABELS:\n"a"\n"b"\n"c"\nROW LABELS EMBEDDED\n'
           b'COLUMN LABELS:\n"a"\n"b"\n"c"\nCOLUMN LABELS EMBEDDED\nDATA:\n 0.000000 1.000000 0.000000\n'
           b' 1.000000 0.000000 2.500000\n 0.000000 2.500000 0.000000')
    assert edges_of(read_graph_bytes(raw, "dna.dl")) == {frozenset("ab"): 1.0, frozenset("bc"): 2.5}
