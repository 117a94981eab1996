"""1 · Graph: pick a bundled graph or upload a graph file; look at it."""

import numpy as np
import streamlit as st

import goat_core
from goat_core import explore, views
from ui import cache, classroom, navigation, parts, state, upload
from ui.parts import md

SOURCES = {"lesmis": "Les Misérables (bundled)", "email": "Email (bundled)", "upload": "Upload a graph file"}

ex = state.get()


def load_bundled() -> None:
    choice = st.session_state["graph_source"]
    if choice == "upload" or choice == ex.graph_key:
        return
    try:
        state.set_graph(ex, cache.bundled_graph(choice), choice)
    except goat_core.GraphFormatError as err:
        ex.message = ("error", str(err))
        st.session_state["graph_source"] = ex.graph_key if ex.bundled else "upload"


st.title("Graph")
parts.show_message(ex)
if "graph_source" not in st.session_state:
    st.session_state["graph_source"] = ex.graph_key if ex.bundled else "upload"
st.radio("Graph", list(SOURCES), format_func=SOURCES.get, key="graph_source", horizontal=True,
         on_change=load_bundled)

if st.session_state["graph_source"] == "upload":
    upload.section(ex)

graph = ex.graph
summary = graph.summary()
st.subheader(md(parts.graph_title(ex)))
cols = st.columns(6)
cols[0].metric("Nodes", f"{summary['nodes']:,}")
cols[1].metric("Edges", f"{summary['edges']:,}")
cols[2].metric("Components", f"{summary['components']:,}")
cols[3].metric("Isolated nodes", f"{summary['isolated_nodes']:,}")
cols[4].metric("Mean degree", f"{summary['mean_degree']:.2f}")
cols[5].metric("Max degree", f"{summary['max_degree']:,}")
kind = ("directed" if graph.directed else "undirected") + (", weighted" if graph.weighted else ", unweighted")
notes = [kind] + summary["notes"] + (graph.labels.notes() if graph.labels is not None else ["no labels"])
st.caption(md(" · ".join(notes)))
upload.account(ex)

seed = state.seed()
modes = cache.colour_modes(graph, run=ex.run)
if st.session_state.get("graph_colour") not in modes:  # e.g. context spread, once the run has gone
    st.session_state.pop("graph_colour", None)
c1, c2 = st.columns([1, 2])
colour = c1.selectbox("Colour nodes by", modes, key="graph_colour",
                      help="labels: the graph's ground truth (Les Misérables: greedy-modularity communities; "
                           "Email: departments) · communities: Leiden (seeded) · degree · context spread "
                           "(with a run): how far apart a node's representations for its partners are")
with c2:
    found_id = parts.node_search(graph, "graph_search", "Search a node by name or id")
groups, group_names, values, value_title = cache.colouring(ex, colour, seed)

# Tabs draw only when open: the physics view alone is ~700 KB of page and a simulation.
tab_net, tab_physics, tab_degree = st.tabs(["Network", "Physics view (pyvis)", "Degree distribution"],
                                           key="graph_tabs", on_change="rerun")
if tab_net.open:
    with tab_net:
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
if tab_physics.open:
    with tab_physics:
        page, shown = cache.pyvis_page(ex.graph_fp, colour, seed, found_id, ex.pair, graph, groups,
                                       group_names)
        if shown < graph.num_nodes:
            st.caption(f"{graph.num_nodes:,} nodes are too many for a physics view: showing the searched "
                       f"node (or node 0) with its {shown - 1} highest-degree neighbors.")
        st.iframe(page, height=600)
        st.download_button("Download this view (HTML)", page, file_name="goat-physics-view.html",
                           mime="text/html", key="pyvis_download", on_click="ignore",
                           icon=":material/download:",
                           help="One self-contained page (vis-network inlined): opens in any browser, "
                                "offline, with its physics, colours and tooltips")
if tab_degree.open:
    with tab_degree:
        parts.chart(st, views.degree_histogram(graph.degrees(), log_y=graph.num_nodes > 200),
                        key="graph_degree")
if found_id is not None:
    nbrs = explore.neighbors(graph, found_id)
    st.markdown(f"**{md(graph.names[found_id])}**: degree {len(nbrs)}; neighbors: "
                + md(", ".join(graph.names[i] for i in nbrs[:60])) + (" …" if len(nbrs) > 60 else ""))

st.page_link(navigation.TRAIN_PAGE, label="Next: train GOAT on this graph", icon=":material/arrow_forward:")
