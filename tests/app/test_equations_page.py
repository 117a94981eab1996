"""Equations page: the current pair's score step by step, every step drawn without errors (its guard:
tests/app/test_pages.py)."""

from __future__ import annotations

import json

from goat_core import NodeIndex, views
from goat_core.analysis.equations import pair_equations

from .conftest import explorer, goto, texts, train

MARIUS, THENARDIER = NodeIndex(55), NodeIndex(25)  # positions, not names


def test_every_step_shows_the_pairs_numbers(app):
    train(app)
    ex = explorer(app)
    ex.pair = (MARIUS, THENARDIER)
    goto(app, "equations")
    eq = pair_equations(ex.run.goat, MARIUS, THENARDIER)
    assert app.title[0].value == "How a score is made"
    for step in views.STEPS:
        app.session_state["eq_step"] = step
        app.run()
        assert not app.exception, app.exception
        assert app.latex and app.markdown
        spec = json.loads(app.get("plotly_chart")[0].proto.spec)
        assert spec["layout"]["title"]["text"].split(":")[0]  # the step's own title
    assert f"{eq.score:.4f}" in " ".join(texts(app.markdown))  # the score step, last
    caption = " ".join(texts(app.caption))
    assert f"{eq.model_score:.5f}" in caption and "Recomputed in float64" in caption
    app.slider(key="eq_dims").set_value(3).run()
    S = json.loads(app.get("plotly_chart")[1].proto.spec)
    assert len(S["data"][0]["x"]) == 3
