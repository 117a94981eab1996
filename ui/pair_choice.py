"""Choosing the gossip pair on the Gossip & attend page: clicks on its charts, the pickers (or a
search on large graphs), swap and seeded random pairs, and the two charts to click in (the whole
graph, or the pair's sampled neighborhoods)."""

from __future__ import annotations

import streamlit as st

import goat_core
from goat_core import NodeIndex, views
from goat_core.analysis import picking

from . import cache, classroom, parts, state
from .parts import md
from .state import Explorer

CHART, EGO_CHART = "gossip_graph", "gossip_ego"
VIEWS = {"ego": "Around the pair", "whole": "The whole graph"}
WHOLE_GRAPH_NODES = 2000  # above this the whole graph is a hairball to click in: the pair's view only
DEFAULT_WHOLE_NODES = 300  # up to this the page opens on the whole graph


def take_clicks(ex: Explorer) -> None:
    """Clicks on the graph charts, read before anything is drawn (the pickers then show the new
    pair), and the pickers set to the pair."""
    state.take_chart_clicks(ex, CHART)
    state.take_partner_click(ex, EGO_CHART)


def sync_pickers(ex: Explorer) -> None:
    for key, value in zip(state.PAIR_WIDGETS, parts.pair_names(ex), strict=True):
        if st.session_state.get(key) != value:
            st.session_state[key] = value


def picked(ex: Explorer) -> None:
    index = {name: i for i, name in enumerate(ex.names)}
    s, t = index[st.session_state["pair_source"]], index[st.session_state["pair_target"]]
    if not state.set_pair(ex, s, t):
        ex.message = ("warning", "A node cannot gossip with itself: pick two different nodes.")


def found_as(ex: Explorer, slot: str) -> None:
    node = st.session_state.get("pair_found")
    if node is None:
        ex.message = ("warning", "Search a node first.")
        return
    s, t = ex.pair
    ok = state.set_pair(ex, node, t) if slot == "source" else state.set_pair(ex, s, node)
    if not ok:
        ex.message = ("warning", f"{ex.names[node]} is already the other node of the pair.")


def swap(ex: Explorer) -> None:
    state.set_pair(ex, ex.pair[1], ex.pair[0])


def random_pair(ex: Explorer, edge: bool) -> None:
    ex.draws += 1
    try:
        state.set_pair(ex, *picking.random_pair(ex.graph, state.seed(), ex.draws, edge=edge))
    except goat_core.GoatError as err:  # e.g. a complete graph has no non-edge
        ex.message = ("warning", str(err))


def pair_buttons(ex: Explorer) -> None:
    with st.container(horizontal=True):
        st.button("Swap", key="pair_swap", on_click=swap, args=(ex,), icon=":material/swap_horiz:")
        st.button("Random edge", key="pair_random_edge", on_click=random_pair, args=(ex, True),
                  icon=":material/shuffle:")
        st.button("Random non-edge", key="pair_random_non_edge", on_click=random_pair, args=(ex, False),
                  icon=":material/shuffle:")


def pickers(ex: Explorer) -> None:
    """Source and target lists that search as you type; above PICKER_NODES nodes, a search box."""
    if ex.graph.num_nodes <= parts.PICKER_NODES:
        c = st.columns([2, 2, 4], vertical_alignment="bottom")
        c[0].selectbox("Source s", ex.names, key="pair_source", on_change=picked, args=(ex,))
        c[1].selectbox("Target t", ex.names, key="pair_target", on_change=picked, args=(ex,))
        with c[2]:
            pair_buttons(ex)
        return
    c = st.columns([3, 3, 3], vertical_alignment="bottom")  # too many nodes to list: search by name or id
    with c[0]:
        parts.node_search(ex.graph, "pair_found", "Find a node by name or id")
    with c[1]:
        with st.container(horizontal=True):
            st.button("Make it s", key="pair_found_source", on_click=found_as, args=(ex, "source"))
            st.button("Make it t", key="pair_found_target", on_click=found_as, args=(ex, "target"))
    with c[2]:
        pair_buttons(ex)


def view_choice(ex: Explorer) -> str:
    """Which chart to choose the pair on: the whole graph (small graphs) or around the pair."""
    n = ex.graph.num_nodes
    offered = list(VIEWS) if n <= WHOLE_GRAPH_NODES else ["ego"]
    st.session_state.setdefault("gossip_view", "whole" if n <= DEFAULT_WHOLE_NODES else "ego")
    if st.session_state["gossip_view"] not in offered:
        st.session_state["gossip_view"] = "ego"
    return st.segmented_control("Choose the pair on", offered, format_func=VIEWS.get, key="gossip_view",
                                required=True)


def ego_view(ex: Explorer, att: goat_core.PairAttention) -> None:
    s, t = map(NodeIndex, ex.pair)
    st.markdown("Both sampled neighborhoods: **click a neighbor to make it the partner** (a neighbor of "
                f"{md(att.source)} gossips with {md(att.source)}, one of {md(att.target)} only with "
                f"{md(att.target)}); click s or t to swap them.")
    fig = views.ego_figure(att.source, att.target, att.source_neighbors, att.target_neighbors,
                           att.source_names, att.target_names, att.source_attention, att.target_attention,
                           source_id=s, target_id=t, placed_names=classroom.names_on())
    parts.chart(st, fig, key=state.chart_key(ex, EGO_CHART), on_select="rerun", selection_mode="points")
    st.caption("Left: s and its sampled neighbors; right: t and its; middle: neighbors of both (★). A "
               "neighbor's size and colour show its attention; a line's width, how much s (or t) attends "
               "to it.")


def whole_view(ex: Explorer) -> None:
    graph, seed = ex.graph, state.seed()
    s, t = map(NodeIndex, ex.pair)
    if ex.pending is not None:  # one line either way, so that the chart never jumps between clicks
        st.markdown(f":green[**First node: {md(ex.names[ex.pending])}.**] Now click its gossip partner.")
    else:
        st.markdown("Click a node, then its partner, to choose a new gossip pair.")
    highlight = {s: "source", t: "target"}
    if ex.pending is not None:
        highlight[ex.pending] = "pending"
    groups, group_names, values, value_title = cache.colouring(ex, group_mode(graph), seed)
    fig = views.network_figure(cache.layout(ex.graph_fp, seed, graph), graph.src, graph.dst, list(ex.names),
                               graph.degrees(), groups=groups, group_names=group_names, values=values,
                               value_title=value_title, highlight=highlight, seed=seed, height=520,
                               labels=classroom.key_nodes(graph, (s, t)))
    parts.chart(st, fig, key=state.chart_key(ex, CHART), on_select="rerun", selection_mode="points")
    parts.edges_drawn_caption(graph.num_edges)
    st.caption("Click one node, then another: they become the gossip pair (shift-click two nodes works "
               "too). Blue ring: source s; orange: target t; green: a first click waiting for its partner.")


def group_mode(graph: goat_core.Graph) -> str:
    """How the page colours nodes: the graph's labels, else its communities."""
    return "labels" if graph.labels is not None else "communities"
