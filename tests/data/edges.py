"""What a read graph holds, in a form tests compare with what the writing tool was given."""

from __future__ import annotations


def edges_of(graph) -> dict:
    """{(source, target): weight} of a directed graph, {frozenset((u, v)): weight} of an undirected one,
    by node name."""
    pairs = zip(graph.src.tolist(), graph.dst.tolist(), graph.weight.tolist(), strict=True)
    if graph.directed:
        return {(graph.names[s], graph.names[t]): w for s, t, w in pairs}
    return {frozenset((graph.names[s], graph.names[t])): w for s, t, w in pairs}
