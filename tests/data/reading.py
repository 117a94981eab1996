"""What the format tests check of a read: the graph it holds, or the one-line error it stops with."""

from __future__ import annotations

import pytest

from goat_core import GraphFormatError
from goat_core.data.readers import read_graph_bytes


def edges_of(graph) -> dict:
    """{(source, target): weight} of a directed graph, {frozenset((u, v)): weight} of an undirected one,
    by node name."""
    pairs = zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist(), strict=True)
    if graph.directed:
        return {(graph.names[s], graph.names[t]): w for s, t, w in pairs}
    return {frozenset((graph.names[s], graph.names[t])): w for s, t, w in pairs}


def read_error(raw: bytes, file: str, options=None) -> str:
    """The message of the GraphFormatError reading ``raw`` as ``file`` stops with, checked to be
    one line."""
    with pytest.raises(GraphFormatError) as err:
        read_graph_bytes(raw, file, options)
    message = str(err.value)
    assert "\n" not in message
    return message
