"""XGMML files (Cytoscape's XML export): a ``<graph>`` root, ``<node id label>`` and ``<edge source
target>`` elements with ``<att name value type>`` children (docs/formats.md). No maintained Python
reader reads XGMML: the tree defusedxml parses is walked here, with each element's line.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import GraphFormatError
from .formats import ReadOptions, ReadReport
from .graph import Graph, parse_weight, unique_labels
from .nxformats import safe_xml_root, to_graph

TRUE, FALSE = {"1", "true", "yes"}, {"0", "false", "no", ""}
STRING_TYPES = {"string", ""}


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _children(element: Any, tag: str) -> list[Any]:
    return [child for child in element if _local(child.tag).lower() == tag]


def _attributes(element: Any) -> dict[str, str]:
    return {_local(key): value for key, value in element.attrib.items()}


def _atts(element: Any, lines: dict[Any, int], file: str) -> dict[str, tuple[str, str, int]]:
    """An element's ``att`` children: name -> (value, type, line); the first of a name counts."""
    out: dict[str, tuple[str, str, int]] = {}
    for att in _children(element, "att"):
        xml = _attributes(att)
        if "name" not in xml:
            raise GraphFormatError(file, f"an <att> without a name in a <{_local(element.tag)}>", lines[att])
        out.setdefault(xml["name"], (xml.get("value", ""), xml.get("type", "").lower(), lines[att]))
    return out


def read_xgmml(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    import networkx as nx

    options.refuse_columns("XGMML", file)
    lines: dict[Any, int] = {}
    root = safe_xml_root(raw, file, "XGMML", lines)
    if _local(root.tag).lower() != "graph":
        raise GraphFormatError(file, f"XML whose root is <{_local(root.tag).lower()}>, not <graph>: expected "
                                     "XGMML")
    nodes, edges = _children(root, "node"), _children(root, "edge")
    nested = sum(_local(e.tag).lower() == "node" for e in root.iter()) - len(nodes)
    if not nodes:
        raise GraphFormatError(file, "an XGMML file whose nodes are all inside a nested <graph> (a Cytoscape "
                                     "session's network file?): export the network as XGMML (File → Export → "
                                     "Network to File)" if nested else
                               "an XGMML graph without nodes (no <node> under <graph>)")
    flag = _attributes(root).get("directed", "")
    if flag.strip().lower() not in TRUE | FALSE:
        raise GraphFormatError(file, f"<graph directed={flag[:20]!r}>: expected 1 or 0 (true or false)",
                               lines[root])
    g: Any = nx.MultiDiGraph() if flag.strip().lower() in TRUE else nx.MultiGraph()  # parallel edges: merged
    labels: dict[str, str] = {}
    string_atts: dict[str, None] = {}
    other_atts: dict[str, None] = {}
    for node in nodes:
        xml = _attributes(node)
        if not xml.get("id"):
            raise GraphFormatError(file, "a <node> without an id", lines[node])
        if xml["id"] in g:
            raise GraphFormatError(file, f"node id {xml['id']!r} used twice", lines[node])
        data: dict[str, str] = {}
        if xml.get("label"):
            data["label"] = labels[xml["id"]] = xml["label"]
        for name, (value, kind, _) in _atts(node, lines, file).items():
            if kind in STRING_TYPES and name.lower() not in ("label", "id"):
                data[name] = value
                string_atts[name] = None
            else:
                other_atts[name] = None
        g.add_node(xml["id"], **data)
    ignored = [f"node attribute {name!r}" for name in other_atts]
    for name in string_atts:  # Cytoscape's name and shared name: the label again
        if labels and all(data.get(name) == labels.get(key) for key, data in g.nodes(data=True)):
            for _, data in g.nodes(data=True):
                data.pop(name, None)
            ignored.append(f"node attribute {name!r} (the label again)")
    weight = options.weight_attribute  # an edge's weight: this att, else (for weight) its weight attribute
    for edge in edges:
        xml, atts = _attributes(edge), _atts(edge, lines, file)
        for end in ("source", "target"):
            if not xml.get(end):
                raise GraphFormatError(file, f"an <edge> without a {end}", lines[edge])
            if xml[end] not in g:
                raise GraphFormatError(file, f"edge {end} {xml[end][:40]!r} is the id of no <node>",
                                       lines[edge])
        values: dict[str, str | float] = {name: att[0] for name, att in atts.items() if att[1] != "list"}
        if weight is not None and weight in atts:
            values[weight] = parse_weight(atts[weight][0], file, atts[weight][2])
        elif weight == "weight" and xml.get("weight"):
            values[weight] = parse_weight(xml["weight"], file, lines[edge])
        g.add_edge(xml["source"], xml["target"], **values)
    if g.number_of_edges() == 0:
        raise GraphFormatError(file, "an XGMML graph without edges (no <edge> under <graph>)")
    graph, report = to_graph(g, file, options, "xgmml", names_attribute="label")
    names = "node labels" if unique_labels(g, "label") else "node ids (labels missing or repeated)"
    notes = report.notes + ((f"{nested:,} nodes of graphs nested in an <att> (groups) not read",) if nested
                            else ())
    return graph, replace(report, names_from=names, ignored=tuple(ignored) + report.ignored, notes=notes)
