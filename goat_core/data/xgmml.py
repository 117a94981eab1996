"""XGMML files (Cytoscape's XML export): a ``<graph>`` root, ``<node id label>`` and ``<edge source
target>`` elements with ``<att name value type>`` children. What is read is in docs/formats.md.

The bytes pass :func:`.nxformats.safe_xml_root` first (defusedxml: DTDs and entities refused),
then are walked by expat for the line of each element (no maintained Python reader reads XGMML).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import GraphFormatError
from .formats import ReadOptions, ReadReport
from .graph import Graph, first_line, parse_weight, unique_labels
from .nxformats import safe_xml_root, to_graph

TRUE, FALSE = {"1", "true", "yes"}, {"0", "false", "no", ""}
STRING_TYPES = {"string", ""}


@dataclass
class _Element:
    line: int
    xml: dict[str, str]  # its XML attributes, prefixes removed
    atts: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name -> (value, type, line)


@dataclass
class _Walk:
    directed: str = ""
    root_line: int = 1
    nodes: list[_Element] = field(default_factory=list)
    edges: list[_Element] = field(default_factory=list)
    nested_nodes: int = 0


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def _walk(raw: bytes, file: str) -> _Walk:
    """The top-level nodes and edges with their direct ``att`` children, by expat (the bytes have
    passed defusedxml already)."""
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    out = _Walk()
    stack: list[str] = []
    current: list[_Element | None] = [None]

    def start(name: str, attrs: dict[str, str]) -> None:
        tag = _local(name).lower()
        attrs = {_local(k): v for k, v in attrs.items()}
        depth = len(stack)
        stack.append(tag)
        line = parser.CurrentLineNumber
        if depth == 0:
            out.directed, out.root_line = attrs.get("directed", ""), line
        elif depth == 1 and tag in ("node", "edge"):
            element = _Element(line, attrs)
            (out.nodes if tag == "node" else out.edges).append(element)
            current[0] = element
        elif depth == 2 and tag == "att" and stack[1] in ("node", "edge") and current[0] is not None:
            name_ = attrs.get("name")
            if name_ is None:
                raise GraphFormatError(file, f"an <att> without a name in a <{stack[1]}>", line)
            if name_ not in current[0].atts:
                current[0].atts[name_] = (attrs.get("value", ""), attrs.get("type", "").lower(), line)
        elif tag == "node" and depth > 1:
            out.nested_nodes += 1

    def end(name: str) -> None:
        stack.pop()
        if len(stack) == 1:
            current[0] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(raw, True)
    except xml.parsers.expat.ExpatError as err:  # defusedxml parsed it: not expected
        raise GraphFormatError(file, f"malformed XML: {first_line(err)}", err.lineno) from None
    return out


def read_xgmml(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    import networkx as nx

    options.refuse_columns("XGMML", file)
    root = safe_xml_root(raw, file, "XGMML")
    local = str(root.tag).rsplit("}", 1)[-1].lower()
    if local != "graph":
        raise GraphFormatError(file, f"XML whose root is <{local}>, not <graph>: expected XGMML")
    walk = _walk(raw, file)
    if not walk.nodes:
        if walk.nested_nodes:
            raise GraphFormatError(file, "an XGMML file whose nodes are all inside a nested <graph> (a "
                                         "Cytoscape session's network file?): export the network as XGMML "
                                         "(File → Export → Network to File)")
        raise GraphFormatError(file, "an XGMML graph without nodes (no <node> under <graph>)")
    flag = walk.directed.strip().lower()
    if flag not in TRUE | FALSE:
        raise GraphFormatError(file, f"<graph directed={walk.directed[:20]!r}>: expected 1 or 0 (true or "
                                     "false)", walk.root_line)
    g: Any = nx.MultiDiGraph() if flag in TRUE else nx.MultiGraph()  # parallel edges: merged later
    labels: dict[str, str] = {}
    string_atts: dict[str, None] = {}
    other_atts: dict[str, None] = {}
    for node in walk.nodes:
        key = node.xml.get("id")
        if key is None or key == "":
            raise GraphFormatError(file, "a <node> without an id", node.line)
        if key in g:
            raise GraphFormatError(file, f"node id {key!r} used twice", node.line)
        data: dict[str, str] = {}
        if node.xml.get("label"):
            data["label"] = labels[key] = node.xml["label"]
        for name, (value, kind, _) in node.atts.items():
            if kind in STRING_TYPES and name.lower() not in ("label", "id"):
                data[name] = value
                string_atts[name] = None
            else:
                other_atts[name] = None
        g.add_node(key, **data)
    ignored = [f"node attribute {name!r}" for name in other_atts]
    for name in string_atts:  # Cytoscape's name and shared name: the label again
        if labels and all(data.get(name) == labels.get(key) for key, data in g.nodes(data=True)):
            for _, data in g.nodes(data=True):
                data.pop(name, None)
            ignored.append(f"node attribute {name!r} (the label again)")
    weight = options.weight_attribute
    for edge in walk.edges:
        ends = [edge.xml.get(end) for end in ("source", "target")]
        for end, key in zip(("source", "target"), ends, strict=True):
            if not key:
                raise GraphFormatError(file, f"an <edge> without a {end}", edge.line)
            if key not in g:
                raise GraphFormatError(file, f"edge {end} {key[:40]!r} is the id of no <node>", edge.line)
        values: dict[str, str | float] = {name: value for name, (value, kind, _) in edge.atts.items()
                                           if kind != "list"}
        if weight is not None:
            if weight in edge.atts:
                value, _, line = edge.atts[weight]
                values[weight] = parse_weight(value, file, line)
            elif weight == "weight" and edge.xml.get("weight"):
                values[weight] = parse_weight(edge.xml["weight"], file, edge.line)
        g.add_edge(ends[0], ends[1], **values)
    if g.number_of_edges() == 0:
        raise GraphFormatError(file, "an XGMML graph without edges (no <edge> under <graph>)")
    graph, report = to_graph(g, file, options, "xgmml", names_attribute="label")
    names = "node labels" if unique_labels(g, "label") else "node ids (labels missing or repeated)"
    notes = list(report.notes)
    if walk.nested_nodes:
        notes.append(f"{walk.nested_nodes:,} nodes of graphs nested in an <att> (groups) not read")
    return graph, replace(report, names_from=names, ignored=tuple(ignored) + report.ignored,
                          notes=tuple(notes))
