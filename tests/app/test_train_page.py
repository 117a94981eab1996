"""Train page: training, presets, failures that keep the old run, run download and upload."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace

import goat_core
from goat_core import explore
from ui.training import eta

from .conftest import button, explorer, goto, new_app, texts, train, zip_names
from .test_graph_page import upload


def test_small_training_makes_a_run(app, downloads):
    train(app)
    ex = explorer(app)
    assert ex.run is not None and ex.run.params["dim"] == 16 and ex.run.params["seed"] == 0
    assert ex.run.split is not None  # 15 % held out
    assert any(s.startswith(("Trained in", "Fetched from the cache")) for s in texts(app.success))
    auc = next(m.value for m in app.metric if m.label == "Validation AUC")
    assert 0.0 <= float(auc) <= 1.0
    assert zip_names(downloads["goat-run-lesmis-seed0.zip"]) == {"config.json", "nodes.json", "weights.pt"}


def test_same_settings_and_seed_give_the_same_run(app):
    train(app)
    other = train(new_app())
    assert explorer(other).run.key == explorer(app).run.key
    a, b = explorer(app).run.goat, explorer(other).run.goat
    assert a.attention(55, 25).to_dict() == b.attention(55, 25).to_dict()


def test_paper_preset_fills_the_form(app):
    goto(app, "train")
    button(app, "Paper (Table 2)").click().run()
    assert app.number_input(key="train_dim").value == 200
    assert app.number_input(key="train_lr").value == 1e-4
    assert app.slider(key="train_dropout").value == 0.5
    assert app.slider(key="train_validation_fraction").value == 0.0  # Table 2 literally: no early stopping
    button(app, "Validated (library default)").click().run()
    assert app.number_input(key="train_lr").value == goat_core.PARAMETERS["lr"].default
    assert app.slider(key="train_validation_fraction").value == 0.2
    assert app.number_input(key="train_patience").value == goat_core.PARAMETERS["patience"].default
    button(app, "Fast (app default)").click().run()
    assert app.number_input(key="train_dim").value == 64
    assert app.slider(key="train_validation_fraction").value == 0.0


def test_early_stopping_in_the_app_keeps_the_best_epoch(app):
    """The form's early stopping: the run's history is the best epoch's length, and the
    progress chart restarts for the kept model (no duplicate chart keys between the stages)."""
    ex = explorer(train(app, epochs=8, validation_fraction=0.2, patience=2))
    stop = ex.run.goat.early_stopping_
    assert not app.exception and stop is not None
    assert len(ex.run.history) == stop["best_epoch"] <= stop["epochs_tried"] <= 8


def test_failed_training_keeps_the_previous_run(app):
    upload(app, b"a b\nb c\n", name="tiny.txt")  # two edges: nothing can be held out
    train(app, holdout=0.0)
    first = explorer(app).run
    assert first is not None
    train(app, holdout=0.05)
    assert len(app.error) == 1 and "too few edges" in app.error[0].value and "\n" not in app.error[0].value
    assert explorer(app).run is first


def test_run_download_then_upload_in_another_session(app, downloads):
    train(app)
    raw = downloads["goat-run-lesmis-seed0.zip"]
    other = goto(new_app(), "train")
    other.file_uploader(key="run_upload").upload("saved.zip", raw, "application/zip")
    other.button(key="run_load").click().run()
    assert not other.exception and not other.error
    run = explorer(other).run
    assert run.origin == "upload" and explorer(other).graph_key == "lesmis"
    assert run.split is not None  # the held-out edges were found again from the seed
    assert run.goat.attention(55, 25).to_dict() == explorer(app).run.goat.attention(55, 25).to_dict()


def test_bad_run_uploads_keep_the_previous_run(app):
    train(app)
    before = explorer(app).run
    evil = io.BytesIO()
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../config.json", "{}")
    for name, raw, problem in [("junk.zip", b"not a zip at all", "not a zip archive"),
                               ("evil.zip", evil.getvalue(), "points outside the archive")]:
        app.file_uploader(key="run_upload").upload(name, raw, "application/zip")
        app.button(key="run_load").click().run()
        assert not app.exception
        assert len(app.error) == 1
        assert texts(app.error)[0].startswith(f"{name}: ") and problem in texts(app.error)[0]
        assert explorer(app).run is before


def test_run_archive_round_trip_without_the_app(app):
    train(app)
    goat = explorer(app).run.goat
    again = explore.run_from_zip(explore.run_to_zip(goat), file="x.zip")
    assert again.attention(55, 48).to_dict() == goat.attention(55, 48).to_dict()


def test_training_progress_says_how_long_is_left():
    done_a_quarter = goat_core.Progress(epoch=1, epochs=2, step=5, steps_per_epoch=10, loss=0.5, elapsed=10.0)
    assert eta(done_a_quarter) == " · about 30 s left"  # at the pace so far
    assert eta(replace(done_a_quarter, elapsed=100.0)) == " · about 5 min left"
    assert eta(replace(done_a_quarter, step=0)) == ""  # no pace to go by yet
    assert eta(replace(done_a_quarter, epoch=2, step=10)) == ""  # finished
