"""Graph files as the tools people use write them, each read to the graph it came from; every
case the columns cannot be told apart is a one-line error; hostile files are refused."""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import json
import pickle
import sqlite3
import zipfile

import networkx as nx
import pandas as pd
import pytest
import torch

from goat_core import (
    GraphFormatError,
    ParameterError,
    load_graph,
    parse_edge_list,
    parse_labels,
    read_graph_file,
)
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import label_attributes, read_graph_bytes
from tests.data.reading import read_error


def karate() -> nx.Graph:
    return nx.karate_club_graph()  # 34 nodes, 78 weighted edges, node attribute "club"


def lesmis() -> nx.Graph:
    return nx.les_miserables_graph()  # 77 text-named nodes, 254 weighted edges


def edges_of(graph) -> dict[frozenset, float]:
    return {frozenset((graph.names[s], graph.names[t])): float(w)
            for s, t, w in zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist())}


def assert_same(graph, g: nx.Graph, weighted: bool = True) -> None:
    """The graph read has g's nodes (as text), g's edges and, when ``weighted``, g's weights."""
    assert set(graph.names) == {str(n) for n in g.nodes}
    want = {frozenset((str(u), str(v))): float(d.get("weight", 1.0)) if weighted else 1.0
            for u, v, d in g.edges(data=True)}
    assert edges_of(graph) == want
    assert graph.weighted == weighted
    assert graph.read is not None


def written(tmp_path, name: str, write) -> bytes:
    path = tmp_path / name
    write(path)
    return path.read_bytes()


NETWORKX_WRITERS = {
    # name: (writer, file name, format found, weights kept)
    "write_edgelist": (nx.write_edgelist, "g.edgelist", "edgelist", True),
    "write_edgelist data=False": (lambda g, p: nx.write_edgelist(g, p, data=False), "g.txt", "edgelist",
                                  False),
    "write_weighted_edgelist": (nx.write_weighted_edgelist, "g.txt", "edgelist", True),
    "write_adjlist": (nx.write_adjlist, "g.adjlist", "adjlist", False),
    "write_multiline_adjlist": (nx.write_multiline_adjlist, "g.adjlist", "multiline-adjlist", True),
    "write_gexf": (nx.write_gexf, "g.gexf", "gexf", True),
    "write_graphml": (nx.write_graphml, "g.graphml", "graphml", True),
    "write_gml": (nx.write_gml, "g.gml", "gml", True),
    "write_pajek": (nx.write_pajek, "g.net", "pajek", True),
    "node_link_data": (lambda g, p: p.write_text(json.dumps(nx.node_link_data(g))), "g.json", "node-link",
                       True),
}


@pytest.mark.parametrize("writer", NETWORKX_WRITERS)
@pytest.mark.parametrize("make", [karate, lesmis], ids=["karate", "lesmis"])
def test_networkx_writers_are_read_to_the_graph_they_wrote(tmp_path, writer, make):
    write, name, fmt, weighted = NETWORKX_WRITERS[writer]
    g = make()
    path = tmp_path / name
    write(g, path)
    graph = read_graph_file(path.rename(tmp_path / "no-suffix-hint"))  # content decides, not the name
    assert_same(graph, g, weighted)
    assert graph.read.format == fmt and graph.read.detected


@pytest.mark.parametrize("fmt", ["gexf", "graphml", "gml", "node-link"])
def test_node_attributes_become_labels(tmp_path, fmt):
    g = karate()
    writers = {"gexf": nx.write_gexf, "graphml": nx.write_graphml, "gml": nx.write_gml,
               "node-link": lambda g, p: p.write_text(json.dumps(nx.node_link_data(g)))}
    graph = parse_edge_list(written(tmp_path, "k", lambda p: writers[fmt](g, p)), "k")
    assert label_attributes(graph) == ["club"] and graph.read.labels_from == "'club'"
    clubs = {str(n): d["club"] for n, d in g.nodes(data=True)}
    assert [graph.labels.classes[c] for c in graph.labels.codes] == [clubs[name] for name in graph.names]


def test_a_directed_gexf_stays_directed(tmp_path):
    g = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    graph = parse_edge_list(written(tmp_path, "d.gexf", lambda p: nx.write_gexf(g, p)), "d.gexf")
    assert graph.directed and graph.num_edges == 3 and graph.read.directed_why == "the file declares it"


def frame(g: nx.Graph) -> pd.DataFrame:
    return nx.to_pandas_edgelist(g)  # columns source, target, weight


@pytest.mark.parametrize("index", [True, False])
def test_pandas_to_csv_with_and_without_its_index(tmp_path, index):
    g = karate()
    graph = read_graph_file(written(tmp_path, "k.csv", lambda p: frame(g).to_csv(p, index=index)) and
                            tmp_path / "k.csv")
    assert_same(graph, g)  # with the index: 34 nodes and 78 edges, not 78 nodes and 77 edges
    assert (graph.read.source, graph.read.target, graph.read.weight) == ("'source'", "'target'", "'weight'")
    assert graph.read.index_column == ("" if index else None)


def test_numbered_names_are_ends_only_in_a_narrow_header():
    """V1, V2 (R's names for a headerless table's columns) are the ends while the header numbers fewer
    than five columns; n1 … n6 above (a header numbering its columns) is refused, naming the flags."""
    three = parse_edge_list(b'"V1","V2","V3"\n"a","b",1.5\n"b","c",2\n', "r.csv")
    assert three.read.summary().startswith("2 edges read as edge list from 'V1' → 'V2', weight from 'V3'")
    four = parse_edge_list(b'"V1","V2","V3","V4"\n"a","b",1.5,3\n"b","c",2,4\n', "r.csv")
    assert "from 'V1' → 'V2', unweighted; ignored 'V3', 'V4'" in four.read.summary()
    named = parse_edge_list(b"source,target,n1,n2,n3,n4,n5\na,b,1,2,3,4,5\n", "s.csv")
    assert "from 'source' → 'target'" in named.read.summary()


def test_columns_by_name_in_any_order(tmp_path):
    g = lesmis()
    renamed = frame(g).rename(columns={"source": "from", "target": "to"})[["weight", "to", "from"]]
    graph = read_graph_file(written(tmp_path, "w.csv", lambda p: renamed.to_csv(p, index=False)) and
                            tmp_path / "w.csv")
    assert_same(graph, g)


def test_gephi_edge_table(tmp_path):
    g = lesmis()
    table = frame(g).rename(columns={"source": "Source", "target": "Target", "weight": "Weight"})
    table.insert(2, "Type", "Undirected")
    table.insert(3, "Id", range(len(table)))
    table.insert(4, "Label", "")
    table.to_csv(tmp_path / "e.csv", index=False)
    graph = load_graph(tmp_path / "e.csv")
    assert_same(graph, g)
    assert graph.read.ignored == ("'Type'", "'Id'", "'Label'")
    assert "from 'Source' → 'Target', weight from 'Weight'; ignored 'Type', 'Id', 'Label'; undirected" in \
        graph.read.summary()


def test_a_gephi_mixed_graph_is_refused_unless_directed():
    """Gephi's edge table of a mixed graph: Directed on some rows, Undirected on others (past row 21)."""
    from tests.data.reading import read_error

    types = ["Directed"] * 30 + ["Undirected"]
    raw = "Source,Target,Type,Weight\n" + "".join(f"n{k},n{k + 1},{t},1.0\n" for k, t in enumerate(types))
    assert "Directed and Undirected" in read_error(raw.encode(), "mixed.csv") and "--directed" in \
        read_error(raw.encode(), "mixed.csv")
    assert parse_edge_list(raw.encode(), "mixed.csv", directed=True).num_edges == 31


def test_quoted_names_hold_the_separator(tmp_path):
    g = nx.Graph()
    g.add_weighted_edges_from([("Smith, John", "Doe, Jane", 2.0), ("Doe, Jane", 'Roe "R"', 1.5),
                               ('Roe "R"', "Smith, John", 1.0)])
    graph = parse_edge_list(frame(g).to_csv(index=False).encode(), "q.csv")
    assert_same(graph, g)


def test_tsv_with_a_timestamp_column():
    g = lesmis()
    table = frame(g).assign(timestamp=range(1_600_000_000, 1_600_000_000 + g.number_of_edges()))
    graph = parse_edge_list(table.to_csv(sep="\t", index=False).encode(), "t.tsv")
    assert_same(graph, g)
    assert graph.read.separator == "tab" and graph.read.ignored == ("'timestamp'",)


def test_konect_file_with_weights_and_timestamps():
    g = nx.DiGraph()
    g.add_weighted_edges_from([(1, 2, 3.0), (2, 3, 1.0), (3, 1, 2.0), (3, 4, 5.0)])
    rows = "".join(f"{u} {v} {d['weight']:g} {1000 + k}\n" for k, (u, v, d) in enumerate(g.edges(data=True)))
    graph = parse_edge_list(f"% asym posweighted\n% 4 4 4\n{rows}".encode(), "out.konect")
    assert graph.directed and graph.read.directed_why == "the KONECT header says asym"
    assert {(graph.names[s], graph.names[t]): w for s, t, w in zip(graph.src, graph.dst, graph.weight)} == \
        {(str(u), str(v)): d["weight"] for u, v, d in g.edges(data=True)}
    assert graph.read.ignored == ("column 3",)


def test_a_konect_signed_file_says_how_to_read_it_unweighted():
    """KONECT's `% sym signed` (slashdot-zoo, epinions) holds -1/+1 ties: not weights GOAT can train on."""
    from goat_core.data.formats import ReadOptions
    from tests.data.reading import read_error

    raw = b"% asym signed\n1 2 -1\n2 3 1\n"
    assert read_error(raw, "out.signed").startswith("out.signed:2: weight -1 is not positive")
    assert "--weight none" in read_error(raw, "out.signed")
    assert read_graph_bytes(raw, "out.signed", ReadOptions(weight="none")).num_edges == 2


def test_a_konect_bipartite_file_is_refused_not_merged():
    """KONECT's `% bip` numbers each side from 1: left node 1 is not right node 1 (`1 1` is no self-loop)."""
    from tests.data.reading import read_error

    message = read_error(b"% bip unweighted\n% 3 2 2\n1 1\n1 2\n2 1\n", "out.github")
    assert message.startswith("out.github:1: a KONECT bipartite file")


@pytest.mark.parametrize("raw", [b"% sym unweighted\nsrc;dst;ts\n1;6\n2;3\n",  # ; separates no KONECT field
                                 b"% asym posweighted\nn8\nn3 n8\nn4 n5\n"])  # a first row of one field
def test_a_konect_file_of_one_field_rows_is_refused_in_one_line(raw):
    """KONECT separates fields by blanks; a row of one field names its line, not an IndexError."""
    message = read_error(raw, "out.x")
    assert message.startswith("out.x:2: only 1 column; expected 'source target [weight]'"), message
    assert "a KONECT file" in message and "blanks separate its fields" in message


def test_text_in_another_encoding_says_to_save_it_as_utf8():
    from tests.data.reading import read_error

    message = read_error("source,target\nMüller,Zoë\n".encode("cp1252"), "w.csv")
    assert message.startswith("w.csv:2: not UTF-8 text") and "save it as UTF-8" in message


# Excel's "CSV (Comma delimited)" on Windows is written in the ANSI code page (cp1252 in Western
# Europe): refused naming --encoding, read with it; pandas writes these files with encoding=
NAMES = {"cp1252": ["Müller", "Zoë", "François"], "gbk": ["张伟", "王芳", "李娜"],
         "shift_jis": ["佐藤", "鈴木", "高橋"]}


@pytest.mark.parametrize("encoding", sorted(NAMES))
def test_text_in_another_encoding_is_read_when_named(tmp_path, encoding):
    names = NAMES[encoding]
    table = pd.DataFrame({"source": names, "target": names[1:] + names[:1], "weight": [1.5, 2, 3]})
    table.to_csv(tmp_path / "w.csv", index=False, encoding=encoding)
    raw = (tmp_path / "w.csv").read_bytes()
    assert "--encoding cp1252" in read_error(raw, "w.csv")
    graph = parse_edge_list(raw, "w.csv", encoding=encoding)
    assert set(graph.names) == set(names) and sorted(graph.weight) == [1.5, 2, 3]
    assert f"{encoding} text" in graph.read.notes
    assert read_graph_file(tmp_path / "w.csv", encoding=encoding).names == graph.names
    labels = parse_labels("\n".join(f"{n} {k % 2}" for k, n in enumerate(names)).encode(encoding),
                                    graph, encoding=encoding)
    assert labels.classes == ("0", "1")


def test_a_wrong_encoding_names_the_byte_and_line_and_binary_formats_ignore_it():
    raw = "a,b\nb,张伟\n".encode("gbk")
    assert read_error(raw, "w.csv", ReadOptions(encoding="utf-8")).startswith("w.csv:2: not UTF-8 text")
    assert read_error(raw, "w.csv", ReadOptions(encoding="ascii")).startswith(
        "w.csv:2: not ascii text (--encoding): byte 0xd5 is no character in it")
    assert "not undefined text (--encoding): decoding with 'undefined' codec failed" in read_error(
        raw, "w.csv", ReadOptions(encoding="undefined"))  # a codec that decodes nothing, a UnicodeError
    table = pd.DataFrame({"source": ["Zoë", "a"], "target": ["a", "b"]})
    assert set(parse_edge_list(table.to_parquet(), "t.parquet", encoding="cp1252").names) == {"Zoë", "a", "b"}
    gexf = io.BytesIO()
    nx.write_gexf(nx.Graph([("Zoë", "a")]), gexf, encoding="ISO-8859-1")  # the XML declaration says it
    for told in (None, "latin-1"):
        assert set(parse_edge_list(gexf.getvalue(), "g.gexf", encoding=told).names) == {"Zoë", "a"}
    with pytest.raises(ParameterError, match="encoding must be a text encoding"):
        ReadOptions(encoding="base64")


@pytest.mark.parametrize("pack", ["gzip", "bz2", "zip", "xz"])
def test_compressed_edge_lists_by_their_bytes(tmp_path, pack):
    import lzma

    g = karate()
    raw = written(tmp_path, "k.txt", lambda p: nx.write_weighted_edgelist(g, p))
    if pack == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("karate.txt", raw)
        packed = buffer.getvalue()
    else:
        packed = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[pack](raw)
    graph = parse_edge_list(packed, "k.bin")
    assert_same(graph, g)
    assert graph.read.compression == pack and graph.read.member == ("karate.txt" if pack == "zip" else None)


# --------------------------------------------------------------------------- told, not guessed


@pytest.mark.parametrize("raw, words", [
    (b"0,5,7\n1,5,9\n2,7,9\n3,1,2\n", "column 0 counts the rows"),  # to_csv(header=False) with its index
    (b"1 4 6\n4 6 1\n6 1 4\n", "an adjacency list"),  # two neighbors per node, or weights?
    (b"p,q,r,s\n1,2,3,4\n2,3,4,5\n", "cannot tell which columns are source and target"),
    (b"n1,n2,n3,n4,n5,n6\n1,2,3,4,5,6\n2,3,4,5,6,1\n", "cannot tell which columns are source and target"),
    (b"a b x y\nb c x y\n", "--source COL --target COL"),
    (b"source,src,target\na,a,b\n", "2 source columns"),
    (b"a b c\nb c\nc\n", "--format adjlist"),  # an adjacency list without networkx's header
    (b"A;B;C\nB;A;C\nC;A;B\n", "--format adjlist"),  # Gephi's CSV adjacency list, rows of one width
])
def test_ambiguous_tables_are_one_line_errors_saying_how_to_choose(raw, words):
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "amb.txt")
    assert words in str(info.value) and "\n" not in str(info.value)
    assert str(info.value).startswith("amb.txt")


def test_numbers_under_an_unknown_name_are_read_as_the_weight_and_the_account_says_so():
    graph = parse_edge_list(b"name1,name2,score\na,b,3\nb,c,4\n", "n.csv")
    assert edges_of(graph) == {frozenset("ab"): 3.0, frozenset("bc"): 4.0}
    assert graph.read.weight == "'score'" and "'score' read as the weight" in " ".join(graph.read.notes)


def test_the_options_decide_what_detection_would_not():
    index = parse_edge_list(b"0,5,7\n1,5,9\n2,7,9\n3,1,2\n", "i.csv", source=1, target=2)
    assert set(edges_of(index)) == {frozenset(p) for p in [("5", "7"), ("5", "9"), ("7", "9"), ("1", "2")]}
    weighted = parse_edge_list(b"1 4 6\n4 6 1\n6 1 4\n", "w.txt", weight=2)
    assert edges_of(weighted) == {frozenset(("1", "4")): 6.0, frozenset(("4", "6")): 1.0,
                                  frozenset(("6", "1")): 4.0}
    assert edges_of(parse_edge_list(b"A;B;C\nB;A;C\nC;A;B\n", "g.csv", format="adjlist")) == dict.fromkeys(
        map(frozenset, ["AB", "AC", "BC"]), 1.0)
    adjacency = parse_edge_list(b"1 4 6\n4 6 1\n6 1 4\n", "a.txt", format="adjlist")
    assert set(edges_of(adjacency)) == {frozenset(p) for p in [("1", "4"), ("1", "6"), ("4", "6")]}
    by_name = parse_edge_list(b"name1,name2,score\na,b,3\nb,c,4\n", "n.csv", weight="score")
    assert edges_of(by_name) == {frozenset("ab"): 3.0, frozenset("bc"): 4.0}
    unweighted = parse_edge_list(b"name1,name2,score\na,b,3\nb,c,4\n", "n.csv", weight="none")
    assert not unweighted.weighted and unweighted.read.ignored == ("'score'",)
    wide = parse_edge_list(b"p,q,r,s\n1,2,3,4\n2,3,4,5\n", "p.csv", source="r", target="P")  # any case
    assert set(edges_of(wide)) == {frozenset("31"), frozenset("42")} and wide.read.ignored == ("'q'", "'s'")


@pytest.mark.parametrize("keywords, words", [
    ({"source": "nope", "target": "b"}, "no source column 'nope'"),
    ({"source": 7, "target": 1}, "no source column 7"),
    ({"source": 0, "target": 0}, "the same column"),
])
def test_bad_column_choices_name_the_columns(keywords, words):
    with pytest.raises(GraphFormatError, match=words):
        parse_edge_list(b"a,b\nx,y\n", "c.csv", **keywords)


def test_bad_options_are_parameter_errors():
    with pytest.raises(ParameterError, match="format must be one of"):
        parse_edge_list(b"a b\n", "f.txt", format="sqlite")
    with pytest.raises(ParameterError, match="give both"):
        parse_edge_list(b"a b\n", "f.txt", source=0)


# --------------------------------------------------------------------------- hostile files

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">
<node id="&lol3;"/><node id="b"/><edge source="b" target="&lol3;"/></graph></graphml>"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE gexf [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>
<gexf xmlns="http://www.gexf.net/1.2draft" version="1.2"><graph defaultedgetype="undirected"><nodes>
<node id="a" label="&xxe;"/><node id="b" label="b"/></nodes><edges><edge id="0" source="a" target="b"/>
</edges></graph></gexf>"""


@pytest.mark.parametrize("raw", [BOMB, XXE], ids=["xml-bomb", "xxe"])
def test_xml_entities_are_refused_in_one_line(raw):
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "evil.xml")
    assert "DTD or entities" in str(info.value) and "\n" not in str(info.value)


def test_the_xml_refusal_is_defusedxml_s_own(monkeypatch):
    """Without the hardened parse, networkx's own reader would expand the entities: the check
    is what refuses them (this fails if it is skipped)."""
    from goat_core.data import nxformats

    monkeypatch.setattr(nxformats, "safe_xml_root", lambda raw, file, what: __import__(
        "xml.etree.ElementTree", fromlist=["fromstring"]).fromstring(raw))
    graph = parse_edge_list(BOMB, "evil.xml")
    assert max(len(n) for n in graph.names) == 300  # "lol" x 100: expanded


@pytest.mark.parametrize("raw, words", [
    (b"", "the file is empty"),
    (b"\x00\x01\x02\x03binary", "binary"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    (b"<?xml version='1.0'?><graphml><graph><node id='a'/>", "malformed XML"),
    (b"<?xml version='1.0'?><svg></svg>", "root is <svg>"),
    (b'{"nodes": [{"id": 1}], "links": [{"source": 1}', "not valid JSON"),
    (b'{"a": 1}', "JSON without \"nodes\""),
    (b"graph [ node [ id 0 ", "cannot parse GML"),
    (gzip.compress(b"0 1\n", mtime=0)[:-6], "not a readable gzip file"),  # mtime=0: one id per worker
    (b"PK\x03\x04garbage", "not a readable zip file"),
    (functools.reduce(lambda raw, _: gzip.compress(raw, mtime=0), range(3), b"0 1\n"),
     "h.bin: compressed three times (gzip + gzip +"),
    (b"a,b\n" * 5000 + b"c\x00d,e\n", "h.bin:5001: binary content"),  # a NUL past the first 8 kB
    (b"a," * 100_000, "h.bin:1: 100000 columns"),  # no line end; the last "," trimmed
])
def test_hostile_and_broken_files_are_one_line_errors(raw, words):
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "h.bin")
    assert words in str(info.value) and "\n" not in str(info.value)


def test_decompression_is_capped():
    packed = gzip.compress(b"1 2\n" * 300_000)  # 1.2 MB of text in a few kB
    with pytest.raises(GraphFormatError, match="over 1 MB once decompressed"):
        read_graph_bytes(packed, "bomb.gz", max_bytes=2**20)
    assert read_graph_bytes(packed, "ok.gz", max_bytes=2**21).num_edges == 1


def test_a_zip_holds_exactly_one_graph_file():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "1 2\n")
        archive.writestr("b.txt", "2 3\n")
    with pytest.raises(GraphFormatError, match=r"a zip archive of 2 files \(a.txt, b.txt\)"):
        parse_edge_list(buffer.getvalue(), "two.zip")


def test_errors_inside_an_archive_name_the_member_and_line():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("edges.txt", "a b\nb c\nc\n")
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(buffer.getvalue(), "g.zip")
    assert str(info.value).startswith("g.zip/edges.txt:3: only 1 column")


def test_utf16_text_from_a_spreadsheet():
    graph = parse_edge_list("Source\tTarget\nZoë\tBjörn\nBjörn\tÅsa\n".encode("utf-16"), "u.txt")
    assert set(graph.names) == {"Zoë", "Björn", "Åsa"} and "UTF-16 text" in graph.read.notes


def test_attribute_dicts_are_read_as_literals_never_run():
    raw = b"a b {'weight': 2, 'color': 'red'}\nb c {'weight': __import__('os').getpid()}\n"
    with pytest.raises(GraphFormatError, match=r"g.txt:2: edge attributes .* not a Python dict literal"):
        parse_edge_list(raw, "g.txt")


def test_networkx_names_holding_the_delimiter_are_named_as_the_problem(tmp_path):
    """write_edgelist writes "São Paulo" as it is: three fields before the dict, not a bad dict."""
    nx.write_edgelist(nx.Graph([("Zürich", "São Paulo", {"weight": 0.5})]), tmp_path / "g.txt")
    message = read_error((tmp_path / "g.txt").read_bytes(), "g.txt")
    assert message.startswith("g.txt:1: 3 fields before the edge's attributes, not 'source target'")


@pytest.mark.parametrize(("writer", "said"), [
    ("GraphToolBinary", "a graph-tool binary (.gt): save it as GraphML"),
    ("NetworkitBinary", "a NetworKit binary graph: write it as GraphML")])
def test_binary_graphs_other_tools_write_are_refused_saying_how_to_export_them(tmp_path, writer, said):
    nk = pytest.importorskip("networkit")  # in requirements-dev.txt: never skipped where the tests run
    path = tmp_path / "g.bin"
    nk.graphio.writeGraph(nk.generators.ErdosRenyiGenerator(20, 0.2).generate(), str(path),
                          getattr(nk.graphio.Format, writer))
    assert f"binary content ({said}" in read_error(path.read_bytes(), "g.bin")


@pytest.mark.parametrize("save", [
    lambda g, path: path.write_bytes(pickle.dumps(g)),  # networkx 2's write_gpickle was this
    lambda g, path: path.write_bytes(gzip.compress(pickle.dumps(g, protocol=2))),
    lambda g, path: torch.save({"edge_index": torch.tensor(list(g.edges())).T}, path),  # PyG's .pt
    lambda g, path: torch.save(torch.tensor(list(g.edges())), path, _use_new_zipfile_serialization=False)],
    ids=["pickle", "pickle-2-gzip", "torch-save", "torch-save-legacy"])
def test_pickles_are_refused_unopened_saying_how_to_export_them(tmp_path, monkeypatch, save):
    path = tmp_path / "g.pkl"
    save(nx.karate_club_graph(), path)
    for module, name in ((pickle, "load"), (pickle, "loads"), (torch, "load")):  # never called to read
        monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("unpickled"))
    message = read_error(path.read_bytes(), "g.pkl")
    assert message.startswith("g.pkl: binary content (a Python pickle") and "np.savez" in message


def test_an_sqlite_database_is_refused_saying_how_to_export_its_table(tmp_path):
    with sqlite3.connect(tmp_path / "g.db") as db:
        db.execute("CREATE TABLE edges (source TEXT, target TEXT, weight REAL)")
        db.executemany("INSERT INTO edges VALUES (?, ?, ?)", [("a", "b", 1.0), ("b", "c", 2.5)])
    message = read_error((tmp_path / "g.db").read_bytes(), "g.db")
    assert message.startswith("g.db: binary content (an SQLite database: export its edge table as CSV")


def test_an_edge_table_of_over_10000_columns_is_refused_before_pandas_reads_them():
    """200,000 named columns took pandas 20 s to read for the two it used (a million, minutes)."""
    wide = "\t".join(f"c{i}" for i in range(20_000))
    raw = f"source\ttarget\t{wide}\n".encode() + b"a\tb\t" + b"\t".join([b"1"] * 20_000) + b"\n"
    assert read_error(raw, "wide.tsv") == (
        "wide.tsv:1: 20,002 columns: an edge table holds a source, a target and a few more (over 10,000 are "
        "not read); or an adjacency matrix: --format matrix (library: format='matrix')")


def test_a_large_integer_list_is_the_graph_it_came_from():
    """10k nodes of integer ids, read in chunks: the graph networkx wrote, nodes in numeric order."""
    g = nx.barabasi_albert_graph(10_000, 2, seed=1)
    raw = "".join(f"{u} {v}\n" for u, v in g.edges()).encode()
    graph = parse_edge_list(raw, "ba.txt")
    assert graph.names == tuple(map(str, range(10_000)))
    read = {frozenset((int(s), int(t))) for s, t in zip(graph.src, graph.dst)}
    assert read == set(map(frozenset, g.edges()))


def test_gml_without_labels_and_with_a_repeated_edge():
    """Newman's GML files: nodes with only an id, an edge listed twice (networkx alone refuses it)."""
    raw = b"graph [\n node [ id 1 ]\n node [ id 2 ]\n node [ id 3 ]\n edge [ source 1 target 2 ]\n" \
          b" edge [ source 2 target 3 ]\n edge [ source 1 target 2 ]\n]\n"
    graph = parse_edge_list(raw, "newman.gml")
    assert graph.names == ("1", "2", "3") and graph.num_edges == 2 and graph.report.duplicates_merged == 1


# --------------------------------------------------------------------------- as other writers shape them


@pytest.mark.parametrize("namespace", [
    "http://gexf.net/1.2",  # GEXF 1.2 final (Gephi 0.10, graphology)
    "http://www.gexf.net/1.3",  # R's rgexf
    "https://gexf.net/1.3",
    None,  # no namespace at all
])
def test_gexf_under_any_spelling_of_its_namespace(namespace):
    g = karate()
    buf = io.BytesIO()
    nx.write_gexf(g, buf, version="1.2draft")
    own = 'xmlns="http://www.gexf.net/1.2draft"'
    raw = buf.getvalue().decode().replace(own, f'xmlns="{namespace}"' if namespace else "", 1)
    graph = parse_edge_list(raw.encode(), "k.gexf")
    assert_same(graph, g)
    assert graph.read.labels_from == "'club'"


def test_a_gexf_of_an_unknown_namespace_says_which_are_read():
    buf = io.BytesIO()
    nx.write_gexf(karate(), buf)
    raw = buf.getvalue().replace(b'xmlns="http://www.gexf.net/1.2draft"', b'xmlns="http://example.org/g"', 1)
    with pytest.raises(GraphFormatError, match=r"k.gexf: GEXF namespace 'http://example.org/g' is not one "
                                               r"networkx reads \(GEXF 1.1, 1.2, 1.3"):
        parse_edge_list(raw, "k.gexf")


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("writer", ["write_edgelist", "write_adjlist", "write_multiline_adjlist"])
def test_networkx_writers_with_a_delimiter(writer, delimiter):
    g = lesmis()
    buf = io.BytesIO()
    getattr(nx, writer)(g, buf, delimiter=delimiter)
    graph = parse_edge_list(buf.getvalue(), "g.txt")
    assert_same(graph, g, weighted=writer != "write_adjlist")


@pytest.mark.parametrize("says, directed", [("Directed", True), ("Undirected", False)])
def test_a_snap_header_says_whether_the_graph_is_directed(says, directed):
    g = nx.gnp_random_graph(60, 0.08, seed=3, directed=True)
    buf = io.BytesIO()
    nx.write_edgelist(g, buf, delimiter="\t", data=False)
    header = (f"# {says} graph (each unordered pair of nodes is saved once): Wiki-Vote.txt\n"
              f"# Nodes: {g.number_of_nodes()} Edges: {g.number_of_edges()}\n# FromNodeId\tToNodeId\n")
    graph = read_graph_bytes(gzip.compress(header.encode() + buf.getvalue()), "Wiki-Vote.txt.gz")
    assert graph.directed is directed
    if directed:
        assert {(graph.names[s], graph.names[t]) for s, t in zip(graph.src, graph.dst)} == \
            {(str(u), str(v)) for u, v in g.edges}
        assert graph.read.directed_why == "the header comment says Directed graph"
    assert parse_edge_list(header.encode() + buf.getvalue(), "w.txt", directed=True).directed


@pytest.mark.parametrize("ids", ["integers", "names"])
def test_unix_times_in_a_headerless_third_column_are_not_weights(ids):
    g = nx.gnp_random_graph(50, 0.1, seed=4)
    g.remove_nodes_from(list(nx.isolates(g)))  # an edge list has no isolated nodes
    if ids == "names":
        g = nx.relabel_nodes(g, {n: f"user{n}" for n in g})
    table = pd.DataFrame(list(g.edges), columns=["src", "dst"]).assign(
        ts=range(1_082_040_961, 1_082_040_961 + g.number_of_edges()))  # SNAP's CollegeMsg: SRC DST UNIXTS
    raw = table.to_csv(sep=" ", header=False, index=False).encode()
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "CollegeMsg.txt")
    assert str(info.value).startswith("CollegeMsg.txt: column 2 holds integers from 1082040961")
    assert "--weight none" in str(info.value) and "\n" not in str(info.value)
    assert_same(parse_edge_list(raw, "CollegeMsg.txt", weight="none"), g, weighted=False)
    assert parse_edge_list(raw, "CollegeMsg.txt", weight=2).weighted


@pytest.mark.parametrize("separator", [",", "\t", ";"])
def test_a_header_of_unknown_names_over_names_is_not_read_as_an_edge(separator):
    g = lesmis()
    table = pd.DataFrame(list(g.edges), columns=["person", "friend"])
    raw = table.to_csv(sep=separator, index=False).encode()
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(raw, "people.csv")
    message = str(info.value)
    assert message.startswith("people.csv:1: the first line") and "\n" not in message
    assert "--source person --target friend" in message
    assert_same(parse_edge_list(raw, "people.csv", source="person", target="friend"), g, weighted=False)
    as_edge = parse_edge_list(raw, "people.csv", source=0, target=1)
    assert {"person", "friend"} <= set(as_edge.names)  # told so: the first line is an edge


def test_usual_spellings_of_source_and_target_make_a_header():
    g = lesmis()
    table = nx.to_pandas_edgelist(g, source="source_node", target="destination_node")
    assert_same(parse_edge_list(table.to_csv(index=False).encode(), "e.csv"), g)


def test_a_spreadsheet_csv_with_decimal_commas():
    import csv

    g = nx.Graph()
    g.add_weighted_edges_from([("Müller, A.", "Öz", 2.5), ("Öz", "Li", 1.0), ("Li", "Müller, A.", 0.25)])
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")  # a comma-decimal locale's "CSV"
    writer.writerow(["Source", "Target", "Weight"])
    writer.writerows([u, v, f"{d['weight']:g}".replace(".", ",")] for u, v, d in g.edges(data=True))
    graph = parse_edge_list(out.getvalue().encode("utf-8-sig"), "excel.csv")
    assert_same(graph, g)
    assert "weights with a decimal comma (2,5) read as 2.5" in graph.read.notes


def test_a_text_third_column_without_a_header_says_how_to_choose():
    table = pd.DataFrame([("a", "b"), ("b", "c"), ("c", "d")])
    with pytest.raises(GraphFormatError) as info:
        parse_edge_list(table.to_csv(header=False).encode(), "i.csv")  # its index, then the two names
    assert str(info.value).startswith("i.csv:1: weight 'b' is not a number; or say which columns")
    assert "--source COL --target COL" in str(info.value)


def test_named_classes_come_before_a_tool_s_numbered_clustering(tmp_path):
    karate_club = karate()
    g = nx.Graph()
    for k, members in enumerate(nx.community.greedy_modularity_communities(karate_club)):
        for node in members:  # Gephi's column first, as its export lists it
            g.add_node(node, modularity_class=k, club=karate_club.nodes[node]["club"])
    g.add_edges_from(karate_club.edges(data=True))
    graph = parse_edge_list(written(tmp_path, "k.gexf", lambda p: nx.write_gexf(g, p)), "k.gexf")
    assert label_attributes(graph) == ["club", "modularity_class"]
    assert graph.labels.classes == ("Mr. Hi", "Officer") or graph.labels.classes == ("Officer", "Mr. Hi")


BIG = b"9" * 5000  # past Python's 4,300-digit limit on int("…"), which raises ValueError


@pytest.mark.parametrize("raw, fmt", [
    (b"1 2\n2 " + BIG + b"\n", None),  # an edge list's id
    (BIG + b" 1\n2\n1\n", "metis"), (b"2 " + BIG + b"\n2\n1\n", None),  # a METIS header's n, m
    (b"p 3 1 u u 0\n0 " + BIG + b"\n", None), (b"p " + BIG + b" 1 u u 0\n0 1\n", None),  # Georgia Tech SNAP
    (b"p edge " + BIG + b" 1\ne 1 2\n", None), (b"dl n=3\nformat=edgelist1\ndata:\n1 " + BIG + b"\n", None),
    (b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 " + BIG + b"\n", None)])
def test_a_number_of_5000_digits_is_a_one_line_error_not_a_traceback(raw, fmt):
    with pytest.raises(GraphFormatError, match="digits|a METIS header") as err:
        read_graph_bytes(raw, "big.txt", ReadOptions(format=fmt))
    assert str(err.value).startswith("big.txt") and "\n" not in str(err.value)


def test_a_file_declaring_more_nodes_than_memory_holds_is_a_one_line_error():
    """Pajek's '*Vertices 2000000000' (igraph's reader reserved them all) and a Georgia Tech SNAP 'p'
    line of 99,999,999 nodes (a MemoryError under a 4 GB cap) are refused before anything is built."""
    import subprocess
    import sys

    code = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))\n"
            "from goat_core.data.readers import read_graph_bytes\n"
            "for raw in (b'*Vertices 2000000000\\n*Edges\\n1 2\\n', b'p 99999999 1 u u 0\\n0 1\\n'):\n"
            "    try:\n"
            "        read_graph_bytes(raw, 'huge.net')\n"
            "    except Exception as err:\n"
            "        print(type(err).__name__, err)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    pajek, snap = done.stdout.splitlines()
    assert pajek.startswith("GraphFormatError huge.net:1: ") and "2,000,000,000 nodes" in pajek
    assert snap.startswith("GraphFormatError huge.net:1: ") and "99,999,999 nodes" in snap


def test_memory_running_out_while_reading_is_a_one_line_error(monkeypatch):
    """What no declared count foresees (a large file's content) and memory cannot hold: one line."""
    from goat_core.data import readers

    def exhausted(raw, file, options):
        raise MemoryError

    monkeypatch.setitem(readers.READERS, "dimacs", exhausted)
    message = read_error(b"p edge 3 1\ne 1 2\n", "big.col")
    assert message.startswith("big.col") and "memory" in message


@pytest.mark.parametrize("raw, fmt", [
    (b"*Vertices 3000000\n*Edges\n1 2\n", "pajek"),  # igraph then networkx: 35 s for these 30 bytes
    (b"p edge 5000000 1\ne 1 2\n", "dimacs"),
    (b"p 5000000 1 u u 0\n0 1\n", "dimacs"),  # Georgia Tech SNAP
    (b"%%MatrixMarket matrix coordinate pattern general\n5000000 5000000 1\n1 2\n", "matrix-market"),
    (b"dl n=5000000 format=edgelist1\ndata:\n1 2\n", "dl"),
])
def test_a_tiny_file_declaring_millions_of_nodes_is_refused_before_naming_them(raw, fmt):
    """A node declared without a line of its own still costs a name (and igraph's Pajek reader a Python
    step): a few bytes declaring millions is refused at once, naming the line and the count."""
    message = read_error(raw, "bomb")
    assert "5,000,000" in message or "3,000,000" in message
    assert read_graph_bytes(raw.replace(b"5000000", b"50").replace(b"3000000", b"30"), "small").num_nodes > 2


# Hostile bytes a fuzzer found ending in a traceback (or a message of two lines): each is one line now.
HOSTILE = [
    (b"dl n=\xc2\xb2\ndata:\n", None),  # a superscript 2: isdigit() says yes, int() says no
    (b"dl n=1 format=edgelist1\ndata:\n\xc2\xb2 1\n", None),
    (b"%%MatrixMarket matrix array real general\n1 \xe2\x91\xa0\n", None),  # a circled 1
    (b"%%MatrixMarket matrix coordinate real symmetric\n3 3 \xc2\xb2\n", None),
    (b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 \xc2\xb2\n", None),
    (b"\xef\xbb\xbf", "matrix-market"),  # a BOM and nothing else
    (b'""\xe2\x80\xa81', "matrix"),  # U+2028, a line separator to str.splitlines, inside quotes
    (b'<?xml version="1.0" encoding="a"?><graphml/>', None),  # an encoding Python does not know
    (b"graph{1[name]}", None),  # attribute names that are pydot's own arguments
    (b"graph{a[obj_dict=1]}", None),
    (b"graph { 0 [\n name#a comment\n ] }", None),  # a key alone before a comment (fuzzed from igraph's DOT)
    (b"graph { a -- b [weight=_1] }", None),  # float() takes 1_0 but not _1
    (b"dl n=2\ndata:\n0 _1\n1 0\n", None),
    (b"a b {'weight': '_1'}\n", None),
    (b'a,"1\na"', None),  # a quoted field across lines, quoted in the message
    (b'{"\\r":[[]]}', None),  # a JSON key holding a CR, quoted in the message
    # a table schema whose extDtype numpy parses as a comma string (SyntaxError)
    (b'{"schema":{"fields":[{"name":"a","type":"string","extDtype":","}]},"data":[{"a":"x"}]}', None),
]


@pytest.mark.parametrize("raw", [b"a b 1e-300\nb c 1e-300\n", b"s,t,w\nx,y,1e-300\nx,z,1\n",
                                 b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e-300\n"])
def test_a_weight_float32_holds_as_zero_is_refused_by_every_reader(raw):
    """Training computes in float32, where 1e-300 is 0: a graph of such weights trained to a NaN loss
    ("try a smaller learning rate"); float32's smallest subnormal is still a weight."""
    assert "has the weight 1e-300, below float32's smallest number, 1.4e-45" in read_error(raw, "w.txt")
    assert read_graph_bytes(b"a b 1.5e-45\nb c 1\n", "w.txt").weight.min() == 1.5e-45


def _zip_of_one(name: str, version_needed: int | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo(name), b"0 1\n1 2\n")
    raw = bytearray(buffer.getvalue())
    if version_needed is not None:  # the local header's and the central directory's
        raw[4] = raw[raw.find(b"PK\x01\x02") + 6] = version_needed
    return bytes(raw)


@pytest.mark.parametrize(("raw", "said"), [(_zip_of_one(""), "a zip archive of 0 files"),
                                           (_zip_of_one("g.txt", 200), "zip file version 20.0")])
def test_a_zip_member_of_no_name_or_an_unknown_version_is_one_line(raw, said):
    """Were an IndexError (ZipInfo.is_dir() of "") and a NotImplementedError (the workbook test)."""
    from goat_core.data.readers import table_columns

    assert said in read_error(raw, "g.zip")
    assert table_columns(raw, "g.zip") is None


@pytest.mark.parametrize(("raw", "fmt"), HOSTILE)
def test_hostile_bytes_end_in_one_line(raw, fmt):
    read_error(raw, "h.txt", ReadOptions(format=fmt))


@pytest.mark.parametrize("raw", [b"1 " + b"1" * 4301 + b"\n1", b"[" + b"1" * 4301 + b"]",
                                 b'{"":""}\n' + b"1" * 4301 + b"\n"])
def test_a_number_past_pythons_digit_limit_is_refused_by_the_column_picker_too(raw):
    """The reader's one line; the column picker offers nothing (it was a ValueError's traceback)."""
    from goat_core.data.readers import table_columns

    assert "digits: no node id, count or weight is that long" in read_error(raw, "h.txt")
    assert table_columns(raw, "h.txt") is None


def test_ids_written_as_whole_floats_past_int64_keep_their_digits():
    """numpy makes float64 of [1, 11111111111111111111]: its digits lost, and int("1.0") a ValueError."""
    graph = read_graph_bytes(b"1.0 11111111111111111111\n1.0 11111111111111111112\n.0 3\n", "f.txt")
    assert edges_of(graph) == {frozenset(("1", "11111111111111111111")): 1.0,
                               frozenset(("1", "11111111111111111112")): 1.0, frozenset(("0", "3")): 1.0}


def test_a_bad_row_deep_in_a_long_file_is_found_decoding_the_file_once(monkeypatch):
    """The search for a bad row asks for every row after the first chunk's; each ask decoded and split
    the whole file again (an error at row 8,000 of the Email graph took 13 s)."""
    import goat_core.data.delimited as delimited

    calls = []
    monkeypatch.setattr(delimited, "decode", lambda raw, file: calls.append(file) or raw.decode())
    rows = [f"{k} {k + 1}" for k in range(20_000)]
    rows[15_000] = "1 2 3 4"
    message = read_error("\n".join(rows).encode(), "long.txt")
    assert message.startswith("long.txt:15001: 4 columns")
    assert len(calls) <= 2


@pytest.mark.parametrize("raw, line", [
    (b'1 2\n2 3\n3 "4\n4 5\n', 3),
    (b'# c\n# d\n1 2\n\n2 3\n# e\n3 "4\n4 5\n', 7),
    (b'# x\nsource,target\na,b\n\nb,c\nc,"d\nd,e\n', 6),
    (b'a\tb\nb\tc\n#c\nc\t"d\nd\te\n', 4),
    ("\n".join(f"{k} {k + 1}" if k != 68_000 else f'{k} "{k + 1}' for k in range(70_000)).encode(), 68_001),
], ids=["plain", "comments", "header", "tsv", "past-the-first-chunk"])
def test_a_quote_no_quote_closes_names_its_line(raw, line):
    """pandas stops at EOF inside the quoted field ("starting at row N": its count, not the file's line)."""
    assert read_error(raw, "q.txt") == (f'q.txt:{line}: a quote (") opens a field and no quote closes it '
                                        "before the file ends")
