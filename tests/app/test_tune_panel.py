"""The Train page's Tune panel: trials in the background, Optuna's figures, cancel, Train the best."""

from __future__ import annotations

import json
import threading

from ui import jobs, tune_panel

from .conftest import button, explorer, goto, texts, wait_for_jobs
from .test_links import link_of, reopen


def start(app, trials: int, epochs: int):
    goto(app, "train")
    app.session_state["tune_trials"] = trials
    app.session_state["tune_epochs"] = epochs
    button(app, "Start tuning").click().run()
    assert not app.exception, app.exception
    return app


def job_of(app) -> jobs.Job:
    chosen = {name: app.session_state[name] for name in tune_panel.DEFAULTS}
    return jobs.job_store().get(tune_panel.job_key(explorer(app), chosen, 0))


def test_tuning_draws_its_figures_then_trains_the_best_as_a_linked_run(app):
    wait_for_jobs(start(app, 3, 3))
    said = " ".join(texts(app.markdown))
    assert "trials finished" in said
    charts = {c.key: json.loads(c.proto.spec) for c in app.get("plotly_chart")}
    assert {"tune_history", "tune_importance"} <= set(charts)
    assert charts["tune_history"]["layout"]["xaxis"]["dtick"] == 1  # 3 trials: a tick per trial
    button(app, "Train the best").click().run()
    assert not app.exception, app.exception
    ex = explorer(app)
    study = job_of(app).result["study"]
    run = ex.run
    assert run is not None and run.holdout == 0.15
    for name, value in study.best_params.items():
        assert run.params[name] == value  # the best trial's values, retrained on the training edges
    assert run.params["epochs"] == study.best_trial.user_attrs["best_epoch"]
    link = link_of(app)
    assert float(link["lr"]) == run.params["lr"] and int(link["dim"]) == run.params["dim"]
    other = reopen(link, "train")
    assert explorer(other).run is not None and explorer(other).run.key == run.key  # the link opens it


def test_cancel_keeps_the_finished_trials(app):
    start(app, 200, 60)
    button(app, "Cancel tuning").click().run()
    wait_for_jobs(app)
    job = job_of(app)
    assert job.ok and job.result["cancelled"]
    assert len(job.result["study"].trials) < 200
    assert "cancelled: the finished trials are kept" in " ".join(texts(app.markdown))


def test_a_search_again_after_a_forgotten_cancelled_one_runs(app):
    """The job store forgets old jobs; a cancelled search's flag must not stop the next one with its key."""
    goto(app, "train")
    chosen = dict(tune_panel.DEFAULTS, tune_trials=2, tune_epochs=1)
    stale = tune_panel.cancels()[tune_panel.job_key(explorer(app), chosen, 0)] = threading.Event()
    stale.set()  # a search with this key was cancelled, then its job forgotten
    wait_for_jobs(start(app, 2, 1))
    job = job_of(app)
    assert job.ok and not job.result["cancelled"]
    assert len(job.result["study"].trials) == 2


def test_start_again_adds_trials_to_the_same_study(app):
    wait_for_jobs(start(app, 2, 1))
    first = [(t.number, t.params, t.value) for t in job_of(app).result["study"].trials]
    button(app, "Start tuning").click().run()
    assert not app.exception, app.exception
    wait_for_jobs(app)
    study = job_of(app).result["study"]
    assert [t.number for t in study.trials] == list(range(len(first) + 2))  # two more trials
    assert [(t.number, t.params, t.value) for t in study.trials[: len(first)]] == first  # none redone


def test_the_studies_kept_are_bounded_and_a_running_search_keeps_its_own(monkeypatch):
    """A server runs for days: only the newest STUDIES_KEPT ended searches' studies stay resumable."""
    monkeypatch.setattr(tune_panel, "STUDIES_KEPT", 3)
    tune_panel.storages().clear()
    running = jobs.Job("tune|running", "a search still running")  # its done flag is not set
    monkeypatch.setattr(jobs.job_store(), "get", lambda key: running if key == "tune|running" else None)
    first = tune_panel.study_storage("tune|running")
    made = [tune_panel.study_storage(f"tune|{k}") for k in range(5)]
    assert list(tune_panel.storages()) == ["tune|running", "tune|3", "tune|4"]
    assert tune_panel.study_storage("tune|running") is first  # resumed, not remade
    assert tune_panel.study_storage("tune|4") is made[4]
