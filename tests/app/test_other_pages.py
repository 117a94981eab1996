"""Embeddings, Scores and Case study pages; the URL and session isolation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from goat_core.analysis import picking
from ui import cache, navigation, state

from .conftest import APP, click_nodes, explorer, goto, new_app, texts, train, wait_for_jobs
from .test_graph_page import GOOD_EDGES, upload

MARIUS, THENARDIER, GAVROCHE, COSETTE = 55, 25, 48, 26


def test_embeddings_pca_colours_and_csv(app, downloads):
    train(app)
    goto(app, "embeddings")
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    ids = sorted(c[0] for t in spec["data"][:-2] for c in t["customdata"])
    assert ids == list(range(77))
    for colour in ("k-means", "degree", "communities"):
        app.selectbox(key="emb_colour").set_value(colour).run()
        assert not app.exception
    app.radio(key="emb_kind").set_value("global").run()
    rows = downloads["embeddings-global.csv"].decode().splitlines()
    assert rows[0].startswith("node,label,degree,x,y,e0,") and len(rows) == 78
    assert rows[1 + MARIUS].startswith("Marius,")


def chart_titles(at) -> list[str]:
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return [(spec["layout"].get("title") or {}).get("text", "") for spec in specs]


def test_embeddings_umap_fills_in_from_the_background_and_is_cached_for_every_session(app):
    train(app)
    goto(app, "embeddings")
    app.radio(key="emb_method").set_value("umap").run()
    assert not app.exception
    # The page does not wait: the PCA stands in while UMAP runs, and the rest of the page is there.
    assert any("while UMAP runs" in title for title in chart_titles(app))
    assert "Context spread" in texts(app.header)
    wait_for_jobs(app)
    titles = chart_titles(app)
    assert any("UMAP" in title for title in titles)
    assert not any("while UMAP runs" in title for title in titles)  # preview gone
    run = explorer(app).run
    coords = cache.cached_projection(f"{run.key}|context", "umap", 0)
    assert coords is not None and coords.shape == (77, 2)
    other = new_app()  # another session with the same run finds the projection in the shared store
    train(other)
    goto(other, "embeddings")
    other.radio(key="emb_method").set_value("umap").run()
    assert not other.get("progress") and not other.exception


def test_embeddings_click_puts_node_in_the_pair(app):
    train(app)
    goto(app, "embeddings")
    app.radio(key="emb_slot").set_value("target").run()
    click_nodes(app, "emb_scatter", GAVROCHE)
    assert explorer(app).pair == (MARIUS, GAVROCHE)
    assert any("Gavroche is now the target" in s for s in texts(app.success))


def test_personas_of_a_node_and_click(app):
    train(app)
    goto(app, "embeddings")
    key = f"persona_scatter_{explorer(app).click_round}"
    spec = json.loads(next(c for c in app.get("plotly_chart") if c.proto.id.endswith(key)).proto.spec)
    partners = {c[0] for t in spec["data"] if t.get("hoverinfo") == "text" for c in t["customdata"]}
    trained_on = explorer(app).run.goat.graph_
    assert partners == set(picking.neighbors(trained_on, MARIUS).tolist())  # one point per partner
    click_nodes(app, "persona_scatter", COSETTE)
    assert explorer(app).pair == (MARIUS, COSETTE)


def test_scores_clustering_and_link_prediction(app):
    train(app)
    goto(app, "scores")
    labels = [m.label for m in app.metric]
    assert labels == ["AUC (GOAT)", "AP (GOAT)", "AUC (global E)", "AP (global E)"]
    assert all(0.0 <= float(m.value) <= 1.0 for m in app.metric)
    table = app.dataframe[0].value
    assert list(table["embedding"]) == ["GOAT context (mean r_u)", "Global E"]
    assert np.all((table["NMI"] >= 0) & (table["NMI"] <= 1))
    app.radio(key="scores_contingency").set_value("Global E").run()
    assert not app.exception
    # GOAT and the heuristics at once; DeepWalk and node2vec fill in from the background
    methods = ["GOAT", "global E", "common neighbors", "Adamic-Adar", "preferential attachment"]
    assert list(app.dataframe[1].value["method"]) in (methods, methods + ["DeepWalk", "node2vec"])
    wait_for_jobs(app)
    lp = app.dataframe[1].value  # GOAT beside heuristics and walk embeddings, on the same held-out edges
    assert list(lp["method"]) == methods + ["DeepWalk", "node2vec"]
    assert lp["AUC"].between(0, 1).all() and lp["AP"].between(0, 1).all()
    assert lp["AUC"].nunique() > 1  # each method scored on its own
    assert any("DeepWalk and node2vec embed the training graph" in c.value for c in app.caption)
    roc = json.loads(next(c for c in app.get("plotly_chart") if c.proto.id.endswith("scores_roc")).proto.spec)
    assert len(roc["data"]) == 8  # chance + seven methods


def test_scores_walk_embeddings_wait_for_the_toggle_on_a_large_graph(app):
    from .test_uploads_at_scale import edge_list

    upload(app, edge_list(3_000, 2), name="ba3000.txt")
    train(app, epochs=1, dim=8, neighborhood=10, batch_size=512)
    goto(app, "scores")
    assert "DeepWalk" not in list(app.dataframe[0].value["method"])  # 3,000 nodes: not unasked
    app.toggle(key="scores_walks").set_value(True).run()
    assert not app.exception
    wait_for_jobs(app)
    lp = app.dataframe[0].value
    assert list(lp["method"])[-2:] == ["DeepWalk", "node2vec"]
    assert lp["AUC"].between(0, 1).all() and lp["AP"].between(0, 1).all()


def test_scores_without_holdout_or_labels(app):
    upload(app, GOOD_EDGES)
    train(app, holdout=0.0)
    goto(app, "scores")
    infos = " ".join(texts(app.info))
    assert "no labels" in infos and "trained on every edge" in infos


def test_case_study_walks_through_the_papers_pairs(app):
    goto(app, "case_study")
    headers = texts(app.header)
    assert headers[1:3] == ["2 · Marius (55) gossips with Thenardier (25)",
                            "3 · Marius (55) gossips with Gavroche (48)"]
    for partner in (THENARDIER, GAVROCHE):  # the quiz: reveal without guessing (tests/app/test_classroom.py)
        app.button(key=f"quiz_reveal_{partner}").click().run()
    assert any("With **Thenardier**, Marius leans on" in m for m in texts(app.markdown))
    app.button(key="case_explore").click().run()
    ex = explorer(app)
    assert ex.pair == (MARIUS, THENARDIER) and ex.run.origin in ("case study", "cache")
    assert app.header[0].value == "Marius ↔ Thenardier"  # now on Gossip & attend


def test_url_carries_graph_pair_seed_and_parameters(app):
    train(app)
    goto(app, "gossip")
    click_nodes(app, "gossip_graph", GAVROCHE, MARIUS)
    # AppTest does not report the URL a script writes (the browser tests check the address bar);
    # here: what the app writes, and that a new session opened with it restores the view.
    query = state.url_state(explorer(app))
    assert query["graph"] == "lesmis" and query["s"] == "Gavroche" and query["t"] == "Marius"
    assert query["dim"] == "16" and query["seed"] == "0" and query["holdout"] == "0.15"
    # A second session opened on that URL sees the same pair and, the run being cached, the same view.
    other = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        other.query_params[key] = value
    other.run()
    goto(other, "gossip")
    assert explorer(other).pair == (GAVROCHE, MARIUS)
    assert other.header[0].value == "Gavroche ↔ Marius"


def test_sessions_do_not_share_graph_run_or_pair(app):
    other = new_app()
    upload(other, GOOD_EDGES)
    train(app)
    goto(app, "gossip")
    click_nodes(app, "gossip_graph", GAVROCHE, COSETTE)
    assert explorer(app).graph_key == "lesmis" and explorer(other).graph_key == "upload:edges.csv"
    assert explorer(other).run is None and explorer(other).pair != explorer(app).pair
    other.run()
    assert explorer(other).graph_key == "upload:edges.csv"


@pytest.mark.parametrize("edges", [b"a b\nb c\nc a\n", b"a b\n"], ids=["triangle", "one edge"])
def test_every_page_survives_a_tiny_graph(app, edges):
    upload(app, edges, name="tiny.txt")
    train(app, holdout=0.0)
    for page in navigation.PAGES:
        goto(app, page.name)
    goto(app, "gossip")
    for tab in ("Alignment matrix", "Context shift", "Drivers & top partners"):
        app.session_state["gossip_tabs"] = tab
        app.run()
        assert not app.exception, (tab, app.exception)
    app.button(key="pair_random_non_edge").click().run()
    assert not app.exception


def test_scores_refuse_clustering_against_one_label_class(app):
    """Issue 24: one label class reported NMI = AMI = 1.0 without a word."""
    from goat_core import parse_edge_list

    names = parse_edge_list(GOOD_EDGES, file="edges.csv").names
    upload(app, GOOD_EDGES, labels="".join(f"{name} same\n" for name in names).encode())
    train(app)
    goto(app, "scores")
    infos = " ".join(texts(app.info))
    assert "in 1 class(es): clustering scores need at least two classes" in infos
    assert not any(m.label == "NMI" for m in app.metric) and not app.exception
