"""Graph loading: formats, normalisation, and every class of bad input."""

from __future__ import annotations

import io

import numpy as np
import pytest

from goat_core import GraphFormatError, load_graph, parse_edge_list, parse_labels, read_graph_file


def parse(text: str | bytes, **kw):
    raw = text.encode() if isinstance(text, str) else text
    return parse_edge_list(raw, file="g.txt", **kw)


@pytest.mark.parametrize("text", [
    "a b\nb c\nc a\n",
    "a\tb\nb\tc\nc\ta\n",
    "a,b\nb,c\nc,a\n",
    "source,target\na,b\nb,c\nc,a\n",
    "# comment\n% other comment\n\na b\nb c\n  c a  \n",
    "a b\r\nb c\r\nc a\r\n",
    "\ufeffa b\nb c\nc a\n",
])
def test_formats_give_the_same_triangle(text):
    g = parse(text)
    assert g.names == ("a", "b", "c")
    assert g.num_edges == 3 and not g.weighted


def test_integer_ids_sort_numerically_and_stay_labels():
    g = parse("10 2\n2 1\n")
    assert g.names == ("1", "2", "10")
    assert g.index_of("10") == 2


def test_a_name_is_a_name_never_a_position():
    """Issue 24: with integer names, an unknown name once fell back to a 0-based index."""
    from goat_core import UnknownNodeError

    g = parse("10 20\n20 30\n30 40\n")
    assert [g.index_of(name) for name in ("10", "20", "30", "40")] == [0, 1, 2, 3]
    assert g.index_of(20) == 1  # an int is the name it spells
    for unknown in ("1", "3", 0, 1, "0"):
        with pytest.raises(UnknownNodeError, match=f"node '{unknown}' is not in the graph g.txt"):
            g.index_of(unknown)
    for odd in (True, 2.0, None, b"10", ("10",), np.bool_(True)):
        with pytest.raises(UnknownNodeError, match="a node is named by text"):
            g.index_of(odd)
    with pytest.raises(UnknownNodeError, match="numpy integer, a position or a name: pass NodeIndex\\(1\\)"):
        g.index_of(np.int64(1))  # e.g. an id from an answer's array: position 1 is '20'; no name '1'
    from goat_core import NodeIndex

    assert g.index_of(NodeIndex(3)) == 3  # a position, said explicitly
    with pytest.raises(UnknownNodeError, match="node index 4 is out of range 0..3"):
        g.index_of(NodeIndex(4))


def test_names_are_read_in_nfc_so_both_spellings_match():
    nfd, nfc = "Zoe\u0308", "Zo\u00eb"  # the same name, decomposed and composed
    g = parse(f"{nfd} b\nb c\n")
    assert g.names[0] == nfc
    assert g.index_of(nfd) == g.index_of(nfc) == 0
    labels = parse_labels(f"{nfd} x\nb y\n".encode(), g, file="l.txt")
    assert labels.codes[0] == 0 and labels.unknown_nodes == ()
    with pytest.raises(GraphFormatError, match=f"g.txt: nodes '{nfc}' and '{nfd}' are the same name in two "
                                               "Unicode spellings"):
        parse(f"{nfc} b\n{nfd} c\n")
    import networkx as nx

    from goat_core.data.graph import from_networkx

    assert from_networkx(nx.Graph([(nfd, "b")])).names[0] == nfc
    with pytest.raises(GraphFormatError, match="the same name in two Unicode spellings"):
        from_networkx(nx.Graph([(nfd, "b"), (nfc, "c")]), source="g.gml")


def test_weights_header_and_merge_rules():
    g = parse("from,to,weight\na,b,1.5\nb,a,2\nb,c,1\n")
    assert g.weighted and g.num_edges == 2
    assert g.weight[g.index_of("a")] == pytest.approx(3.5)  # undirected duplicates: weights summed
    assert g.report.header_skipped and g.report.duplicates_merged == 1
    assert "weights summed" in " ".join(g.report.lines())


def test_directed_keeps_both_directions_and_self_loops_are_dropped():
    g = parse("a b\nb a\na a\n", directed=True)
    assert g.num_edges == 2 and g.report.self_loops_dropped == 1
    u = parse("a b\nb a\na a\nb c\n")
    assert u.num_edges == 2 and u.report.duplicates_merged == 1


def test_isolated_nodes_are_reported():
    g = parse("a b\nc c\n")
    assert g.report.isolated_nodes == ("c",)
    assert "cannot gossip" in " ".join(g.report.lines())


@pytest.mark.parametrize("raw, line, words", [
    (b"", None, "empty"),
    (b"   \n\n", None, "empty"),
    (b"# only a comment\n", None, "no edges"),
    (b"a b\nc\n", 2, "1 column"),
    (b"a b\nb c 1\n", 2, "ragged"),
    (b"a b x y\n", 1, "4 columns"),
    (b"a b 1\nb c heavy\n", 2, "not a number"),
    (b"a b 1\nb c -2\n", 2, "not positive"),
    (b"a b 1\nb c 0\n", 2, "not positive"),
    (b"a b 1\nb c nan\n", 2, "NaN"),
    (b"a b 1\nb c inf\n", 2, "infinite"),
    (b"a b 1\nb c 1e39\n", 2, "weight 1e39 is too large"),  # finite in float64, inf in float32
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", None, "binary"),
    (b"a b\n\xff\xfe bad\n", 2, "UTF-8"),
    (b"a a\nb b\n", None, "no edges left"),
])
def test_bad_input_names_file_line_and_problem(raw, line, words):
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, file="bad.txt")
    err = info.value
    assert err.file == "bad.txt" and err.line == line
    assert words in err.problem
    assert "\n" not in str(err)
    assert str(err).startswith("bad.txt:" + (f"{line}:" if line else ""))


def test_missing_file_is_a_format_error(tmp_path):
    with pytest.raises(GraphFormatError, match="no such file"):
        read_graph_file(tmp_path / "nope.txt")


def test_gml_and_graphml_through_networkx(tmp_path):
    import networkx as nx

    g = nx.Graph()
    g.add_edge("x", "y", weight=2.0)
    g.add_edge("y", "z", weight=1.0)
    nx.write_graphml(g, tmp_path / "g.graphml")
    nx.write_gml(g, tmp_path / "g.gml")
    for name in ("g.graphml", "g.gml"):
        loaded = read_graph_file(tmp_path / name)
        assert set(loaded.names) == {"x", "y", "z"} and loaded.num_edges == 2 and loaded.weighted
    (tmp_path / "broken.gml").write_text("graph [ node [ id 0 ")
    with pytest.raises(GraphFormatError, match="cannot parse GML"):
        read_graph_file(tmp_path / "broken.gml")


def test_labels_report_unknown_and_missing_nodes():
    g = parse("a b\nb c\nc d\n")
    labels = parse_labels(b"node label\na x\nb y\nzz x\n", g, file="l.txt")
    assert labels.classes == ("x", "y")
    assert labels.unknown_nodes == ("zz",) and labels.missing == 2
    assert any("not in the graph" in n for n in labels.notes())
    with pytest.raises(GraphFormatError, match="two different labels"):
        parse_labels(b"a x\na y\n", g, file="l.txt")
    with pytest.raises(GraphFormatError, match="l.txt:1: 3 columns"):
        parse_labels(b"a x y\n", g, file="l.txt")
    with pytest.raises(GraphFormatError, match="no line names a node"):
        parse_labels(b"q x\n", g, file="l.txt")


def test_labels_files_are_read_as_edge_tables_are():
    g = parse_edge_list(b"source,target\nNew York,b\nb,c\n", "g.csv")
    quoted = parse_labels(b'# cities\n"New York",east\nb,west\n\nc,"west"\n', g, file="l.csv")
    assert quoted.classes == ("east", "west") and quoted.missing == 0
    mixed = parse_labels(b"b\tx\nc  y\n", g, file="l.txt")  # a hand-edited mix of tabs and spaces
    assert mixed.classes == ("x", "y") and mixed.missing == 1
    for raw, line in [(b"b x\nc\n", 2), (b"b x\n\n# note\nc y z\n", 4)]:
        with pytest.raises(GraphFormatError, match=f"^l.txt:{line}: [13] columns; expected 'node label'$"):
            parse_labels(raw, g, file="l.txt")


def test_lesmis_carries_the_paper_ids():
    g = load_graph("lesmis")
    assert (g.num_nodes, g.num_edges) == (77, 254) and g.weighted
    assert g.names[25] == "Thenardier" and g.names[48] == "Gavroche" and g.names[55] == "Marius"
    assert np.array_equal(g.node_attrs["paper_id"], np.arange(77))
    assert g.has_edge(25, 55) and g.has_edge(48, 55)
    assert g.labels is not None and len(g.labels.classes) >= 3


def test_email_from_the_data_dir(data_dir):
    g = load_graph("email", directed=True)
    assert g.num_nodes == 1005
    assert g.report.input_edges == 25571 and g.report.self_loops_dropped == 642
    assert g.num_edges == 25571 - 642
    assert len(g.labels.classes) == 42 and g.labels.missing == 0
    assert load_graph("email").num_edges == 16706 - 642


def test_email_missing_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("GOAT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(GraphFormatError) as info:
        load_graph("email")
    assert "GOAT_DATA_DIR" in str(info.value) and "email/graph.txt" in str(info.value)


def test_email_with_wrong_content_is_rejected(tmp_path, monkeypatch):
    (tmp_path / "email").mkdir()
    (tmp_path / "email" / "graph.txt").write_text("0 1\n")
    (tmp_path / "email" / "communities.txt").write_text("0 1\n")
    monkeypatch.setenv("GOAT_DATA_DIR", str(tmp_path))
    with pytest.raises(GraphFormatError, match="SHA-256"):
        load_graph("email")


def test_fingerprint_tracks_content():
    a, b = parse("a b\nb c\n"), parse("a b\nb c\n")
    assert a.fingerprint() == b.fingerprint()
    assert parse("a b\nb c\n", directed=True).fingerprint() != a.fingerprint()
    assert parse("a b\nb d\n").fingerprint() != a.fingerprint()


def test_shipped_sample_graphs_match_their_manifest():
    import json
    from pathlib import Path

    from goat_core import read_labels

    root = Path(__file__).resolve().parents[2] / "sample_graphs"
    manifest = json.loads((root / "manifest.json").read_text())
    for name, entry in manifest.items():
        if not entry.get("shipped", True):
            assert not (root / name).exists()
            continue
        graph = load_graph(root / name)
        assert (graph.num_nodes, graph.num_edges, graph.weighted) == (
            entry["nodes"], entry["edges"], entry["weighted"])
        labels = read_labels(root / entry["labels"], graph)
        assert labels.missing == 0 and not labels.unknown_nodes


def test_email_downloads_into_the_cache_and_verifies(tmp_path, monkeypatch, data_dir):
    """No network here: urlopen is replaced by a server of gzipped copies of the real files."""
    import gzip
    import io

    from goat_core.data import datasets

    served = {
        url: gzip.compress((data_dir / "email" / name).read_bytes())
        for name, (url, _) in datasets.EMAIL_FILES.items()
    }
    monkeypatch.setattr(datasets.urllib.request, "urlopen", lambda url, timeout: io.BytesIO(served[url]))
    monkeypatch.delenv("GOAT_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    graph = datasets.email(download=True)
    assert graph.num_nodes == 1005 and (tmp_path / "goat-explorer" / "email" / "graph.txt").is_file()
    served[datasets.EMAIL_FILES["graph.txt"][0]] = gzip.compress(b"0 1\n")
    (tmp_path / "goat-explorer" / "email" / "graph.txt").unlink()
    with pytest.raises(GraphFormatError, match="does not match the expected SHA-256"):
        datasets.email(download=True)


def test_duplicates_whose_summed_weight_overflows_are_an_error():
    message = r"g.txt: the duplicates of edge a b sum to a weight over 3.4e"
    with pytest.raises(GraphFormatError, match=message):
        parse_edge_list(b"a b 1e38\nb a 3e38\nb c 1\n", file="g.txt")


def test_labels_are_part_of_the_fingerprint():
    """Caches are keyed by the fingerprint: the same edges with other labels are another graph."""
    from dataclasses import replace

    graph = parse_edge_list(b"a b\nb c\nc a\n", file="g.txt")
    one = replace(graph, labels=parse_labels(b"a x\nb x\nc y\n", graph))
    other = replace(graph, labels=parse_labels(b"a x\nb y\nc y\n", graph))
    renamed = replace(graph, labels=parse_labels(b"a u\nb u\nc v\n", graph))
    prints = {g.fingerprint() for g in (graph, one, other, renamed)}
    assert len(prints) == 4
    assert one.fingerprint() == replace(graph, labels=parse_labels(b"a x\nb x\nc y\n", graph)).fingerprint()


def _ba_lines(n: int = 300, m: int = 3, seed: int = 0) -> list[tuple[int, int]]:
    import networkx as nx

    return list(nx.barabasi_albert_graph(n, m, seed=seed).edges())


def _spelled(rows: list[str], directed: bool, header: bool = False):
    """The graph the rows spell, built here from a plain split (the test's own reading)."""
    from goat_core.data.graph import build_graph

    fields = [r.split() for r in rows]
    weights = [float(f[2]) for f in fields] if fields and len(fields[0]) == 3 else None
    return build_graph([f[0] for f in fields], [f[1] for f in fields], weights, directed, weights is not None,
                       "g.txt", header)


def _same(read, spelled) -> None:
    assert read.names == spelled.names and read.directed == spelled.directed
    assert read.weighted == spelled.weighted and read.report == spelled.report
    assert np.array_equal(read.src, spelled.src) and np.array_equal(read.dst, spelled.dst)
    assert np.array_equal(read.weight, spelled.weight) and read.fingerprint() == spelled.fingerprint()


@pytest.mark.parametrize("case", ["plain", "weights", "header", "comma", "crlf", "bom", "sparse", "negative",
                                  "self-loops-and-duplicates", "directed", "snap-comments"])
@pytest.mark.parametrize("chunk_rows", [1 << 18, 7])
def test_the_table_path_gives_the_graph_integer_rows_spell(case, chunk_rows, monkeypatch):
    """Integer ids, read by pandas in chunks (one, or many of 7 rows): exactly the graph the rows
    spell (names in numeric order, same edges, weights and report)."""
    from goat_core.data import delimited as graph_module

    monkeypatch.setattr(graph_module, "CHUNK_ROWS", chunk_rows)

    edges = _ba_lines()
    ids = {"sparse": lambda v: 7919 * v + 13, "negative": lambda v: v - 150}.get(case, int)
    rows = [f"{ids(u)} {ids(v)}" for u, v in edges]
    if case == "weights":
        rows = [f"{r} {1 + i % 7}.5" for i, r in enumerate(rows)]
    if case == "self-loops-and-duplicates":
        rows += ["5 5", f"{ids(edges[0][1])} {ids(edges[0][0])}", rows[3]]
    text = "\n".join(rows) + "\n"
    if case == "header":
        text = "source target\n" + text
    if case == "comma":
        text = text.replace(" ", ",")
    if case == "crlf":
        text = text.replace("\n", "\r\n")
    if case == "snap-comments":  # SNAP's header: comment lines first, then only edges
        text = "# Directed graph (each unordered pair of nodes is saved once)\n# Nodes: 300\n\n% x\n" + text
    raw = text.encode("utf-8-sig" if case == "bom" else "utf-8")
    directed = case in ("directed", "snap-comments")
    read = parse_edge_list(raw, "g.txt", directed=case == "directed")
    _same(read, _spelled(rows, directed, case == "header"))


@pytest.mark.parametrize("chunk_rows", [1 << 18, 7])  # one chunk; many, with names first seen in later ones
@pytest.mark.parametrize("case", ["words", "unicode", "comma-header", "weights", "na-names", "mixed", "tabs",
                                  "directed"])
def test_the_table_path_numbers_text_ids_in_first_seen_order(case, chunk_rows, monkeypatch):
    """Text ids: names numbered in first-seen order across chunks, every other detail of the
    graph as the rows spell it."""
    from goat_core.data import delimited as graph_module

    monkeypatch.setattr(graph_module, "CHUNK_ROWS", chunk_rows)

    name = {"unicode": lambda v: f"Zoë-{v}-東京", "na-names": lambda v: ["NA", "null", "nan"][v] if v < 3
            else f"n{v}", "mixed": lambda v: str(v) if v % 2 else f"n{v}"}.get(case, lambda v: f"node{v}")
    sep = {"comma-header": ",", "tabs": "\t"}.get(case, " ")
    rows = [f"{name(u)}{sep}{name(v)}" for u, v in _ba_lines()]
    if case == "weights":
        rows = [f"{r} {1 + i % 7}.5" for i, r in enumerate(rows)]
    text = ("source,target\n" if case == "comma-header" else "") + "\n".join(rows) + "\n"
    spelled = _spelled([r.replace(sep, " ") for r in rows], case == "directed", case == "comma-header")
    _same(parse_edge_list(text.encode(), "g.txt", directed=case == "directed"), spelled)


@pytest.mark.parametrize("raw, names", [
    (b"007 1\n7 2\n", ("1", "2", "007", "7")),  # "007" and "7" are different names, in numeric order
    (b"+7 1\n7 2\n", ("+7", "1", "7", "2")),
    (b"-0 1\n0 2\n", ("-0", "0", "1", "2")),
    (b"1 2\n# a comment\n2 3\n", ("1", "2", "3")),
    (b'"a b" c\nc d\n', ("a b", "c", "d")),  # quotes keep a name with a blank together
    (b"a, b\nb, c\n", ("a", "b", "c")),  # blanks around a comma are not part of a name
    (b"12 4\n4 8\n8 x\n", ("12", "4", "8", "x")),  # integer ids, then text
    (b"source,target\rb,a\ra,c\r", ("b", "a", "c")),  # classic Mac line ends
])
@pytest.mark.parametrize("chunk_rows", [1 << 18, 1])
def test_unusual_ids_are_read_as_written(raw, names, chunk_rows, monkeypatch):
    from goat_core.data import delimited as graph_module

    monkeypatch.setattr(graph_module, "CHUNK_ROWS", chunk_rows)
    assert parse_edge_list(raw, "g.txt").names == names


@pytest.mark.parametrize("raw, line, words", [
    (b"a b\nb \n", 2, "1 columns, but the header (line 1) has 2"),  # a missing id (a b: a header)
    (b"a b\nb c d\n", 2, "3 columns, but line 1 has 2"),  # ragged text rows
    (b"1 2\n2 3 1.5\n", 2, "3 columns, but line 1 has 2"),
    (b"1 2 0\n2 3 1\n", 1, "weight 0 is not positive"),
    (b"a b\nb c\nc d\nd e\ne\n", 5, "only 1 column"),  # the last line (a later chunk of one row)
    (b"1 2\n2 3\n3 4\n4 5\n5 6 7 8\n", 5, "4 columns"),  # too many columns on the last line
    (b"1 2\n\n# note\n2 3 4\n", 4, "3 columns, but line 1 has 2"),  # after blank and comment lines
])
@pytest.mark.parametrize("chunk_rows", [1 << 18, 1])
def test_a_bad_row_is_named_by_its_line_in_any_chunk(raw, line, words, chunk_rows, monkeypatch):
    from goat_core.data import delimited as graph_module

    monkeypatch.setattr(graph_module, "CHUNK_ROWS", chunk_rows)
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "g.txt")
    assert str(info.value).startswith(f"g.txt:{line}:") and words in str(info.value)


def test_float_ids_as_np_savetxt_writes_them_are_the_integers_they_stand_for():
    buffer = io.BytesIO()
    np.savetxt(buffer, np.array([[0, 1, 0.5], [1, 2, 2], [2, 10, 1], [10, 0, 3]]))
    assert buffer.getvalue().startswith(b"0.000000000000000000e+00 1.000000000000000000e+00")
    graph = parse_edge_list(buffer.getvalue(), "s.txt")
    assert graph.names == ("0", "1", "2", "10") and graph.weight.tolist() == [0.5, 3.0, 2.0, 1.0]
    assert "ids written as floats (as np.savetxt writes them) read as integers" in graph.read.notes
    assert parse_edge_list(b"0.5 1.0\n1.0 2.0\n", "h.txt").names == ("0.5", "1.0", "2.0")  # not all whole


@pytest.mark.parametrize("raw, line", [(b"a b 1\nb c 1_000\n", 2),
                                       (b"source,target,weight\na,b,1\nb,c,1_000\n", 3)])
def test_a_weight_written_with_an_underscore_is_refused_with_its_line(raw, line):
    with pytest.raises(GraphFormatError, match=f"^w.txt:{line}: weight '1_000' is not a number"):
        parse_edge_list(raw, "w.txt")


def test_a_name_that_is_not_valid_unicode_is_refused_where_names_are_read(tmp_path):
    """A JSON file can spell a lone surrogate (\\ud800); such a name cannot be hashed or written,
    and `info` ended in a UnicodeEncodeError. Every reader's names pass through one check."""
    import networkx as nx

    from goat_core.data.graph import from_networkx

    with pytest.raises(GraphFormatError, match="node name '\\\\ud800' is not valid Unicode text"):
        from_networkx(nx.Graph([("\ud800", "b")]), source="odd.json")
    text = ('{"directed": false, "multigraph": false, "graph": {}, '
            '"nodes": [{"id": "\\ud800"}, {"id": "b"}], "links": [{"source": "\\ud800", "target": "b"}]}')
    (tmp_path / "odd.json").write_text(text)
    with pytest.raises(GraphFormatError, match="is not valid Unicode text"):
        load_graph(tmp_path / "odd.json")


def test_a_labels_path_that_is_a_directory_says_so(tmp_path):
    from goat_core import read_labels

    graph = parse_edge_list(b"a b\n", file="g.txt")
    with pytest.raises(GraphFormatError, match="is a directory, not a labels file"):
        read_labels(tmp_path, graph)


def _bad_weight(value) -> object:
    """Karate club with one edge's weight ``value``: a signed tie (-1) or a word."""
    import networkx as nx

    g = nx.karate_club_graph()
    g.edges[0, 1]["weight"] = value
    return g


def _by_tool(file: str, g, tmp_path) -> bytes:
    """``g`` as the tool that writes ``file``'s format writes it (Gephi's and Cytoscape's exports
    as their tests write them)."""
    import networkx as nx
    import scipy.io

    from .test_gdf import gephi_gdf
    from .test_vna import gephi_vna
    from .test_xgmml import cytoscape_xgmml

    path = tmp_path / file
    writers = {"g.dot": lambda: nx.nx_pydot.write_dot(g, path), "g.gml": lambda: nx.write_gml(g, path),
               "g.csv": lambda: nx.to_pandas_edgelist(g).to_csv(path, index=False),
               "g.mtx": lambda: scipy.io.mmwrite(path, nx.to_scipy_sparse_array(g)),
               "g.gdf": lambda: path.write_bytes(gephi_gdf(g)),
               "g.vna": lambda: path.write_bytes(gephi_vna(g)),
               "g.xgmml": lambda: path.write_bytes(cytoscape_xgmml(g))}
    writers[file]()
    return path.read_bytes()


@pytest.mark.parametrize("file, value, problem", [
    *[(file, -1, "is not positive") for file in ("g.dot", "g.gml", "g.csv", "g.mtx", "g.gdf", "g.vna",
                                                 "g.xgmml")],
    *[(file, "heavy", "'heavy' is not a number") for file in ("g.dot", "g.gml", "g.csv")],
])
def test_a_bad_weight_is_refused_naming_weight_none_which_reads_the_file(file, value, problem, tmp_path):
    """Every reader's bad weight says --weight none, and --weight none then reads the file unweighted."""
    from goat_core.data.formats import ReadOptions
    from goat_core.data.readers import read_graph_bytes

    raw = _by_tool(file, _bad_weight(value), tmp_path)
    with pytest.raises(GraphFormatError) as info:
        read_graph_bytes(raw, file)
    assert problem in str(info.value)
    assert str(info.value).endswith("(--weight none reads every edge with weight 1; library: weight='none')")
    graph = read_graph_bytes(raw, file, ReadOptions(weight="none"))
    assert not graph.weighted and (graph.num_nodes, graph.num_edges) == (34, 78)
