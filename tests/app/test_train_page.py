"""Train page: training, presets, failures that keep the old run, run download and upload."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace

import goat_core
from goat_core import NodeIndex, archive
from ui import navigation
from ui.training import eta

from .conftest import button, explorer, goto, new_app, texts, train, zip_names
from .test_graph_page import upload

PAIR = (NodeIndex(55), NodeIndex(25))  # Marius, Thenardier by position


def test_small_training_makes_a_run(app, downloads):
    train(app)
    ex = explorer(app)
    assert ex.run is not None and ex.run.params["dim"] == 16 and ex.run.params["seed"] == 0
    assert ex.run.split is not None  # 15 % held out
    assert any(s.startswith(("Trained in", "Fetched from the cache")) for s in texts(app.success))
    auc = next(m.value for m in app.metric if m.label == "Validation AUC")
    assert 0.0 <= float(auc) <= 1.0
    assert zip_names(downloads["goat-run-lesmis-seed0.zip"]) == {"config.json", "nodes.json",
                                                                "model.safetensors"}


def test_same_settings_and_seed_give_the_same_run(app):
    train(app)
    other = train(new_app())
    assert explorer(other).run.key == explorer(app).run.key
    a, b = explorer(app).run.goat, explorer(other).run.goat
    assert a.attention(*PAIR).to_dict() == b.attention(*PAIR).to_dict()


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
    assert run.goat.attention(*PAIR).to_dict() == explorer(app).run.goat.attention(*PAIR).to_dict()


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
    again = archive.run_from_zip(archive.run_to_zip(goat), file="x.zip")
    assert again.attention(NodeIndex(55), NodeIndex(48)).to_dict() == \
        goat.attention(NodeIndex(55), NodeIndex(48)).to_dict()


def test_training_progress_says_how_long_is_left():
    done_a_quarter = goat_core.Progress(epoch=1, epochs=2, step=5, steps_per_epoch=10, loss=0.5, elapsed=10.0)
    assert eta(done_a_quarter) == " · about 30 s left"  # at the pace so far
    assert eta(replace(done_a_quarter, elapsed=100.0)) == " · about 5 min left"
    assert eta(replace(done_a_quarter, step=0)) == ""  # no pace to go by yet
    assert eta(replace(done_a_quarter, epoch=2, step=10)) == ""  # finished


# ------------------------------------------------------------------------ issue 24: a run zip checked in full
# Each of these loaded, replaced the session's run, then crashed every page. Checksums are
# written again after each change (a forged zip), so that what refuses it is the run's own
# validation, the same one a run directory goes through.

def _tampered_zip(raw: bytes, tmp_path, change, reseal: bool = True) -> bytes:
    from tests.tamper import tampered

    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        zf.extractall(folder)
    run = tampered(folder, tmp_path / "tampered", change, reseal=reseal)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in ("config.json", "nodes.json", "model.safetensors", "weights.pt"):  # weights.pt: format 1
            if (run / name).exists():
                zf.write(run / name, arcname=name)
    return out.getvalue()


def _set_tensor(name, change):
    return lambda config, nodes, tensors: tensors.__setitem__(name, change(tensors[name]))


UNUSABLE = {  # what a zip held: the words of the one line that refuses it
    "float table": (_set_tensor("hood_table", lambda t: t.float()),
                    "model.safetensors: hood_table must be int64"),
    "uint8 table": (_set_tensor("hood_table", lambda t: t.to(__import__("torch").uint8)),
                    "model.safetensors: hood_table must be int64"),
    "table of width 0": (_set_tensor("hood_table", lambda t: t[:, :0]),
                         "model.safetensors: hood_table must be int64 of shape (77, 100)"),
    "2-D src": (_set_tensor("src", lambda t: t.reshape(2, -1).contiguous()),
                "model.safetensors: src must be int64 of shape"),
    "int32 table": (_set_tensor("hood_table", lambda t: t.int()),
                    "model.safetensors: hood_table must be int64"),
    "integer label classes": (lambda c, n, t: n["labels"].__setitem__("classes", list(range(len(
        n["labels"]["classes"])))), "nodes.json: labels: classes row 1 must be a string, got 0"),
}


def test_unusable_run_zips_are_refused_and_the_previous_run_stays(app, downloads, tmp_path):
    train(app)
    before = explorer(app).run
    raw = downloads["goat-run-lesmis-seed0.zip"]
    cases = {**{name: _tampered_zip(raw, tmp_path / name.replace(" ", "-"), change) for name, (change, _) in
                UNUSABLE.items()}}
    empty = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw)) as zf, zipfile.ZipFile(empty, "w") as out:
        for name in zf.namelist():
            out.writestr(name, b"" if name == "model.safetensors" else zf.read(name))
    cases["empty model.safetensors"] = empty.getvalue()
    words = {**{name: w for name, (_, w) in UNUSABLE.items()},
             "empty model.safetensors": "model.safetensors: is empty"}
    for name, raw_zip in cases.items():
        app.file_uploader(key="run_upload").upload(f"{name}.zip", raw_zip, "application/zip")
        app.button(key="run_load").click().run()
        assert not app.exception, (name, app.exception)
        assert len(app.error) == 1, name
        assert texts(app.error)[0].startswith(f"{name}.zip: {words[name]}"), texts(app.error)
        assert explorer(app).run is before, name
    for page in navigation.PAGES:  # the previous run still answers on every page
        goto(app, page.name)


def test_a_complete_graph_says_to_set_the_hold_out_to_0(app):
    import itertools

    k12 = "".join(f"{a} {b}\n" for a, b in itertools.combinations(range(12), 2)).encode()
    upload(app, k12, name="k12.txt")
    train(app, holdout=0.15)
    assert len(app.error) == 1 and "set 'Hold out for validation' to 0" in texts(app.error)[0]
    train(app, holdout=0.0)
    assert explorer(app).run is not None and not app.error


def test_a_format_1_run_zip_loads_and_says_so(app, downloads, tmp_path):
    from tests.tamper import as_format_1

    train(app)
    old = _tampered_zip(downloads["goat-run-lesmis-seed0.zip"], tmp_path, as_format_1, reseal=False)
    other = goto(new_app(), "train")
    other.file_uploader(key="run_upload").upload("old.zip", old, "application/zip")
    other.button(key="run_load").click().run()
    assert not other.exception and not other.error and explorer(other).run.origin == "upload"
    warning = texts(other.warning)[0]
    assert warning.startswith("Loaded run old.zip") and "saved in run format 1" in warning
    assert "/tmp" not in warning  # the archive is named, never the folder it was unpacked in


def test_a_run_zip_whose_compressed_data_is_damaged_is_one_line_and_the_run_stays(app, downloads):
    """Issue 24's second sweep: damaged bzip2 data in a run zip escaped as OSError, a traceback
    on the page; any input error from loading a run is now one line, the current run kept."""
    train(app)
    before = explorer(app).run
    damaged = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(downloads["goat-run-lesmis-seed0.zip"])) as zf, \
            zipfile.ZipFile(damaged, "w", compression=zipfile.ZIP_BZIP2) as out:
        for name in zf.namelist():
            out.writestr(name, zf.read(name))
    raw = damaged.getvalue()
    start = raw.index(b"model.safetensors") + 200
    raw = raw[:start] + bytes(300) + raw[start + 300:]
    app.file_uploader(key="run_upload").upload("damaged.zip", raw, "application/zip")
    app.button(key="run_load").click().run()
    assert not app.exception, app.exception
    assert texts(app.error) == ["damaged.zip: damaged zip archive (model.safetensors cannot be decompressed)"]
    assert explorer(app).run is before
