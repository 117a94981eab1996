"""1 · Graph: pick a bundled graph or upload a graph file; look at it."""

import streamlit as st

import goat_core
from goat_core.analysis import picking
from ui import cache, graph_tabs, navigation, parts, state, upload
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
# a choice the graph no longer offers (labels, context spread once the run has gone) is set, not just
# forgotten: the browser keeps showing a forgotten value the widget no longer offers
parts.valid_choice("graph_colour", modes, modes[0])
c1, c2 = st.columns([1, 2])
colour = c1.selectbox("Colour nodes by", modes, key="graph_colour",
                      help="labels: the graph's ground truth (Les Misérables: greedy-modularity communities; "
                           "Email: departments) · communities: Leiden (seeded) · degree · context spread "
                           "(with a run): how far apart a node's representations for its partners are")
with c2:
    found_id = parts.node_search(graph, "graph_search", "Search a node by name or id")

colouring = cache.colouring(ex, colour, seed)

# Tabs draw only when open: the physics view alone is ~700 KB of page and a simulation.
parts.valid_choice("graph_tabs", graph_tabs.TABS)  # e.g. a link's unknown tab
tab_net, tab_physics, tab_degree = st.tabs(list(graph_tabs.TABS), key="graph_tabs", on_change="rerun")
if tab_net.open:
    with tab_net:
        graph_tabs.network(ex, colouring, found_id, seed)
if tab_physics.open:
    with tab_physics:
        graph_tabs.physics(ex, colour, colouring, found_id, seed)
if tab_degree.open:
    with tab_degree:
        graph_tabs.degrees(ex)
if found_id is not None:
    nbrs = picking.neighbors(graph, found_id)
    st.markdown(f"**{md(graph.names[found_id])}**: degree {len(nbrs)}; neighbors: "
                + md(", ".join(graph.names[i] for i in nbrs[:60])) + (" …" if len(nbrs) > 60 else ""))

st.page_link(navigation.TRAIN_PAGE, label="Next: train GOAT on this graph", icon=":material/arrow_forward:")
