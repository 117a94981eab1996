"""The evaluation panels: the Scores page's ranking table and "Evaluate as the paper did" (a job
started by a button; the page does not wait), and the Gossip page's faithfulness panel."""

from __future__ import annotations

from goat_core.analysis.audit import LEAK_TITLES

from .conftest import button, explorer, goto, texts, train, wait_for_jobs


def test_scores_rank_every_method_on_random_and_hard_negatives(app):
    train(app)
    goto(app, "scores")
    table = next(d.value for d in app.dataframe if "MRR" in d.value.columns)
    assert list(table["method"])[:2] == ["GOAT", "global E"]
    assert table["MRR"].between(0, 1).all() and (table["Hits@100"] >= table["Hits@10"]).all()
    app.radio(key="scores_ranking_kind").set_value("hard").run()
    assert not app.exception
    hard = next(d.value for d in app.dataframe if "MRR" in d.value.columns)
    assert list(hard["method"])[:5] == list(table["method"])[:5] and not hard["MRR"].equals(table["MRR"])
    assert any("resource allocation" in c for c in texts(app.caption))


def test_evaluate_as_the_paper_did_runs_in_the_background(app):
    train(app)
    goto(app, "scores")
    assert "Evaluate as the paper did" in texts(app.header)
    assert not any(d.value.columns[0] == "protocol" for d in app.dataframe)  # nothing before the click
    button(app, "Evaluate as the paper did").click().run()
    assert not app.exception  # the page came back: the audit runs in a job
    wait_for_jobs(app)
    table = next(d.value for d in app.dataframe if d.value.columns[0] == "protocol")
    assert list(table["protocol"]) == (["leak-free (ours)"] + [f"only: {t}" for t in LEAK_TITLES.values()]
                                       + ["the paper's (all four)"])
    assert table["AUC"].between(0, 1).all()
    run = explorer(app).run
    from goat_core import evaluate_link_prediction

    assert table["AUC"].iloc[0] == evaluate_link_prediction(run.goat, run.split)["auc"]  # the same model
    sentences = [m.value for m in app.markdown if m.value.startswith("- **")]
    assert len(sentences) == len(LEAK_TITLES)
    assert any(c.proto.id.endswith("audit_bars") for c in app.get("plotly_chart"))


def test_gossip_faithfulness_panel_beside_the_bars(app):
    train(app)
    goto(app, "gossip")
    assert "Does attention explain the score?" in texts(app.subheader)
    labels = [m.label for m in app.metric]
    assert "Spearman ρ (attention vs effect)" in labels and "Kendall τ" in labels
    assert any(c.proto.id.endswith("faith_scatter") for c in app.get("plotly_chart"))
    assert any("Spearman's ρ" in m.value or "No verdict" in m.value for m in app.markdown)
