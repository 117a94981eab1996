"""The Graph page's tabs, drawn only when open: the whole graph (the hubs of a large one), the
physics view (pyvis; about 700 KB of page and a simulation) and the degree distribution."""

from __future__ import annotations

import numpy as np
import streamlit as st

from goat_core import views

from . import cache, classroom, parts
from .state import Explorer

TABS = ("Network", "Physics view (pyvis)", "Degree distribution")


def network(ex: Explorer, colouring: tuple, found_id: int | None, seed: int) -> None:
    """Every node up to ``cache.OVERVIEW_NODES``, else the hubs and the links among them."""
    graph = ex.graph
    groups, group_names, values, value_title = colouring
    with st.spinner("Laying the graph out (cached after the first time)…"):
        shown, pos = cache.overview_layout(ex.graph_fp, seed, graph)
    local = {int(v): k for k, v in enumerate(shown.nodes)}
    highlight = {local[found_id]: "search"} if found_id in local else None
    pick = (lambda a: None if a is None else np.asarray(a)[shown.nodes])
    named = classroom.key_nodes(graph, ex.pair)
    fig = views.network_figure(pos, shown.src, shown.dst, [graph.names[i] for i in shown.nodes],
                               graph.degrees()[shown.nodes], groups=pick(groups),
                               group_names=group_names, values=pick(values), value_title=value_title,
                               highlight=highlight, seed=seed,
                               labels=None if named is None else [local[v] for v in named if v in local])
    parts.chart(st, fig, key="graph_network")
    if not shown.complete:
        st.caption(f"Nodes drawn: the {len(shown.nodes):,} of highest degree among {graph.num_nodes:,} "
                   "(the hubs and the links among them); the searched node is ringed when it is "
                   "among them, and the Gossip page shows any node's neighborhood.")
    parts.edges_drawn_caption(len(shown.src))
    st.caption("Node size: degree. Hover a node for its name; scroll to zoom, drag to pan.")


def physics(ex: Explorer, colour: str, colouring: tuple, found_id: int | None, seed: int) -> None:
    """The pyvis view (the searched node's neighborhood on large graphs) and its download."""
    graph = ex.graph
    groups, group_names, _, _ = colouring
    page, shown = cache.pyvis_page(ex.graph_fp, colour, seed, found_id, ex.pair, graph, groups, group_names)
    if shown < graph.num_nodes:
        st.caption(f"{graph.num_nodes:,} nodes are too many for a physics view: showing the searched "
                   f"node (or node 0) with its {shown - 1} highest-degree neighbors.")
    st.iframe(page, height=600)
    st.download_button("Download this view (HTML)", page, file_name="goat-physics-view.html",
                       mime="text/html", key="pyvis_download", on_click="ignore",
                       icon=":material/download:",
                       help="One self-contained page (vis-network inlined): opens in any browser, "
                            "offline, with its physics, colours and tooltips")


def degrees(ex: Explorer) -> None:
    graph = ex.graph
    parts.chart(st, views.degree_histogram(graph.degrees(), log_y=graph.num_nodes > 200), key="graph_degree")
