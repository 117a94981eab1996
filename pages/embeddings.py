"""4 · Embeddings: projections of global and mean context embeddings, and one node's personas."""

import pandas as pd
import streamlit as st

from goat_core import presets, spread, views
from ui import cache, jobs, parts, state
from ui.parts import md

CHART, PERSONA_CHART, SPREAD_CHART = "emb_scatter", "persona_scatter", "spread_scatter"
SPREAD_ROWS = 25
KINDS = {"context": "GOAT: mean context representation", "global": "Global embedding E"}
METHODS = {"pca": "PCA (instant)", "umap": "UMAP (in the background; cached)"}

ex = state.get()
run = parts.require_run(ex)
goat, graph = run.goat, ex.graph
names = list(ex.names)
if graph.num_nodes < 3:
    st.info("A projection needs at least 3 nodes: this graph has fewer.")
    parts.stop(ex)


def clicked(prefix: str) -> list[int]:
    nodes = state.selected_nodes(st.session_state.get(state.chart_key(ex, prefix)))
    if nodes:
        ex.click_round += 1
    return nodes


for node in clicked(CHART)[:1]:  # a click on a point puts that node in the gossip pair
    slot = st.session_state.get("emb_slot", "source")
    s, t = ex.pair
    ok = state.set_pair(ex, node, t) if slot == "source" else state.set_pair(ex, s, node)
    ex.message = (("success", f"{names[node]} is now the {slot} of the gossip pair.") if ok else
                  ("warning", f"{names[node]} is already the other node of the pair."))
for node in clicked(SPREAD_CHART)[:1]:  # a node of the spread chart: show its personas
    st.session_state["persona_node"] = node
for partner in clicked(PERSONA_CHART)[:1]:  # a persona point: (node, that partner) becomes the pair
    node = st.session_state.get("persona_node", ex.pair[0])
    if state.set_pair(ex, node, partner):
        ex.message = ("success", f"Gossip pair set to {names[node]} ↔ {names[partner]}.")

st.title("Embeddings")
parts.show_message(ex)
seed = state.seed()
large = graph.num_edges > presets.LARGE_GRAPH_EDGES
# The mean context representation needs one attention per edge end (2M at 1M edges, about half
# a minute here): large graphs open on the global embedding, which is instant.
for key, options in (("emb_kind", KINDS), ("emb_method", METHODS)):  # e.g. a link's unknown choice
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]
st.session_state.setdefault("emb_kind", "global" if large else "context")
c = st.columns(4)
kind = c[0].radio("Embedding", list(KINDS), format_func=KINDS.get, key="emb_kind",
                  help=f"On graphs over {presets.LARGE_GRAPH_EDGES:,} edges the page opens on E: the mean "
                       "context representation needs one attention per edge end.")
method = c[1].radio("Projection", list(METHODS), format_func=METHODS.get, key="emb_method")
modes = cache.colour_modes(graph, with_kmeans=True, run=run)
if st.session_state.get("emb_colour") not in modes:
    st.session_state.pop("emb_colour", None)
colour = c[2].selectbox("Colour by", modes, key="emb_colour",
                        help="k-means runs on the embedding itself (k = number of labels, else 8); context "
                             "spread: see the section at the end of the page.")
c[3].radio("A click on a point sets the pair's", ["source", "target"], key="emb_slot")

with st.spinner(f"Mean context representations: {2 * graph.num_edges:,} attentions (cached after the "
                "first time)…" if kind == "context" and large else "Embeddings…"):
    emb = cache.embeddings(run.key, kind, goat)
groups, group_names, values, value_title = cache.colouring(ex, colour, seed, embedding=emb,
                                                           run_key=f"{run.key}|{kind}")
s, t = ex.pair


def scatter(coords, shown: str):
    """The scatter of ``coords``; ``shown`` names the projection (e.g. "PCA (while UMAP runs)")."""
    return views.embedding_scatter(coords, names, groups=groups, group_names=group_names, values=values,
                                   value_title=value_title, highlight={s: "source", t: "target"},
                                   title=f"{KINDS[kind]} · {shown} · seed {seed}", seed=seed)


def projected(key: str, method: str, points) -> tuple:
    """(coordinates, the method they come from): the projection from the cache or computed now;
    a UMAP not cached yet runs in the background (its progress above the chart) while the page shows
    the PCA, which takes milliseconds, and everything after it."""
    coords = cache.cached_projection(key, method, seed)
    if coords is not None or method != "umap":
        return (coords if coords is not None else cache.projection(key, method, seed, points)), method.upper()
    job = jobs.umap(key, seed, points)
    if job.ok:
        return job.result, method.upper()
    if job.done.is_set():
        jobs.show_error(job)
    else:
        jobs.follow(job)
    return cache.projection(key, "pca", seed, points), "PCA (while UMAP runs)"


coords, shown = projected(f"{run.key}|{kind}", method, emb)
parts.chart(st, scatter(coords, shown), key=state.chart_key(ex, CHART), on_select="rerun",
                selection_mode="points")
st.caption("Mean context representation: the average of r_u over u's gossip partners (its neighbors). "
           "Hover for names; click a point to put that node in the gossip pair.")
if graph.num_nodes > views.MAX_SCATTER_POINTS:
    st.caption(f"Points drawn: a seeded sample of {views.MAX_SCATTER_POINTS:,} of {graph.num_nodes:,} nodes "
               "(the pair always); the projection and the CSV below cover every node.")


def embeddings_csv() -> str:
    """Built only when the button is clicked: at 200k nodes the CSV takes seconds."""
    frame = pd.DataFrame(emb, columns=[f"e{j}" for j in range(emb.shape[1])])
    frame.insert(0, "y", coords[:, 1])
    frame.insert(0, "x", coords[:, 0])
    frame.insert(0, "degree", graph.degrees())
    if graph.labels is not None:
        frame.insert(0, "label", [graph.labels.classes[c] if c >= 0 else "" for c in graph.labels.codes])
    frame.insert(0, "node", names)
    return frame.to_csv(index=False)


st.download_button("Download embeddings (CSV)", embeddings_csv, file_name=f"embeddings-{kind}.csv",
                   mime="text/csv", key="emb_csv", on_click="ignore")

st.header("Personas")
st.markdown("GOAT gives a node **one representation per gossip partner**. Here are all of them for one node, "
            "projected together and coloured by the partner's group: a node that belongs to several "
            "contexts splits into several clouds.")
if st.session_state.get("persona_node") not in range(graph.num_nodes):
    st.session_state["persona_node"] = s
c = st.columns(3)
node = c[0].selectbox("Node", range(graph.num_nodes), format_func=lambda i: names[i], key="persona_node")
everyone = c[1].radio("Partners", ["neighbors", "every node"], key="persona_partners") == "every node"
p_method = c[2].radio("Projection", list(METHODS), format_func=METHODS.get, key="persona_method")
partner_ids, reps = cache.personas(run.key, node, everyone, goat)
if len(partner_ids) < 3:
    st.info(f"{md(names[node])} has {len(partner_ids)} gossip partner(s): too few to project. "
            "Choose 'every node' as partners, or another node.")
else:
    p_coords, _ = projected(f"{run.key}|personas|{node}|{everyone}", p_method, reps)
    p_mode = "labels" if graph.labels is not None else "communities"
    p_groups, p_names, _, _ = cache.colouring(ex, p_mode, seed)
    other = t if node == s else (s if node == t else None)
    fig = views.persona_scatter(p_coords, partner_ids, names, node=names[node], groups=p_groups,
                                group_names=p_names,
                                highlight={other: "partner A"} if other is not None else None)
    parts.chart(st, fig, key=state.chart_key(ex, PERSONA_CHART), on_select="rerun", selection_mode="points")
    st.caption("Each point: the node's representation r while gossiping with that partner. Click one to make "
               "(node, partner) the gossip pair.")


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
ranked = [int(u) for u in found.ranking() if found.contexts[u] >= least][:SPREAD_ROWS]
table = pd.DataFrame([{"rank": k + 1, "node": names[u], "spread": float(found.spread[u]),
                       "personas": int(found.personas[u]), "degree": int(found.degree[u]),
                       "contexts": int(found.contexts[u])} for k, u in enumerate(ranked)])
left, right = st.columns([2, 3])
left.dataframe(table, hide_index=True, key="spread_table",
               column_config={"spread": st.column_config.NumberColumn(format="%.3f")})
parts.chart(right, views.spread_vs_degree(found.spread, found.degree, found.personas, names,
                                   highlight=node),
            key=state.chart_key(ex, SPREAD_CHART), on_select="rerun", selection_mode="points")
right.caption("Click a node to show its personas above. To colour the graph by spread, choose 'context "
              "spread' in Colour nodes by on the Graph page (or in Colour by here).")
