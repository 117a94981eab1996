"""A refresh, a new tab or a colleague's browser: the URL carries the view, the server's stores give it
back, and what they lack is named with one click to rebuild it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

import goat_core
from goat_core import NodeIndex, load_graph
from ui import cache, state
from ui.runs import COMPILE_FREE_EDGES, backend_for

from .conftest import APP, SMALL, button, click_nodes, explorer, goto, new_app, texts, train
from .test_gossip_page import click_bar
from .test_graph_page import upload

MARIUS, VALJEAN, JAVERT, COSETTE = map(NodeIndex, (55, 11, 27, 26))  # positions, not names


def link_of(at: AppTest) -> dict:
    """The link the app writes into the address bar (AppTest does not report a script's writes to
    the URL: the browser tests check the address bar itself)."""
    return state.url_state(explorer(at))


def reopen(link: dict, page: str | None = None) -> AppTest:
    """A new browser session opened on ``link`` (what a refresh, a new tab or a shared link is)."""
    other = AppTest.from_file(APP, default_timeout=120)
    other.query_params.update(link)
    other.run()
    assert not other.exception, other.exception
    if page is not None:
        goto(other, page)
    return other


def test_a_refresh_restores_graph_run_pair_mutes_and_the_pages_choices(app):
    train(app)
    goto(app, "gossip")
    click_nodes(app, "gossip_graph", VALJEAN, JAVERT)
    app.segmented_control(key="gossip_view").set_value("ego").run()
    goat = explorer(app).run.goat
    att = goat.attention(VALJEAN, JAVERT)
    muted = int(att.source_neighbors[0])
    click_bar(app, "source", muted)
    app.toggle(key="att_uniform").set_value(True).run()
    link = link_of(app)
    assert link["graph"] == "lesmis" and link["s"] == "Valjean" and link["t"] == "Javert"
    assert link["mute"] == [explorer(app).names[muted]]
    assert link["view"] == "ego" and link["uniform"] == "1" and link["backend"] == "torch"

    other = reopen(link, "gossip")
    ex = explorer(other)
    assert ex.run is not None and ex.run.key == explorer(app).run.key  # the same run, from the store
    assert ex.pair == (VALJEAN, JAVERT) and ex.muted == (muted,)
    assert other.segmented_control(key="gossip_view").value == "ego"
    assert other.toggle(key="att_uniform").value is True
    assert other.header[0].value == "Valjean ↔ Javert"
    assert not other.warning  # nothing missing


def test_the_pages_choices_survive_leaving_their_page(app):
    train(app)
    goto(app, "embeddings")
    app.radio(key="emb_kind").set_value("global").run()
    goto(app, "train")
    assert link_of(app)["emb"] == "global"  # still in the link while on another page
    goto(app, "embeddings")
    assert app.radio(key="emb_kind").value == "global"


def test_a_link_to_an_uploaded_graph_opens_it_from_the_servers_store(app):
    edges = b"u v\nv w\nw u\nw x\nx y\ny z\nz x\n"
    upload(app, edges, name="links-store.txt")
    train(app, holdout=0.0)
    link = link_of(app)
    assert link["graph"].startswith("upload:") and link["file"] == "links-store.txt"
    other = reopen(link, "gossip")
    ex = explorer(other)
    assert ex.graph_fp == explorer(app).graph_fp and ex.graph_key == "upload:links-store.txt"
    assert ex.run is not None and ex.run.key == explorer(app).run.key


def test_a_missing_run_is_named_and_trained_again_in_one_click():
    graph = load_graph("lesmis")
    params = dict(SMALL, seed=7)  # a run no other test trains: this server never saw it
    link = {"graph": "lesmis", "seed": "7", "s": "Cosette", "t": "Marius", "dim": "16", "epochs": "8",
            "batch": "64", "holdout": "0.15"}
    other = reopen(link, "gossip")
    assert explorer(other).run is None and explorer(other).pair == (COSETTE, MARIUS)
    warnings = " ".join(texts(other.warning))
    assert "This link's run (d=16, 8 epochs" in warnings and "seed 7" in warnings
    assert "torch path" in warnings  # the path is part of the run's identity
    button(other, "Train it again").click().run()
    assert not other.exception, other.exception
    run = explorer(other).run
    assert run is not None and run.seed == 7 and run.params["dim"] == params["dim"]
    assert run.params["backend"] == backend_for(graph.num_edges, "goat") == "torch"
    assert other.header[0].value == "Cosette ↔ Marius" and not other.warning


def test_a_missing_upload_is_named_and_the_link_resumes_once_it_is_loaded_again():
    edges = b"p q\nq r\nr p\nr s\ns t\n"
    options = goat_core.ReadOptions(directed=False)  # as the Graph page reads an upload
    key = cache.upload_key(cache.digest(edges), None, options)
    assert cache.upload_store().get(key) is None  # this server never saw the file
    link = {"graph": f"upload:{key}", "file": "again.txt", "seed": "0", "s": "s", "t": "q"}
    other = reopen(link, "gossip")
    warnings = " ".join(texts(other.warning))
    assert "the upload **again.txt**, is not on this server" in warnings
    assert link_of(other) == {k: [v] for k, v in link.items()}  # a refresh meanwhile keeps the link
    button(other, "Load again.txt again").click().run()  # to the Graph page's upload
    assert other.radio(key="graph_source").value == "upload"  # the Graph page, upload chosen
    goto(other, "graph")  # AppTest itself asks for the page it was last sent to
    upload(other, edges, name="again.txt")
    ex = explorer(other)
    assert ex.upload_key == key and ex.missing is None
    assert (ex.names[ex.pair[0]], ex.names[ex.pair[1]]) == ("s", "q")  # the rest of the link followed


def test_every_link_names_the_compute_path_and_tiny_graphs_take_the_uncompiled_one(app):
    assert backend_for(254, "goat") == "torch" and backend_for(COMPILE_FREE_EDGES + 1, "goat") == "auto"
    assert backend_for(254, "mean-pool") == backend_for(254, "global") == "auto"
    train(app)
    assert explorer(app).run.goat.backend_ == "torch"
    assert any("computed on the torch (nothing compiled) path" in c for c in texts(app.caption))
    link = link_of(app)
    link["backend"] = "module"  # a run made on another path is another run
    other = reopen(link, "gossip")
    assert explorer(other).run is None
    assert "module path" in " ".join(texts(other.warning))


def test_url_values_no_widget_takes_are_ignored(app):
    link = {"graph": "lesmis", "view": "sideways", "tab": "Nope", "emb": "3d", "proj": "tsne"}
    other = reopen(link, "gossip")
    train(other)
    for page in ("gossip", "embeddings"):
        goto(other, page)
    assert other.radio(key="emb_method").value == "pca"
    assert state.VIEW_PARAMS["proj"] == "emb_method"
    new_app()  # a session without a link still opens on Les Misérables


def test_a_links_seed_outside_the_seeds_range_is_ignored_with_a_warning():
    """Issue 24's second sweep: a link's seed=-1 reached the run to train again, whose split ended
    the page in numpy's ValueError; one past the seed box's range broke the box. Both are ignored
    (the seed stays 0) with a warning, and the link's run trains again on that seed."""
    for seed in ("-1", str(2**40), "1.5"):
        link = {"graph": "lesmis", "seed": seed, "dim": "12", "epochs": "3", "batch": "64", "holdout": "0.15"}
        other = reopen(link)
        assert f"ignored URL parameter seed={seed!r}" in " ".join(texts(other.warning))
        if any(b.label == "Train it again" for b in other.button):  # else: the server holds that run
            button(other, "Train it again").click().run()
        assert not other.exception and not other.error, (seed, other.exception, texts(other.error))
        assert explorer(other).run is not None and explorer(other).run.seed == 0


def test_every_pages_main_choice_comes_back_after_a_refresh(app):
    """Graph: colour and tab; Gossip: view, tab, uniform; Equations: the step; Embeddings: kind,
    projection, colour; Scores: the contingency table's embedding. Each is set on its page, then a
    refresh (a new session on the link) opens each page with it."""
    from goat_core import views
    from ui import gossip_tabs, graph_tabs

    train(app)
    chosen = {"graph": {"graph_colour": "degree", "graph_tabs": graph_tabs.TABS[2]},
              "gossip": {"gossip_view": "ego", "gossip_tabs": list(gossip_tabs.TABS)[1], "att_uniform": True},
              "equations": {"eq_step": views.STEPS[2]},
              "embeddings": {"emb_kind": "global", "emb_method": "pca", "emb_colour": "degree"},
              "scores": {"scores_contingency": "Global E"}}
    for page, values in chosen.items():
        goto(app, page)
        for key, value in values.items():
            app.session_state[key] = value
        app.run()
        assert not app.exception, app.exception
    link = link_of(app)
    assert {link[p] for p in ("gtab", "step", "ecolour", "table")} == {
        graph_tabs.TABS[2], views.STEPS[2], "degree", "Global E"}

    other = reopen(link)
    for page, values in chosen.items():
        goto(other, page)
        for key, value in values.items():
            assert other.session_state[key] == value, (page, key)
    goto(other, "equations")
    assert other.segmented_control(key="eq_step").value == views.STEPS[2]


def test_a_link_with_choices_no_widget_offers_opens_on_the_defaults(app):
    train(app)
    other = reopen(dict(link_of(app), gtab="nope", step="nope", ecolour="nope", table="nope"))
    for page in ("graph", "equations", "embeddings", "scores"):
        goto(other, page)
        assert not other.exception and not other.error, page
