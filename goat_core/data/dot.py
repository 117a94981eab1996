"""Graphviz DOT files (``.dot``, ``.gv``), parsed by pydot's grammar and walked into subgraphs too.
pydot takes ~30 s on 10k nodes, so a file of one statement a line (as networkx and igraph write
it) is read by a line pattern; tests check both give the same graph.
"""

from __future__ import annotations

import re
import threading
import warnings
from typing import Any

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, ReadOptions, ReadReport
from .graph import Graph, decode, normalise, unique_labels
from .nxformats import GRAPHVIZ_DRAWING, to_graph

# pydot's grammar takes seconds per 100 kB: a larger file is read only with one statement a line
MAX_GRAMMAR_CHARS = 200_000
# The statement keywords that set defaults (``node [shape=box]``): not nodes.
_DEFAULTS = {"node", "edge", "graph"}
_LOCK = threading.Lock()  # pydot's parser is not thread-safe (its docstring); app sessions are threads
_PORT = re.compile(r'("(?:[^"\\]|\\.)*"|[^:]*)')  # an id, quoted or not, before its ":port"
_PLAIN_HEAD = re.compile(r"\s*graph(?:[ \t]+[\d.]+){3}[ \t]*\r?\n[ \t]*(?:node|edge|stop)\b")
# a word of a plain line: a quoted string (blanks included) is part of it, so that "x y":port is one word
_PLAIN_WORD = re.compile(r'(?:"(?:[^"\\]|\\.)*"|\S)+')
_HEAD = re.compile(r"(?:\s|//[^\n]*\n|/\*.*?\*/|#[^\n]*\n)*(?:strict\s+)?(?:di)?graph\b[^{\[]*\{",
                   re.IGNORECASE | re.DOTALL)


def looks_dot(head: str) -> bool:
    """``[strict] graph|digraph [name] {`` after comments (GML's ``graph [`` is not), or Graphviz's plain
    layout (``dot -Tplain``): ``graph SCALE WIDTH HEIGHT``, then ``node`` and ``edge`` lines."""
    return _HEAD.match(head) is not None or _PLAIN_HEAD.match(head) is not None


def read_dot(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    import networkx as nx

    options.refuse_columns("DOT", file)
    text = decode(raw, file)
    if _PLAIN_HEAD.match(text):
        return _read_plain(text, file, options)
    g, unread = read_flat(text)
    if g is None:
        if len(text) > MAX_GRAMMAR_CHARS:
            raise GraphFormatError(file, f"a DOT file over {MAX_GRAMMAR_CHARS // 1000} kB is read only when "
                                         "it holds one statement a line (id [attrs]; or id -- id [attrs];), "
                                         "as networkx writes it; this line is not", unread)
        dot = _parse(text, file)
        g = nx.MultiDiGraph() if dot.get_type() == "digraph" else nx.MultiGraph()  # parallel edges: merged
        _walk(dot, g, file)
    if g.number_of_nodes() == 0:
        raise GraphFormatError(file, "a DOT graph without nodes")
    named = unique_labels(g, "name")  # igraph writes its names as a name attribute of numbered nodes
    return to_graph(g, file, options, "dot", "name" if named else None, GRAPHVIZ_DRAWING)


_ID = r'"(?:[^"\\]|\\.)*"|-?(?:\.\d+|\d+(?:\.\d*)?)|[A-Za-z_\x80-\U0010ffff][\w\x80-\U0010ffff]*'
_ATTRS = r'\[((?:[^\]"]|"(?:[^"\\]|\\.)*")*)\]'
_FLAT_HEAD = re.compile(rf"\s*(strict\s+)?(di)?graph\s*(?:{_ID})?\s*\{{\s*", re.IGNORECASE)
_FLAT_NODE = re.compile(rf"\s*({_ID})\s*(?:{_ATTRS})?\s*;?\s*")
_FLAT_EDGE = re.compile(rf"\s*({_ID})\s*(--|->)\s*({_ID})\s*(?:{_ATTRS})?\s*;?\s*")
_FLAT_DEFAULTS = re.compile(rf"\s*(?:(node|edge|graph)\s*{_ATTRS}|(?:{_ID})\s*=\s*(?:{_ID}))\s*;?\s*",
                            re.IGNORECASE)
_PAIR = re.compile(rf"({_ID})\s*=\s*({_ID})")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
# a negative numeral id (DOT's "-3", "-.5"), outside quoted strings, quoted for pydot
_NEGATIVE = re.compile(r'("(?:[^"\\]|\\.)*")|(?<![\w.\-])(-(?:\.\d+|\d+(?:\.\d*)?))(?![\w.])')
# an attribute called as one of pydot's own arguments (igraph writes name), outside quoted strings
# (matched first, kept as they are)
_KEYWORD_KEY = re.compile(r'("(?:[^"\\]|\\.)*")|(?<=[\[,;\s])(?:name|src|dst|obj_dict|graph_name|graph_type|'
                          r'strict|suppress_disconnected|simplify)(?=\s*(?:[=\],;#]|//|/\*))')  # or a comment


def read_flat(text: str) -> tuple[Any | None, int | None]:
    """(a networkx multigraph, None) for a DOT file of one statement a line; else (None, the
    first line that is not), left to pydot."""
    import networkx as nx

    lines = _statements(text)
    head = _FLAT_HEAD.fullmatch(lines[0][1]) if lines else None
    if head is None:
        return None, lines[0][0] if lines else None
    if lines[-1][1].strip() != "}":
        return None, lines[-1][0]
    directed = head.group(2) is not None
    g = nx.MultiDiGraph() if directed else nx.MultiGraph()
    defaults: dict[str, dict[str, str]] = {kind: {} for kind in _DEFAULTS}
    for number, line in lines[1:-1]:
        if (edge := _FLAT_EDGE.fullmatch(line)) is not None:
            u, op, v, attrs = edge.groups()
            if (op == "->") != directed or {u.lower(), v.lower()} & _KEYWORDS:
                return None, number
            _add_edge(g, _unquote(u), _unquote(v), _attributes(attrs), defaults)
        elif (node := _FLAT_NODE.fullmatch(line)) is not None and node.group(1).lower() not in _KEYWORDS:
            _add_node(g, _unquote(node.group(1)), _attributes(node.group(2)), defaults)
        elif (default := _FLAT_DEFAULTS.fullmatch(line)) is not None:
            if default.group(1):
                defaults[default.group(1).lower()].update(_attributes(default.group(2)))
        else:
            return None, number
    return g, None


def _add_node(g: Any, name: str, attrs: dict[str, str], defaults: dict[str, dict[str, str]]) -> None:
    """A node statement: Graphviz's ``node [...]`` defaults go to the node it creates."""
    if name in g:
        g.nodes[name].update(attrs)
    else:
        g.add_node(name, **{**defaults["node"], **attrs})


def _add_edge(g: Any, u: str, v: str, attrs: dict[str, str], defaults: dict[str, dict[str, str]]) -> None:
    """An edge with Graphviz's ``edge [...]`` defaults (``weight`` too) under its own attributes."""
    for end in (u, v):
        if end not in g:
            g.add_node(end, **defaults["node"])
    g.add_edge(u, v, **{**defaults["edge"], **attrs})


_COMMENT_LINE = re.compile(r"\s*(?:/\*.*?\*/|//.*|#.*)\s*")


def _statements(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each statement line: an attribute list spread over lines
    (igraph's ``0 [\n name=a\n ];``) joined into one; comment lines before the graph left out."""
    out: list[tuple[int, str]] = []
    open_brackets = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (not out and _COMMENT_LINE.fullmatch(line)):
            continue
        if open_brackets > 0:
            out[-1] = (out[-1][0], out[-1][1] + " " + line.strip())
        else:
            out.append((number, line))
        open_brackets += line.count("[") - line.count("]")
    return out


def _attributes(text: str | None) -> dict[str, str]:
    return {_unquote(key): _unquote(value) for key, value in _PAIR.findall(text or "")}


def _parse(text: str, file: str) -> Any:
    with warnings.catch_warnings():  # pydot builds its grammar with pyparsing's deprecated names
        warnings.simplefilter("ignore", DeprecationWarning)
        from pydot.dot_parser import GraphParser
    from pyparsing import ParseBaseException

    # pydot passes attributes as keywords beside its own (name=, src=, ...): quoted, a key is no keyword
    text = _KEYWORD_KEY.sub(lambda m: m.group(1) or f'"{m.group()}"', text)
    text = _NEGATIVE.sub(lambda m: m.group(1) or f'"{m.group(2)}"', text)  # pydot's grammar stops at -3
    try:
        with _LOCK:
            graphs = list(GraphParser.parser.parse_string(text, parse_all=True))
    except ParseBaseException as err:
        raise GraphFormatError(file, f"not valid DOT: {err.msg} (column {err.col})", err.lineno) from None
    except RecursionError:
        raise GraphFormatError(file, "DOT nested too deeply") from None
    if len(graphs) != 1:
        raise GraphFormatError(file, f"{len(graphs)} graphs in one DOT file: keep the one to read")
    return graphs[0]


def _unquote(value: Any) -> str:
    text = str(value)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"')
    return text


def _walk(graph: Any, g: Any, file: str, defaults: dict[str, dict[str, str]] | None = None) -> None:
    """Nodes and edges of ``graph`` and of its subgraphs, in file order; ``node [...]`` and
    ``edge [...]`` defaults apply to what follows them, in subgraphs too (Graphviz's scoping)."""
    import pydot

    defaults = {kind: dict((defaults or {}).get(kind, {})) for kind in _DEFAULTS}  # a copy: scoped
    items = graph.get_node_list() + graph.get_edge_list() + graph.get_subgraph_list()
    for item in sorted(items, key=lambda item: item.obj_dict.get("sequence", 0)):
        attrs = {_unquote(key): _unquote(v) for key, v in item.get_attributes().items()}
        if isinstance(item, pydot.Subgraph):
            _walk(item, g, file, defaults)
        elif isinstance(item, pydot.Edge):
            for u in _ends(item.get_source(), file):
                for v in _ends(item.get_destination(), file):
                    _add_edge(g, u, v, attrs, defaults)
        elif (name := _unquote(item.get_name())) in _DEFAULTS:
            defaults[name].update(attrs)
        else:
            _add_node(g, name, attrs, defaults)


def _ends(end: Any, file: str) -> list[str]:
    """An edge end: a node id (its ``:port`` left out), or an anonymous subgraph ``{a b}``, each
    of whose nodes the edge reaches (DOT's ``a -> {b c}``)."""
    if isinstance(end, str):
        port = _PORT.match(end)  # always matches (its id may be empty)
        return [_unquote(port.group(1) if port else end)]
    if isinstance(end, dict) and "nodes" in end:
        return [_unquote(name) for name in end["nodes"]]
    raise GraphFormatError(file, f"a DOT edge end neither a node nor a {{node list}}: {str(end)[:60]}")


def _read_plain(text: str, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """``dot -Tplain``: ``node NAME x y …`` and ``edge TAIL HEAD n x1 y1 …`` lines, names quoted as in DOT
    (Graphviz escapes only ``"``): read as the DOT reader reads them. The layout says no direction:
    undirected unless asked."""
    nodes: dict[str, int] = {}
    ends: list[list[int | None]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = _PLAIN_WORD.findall(line)
        if words[:1] == ["node"] and len(words) >= 2:
            nodes.setdefault(_unquote(words[1]), len(nodes))
            continue
        pair = [_plain_end(end, nodes) for end in words[1:3]]
        if words[:1] == ["edge"] and len(pair) == 2 and None not in pair:
            ends.append(pair)
        elif words[:1] not in ([], ["graph"], ["stop"]):
            raise GraphFormatError(file, "a Graphviz plain layout line is graph, node NAME …, edge TAIL HEAD "
                                         f"… (nodes listed above it) or stop: {line.strip()[:40]!r}", number)
    names, pairs = list(nodes), np.asarray(ends, dtype=np.int64).reshape(-1, 2)
    graph = normalise(names, pairs[:, 0], pairs[:, 1], None, options.directed, False, file)
    return graph, ReadReport(format="dot", edges=len(ends), directed=options.directed,
                             directed_why="as asked" if options.directed else "",
                             rows=tuple((names[u], names[v]) for u, v in pairs[:FIRST_ROWS]),
                             notes=("Graphviz plain layout (dot -Tplain): it does not say whether the graph "
                                    "is directed",))


def _plain_end(word: str, nodes: dict[str, int]) -> int | None:
    """An edge end's node: the word names it, or (-Tplain-ext) names it before ``:PORT``, as a DOT edge
    end does; None if no node. The whole word first: a name holding a colon, left unquoted by hand."""
    port = _PORT.match(word)  # always matches (its id may be empty)
    return nodes.get(_unquote(word), nodes.get(_unquote(port.group(1) if port else word)))
