"""4 · Embeddings: projections of global and mean context embeddings, and one node's personas."""

import streamlit as st

from goat_core import presets, views
from goat_core.analysis import spread
from ui import cache, embeddings, parts, state
from ui.embeddings import KINDS, METHODS

SPREAD_ROWS = 25

ex = state.get()
run = parts.require_run(ex)
goat, graph = run.goat, ex.graph
if graph.num_nodes < 3:
    st.info("A projection needs at least 3 nodes: this graph has fewer.")
    parts.stop(ex)
embeddings.take_clicks(ex)  # before anything is drawn: the pair and the persona node as clicked

st.title("Embeddings")
parts.show_message(ex)
seed = state.seed()
large = graph.num_edges > presets.LARGE_GRAPH_EDGES
# The mean context representation needs one attention per edge end (2M at 1M edges, about half
# a minute here): large graphs open on the global embedding, which is instant.
for key, options in (("emb_kind", KINDS), ("emb_method", METHODS)):  # e.g. a link's unknown choice
    parts.valid_choice(key, options)
st.session_state.setdefault("emb_kind", "global" if large else "context")
c = st.columns(4)
kind = c[0].radio("Embedding", list(KINDS), format_func=KINDS.get, key="emb_kind",
                  help=f"On graphs over {presets.LARGE_GRAPH_EDGES:,} edges the page opens on E: the mean "
                       "context representation needs one attention per edge end.")
method = c[1].radio("Projection", list(METHODS), format_func=METHODS.get, key="emb_method")
modes = cache.colour_modes(graph, with_kmeans=True, run=run)
parts.valid_choice("emb_colour", modes, modes[0])  # set, not forgotten: see app_pages/graph.py
colour = c[2].selectbox("Colour by", modes, key="emb_colour",
                        help="k-means runs on the embedding itself (k = number of labels, else 8); context "
                             "spread: see the section at the end of the page.")
c[3].radio("A click on a point sets the pair's", ["source", "target"], key="emb_slot")

with st.spinner(f"Mean context representations: {2 * graph.num_edges:,} attentions (cached after the "
                "first time)…" if kind == "context" and large else "Embeddings…"):
    emb = cache.embeddings(run.key, kind, goat)
groups, group_names, values, value_title = cache.colouring(ex, colour, seed, embedding=emb,
                                                           run_key=f"{run.key}|{kind}")
coords, shown = embeddings.projected(f"{run.key}|{kind}", method, seed, emb)
s, t = ex.pair
fig = views.embedding_scatter(coords, list(ex.names), groups=groups, group_names=group_names, values=values,
                              value_title=value_title, highlight={s: "source", t: "target"},
                              title=f"{KINDS[kind]} · {shown} · seed {seed}", seed=seed)
parts.chart(st, fig, key=state.chart_key(ex, embeddings.CHART), on_select="rerun", selection_mode="points")
st.caption("Mean context representation: the average of r_u over u's gossip partners (its neighbors). "
           "Hover for names; click a point to put that node in the gossip pair.")
if graph.num_nodes > views.MAX_SCATTER_POINTS:
    st.caption(f"Points drawn: a seeded sample of {views.MAX_SCATTER_POINTS:,} of {graph.num_nodes:,} nodes "
               "(the pair always); the projection and the CSV below cover every node.")
st.download_button("Download embeddings (CSV)", lambda: embeddings.csv(graph, emb, coords),
                   file_name=f"embeddings-{kind}.csv", mime="text/csv", key="emb_csv", on_click="ignore")

st.header("Personas")
st.markdown("GOAT gives a node **one representation per gossip partner**. Here are all of them for one node, "
            "projected together and coloured by the partner's group: a node that belongs to several "
            "contexts splits into several clouds.")
node = embeddings.personas(ex, run)

st.header("Context spread")
st.markdown("How far apart are a node's representations for its different partners? **Spread** is the mean "
            "cosine distance between them (0 = one voice for everyone; at most "
            f"{spread.MAX_CONTEXTS} partners a node, a seeded sample), and **personas** how many clusters "
            "they form (2 to 4 clusters of at least 2 partners each, kept when their silhouette reaches "
            f"{spread.SILHOUETTE} and they lie {spread.SEPARATION} apart in cosine distance; else 1). A node "
            "bridging two communities talks differently to each.")
if not cache.spread_offered(graph, run):
    st.info("This run is GoatGlobal: one representation per node, so there is no spread to measure.")
    parts.stop(ex)
if large and st.session_state.get("spread_for") != run.key:  # minutes at a million edges: on request
    st.caption(f"Up to {spread.MAX_CONTEXTS} representations per node: "
               f"{min(2 * graph.num_edges, spread.MAX_CONTEXTS * graph.num_nodes):,} attentions at most.")
    if not st.button("Compute the context spread", key="spread_go"):
        parts.stop(ex)
    st.session_state["spread_for"] = run.key
with st.spinner("Context spread of every node (cached after the first time)…"):
    found = cache.context_spread(run.key, seed, goat)
top_degree = int(found.contexts.max())
if top_degree < 2:
    st.info("No node has two partners: there is no spread to measure.")
    parts.stop(ex)
least = st.slider("Rank the nodes with at least this many partners", 2, max(3, top_degree),
                  min(spread.MIN_CONTEXTS, top_degree), key="spread_min",
                  help="With the partner left out of its own message, a node of degree 2 answers each "
                       "partner through its other neighbor alone: its spread is just how different those two "
                       "are. Larger neighborhoods say more.")
left, right = st.columns([2, 3])
table = embeddings.spread_table(found, ex.names, least, SPREAD_ROWS)
left.dataframe(table, hide_index=True, key="spread_table",
               column_config={"spread": st.column_config.NumberColumn(format="%.3f")})
parts.chart(right, views.spread_vs_degree(found.spread, found.degree, found.personas, list(ex.names),
                                          highlight=node),
            key=state.chart_key(ex, embeddings.SPREAD_CHART), on_select="rerun", selection_mode="points")
right.caption("Click a node to show its personas above. To colour the graph by spread, choose 'context "
              "spread' in Colour nodes by on the Graph page (or in Colour by here).")
