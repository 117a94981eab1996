"""5 · Scores: clustering against labels, and link prediction on held-out edges."""

import pandas as pd
import streamlit as st

from goat_core import views
from goat_core.baselines import HEURISTICS
from goat_core.evaluation import clustering_problem
from goat_core.node2vec import WALK_METHODS, walk_note
from ui import cache, jobs, navigation, parts, side_by_side, state

KINDS = {"context": "GOAT context (mean r_u)", "global": "Global E"}
WALKS_UNASKED = 2_500  # nodes; DeepWalk and node2vec take 10-20 s of CPU on Email's 1,005

ex = state.get()
run = parts.require_run(ex)
goat, graph = run.goat, ex.graph
seed = state.seed()

st.title("Scores")
st.header("Clustering against labels")
labels = graph.labels
if labels is None or not (labels.codes >= 0).any():
    st.info("This graph has no labels: upload a labels file with the edge list on the Graph page to score "
            "clusterings.")
elif problem := clustering_problem(labels):  # e.g. one class: NMI = AMI = 1 whatever the clustering
    st.info(parts.md(problem))
else:
    st.caption(f"k-means (k = {len(set(labels.codes[labels.codes >= 0].tolist()))}, seed {seed}) on each "
               f"embedding, compared with the labels ({parts.md(labels.source)}) by NMI and AMI. "
               "AMI corrects for chance: 0 = no better than random clusters.")
    results = {}
    for kind, title in KINDS.items():
        emb = cache.embeddings(run.key, kind, goat)
        results[title] = cache.clustering(f"{run.key}|{kind}", kind, seed, emb, labels)
    table = pd.DataFrame([{"embedding": k, "NMI": r["nmi"], "AMI": r["ami"], "k": r["k"],
                           "labelled nodes": r["labelled_nodes"]} for k, r in results.items()])
    a, b = st.columns([2, 3])
    a.dataframe(table, hide_index=True, key="scores_table",
                column_config={"NMI": st.column_config.NumberColumn(format="%.3f"),
                               "AMI": st.column_config.NumberColumn(format="%.3f")})
    parts.chart(a, views.clustering_bars({k: r for k, r in results.items()}), key="scores_bars")
    which = b.radio("Contingency table of", list(results), horizontal=True, key="scores_contingency")
    heatmap = views.contingency_heatmap(results[which]["contingency"], labels.classes,
                                        title=f"Labels × k-means clusters ({which})")
    parts.chart(b, heatmap, key="scores_heatmap")

st.header("Link prediction on held-out edges")
if run.split is None:
    st.info("This run was trained on every edge, so there is nothing held out to test on. Train again with "
            "'Hold out for validation' above 0 to get AUC, AP and their curves.")
    st.page_link(navigation.TRAIN_PAGE, label="Go to Train", icon=":material/model_training:")
else:
    lp = cache.link_prediction(run.key, goat, run.split)
    st.caption(f"{lp['test_edges']} held-out edges vs as many verified non-edges; the model trained on the "
               f"other {lp['train_edges']} edges. GOAT scores a pair with its context-sensitive r_s·r_t; "
               "'global' scores it with the same model's global embeddings E_s·E_t.")
    m = st.columns(4)
    m[0].metric("AUC (GOAT)", f"{lp['auc']:.3f}")
    m[1].metric("AP (GOAT)", f"{lp['ap']:.3f}")
    m[2].metric("AUC (global E)", f"{lp['global_auc']:.3f}")
    m[3].metric("AP (global E)", f"{lp['global_ap']:.3f}")
    found = cache.heuristics(run.key, run.split)
    curves = {"GOAT": (lp["roc"][:2], lp["pr"][:2], lp["auc"], lp["ap"]),
              "global E": (lp["global_roc"][:2], lp["global_pr"][:2], lp["global_auc"], lp["global_ap"])}
    curves.update({HEURISTICS[name]: (r["roc"], r["pr"], r["auc"], r["ap"]) for name, r in found.items()})
    # DeepWalk and node2vec: in the background (the rest of the page does not wait), unasked up to
    # WALKS_UNASKED nodes (seconds), on request above; they join the table and the curves when done.
    walked: dict = {}
    walking = None
    if run.split.train.num_nodes <= WALKS_UNASKED or st.toggle(
            "Add DeepWalk and node2vec (a skip-gram over random walks: a minute or more on this graph)",
            key="scores_walks"):
        walking = jobs.walk_baselines(run.key, run.split)
        walked = walking.result if walking.ok else {}
    curves.update({WALK_METHODS[name]: (r["roc"], r["pr"], r["auc"], r["ap"]) for name, r in walked.items()})
    st.dataframe(pd.DataFrame([{"method": name, "AUC": c[2], "AP": c[3]} for name, c in curves.items()]),
                 hide_index=True, key="scores_lp_table",
                 column_config={"AUC": st.column_config.NumberColumn(format="%.3f"),
                                "AP": st.column_config.NumberColumn(format="%.3f")})
    if walking is not None and not walking.done.is_set():
        jobs.follow(walking)  # they join the table and the curves when done
    elif walking is not None and walking.error is not None:
        jobs.show_error(walking)
    st.caption("The heuristics score the same held-out pairs from the training edges alone, with no "
               "learning: common neighbors |N(s) ∩ N(t)|, Adamic-Adar Σ 1/log D(z) over them, preferential "
               "attachment D(s)·D(t). A model worth its training beats them. " + walk_note(walked))
    a, b = st.columns(2)
    aucs, aps = {k: c[2] for k, c in curves.items()}, {k: c[3] for k, c in curves.items()}
    parts.chart(a, views.roc_figure({k: c[0] for k, c in curves.items()}, aucs), key="scores_roc")
    parts.chart(b, views.pr_figure({k: c[1] for k, c in curves.items()}, aps), key="scores_pr")

side_by_side.section(ex, run)  # its own block: variants trained on this run's split, edge by edge
