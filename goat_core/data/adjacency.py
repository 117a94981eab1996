"""Adjacency lists as networkx writes them, read line by line so that errors name the line.

``write_adjlist``: ``node neighbor neighbor ...`` (a node alone on its line has no neighbor
left to list). ``write_multiline_adjlist``: ``node degree`` followed by that many lines
``neighbor [{attributes}]``. Both begin with networkx's ``# GMT <date>`` comment header, which is
how they are recognised; a multiline list is also recognised by its shape alone (every block's
count matching, every node heading one block), which no edge list has.
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import GraphFormatError
from .formats import FIRST_ROWS, NO_WEIGHT, ReadOptions, ReadReport
from .graph import Graph, data_lines, decode, literal_dict, named_edges, normalise, parse_weight

NETWORKX_HEADER = re.compile(r"^#\s*GMT\s", re.MULTILINE)
_DEGREE = re.compile(r"\d+")
HEAD_LINES = 50


def has_networkx_header(text_head: str) -> bool:
    """networkx's adjacency-list writers start with '#<command>', '# GMT <date>', '# <name>'."""
    return bool(NETWORKX_HEADER.search("\n".join(text_head.splitlines()[:4])))


def _split(text: str, sep: str | None) -> list[str]:
    """A line's tokens; a {attributes} dict stays one token after a delimiter."""
    if sep is None:
        return text.split()
    ends, brace, attrs = text.partition("{")
    return [t.strip() for t in ends.split(sep) if t.strip()] + ([brace + attrs] if brace else [])


def _rows(raw: bytes, file: str) -> list[tuple[int, list[str]]]:
    """Tokens of every line, after networkx's rule: anything after '#' is a comment."""
    lines = [(number, text.split("#", 1)[0]) for number, text in data_lines(decode(raw, file))]
    # networkx's delimiter=: ",", ";" or "|" when the lines hold one and no blank outside their {attributes}
    ends = [text.split("{", 1)[0].strip() for _, text in lines[:HEAD_LINES]]
    sep = None if any(" " in end or "\t" in end for end in ends) else next(
        (mark for mark in ",;|" if any(mark in end for end in ends)), None)
    rows = [(number, tokens) for number, text in lines if (tokens := _split(text, sep))]
    if not rows:
        raise GraphFormatError(file, "no nodes: the file holds only comments or blank lines")
    return rows


def _refuse_columns(options: ReadOptions, file: str) -> None:
    if options.source is not None or options.weight not in (None, NO_WEIGHT, "weight"):
        raise GraphFormatError(file, "--source/--target/--weight COL choose columns of an edge table; an "
                                     "adjacency list has none (--weight none ignores weights)")


def read_adjlist(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    _refuse_columns(options, file)
    rows = _rows(raw, file)
    # networkx's writers give every node a line of its own: a neighbor heading none means the names held
    # the delimiter ("Alice Smith" written with blanks), which no reader can undo
    if has_networkx_header(raw[:4096].decode("utf-8", errors="replace")):
        lined = {tokens[0] for _, tokens in rows}
        for number, tokens in rows:
            if (stray := next((token for token in tokens[1:] if token not in lined), None)) is not None:
                raise GraphFormatError(file, f"neighbor {stray!r} has no line of its own, as every node has "
                                             "in networkx's adjacency lists: node names holding the "
                                             "delimiter cannot be read back (write with another delimiter=, "
                                             "or as GraphML)", number)
    order, heads, tails = [], [], []
    for _, tokens in rows:
        order.extend(tokens)
        heads.extend([tokens[0]] * (len(tokens) - 1))
        tails.extend(tokens[1:])
    if not heads:
        raise GraphFormatError(file, "no edges: every line holds a single node (an adjacency list lists "
                                     "each node's neighbors after it on its line)")
    graph = normalise(*named_edges(order, heads, tails), None, options.directed, False, file)
    return graph, ReadReport(format="adjlist", edges=len(heads), directed=options.directed,
                             directed_why="as asked" if options.directed else "",
                             rows=tuple(zip(heads[:FIRST_ROWS], tails[:FIRST_ROWS])))


def multiline_blocks(rows: list[tuple[int, list[str]]], file: str) -> list[tuple[str, list]]:
    """The blocks (node, [(line, neighbor, attributes text)]) of a multiline adjacency list; a
    malformed list is a GraphFormatError naming the line."""
    blocks, at = [], 0
    while at < len(rows):
        number, tokens = rows[at]
        if len(tokens) != 2 or not _DEGREE.fullmatch(tokens[1]):
            raise GraphFormatError(file, "expected 'node degree' (networkx's multiline adjacency list)",
                                   number)
        degree, neighbors = int(tokens[1]), []
        for line, toks in rows[at + 1: at + 1 + degree]:
            if len(toks) > 1 and not toks[1].startswith("{"):
                raise GraphFormatError(file, f"expected 'neighbor [{{attributes}}]' ({degree} of them after "
                                             f"line {number})", line)
            neighbors.append((line, toks[0], " ".join(toks[1:])))
        if len(neighbors) < degree:
            raise GraphFormatError(file, f"node {tokens[0]} announces {degree} neighbors, the file ends "
                                         f"after {len(neighbors)}", number)
        blocks.append((tokens[0], neighbors))
        at += 1 + degree
    return blocks


def looks_multiline(raw: bytes, file: str) -> bool:
    """A multiline adjacency list by shape: consistent blocks, every node heading one, an edge."""
    try:
        blocks = multiline_blocks(_rows(raw, file), file)
    except GraphFormatError:
        return False
    heads = [node for node, _ in blocks]
    mentioned = {n for _, neighbors in blocks for _, n, _ in neighbors}
    return bool(mentioned) and len(set(heads)) == len(heads) and mentioned <= set(heads)


def read_multiline_adjlist(raw: bytes, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    _refuse_columns(options, file)
    order, heads, tails, weights = [], [], [], []
    ignored: dict[str, None] = {}  # attributes left out, in order
    use_weight, weighted = options.weight != NO_WEIGHT, False
    for node, neighbors in multiline_blocks(_rows(raw, file), file):
        order.append(node)
        for line, neighbor, text in neighbors:
            attrs = literal_dict(text, file, line) if text else {}
            ignored.update((k, None) for k in attrs if k != "weight")
            value = attrs.get("weight") if use_weight else None
            weighted |= value is not None
            weights.append(1.0 if value is None else parse_weight(str(value), file, line))
            order.append(neighbor)
            heads.append(node)
            tails.append(neighbor)
    graph = normalise(*named_edges(order, heads, tails), np.asarray(weights, dtype=np.float64),
                      options.directed, weighted, file)
    return graph, ReadReport(
        format="multiline-adjlist", edges=len(heads), directed=options.directed,
        directed_why="as asked" if options.directed else "",
        weight="edge attribute 'weight'" if weighted else None,
        ignored=tuple(f"edge attribute {k!r}" for k in ignored),
        rows=tuple((h, t) + ((f"{w:g}",) if weighted else ()) for h, t, w in
                   zip(heads[:FIRST_ROWS], tails[:FIRST_ROWS], weights)))
