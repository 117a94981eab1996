"""XGMML files as Cytoscape 3 exports them (``cy:`` namespace, numeric SUIDs as ids, labels, ``att``
lists and ``graphics`` at every level): read to the graph they came from, names from the labels,
weights from the ``weight`` att, the categorical node att as labels; hostile and bad files are
one line naming their line."""

from __future__ import annotations

import gzip
from xml.sax.saxutils import quoteattr

import networkx as nx
import pytest

from goat_core import GraphFormatError, load_graph
from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes, sniff_format

from .reading import edges_of, read_error

NAMESPACES = ('xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xlink="http://www.w3.org/1999/xlink" '
              'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:cy="http://www.cytoscape.org" '
              'xmlns="http://www.cs.rpi.edu/XGMML"')


def att(name: str, value, kind: str = "string") -> str:
    cy = {"string": "String", "real": "Double", "integer": "Integer", "boolean": "Boolean"}[kind]
    return f'<att name={quoteattr(name)} value={quoteattr(str(value))} type="{kind}" cy:type="{cy}"/>'


def cytoscape_xgmml(g: nx.Graph, title: str = "network", labels: dict | None = None) -> bytes:
    """``g`` as Cytoscape 3.x's File → Export → Network → XGMML writes it: SUIDs as ids, the name
    as label and as ``name``/``shared name`` atts, ``selected`` booleans, an ``__Annotations``
    list, ``graphics`` with their own atts, ``cy:directed`` per edge and ``directed`` on the graph."""
    directed = "1" if g.is_directed() else "0"
    lines = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
             f'<graph id="52" label={quoteattr(title)} directed="{directed}" cy:documentVersion="3.0" '
             f"{NAMESPACES}>",
             '  <att name="networkMetadata">', "    <rdf:RDF>",
             '      <rdf:Description rdf:about="http://www.cytoscape.org/">',
             "        <dc:type>N/A</dc:type>", "        <dc:format>Cytoscape-XGMML</dc:format>",
             "      </rdf:Description>", "    </rdf:RDF>", "  </att>",
             "  " + att("shared name", title), "  " + att("name", title),
             "  " + att("selected", 1, "boolean"),
             '  <att name="__Annotations" type="list" cy:type="List" cy:elementType="String">',
             "  </att>", "  <graphics>", "    " + att("NETWORK_WIDTH", "795.0"),
             "    " + att("NETWORK_BACKGROUND_PAINT", "#FFFFFF"), "  </graphics>"]
    suid = {node: 100 + i for i, node in enumerate(g)}
    for node, data in g.nodes(data=True):
        label = (labels or {}).get(node, str(node))
        lines += [f'  <node id="{suid[node]}" label={quoteattr(label)}>',
                  "    " + att("shared name", label), "    " + att("name", label),
                  "    " + att("selected", 0, "boolean")]
        lines += ["    " + att(key, value) for key, value in data.items()]
        lines += ["    " + att("degree", g.degree(node), "integer"),
                  f'    <graphics type="ELLIPSE" h="35.0" w="35.0" x="{suid[node] * 1.5}" y="-12.5" z="0.0" '
                  'fill="#89D0F5" width="0.0" outline="#CCCCCC">',
                  "      " + att("NODE_SELECTED", "false"), "      " + att("NODE_LABEL_FONT_SIZE", "12"),
                  "    </graphics>", "  </node>"]
    for k, (u, v, data) in enumerate(g.edges(data=True)):
        name = f"{u} (interacts with) {v}"
        lines += [f'  <edge id="{1000 + k}" label={quoteattr(name)} source="{suid[u]}" target="{suid[v]}" '
                  f'cy:directed="{directed}">',
                  "    " + att("shared name", name), "    " + att("shared interaction", "interacts with"),
                  "    " + att("name", name), "    " + att("selected", 0, "boolean"),
                  "    " + att("interaction", "interacts with")]
        if "weight" in data:
            lines.append("    " + att("weight", float(data["weight"]), "real"))
        lines += ['    <graphics width="2.0" fill="#848484">', "      " + att("EDGE_TRANSPARENCY", "255"),
                  "    </graphics>", "  </edge>"]
    lines.append("</graph>")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("make", [nx.karate_club_graph, nx.les_miserables_graph])
def test_cytoscape_xgmml_reads_back_the_same_graph(make):
    g = make()
    graph = read_graph_bytes(cytoscape_xgmml(g), "g.xgmml")
    assert graph.read.format == "xgmml" and graph.read.detected
    assert not graph.directed and graph.weighted
    assert graph.names == tuple(str(n) for n in g)
    want = {frozenset((str(u), str(v))): float(d["weight"]) for u, v, d in g.edges(data=True)}
    assert edges_of(graph) == want
    assert graph.read.weight == "edge attribute 'weight'" and graph.read.names_from == "node labels"
    assert "node attribute 'selected'" in graph.read.ignored
    assert "node attribute 'name' (the label again)" in graph.read.ignored
    assert "edge attribute 'interaction'" in graph.read.ignored
    assert "name" not in graph.node_attrs and "shared name" not in graph.node_attrs
    assert graph.read.summary().startswith(f"{g.number_of_edges()} edges read as XGMML (Cytoscape), weight")


def test_karate_club_att_becomes_the_labels():
    graph = read_graph_bytes(cytoscape_xgmml(nx.karate_club_graph()), "karate.xgmml")
    assert graph.labels.classes == ("Mr. Hi", "Officer")
    assert graph.read.labels_from == "'club'"
    assert graph.read.node_attributes == ("club",)


def test_directed_graph_and_isolated_nodes():
    d = nx.gnm_random_graph(30, 90, seed=2, directed=True)
    d.add_node(30)
    for u, v in d.edges:
        d.edges[u, v]["weight"] = 1 + (u * v) % 4
    graph = read_graph_bytes(cytoscape_xgmml(d), "d.xgmml")
    assert graph.directed and graph.read.directed_why == "the file declares it"
    assert edges_of(graph) == {(str(u), str(v)): float(w) for u, v, w in d.edges(data="weight")}
    assert graph.num_nodes == 31 and graph.report.isolated_nodes == ("30",)


def test_repeated_labels_leave_the_ids_as_names():
    g = nx.path_graph(4)
    graph = read_graph_bytes(cytoscape_xgmml(g, labels={0: "x", 1: "x", 2: "y", 3: "z"}), "p.xgmml")
    assert graph.names == ("100", "101", "102", "103")
    assert graph.read.names_from == "node ids (labels missing or repeated)"
    assert not graph.weighted


def test_weight_options_and_parallel_edges():
    raw = b"""<graph xmlns="http://www.cs.rpi.edu/XGMML">
  <node id="a" label="A"/><node id="b" label="B"/><node id="c" label="C"/>
  <edge source="a" target="b"><att name="score" value="3" type="integer"/><att name="weight" value="1"/>
  </edge>
  <edge source="b" target="a"><att name="score" value="2" type="integer"/><att name="weight" value="1"/>
  </edge>
  <edge source="b" target="c" weight="5"><att name="score" value="4" type="integer"/></edge>
</graph>"""
    assert sniff_format(raw, "w.xml") == "xgmml"  # no XML declaration: the root's attributes say
    graph = read_graph_bytes(raw, "w.xml")
    assert edges_of(graph) == {frozenset("AB"): 2.0, frozenset("BC"): 5.0}  # the two a-b edges summed
    scored = read_graph_bytes(raw, "w.xml", ReadOptions(weight="score"))
    assert edges_of(scored) == {frozenset("AB"): 5.0, frozenset("BC"): 4.0}
    assert not read_graph_bytes(raw, "w.xml", ReadOptions(weight="none")).weighted
    assert read_graph_bytes(raw, "w.xml", ReadOptions(directed=True)).directed
    with pytest.raises(GraphFormatError, match="no edge attribute 'size'"):
        read_graph_bytes(raw, "w.xml", ReadOptions(weight="size"))


def test_found_by_content_under_any_name_prefix_and_inside_gzip(tmp_path):
    path = tmp_path / "karate.txt.gz"
    raw = cytoscape_xgmml(nx.karate_club_graph()).replace(b'xmlns="http', b'xmlns:x="http')
    raw = raw.replace(b"<graph ", b"<x:graph ").replace(b"</graph>", b"</x:graph>")
    raw = raw.replace(b"<node ", b"<x:node ").replace(b"</node>", b"</x:node>")
    path.write_bytes(gzip.compress(raw))
    graph = load_graph(str(path))
    assert graph.read.format == "xgmml" and (graph.num_nodes, graph.num_edges) == (34, 78)
    assert graph.read.compression == "gzip"


def test_other_xml_roots_and_tag_like_edge_lists_are_as_before():
    with pytest.raises(GraphFormatError, match=r"XML whose root is <svg>: .* and XGMML \(<graph>\)"):
        read_graph_bytes(b'<?xml version="1.0"?><svg/>', "x.xml")
    assert sniff_format(b"<graph> <b>\n<b> <c>\n", "e.txt") == "edgelist"


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<graph xmlns="http://www.cs.rpi.edu/XGMML" directed="0">
<node id="a" label="&lol3;"/><node id="b" label="b"/><edge source="a" target="b"/></graph>"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE graph [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>
<graph xmlns="http://www.cs.rpi.edu/XGMML"><node id="a" label="&xxe;"/><node id="b" label="b"/>
<edge source="a" target="b"/></graph>"""


@pytest.mark.parametrize("raw", [BOMB, XXE], ids=["xml-bomb", "xxe"])
def test_xml_entities_are_refused_in_one_line(raw):
    with pytest.raises(GraphFormatError) as info:
        read_graph_bytes(raw, "evil.xgmml")
    message = str(info.value)
    assert message.startswith("evil.xgmml: XGMML with a DTD or entities") and "\n" not in message


HEAD = b'<?xml version="1.0"?>\n<graph xmlns="http://www.cs.rpi.edu/XGMML" directed="0">\n'
NODES = b'<node id="a" label="A"/>\n<node id="b" label="B"/>\n'


@pytest.mark.parametrize("raw, line, words", [
    (HEAD + NODES + b'<edge source="a" target="z"/>\n</graph>', 5, "edge target 'z' is the id of no <node>"),
    (HEAD + NODES + b'<edge target="b"/>\n</graph>', 5, "an <edge> without a source"),
    (HEAD + NODES + b'<node label="C"/>\n</graph>', 5, "a <node> without an id"),
    (HEAD + NODES + b'<node id="a"/>\n</graph>', 5, "node id 'a' used twice"),
    (HEAD + NODES + b'<edge source="a" target="b">\n<att name="weight" value="heavy" type="real"/>\n</edge>'
     b"\n</graph>", 6, "weight 'heavy' is not a number"),
    (HEAD + NODES + b'<edge source="a" target="b">\n<att name="weight" value="-1" type="real"/>\n</edge>'
     b"\n</graph>", 6, "weight -1 is not positive"),
    (HEAD + NODES + b'<node id="c">\n<att value="x"/>\n</node>\n</graph>', 6, "an <att> without a name"),
    (HEAD.replace(b'"0"', b'"maybe"') + NODES + b'<edge source="a" target="b"/></graph>', 2,
     "<graph directed='maybe'>: expected 1 or 0"),
    (HEAD + NODES + b'<edge source="a" target="b">\n</graph>', 6, "malformed XML: mismatched tag"),
])
def test_bad_files_are_one_line_naming_file_and_line(raw, line, words):
    message = read_error(raw, "bad.xgmml")
    assert message.startswith(f"bad.xgmml:{line}:") and words in message


SESSION = (b'<?xml version="1.0"?>\n<graph id="1" label="Root" cy:documentVersion="3.0" '
           b'xmlns:cy="http://www.cytoscape.org" xmlns="http://www.cs.rpi.edu/XGMML">\n<att>\n'
           b'<graph id="2" label="Net" cy:registered="1"><node id="3"/><node id="4"/>'
           b'<edge id="5" source="3" target="4"/></graph>\n</att>\n</graph>\n')


@pytest.mark.parametrize("raw, words", [
    (HEAD + NODES + b"</graph>", "an XGMML graph without edges"),
    (HEAD + b"</graph>", "an XGMML graph without nodes"),
    (SESSION, "an XGMML file whose nodes are all inside a nested <graph> (a Cytoscape session's network "
              "file?)"),
])
def test_a_file_without_a_graph_to_read_says_so(raw, words):
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(raw, "bad.xgmml")
    assert str(err.value).startswith(f"bad.xgmml: {words}")


def test_columns_are_refused():
    with pytest.raises(GraphFormatError, match="choose columns of an edge table; a XGMML file"):
        read_graph_bytes(cytoscape_xgmml(nx.path_graph(3)), "p.xgmml", ReadOptions(source=0, target=1))
