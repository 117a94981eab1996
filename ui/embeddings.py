"""The Embeddings page's pieces: clicks on its three charts, projections that do not hold the page
(a UMAP not cached yet runs in the background while the PCA stands in), the CSV, the Personas
section and the context-spread ranking."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import goat_core
from goat_core import views
from goat_core.analysis import spread

from . import cache, jobs, parts, state
from .parts import md
from .runs import RunRecord
from .state import Explorer

CHART, PERSONA_CHART, SPREAD_CHART = "emb_scatter", "persona_scatter", "spread_scatter"
KINDS = {"context": "GOAT: mean context representation", "global": "Global embedding E"}
METHODS = {"pca": "PCA (instant)", "umap": "UMAP (in the background; cached)"}


def clicked(ex: Explorer, prefix: str) -> list[int]:
    nodes = state.selected_nodes(st.session_state.get(state.chart_key(ex, prefix)))
    if nodes:
        ex.click_round += 1
    return nodes


def take_clicks(ex: Explorer) -> None:
    """Read the charts' clicks before anything is drawn: a point of the scatter puts that node in the
    gossip pair, a node of the spread chart shows its personas, a persona makes (node, partner) the pair."""
    names = ex.names
    for node in clicked(ex, CHART)[:1]:
        slot = st.session_state.get("emb_slot", "source")
        s, t = ex.pair
        ok = state.set_pair(ex, node, t) if slot == "source" else state.set_pair(ex, s, node)
        ex.message = (("success", f"{names[node]} is now the {slot} of the gossip pair.") if ok else
                      ("warning", f"{names[node]} is already the other node of the pair."))
    for node in clicked(ex, SPREAD_CHART)[:1]:
        st.session_state["persona_node"] = node
    for partner in clicked(ex, PERSONA_CHART)[:1]:
        node = st.session_state.get("persona_node", ex.pair[0])
        if state.set_pair(ex, node, partner):
            ex.message = ("success", f"Gossip pair set to {names[node]} ↔ {names[partner]}.")


def projected(key: str, method: str, seed: int, points: np.ndarray) -> tuple[np.ndarray, str]:
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


def csv(graph: goat_core.Graph, emb: np.ndarray, coords: np.ndarray) -> str:
    """Every node's name, label, degree, 2-D position and embedding. Made on a click: at 200k nodes
    the CSV takes seconds."""
    frame = pd.DataFrame(emb, columns=[f"e{j}" for j in range(emb.shape[1])])
    frame.insert(0, "y", coords[:, 1])
    frame.insert(0, "x", coords[:, 0])
    frame.insert(0, "degree", graph.degrees())
    if graph.labels is not None:
        frame.insert(0, "label", [graph.labels.classes[c] if c >= 0 else "" for c in graph.labels.codes])
    frame.insert(0, "node", list(graph.names))
    return frame.to_csv(index=False)


def personas(ex: Explorer, run: RunRecord) -> int:
    """One node's representations, one per gossip partner, projected together; a click on one makes
    (node, partner) the pair. Returns the node."""
    graph, names, seed = ex.graph, list(ex.names), state.seed()
    s, t = ex.pair
    parts.valid_choice("persona_node", range(graph.num_nodes), s)
    c = st.columns(3)
    node = c[0].selectbox("Node", range(graph.num_nodes), format_func=lambda i: names[i], key="persona_node")
    everyone = c[1].radio("Partners", ["neighbors", "every node"], key="persona_partners") == "every node"
    method = c[2].radio("Projection", list(METHODS), format_func=METHODS.get, key="persona_method")
    partner_ids, reps = cache.personas(run.key, node, everyone, run.goat)
    if len(partner_ids) < 3:
        st.info(f"{md(names[node])} has {len(partner_ids)} gossip partner(s): too few to project. "
                "Choose 'every node' as partners, or another node.")
        return node
    coords, _ = projected(f"{run.key}|personas|{node}|{everyone}", method, seed, reps)
    groups, group_names, _, _ = cache.colouring(ex, "labels" if graph.labels is not None else "communities",
                                                seed)
    other = t if node == s else (s if node == t else None)
    fig = views.persona_scatter(coords, partner_ids, names, node=names[node], groups=groups,
                                group_names=group_names,
                                highlight={other: "partner A"} if other is not None else None)
    parts.chart(st, fig, key=state.chart_key(ex, PERSONA_CHART), on_select="rerun", selection_mode="points")
    st.caption("Each point: the node's representation r while gossiping with that partner. Click one to make "
               "(node, partner) the gossip pair.")
    return node


def spread_table(found: spread.ContextSpread, names, least: int, rows: int) -> pd.DataFrame:
    """The ``rows`` nodes of largest spread among those with at least ``least`` partners."""
    ranked = [int(u) for u in found.ranking() if found.contexts[u] >= least][:rows]
    return pd.DataFrame([{"rank": k + 1, "node": names[u], "spread": float(found.spread[u]),
                          "personas": int(found.personas[u]), "degree": int(found.degree[u]),
                          "contexts": int(found.contexts[u])} for k, u in enumerate(ranked)])
