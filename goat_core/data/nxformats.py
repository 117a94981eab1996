"""Formats read by maintained readers: GEXF, GraphML, GML, LEDA, graph6 and node-link JSON by
networkx; Pajek, LGL and NCOL by igraph. XML passes defusedxml first (DTDs, and so entity bombs and
XXE, refused). Node attributes are kept as ``Graph.node_attrs``; other edge attributes are named.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import (
    Graph,
    declared_nodes,
    decode,
    first_line,
    from_networkx,
    is_number,
    node_order,
    unique_labels,
)

# Node attributes that say where or how a node is drawn, or repeat its id: not kept.
DRAWING_ATTRIBUTES = {"viz", "x", "y", "z", "shape", "pid", "start", "end", "spells", "size", "r", "g", "b",
                      "color", "colour", "id"}
# And in a Graphviz layout (dot -Txdot, -Tjson): a small graph's node widths were offered as its labels
GRAPHVIZ_DRAWING = DRAWING_ATTRIBUTES | {"pos", "width", "height", "rects", "lp", "xlp", "_draw_", "_ldraw_",
                                         "_hdraw_", "_tdraw_", "_hldraw_", "_tldraw_"}


# --------------------------------------------------------------------------- XML


def safe_xml_root(raw: bytes, file: str, what: str, lines: dict[Any, int] | None = None) -> Any:
    """The root element, parsed by defusedxml with DTDs (and so entities) refused; each element's
    line goes in ``lines`` when it is given."""
    from xml.etree.ElementTree import ParseError, TreeBuilder

    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.ElementTree import DefusedXMLParser

    class LineBuilder(TreeBuilder):  # the parser's target (a public interface): each element's line
        def start(self, tag: str, attrs: Any) -> Any:
            element = super().start(tag, attrs)
            if lines is not None:
                lines[element] = parser.parser.CurrentLineNumber  # expat's, at the start tag
            return element

    parser = DefusedXMLParser(target=LineBuilder(), forbid_dtd=True, forbid_entities=True,
                              forbid_external=True)
    try:
        parser.feed(raw)
        return parser.close()
    except (DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden):
        raise GraphFormatError(file, f"{what} with a DTD or entities (<!DOCTYPE …>/<!ENTITY …>) refused: "
                                     "graph files need none, and they are how XML bombs and "
                                     "external-entity reads work") from None
    except ParseError as err:
        line = err.position[0] if getattr(err, "position", None) else None
        raise GraphFormatError(file, f"malformed XML: {first_line(err)}", line) from None
    except LookupError as err:  # expat asks Python for an encoding the declaration names
        raise GraphFormatError(file, f"the XML declaration names an encoding Python does not know ({err}): "
                                     "save it as UTF-8", 1) from None


def read_xml(raw: bytes, file: str, options: ReadOptions, fmt: str) -> tuple[Graph, ReadReport]:
    """GEXF or GraphML: checked by :func:`safe_xml_root`, then read by networkx."""
    import networkx as nx

    title = "GEXF" if fmt == "gexf" else "GraphML"
    options.refuse_columns(title, file)
    root = safe_xml_root(raw, file, title)
    tag = str(root.tag)
    local = tag.rsplit("}", 1)[-1].lower()
    if local != fmt:
        raise GraphFormatError(file, f"XML whose root is <{local}>, not <{fmt}>: expected {title}")
    raw = keys_per_domain(raw, root) if fmt == "graphml" else raw
    mixed = raw is not (raw := one_kind_of_edge(raw, root, fmt))
    if fmt == "graphml":
        if not tag.startswith("{"):  # networkit writes `xmlnsi=`: networkx reads namespaced GraphML only
            raw = in_namespace(raw, "graphml", "http://graphml.graphdrawing.org/xmlns")
        g = parsed(lambda: nx.parse_graphml(raw), file, title)
    else:
        version, gexf = gexf_in_networkx_namespace(raw, tag, root.get("version"), file)
        g = parsed(lambda: nx.read_gexf(io.BytesIO(gexf), version=version), file, title)
    graph, report = to_graph(g, file, options, fmt, names_attribute=names_key(g))
    return graph, replace(report, notes=report.notes + ((MIXED_NOTE,) if mixed else ()))


MIXED_NOTE = "a mixed graph (directed and undirected edges): read directed, each undirected edge both ways"


# GEXF's and GraphML's (graph's default direction, an edge's own, the edge's value saying directed)
_DIRECTIONS = {"gexf": ("defaultedgetype", "type", "directed"),
               "graphml": ("edgedefault", "directed", "true")}


def one_kind_of_edge(raw: bytes, root: Any, fmt: str) -> bytes:
    """A mixed graph (Gephi's defaultedgetype="mixed" with each edge's type; a GraphML edge's own
    directed=) as networkx reads one, which holds one kind of edge: directed, each undirected edge
    given both ways. The bytes as they are when the graph is not mixed."""
    from copy import deepcopy
    from xml.etree.ElementTree import tostring

    default_key, key, directed = _DIRECTIONS[fmt]
    graphs = [e for e in root.iter() if str(e.tag).endswith("graph")]
    edges = [(parent, e) for parent in root.iter() for e in parent if str(e.tag).rsplit("}", 1)[-1] == "edge"]
    default = directed if graphs and graphs[0].get(default_key) == "directed" else ""
    if all((edge.get(key, default) == directed) == (default == directed) for _, edge in edges):
        return raw  # one kind of edge, the graph's
    for graph in graphs:
        graph.set(default_key, "directed")
    for parent, edge in edges:
        if edge.get(key, default) != directed:
            reverse = deepcopy(edge)
            reverse.attrib.update(source=edge.get("target", ""), target=edge.get("source", ""))
            if "id" in edge.attrib:
                reverse.set("id", f"{edge.get('id')} reversed")
            parent.append(reverse)
            reverse.set(key, directed)
        edge.set(key, directed)
    return tostring(root)


def keys_per_domain(raw: bytes, root: Any) -> bytes:
    """rustworkx numbers each domain's GraphML keys apart (a node key and an edge key both "d1"), and
    networkx, keeping one key an id, would read the other domain's values as its type: each key's id
    then made its domain's, as each value's. The bytes as they are when every id is one key's."""
    from xml.etree.ElementTree import tostring

    keys = [key for key in root if str(key.tag).endswith("key")]
    ids = [key.get("id") for key in keys]
    if len(set(ids)) == len(ids) or any(key.get("for", "all") == "all" for key in keys):
        return raw
    for key in keys:
        key.set("id", f"{key.get('for')} {key.get('id')}")
    for element in root.iter():
        for data in (child for child in element if str(child.tag).endswith("data")):
            data.set("key", f"{str(element.tag).rsplit('}', 1)[-1]} {data.get('key')}")
    return tostring(root)


def names_key(g: Any) -> str | None:
    """The node attribute that names the nodes: unique labels, else unique names (igraph's), else none."""
    return next((key for key in ("label", "name") if unique_labels(g, key)), None)


def parsed(parse: Callable[[], Any], file: str, title: str, line: int | None = None) -> Any:
    """What a maintained parser returns; its exception (they raise many types) as one line."""
    try:
        return parse()
    except RecursionError:
        raise GraphFormatError(file, f"{title} nested too deeply", line) from None
    except KeyError as err:  # networkx's readers look nodes up by the number an edge gives
        problem = f"an edge names no node {err.args[0]!r}"
        raise GraphFormatError(file, f"cannot parse {title}: {problem}", line) from None
    except TypeError as err:
        if "unhashable" not in str(err):
            raise GraphFormatError(file, f"cannot parse {title}: {first_line(err)}", line) from None
        problem = ("a node id or an edge's end is a list or an object (a graph of tuple-named nodes?): ids "
                   "are names or numbers")
        raise GraphFormatError(file, f"cannot parse {title}: {problem}", line) from None
    except Exception as err:
        raise GraphFormatError(file, f"cannot parse {title}: {first_line(err)}", line) from None


# GEXF's namespace as tools write it: networkx's own (www.gexf.net/1.2draft, gexf.net/1.3), the final
# 1.2 (gexf.net/1.2, Gephi 0.10, graphology), R's rgexf (www.gexf.net/1.3), https, or none at all.
_GEXF_NAMESPACE = re.compile(r"https?://(?:www\.)?gexf\.net/(1\.[123])(?:draft)?/?", re.IGNORECASE)
_GEXF_VERSIONS = {"1.1": "1.1draft", "1.2": "1.2draft", "1.3": "1.3"}


def gexf_in_networkx_namespace(raw: bytes, tag: str, declared: str | None, file: str) -> tuple[str, bytes]:
    """(networkx's version name, the bytes under its namespace): networkx finds elements by its own
    namespace string only. The version is the namespace's, else the root's ``version`` (or 1.2)."""
    from networkx.readwrite.gexf import GEXF

    namespace = tag[1:].split("}", 1)[0] if tag.startswith("{") else ""
    found = _GEXF_NAMESPACE.fullmatch(namespace)
    number = found.group(1) if found else "" if namespace else (declared or "1.2").strip()[:3]
    version = _GEXF_VERSIONS.get(number)
    if version is None:
        shown = repr(namespace) if namespace else f"none, version {declared!r}"
        raise GraphFormatError(file, f"GEXF namespace {shown} is not one networkx reads (GEXF "
                                     f"{', '.join(_GEXF_VERSIONS)}: {', '.join(GEXF.versions)})")
    wanted = GEXF.versions[version]["NS_GEXF"]
    if namespace == wanted:
        return version, raw
    if not namespace:
        return version, in_namespace(raw, "gexf", wanted)
    for quote in "\"'":  # the namespace as its declaration quotes it
        raw = raw.replace(f"{quote}{namespace}{quote}".encode(), f'"{wanted}"'.encode())
    return version, raw


def in_namespace(raw: bytes, root: str, namespace: str) -> bytes:
    """A document without a namespace with ``namespace`` declared on its ``root`` element."""
    tag = root.encode()
    return re.sub(rb"<" + tag + rb"\b", b'<%s xmlns="%s"' % (tag, namespace.encode()), raw, count=1)


# --------------------------------------------------------------------------- GML, Pajek, node-link


def read_leda(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """LEDA's ``.gw`` (igraph's ``write_leda``), by networkx's reader; numeric edge values
    (kept by networkx as a ``label``) are the weights."""
    import networkx as nx

    options.refuse_columns("LEDA", file)
    text = decode(raw, file)
    g = parsed(lambda: nx.parse_leda(text), file, "LEDA")
    edges = [data for *_, data in g.edges(data=True)]
    if edges and all(is_number(str(data.get("label", ""))) for data in edges):
        lines = [line for line in text.split("\n") if line and not line.startswith("#")]  # as networkx's
        repeated = int(lines[5 + int(lines[4])]) - len(edges)  # the edge count after the node lines
        if repeated and options.weight != NO_WEIGHT:
            raise GraphFormatError(file, f"{repeated} repeated edges: networkx's LEDA reader keeps one "
                                         "weight of each, so they cannot be summed as other formats' repeats "
                                         "are (--weight none reads the file unweighted)")
        for data in edges:
            data["weight"] = float(data.pop("label"))
    return to_graph(g, file, options, "leda")


_GRAPH6_LINE = re.compile(rb"\s*(:?)([?-~]+)[ \t\r]*(?:\n|\Z)")  # graph6's characters are 63..126


def looks_graph6(raw: bytes) -> bool:
    """graph6 or sparse6 without their ``>>graph6<<`` header (nauty writes none): a first line of
    63..126 characters only (no blank nor comma, so no edge list), graph6's as long as the node
    count it opens with says, sparse6's after a ``:``."""
    found = _GRAPH6_LINE.match(raw)
    if found is None or found.group(1):
        return found is not None
    from networkx.readwrite.graph6 import data_to_n  # here: importing networkx costs an edge list 10 MB

    head = [c - 63 for c in found.group(2)[:8]]
    try:
        n, rest = data_to_n(head)
    except IndexError:  # "~" opens a longer node count than the line holds
        return False
    return len(found.group(2)) - (len(head) - len(rest)) == (n * (n - 1) // 2 + 5) // 6


def read_graph6(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """graph6 or sparse6 (nauty's; networkx's ``write_graph6``/``write_sparse6``), one graph, by
    networkx's readers; nodes are numbered 0..n-1."""
    import networkx as nx

    options.refuse_columns("graph6", file)
    lines = [line.strip() for line in raw.splitlines() if line.strip()]
    if len(lines) != 1:
        raise GraphFormatError(file, f"{len(lines)} graphs in one graph6/sparse6 file: keep the one to read")
    sparse = lines[0].startswith((b">>sparse6<<", b":"))
    parse = nx.from_sparse6_bytes if sparse else nx.from_graph6_bytes
    g = parsed(lambda: parse(lines[0]), file, "sparse6" if sparse else "graph6", 1)
    return to_graph(nx.Graph(g), file, options, "graph6")  # sparse6 may repeat an edge: merged


def read_gml(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """GML by networkx, nodes keyed by id: named by their labels when unique, else by igraph's
    ``name`` attribute when unique, else by their ids."""
    import networkx as nx

    options.refuse_columns("GML", file)
    text = decode(raw, file)
    if "multigraph" not in text[:4096]:  # repeated edges (Newman's files have some) are kept, then merged
        text = _GML_GRAPH.sub(lambda m: m.group(0) + "\n  multigraph 1", text, count=1)
    g = parsed(lambda: nx.parse_gml(text, label=None), file, "GML")
    options = value_as_weight(g, options)
    by = names_key(g)
    graph, report = to_graph(g, file, options, "gml", names_attribute=by)
    return graph, replace(report, names_from=f"GML {by}" if by else "GML id (labels missing or repeated)")


def value_as_weight(g: Any, options: ReadOptions) -> ReadOptions:
    """``options`` reading an edge's ``value`` as its weight when no edge has a ``weight`` and every
    edge a positive ``value`` (Newman's and Gephi's GML, d3's JSON); else ``value`` is left out."""
    values = [str(d.get("value")) for *_, d in g.edges(data=True) if "weight" not in d]
    if options.weight is None and 0 < len(values) == g.number_of_edges() and \
            all(is_number(v) and 0 < float(v) < math.inf for v in values):
        return replace(options, weight="value")
    return options


_GML_GRAPH = re.compile(r"\bgraph\s*\[", re.IGNORECASE)


def read_pajek(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """Pajek, by igraph's reader (it reads igraph's ``*Vertices n`` without vertex lines too). A mixed
    network (``*Arcs`` and ``*Edges``, as Pajek writes one) is directed, each edge both ways: igraph
    would make it all one kind, so its edges are given to igraph as arcs. igraph ends the file at a
    blank line, so blank lines become ``%`` comments (line numbers kept)."""
    lines = [line if line.strip() else "%" for line in decode(raw, file).splitlines()]
    sections = [(k, m.group(1).lower(), line.strip()) for k, line in enumerate(lines)
                if (m := _PAJEK_SECTION.match(line))]
    networks = [k for k, kind, _ in sections if kind == "network"]
    if len(networks) > 1:
        raise GraphFormatError(file, f"a Pajek project of {len(networks)} networks: one is read here; save "
                                     "the one to read as its own .net file", networks[1] + 1)
    # a project's (.paj) partitions and vectors left out and named: igraph would stop at the first
    other = [(k, title) for k, kind, title in sections if kind not in _NETWORK_SECTIONS]
    notes = (f"left out: {', '.join(f'{title} (line {k + 1})' for k, title in other)} (a Pajek project's "
             "partitions and vectors)",) if other else ()
    if other:
        lines = lines[:other[0][0]]
        sections = [section for section in sections if section[0] < len(lines)]
    if vertices := next((m for line in lines if (m := _VERTICES.match(line))), None):  # igraph reserves them
        declared_nodes(int(vertices[1]), len(raw), file, lines.index(vertices.string) + 1, "*Vertices")
    check_pajek_lines(lines, file)
    kinds = {kind for _, kind, _ in sections}
    mixed = bool(kinds & {"arcs", "arcslist"} and kinds & {"edges", "edgeslist"})
    if mixed:  # *Edges renamed *Arcs in place (igraph's line numbers stay right), their reverse arcs added
        reverse = []
        for (start, kind, _), (end, *_) in zip(sections, sections[1:] + [(len(lines), "", "")], strict=True):
            if kind == "edgeslist":
                raise GraphFormatError(file, "*Edgeslist beside *Arcs (a mixed network) is not read: write "
                                             "its edges as *Edges lines", start + 1)
            if kind == "edges":
                lines[start] = "*Arcs"
                for line in lines[start + 1:end]:
                    if (fields := line.split()) and not fields[0].startswith("%"):
                        swapped = [fields[1], fields[0], *fields[2:]] if len(fields) > 1 else [line]
                        reverse.append(" ".join(swapped))
        lines += ["*Arcs", *reverse]
    graph, report = read_igraph(("\n".join(lines) + "\n").encode(), file, options, "pajek")
    return graph, replace(report, notes=report.notes + notes + ((MIXED_NOTE,) if mixed else ()))


def check_pajek_lines(lines: list[str], file: str) -> None:
    """What igraph's Pajek reader passes over with a warning only: a section it does not know (it skips
    its lines), a line of a section not led by a number (it ends the file there) and a vertex listed
    twice (its later line wins)."""
    section, listed = "", dict[str, int]()
    for number, line in enumerate(lines, start=1):
        first = (line.split() or ["%"])[0]
        if first.startswith("*") and first[1:].lower() not in _NETWORK_SECTIONS:
            raise GraphFormatError(file, f"{first[:40]!r} is no Pajek section (igraph's reader would skip "
                                         "its lines)", number)
        if first.startswith(("%", "*")):
            section = first[1:].lower() if first.startswith("*") else section
        elif section and not _PAJEK_NUMBER.fullmatch(first):
            raise GraphFormatError(file, f"a Pajek line must start with a vertex number, got {first[:40]!r} "
                                         "(igraph's reader would stop reading the file there)", number)
        elif section == "vertices" and listed.setdefault(first.lstrip("+0"), number) != number:
            raise GraphFormatError(file, f"vertex {first} is listed twice in *Vertices (first on line "
                                         f"{listed[first.lstrip('+0')]})", number)


_PAJEK_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_PAJEK_SECTION = re.compile(r"^[ \t]*\*(\w+)", re.MULTILINE)
_VERTICES = re.compile(r"[ \t]*\*vertices[ \t]+(\d{1,18})\b", re.IGNORECASE)
_NETWORK_SECTIONS = {"network", "vertices", "arcs", "edges", "arcslist", "edgeslist", "matrix"}


def read_lgl(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """LGL (``# node`` then one ``neighbor [weight]`` a line), by igraph's reader."""
    return read_igraph(raw, file, options, "lgl")


def read_ncol(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """NCOL (``name name [weight]`` a line, igraph's ``write_ncol``), by igraph's reader."""
    text = decode(raw, file)
    comment = re.search(r"^[ \t]*#", text, re.MULTILINE)
    if comment is not None:  # igraph would read "# a b" as an edge from a node named "#"
        raise GraphFormatError(file, "a '#' line: NCOL has no comments; read the file as an edge list "
                                     "(--format edgelist)", text.count("\n", 0, comment.start()) + 1)
    return read_igraph(raw, file, options, "ncol")


# format -> (igraph's reader, title, the field a bad weight is in: igraph names no line for it)
_IGRAPH_READERS = {"pajek": ("Read_Pajek", "Pajek", 1), "lgl": ("Read_Lgl", "LGL", 1),
                   "ncol": ("Read_Ncol", "NCOL", 2)}
_INNER_QUOTE = re.compile(r'^[ \t]*\d+[ \t]+"[^"\n]*"\S', re.MULTILINE)  # 3 "say "hi""
_IGRAPH_LINE = re.compile(r"line (\d+) \((.*?)\)")
_IGRAPH_ERROR = re.compile(r"^Error at \S+: |\. -- .*$")  # where in igraph's C code, and its error kind


def _bad_number_line(raw: bytes, at: int) -> int | None:
    """The first line whose field ``at`` (the weight's) is not a number."""
    for number, line in enumerate(raw.decode("utf-8-sig", errors="replace").splitlines(), start=1):
        fields = line.split()
        if len(fields) > at and not line.lstrip().startswith(("#", "*")) and not is_number(fields[at]):
            return number
    return None


def read_igraph(raw: bytes, file: str, options: ReadOptions, fmt: str) -> tuple[Graph, ReadReport]:
    """A format igraph reads (from a temporary file: its readers take a file, not bytes); unnamed
    vertices are named by their 1-based number."""
    import tempfile

    import igraph as ig

    method, title, weight_field = _IGRAPH_READERS[fmt]
    options.refuse_columns(title, file)
    text = decode(raw, file)  # empty, binary, not UTF-8: its one-line error
    keywords = {"directed": options.directed} if fmt != "pajek" else {}
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as out:
        # without a BOM (igraph would take it for part of the first name), ending in a newline
        # (igraph counts the newline that ends a short line before naming it: one line to take off)
        out.write(text if text.endswith("\n") else text + "\n")
        out.seek(0)
        try:
            g = getattr(ig.Graph, method)(out, **keywords)
        except (ig.InternalError, ValueError, OSError) as err:
            found = _IGRAPH_LINE.search(str(err))
            problem = found.group(2) if found else _IGRAPH_ERROR.sub("", first_line(err))
            # igraph names the line after one that ends too soon, and none for a bad number
            line = int(found.group(1)) - ("unexpected end of line" in problem) if found else \
                _bad_number_line(raw, weight_field) if "real number" in problem else None
            if line is None and fmt == "pajek" and (quoted := _INNER_QUOTE.search(text)):
                line = text.count("\n", 0, quoted.start()) + 1
                problem = ("a vertex name holding a double quote (networkx's write_pajek writes it as it "
                           "is, so where the name ends cannot be told)")
            raise GraphFormatError(file, f"cannot parse {title}: {problem}", line) from None
    if "name" not in g.vertex_attributes():
        g.vs["name"] = [str(i + 1) for i in range(g.vcount())]
    elif fmt == "pajek":  # igraph's write_pajek escapes a name's " as &#34; (its reader leaves it)
        g.vs["name"] = [str(name).replace("&#34;", '"') for name in g.vs["name"]]
    if fmt in ("ncol", "lgl"):  # nodes in the edge-list reader's order (integers sorted), not first-seen
        index = {name: k for k, name in enumerate(g.vs["name"])}
        g = g.permute_vertices([index[name] for name in node_order(g.vs["name"])])  # new k is old [k]
    nx_graph = g.to_networkx()
    for data in [d for _, d in nx_graph.nodes(data=True)] + [d for *_, d in nx_graph.edges(data=True)]:
        data.pop("_igraph_index", None)  # igraph's own numbering, added by to_networkx
        data.pop("id", None)  # Pajek's vertex number: the name is its label
    return to_graph(nx_graph, file, options, fmt, names_attribute="name")


def parse_json(text: str, file: str) -> Any:
    """A JSON document; malformed JSON is a one-line error with its line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise GraphFormatError(file, f"not valid JSON: {err.msg} (column {err.colno})", err.lineno) from None
    except (RecursionError, MemoryError):
        raise GraphFormatError(file, "JSON nested too deeply") from None


def _with_values(cytoscape: dict) -> dict:
    """networkx finds a node by its ``value``, which Cytoscape's own .cyjs leaves out: its ``id``."""
    for node in cytoscape["elements"]["nodes"]:
        node["data"].setdefault("value", node["data"]["id"])
    return cytoscape


def node_link_from_data(data: Any, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """Parsed node-link JSON as a Graph (anything else: the one-line error saying what it holds)."""
    import networkx as nx

    options.refuse_columns("node-link JSON", file)
    if is_json_graph_format(data):
        data = _json_graph_format(data["graph"])
    if isinstance(data, dict) and "elements" in data:  # Cytoscape's .cyjs, nx.cytoscape_data
        g = parsed(lambda: nx.cytoscape_graph(_with_values(data)), file, "Cytoscape JSON")
        for _, node in g.nodes(data=True):
            node.pop("value", None)  # the node itself again
        for *_, edge in g.edges(data=True):
            edge.pop("source", None), edge.pop("target", None)  # its ends again
        graph, report = to_graph(g, file, options, "node-link", names_attribute="name")
        return graph, replace(report, notes=("Cytoscape.js JSON (elements)",))
    if isinstance(data, dict) and isinstance(data.get("objects"), list) and "_subgraph_cnt" in data:
        graphviz = _graphviz_json(data, file)
        g = parsed(lambda: nx.node_link_graph(graphviz, edges="links"), file, "Graphviz JSON")
        graph, report = to_graph(g, file, options, "node-link", drawing=GRAPHVIZ_DRAWING)
        return graph, replace(report, notes=("Graphviz JSON (dot -Tjson)",))
    if isinstance(data, dict) and "adjacency" in data:
        g = parsed(lambda: nx.adjacency_graph(data), file, "adjacency JSON")
        return to_graph(g, file, options, "node-link")
    if not isinstance(data, dict) or "nodes" not in data:
        found = ", ".join(map(str, list(data)[:6])) if isinstance(data, dict) else type(data).__name__
        raise GraphFormatError(file, f"JSON without \"nodes\" ({found}): expected networkx's node-link JSON "
                                     "({\"nodes\": [...], \"links\": [...]}) or a table as pandas' to_json "
                                     "writes it")
    key = "links" if "links" in data else "edges"
    if key not in data:
        raise GraphFormatError(file, "node-link JSON without \"links\" or \"edges\"")
    g = parsed(lambda: nx.node_link_graph(_networkx_node_link(data, key), edges=key), file, "node-link JSON")
    # unique labels are the names, as in GEXF and GML (graphology's, vis.js', sigma.js' and JGF's shown names)
    graph, report = to_graph(g, file, value_as_weight(g, options), "node-link", "label")
    mixed = (data.get("options") or {}).get("type") == "mixed"
    return graph, replace(report, notes=report.notes + ((MIXED_NOTE,) if mixed else ()))


def _graphviz_json(data: dict, file: str) -> dict:
    """Graphviz's ``-Tjson``/``-Tjson0`` output (``objects``: its subgraphs, then its nodes; ``edges``
    naming them by ``_gvid``) as networkx's node-link data, every attribute kept as a DOT file's is."""
    try:
        nodes = data["objects"][data["_subgraph_cnt"]:]
        names = {node["_gvid"]: str(node["name"]) for node in nodes}
        return {"directed": bool(data.get("directed")), "multigraph": False, "graph": {},
                "nodes": [{**_without(node, "_gvid", "name"), "id": names[node["_gvid"]]} for node in nodes],
                "links": [{**_without(edge, "_gvid", "tail", "head"), "source": names[edge["tail"]],
                           "target": names[edge["head"]]} for edge in data.get("edges", [])]}
    except (KeyError, TypeError, AttributeError):
        raise GraphFormatError(file, "Graphviz JSON whose objects or edges are not as dot -Tjson writes "
                                     "them (each node a name and a _gvid, each edge its tail's and head's)"
                               ) from None


def _without(item: dict, *keys: str) -> dict:
    return {key: value for key, value in item.items() if key not in keys}


def _vis_js(links: Any) -> bool:
    """vis.js' (vis-network's) edges: ``from`` and ``to`` where node-link JSON says source and target."""
    return bool(links) and isinstance(links, list) and all(
        isinstance(link, dict) and "from" in link and "to" in link and "source" not in link for link in links)


def neo4j_records(lines: list[str], file: str) -> dict | None:
    """Neo4j APOC's JSON export (``apoc.export.json.*``: a node or relationship record a line) as node-link
    data (:func:`neo4j_graph`); None when the first line is no such record."""
    rows = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if neo4j_graph([json.loads(rows[0][1])]) is None:
        return None
    records = []
    for number, line in rows:
        try:
            records.append(json.loads(line))
        except (ValueError, RecursionError) as err:
            raise GraphFormatError(file, f"not a JSON record as Neo4j's APOC writes one a line ({err})",
                                   number) from None
    graph = neo4j_graph(records)
    if graph is None:
        raise GraphFormatError(file, "a line that is no node or relationship record among Neo4j APOC's")
    return graph


def neo4j_graph(records: list) -> dict | None:
    """Neo4j APOC's records (``{"type": "node", "id", "labels", "properties"}``, ``{"type": "relationship",
    "start": {"id"}, "end": {"id"}, "label", "properties"}``) as node-link data, a node shown by its
    ``name`` property; undirected, as Neo4j's CSVs are read (a relationship's stored direction is often
    no meaning: --directed keeps it). None when the records are not all of that shape."""
    kinds = {r.get("type") if isinstance(r, dict) else None for r in records}
    if not records or not kinds <= {"node", "relationship"}:
        return None
    nodes = [{**_properties(r), "id": r.get("id"), "labels": ":".join(map(str, r.get("labels") or ()))}
             for r in records if r["type"] == "node"]
    for node in nodes:
        node.setdefault("label", node.pop("name", None))
    links = [{**_properties(r), "type": r.get("label"), "source": (r.get("start") or {}).get("id"),
              "target": (r.get("end") or {}).get("id")} for r in records if r["type"] == "relationship"]
    return {"directed": False, "multigraph": False, "graph": {}, "nodes": nodes, "links": links}


def _properties(record: dict) -> dict:
    properties = record.get("properties")
    return properties if isinstance(properties, dict) else {}


def is_json_graph_format(data: Any) -> bool:
    """The JSON Graph Format (jsongraphformat.info): ``{"graph": {"nodes": ..., "edges": [...]}}``."""
    return isinstance(data, dict) and isinstance(data.get("graph"), dict) and "nodes" in data["graph"]


def _json_graph_format(graph: dict) -> dict:
    """The JSON Graph Format's ``graph`` as node-link data: nodes a list (version 1) or an object keyed
    by id (version 2), each node's and edge's ``metadata`` beside its own keys."""
    nodes = graph["nodes"]
    if isinstance(nodes, dict):
        nodes = [{**(node if isinstance(node, dict) else {}), "id": key} for key, node in nodes.items()]
    return {**graph, "nodes": nodes, "directed": bool(graph.get("directed"))}


def _networkx_node_link(data: dict, key: str) -> dict:
    """d3's, networkx 1.x's, graphology's and vis.js' node-link JSON as networkx 3 reads it: nodes keyed by
    a unique ``id`` (else graphology's ``key``, else d3 v3's ``name``, else their position), links by node id
    (by position when some end is no id but every end is a position), attributes not nested."""
    nodes = [_flat(node) for node in data["nodes"]]
    links = [_flat(link) for link in data[key]]
    if _vis_js(links):  # directed when every edge has its arrow ("arrows": "to", or {"to": ...})
        data = {"directed": all("to" in str(link.get("arrows", "")) for link in links), **data}
        links = [{**_without(link, "from", "to", "arrows"), "source": link["from"], "target": link["to"]}
                 for link in links]
    links = [{**link, **{end: _node_id(link[end]) for end in ("source", "target") if end in link}}
             if isinstance(link, dict) else link for link in links]
    id_key = next((k for k in ("id", "key", "name") if all(k in node for node in nodes)
                   and len({repr(node[k]) for node in nodes}) == len(nodes)), None)
    ids = [node[id_key] if id_key else k for k, node in enumerate(nodes)]
    ends = [link[end] for link in links for end in ("source", "target")]
    if not set(ends) <= set(ids) and all(type(end) is int and 0 <= end < len(ids) for end in ends):
        links = [{**link, "source": ids[link["source"]], "target": ids[link["target"]]} for link in links]
    kind = (data.get("options") or {}).get("type")  # graphology's: directed, undirected or mixed
    directed = data.get("directed", kind in ("directed", "mixed"))
    if kind == "mixed":  # as GEXF's and GraphML's mixed graphs: directed, each undirected edge both ways
        links += [{**link, "source": link["target"], "target": link["source"]} for link in links
                  if link.get("undirected")]
    shown = id_key == "key"  # graphology: a node is shown by its label, else by its key
    nodes = [{**node, "id": i, **({"label": node.get("label", i)} if shown else {})}
             for node, i in zip(nodes, ids, strict=True)]
    return {**data, "directed": directed, "nodes": nodes, key: links}


def _node_id(end: Any) -> Any:
    """An edge's end: d3's force layout replaces each by its node object, ``{"id": ..., "x": ...}``."""
    return end["id"] if isinstance(end, dict) and "id" in end else end


def _flat(item: Any) -> Any:
    """A graphology node or edge with its nested ``attributes`` beside its own keys, a rustworkx one
    with its ``data`` (its payload, ``null`` when there is none)."""
    for nested in ("attributes", "data", "metadata"):
        if isinstance(item, dict) and nested in item and isinstance(item[nested], (dict, type(None))):
            return {**(item[nested] or {}), **{k: v for k, v in item.items() if k != nested}}
    return item


# --------------------------------------------------------------------------- networkx -> Graph


def to_graph(g: Any, file: str, options: ReadOptions, fmt: str, names_attribute: str | None = None,
             drawing: set[str] = DRAWING_ATTRIBUTES) -> tuple[Graph, ReadReport]:
    """A networkx graph as a Graph with its node attributes (``drawing`` ones left out), and the
    account of the read."""
    import networkx as nx

    declared = g.is_directed()
    directed = options.directed or declared
    if options.directed and not declared:
        g = g.to_directed()
    names_from = None
    if names_attribute and unique_labels(g, names_attribute):
        mapping = {node: str(data[names_attribute]) for node, data in g.nodes(data=True)}
        if any(str(node) != name for node, name in mapping.items()):
            g = nx.relabel_nodes(g, mapping)
            names_from = f"the {names_attribute} attribute"
        for _, data in g.nodes(data=True):
            data.pop(names_attribute, None)
    weight = options.weight_attribute
    edge_keys = dict.fromkeys(str(key) for *_, data in g.edges(data=True) for key in data)
    if weight is not None and weight not in edge_keys and options.weight is not None:
        raise GraphFormatError(file, f"no edge attribute {weight!r}; edges carry "
                                     f"{', '.join(map(repr, edge_keys)) or 'no attributes'}")
    graph = from_networkx(g, source=file, weight=weight or "\x00no weight", directed=directed)
    # each node attribute with a plain value (text, number), but drawing ones: text per node, "" where missing
    nodes = [data for _, data in g.nodes(data=True)]
    keys = dict.fromkeys(k for data in nodes for k, v in data.items()
                         if str(k).lower() not in drawing and isinstance(v, (str, int, float, bool)))
    attrs = {str(key): np.array(["" if v is None or isinstance(v, (dict, list)) else str(v)
                                 for v in (data.get(key) for data in nodes)], dtype=str) for key in keys}
    graph = replace(graph, node_attrs=attrs)
    rows = [(str(u), str(v)) + ((str(data.get(weight, 1)),) if graph.weighted else ())
            for u, v, data in list(g.edges(data=True))[:FIRST_ROWS]]
    report = ReadReport(
        format=fmt, edges=g.number_of_edges(), directed=directed,
        directed_why="the file declares it" if declared else "as asked" if directed else "",
        weight=f"edge attribute {weight!r}" if graph.weighted else None,
        ignored=tuple(f"edge attribute {k!r}" for k in edge_keys if k != weight),
        node_attributes=tuple(attrs), names_from=names_from, rows=tuple(rows),
    )
    return graph, report
