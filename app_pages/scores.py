"""5 · Scores: clustering against labels, and link prediction on held-out edges."""

import pandas as pd
import streamlit as st

from goat_core import views
from goat_core.analysis.evaluation import clustering_problem
from ui import cache, jobs, leak_audit, navigation, parts, ranking_table, scores, side_by_side, state

NUMBER = st.column_config.NumberColumn(format="%.3f")

ex = state.get()
run = parts.require_run(ex)
graph = ex.graph
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
    results = scores.clustering(run, labels, seed)
    table = pd.DataFrame([{"embedding": k, "NMI": r["nmi"], "AMI": r["ami"], "k": r["k"],
                           "labelled nodes": r["labelled_nodes"]} for k, r in results.items()])
    a, b = st.columns([2, 3])
    a.dataframe(table, hide_index=True, key="scores_table", column_config={"NMI": NUMBER, "AMI": NUMBER})
    parts.chart(a, views.clustering_bars(results), key="scores_bars")
    parts.valid_choice("scores_contingency", list(results))  # e.g. a link's unknown embedding
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
    lp = cache.link_prediction(run.key, run.goat, run.split)
    st.caption(f"{lp['test_edges']} held-out edges vs as many verified non-edges; the model trained on the "
               f"other {lp['train_edges']} edges. GOAT scores a pair with its context-sensitive r_s·r_t; "
               "'global' scores it with the same model's global embeddings E_s·E_t.")
    m = st.columns(4)
    m[0].metric("AUC (GOAT)", f"{lp['auc']:.3f}")
    m[1].metric("AP (GOAT)", f"{lp['ap']:.3f}")
    m[2].metric("AUC (global E)", f"{lp['global_auc']:.3f}")
    m[3].metric("AP (global E)", f"{lp['global_ap']:.3f}")
    # DeepWalk and node2vec: in the background (the rest of the page does not wait), unasked up to
    # WALKS_UNASKED nodes (seconds), on request above; they join the table and the curves when done.
    walks = scores.walks_unasked(run) or st.toggle(
        "Add DeepWalk and node2vec (a skip-gram over random walks: a minute or more on this graph)",
        key="scores_walks")
    found = scores.link_scores(run, lp, walks)
    st.dataframe(pd.DataFrame(found.rows()), hide_index=True, key="scores_lp_table",
                 column_config={"AUC": NUMBER, "AP": NUMBER})
    if found.walking is not None and not found.walking.done.is_set():
        jobs.follow(found.walking)  # they join the table and the curves when done
    elif found.walking is not None and found.walking.error is not None:
        jobs.show_error(found.walking)
    st.caption("The heuristics score the same held-out pairs from the training edges alone, with no "
               "learning: common neighbors |N(s) ∩ N(t)|, Adamic-Adar Σ 1/log D(z) over them, preferential "
               "attachment D(s)·D(t). A model worth its training beats them. " + found.note())
    a, b = st.columns(2)
    aucs, aps = {k: c[2] for k, c in found.curves.items()}, {k: c[3] for k, c in found.curves.items()}
    parts.chart(a, views.roc_figure({k: c[0] for k, c in found.curves.items()}, aucs), key="scores_roc")
    parts.chart(b, views.pr_figure({k: c[1] for k, c in found.curves.items()}, aps), key="scores_pr")
    ranking_table.section(run, found.walked)  # MRR and Hits@K on the same negatives for every method

# Further sections on the scores go here, one ui call each, before the runs side by side.
leak_audit.section(ex, run)  # "Evaluate as the paper did": a background job, started by a button
side_by_side.section(ex, run)  # its own block: variants trained on this run's split, edge by edge
