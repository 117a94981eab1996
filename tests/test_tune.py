"""``goat tune`` (goat_core.tune): the search space, studies in storage (resume, two processes), a
search that never reads test edges, and a search at least as good as the defaults on validation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import optuna
import pytest
import torch

from goat_core import split_edges
from goat_core import tune as tuning
from goat_core.backends.dispatch import resolve_backend
from goat_core.errors import ParameterError
from goat_core.fitting import choose_epochs
from goat_core.parameters import PARAMETERS, SEARCH_SPACE
from goat_core.tune import StudyMismatch, narrow_space, search, tune_split

from .conftest import planted_graph

ROOT = Path(__file__).resolve().parents[1]
FAST = {"epochs": 3, "patience": 2, "device": "cpu"}  # parameters fixed: a few short trials
SMALL = narrow_space(["dim=32:40", "neighborhood=10:20", "batch_size=64,128"])  # small models only


def test_the_space_lies_within_the_declared_rules():
    for name, rng in SEARCH_SPACE.items():
        values = rng.choices if rng.choices is not None else (rng.low, rng.high)
        assert all(PARAMETERS[name].check(v) for v in values), name
        assert rng.choices is not None or rng.low < rng.high
    for searched in ("lr", "dropout", "neighborhood", "dim", "negatives", "batch_size", "padding"):
        assert searched in SEARCH_SPACE
    assert "epochs" not in SEARCH_SPACE  # chosen per trial by early stopping


def test_narrowing_stays_within_the_declared_range():
    space = narrow_space(["lr=1e-3:1e-2", "padding=zero", "negatives=1,2"])
    assert (space["lr"].low, space["lr"].high, space["lr"].log) == (1e-3, 1e-2, True)
    assert space["padding"].choices == ("zero",) and space["negatives"].choices == (1, 2)
    outside = "within its declared range"
    for bad, says in (("lr=1:2", outside), ("epochs=3:5", "NAME one of"), ("dim=abc", outside),
                      ("padding=wide", outside)):
        with pytest.raises(ParameterError, match=says):
            narrow_space([bad])


def _trials(study, state=optuna.trial.TrialState.COMPLETE):
    return study.get_trials(deepcopy=False, states=(state,))


def test_tiny_search_then_the_best_scored_on_test_edges(lesmis, tmp_path):
    split = split_edges(lesmis, 0.8, 0)
    result = tune_split(split, storage=str(tmp_path / "s.log"), trials=3, seed=0, space=SMALL, base=FAST)
    found = result.to_dict()
    assert found["trials_finished"] + found["trials_pruned"] == 3
    assert set(found["best_params"]) == set(SMALL)
    assert 0.0 <= found["best_validation_auc"] <= 1.0 and 0.5 < found["test_auc"] <= 1.0
    assert found["params"]["validation_fraction"] == 0.0 and 1 <= found["params"]["epochs"] <= 3
    assert result.model.graph_ is split.train  # retrained on every training edge
    again = tune_split(split, storage=str(tmp_path / "t.log"), trials=3, seed=0, space=SMALL, base=FAST)
    assert again.to_dict() == dict(found, storage=str(tmp_path / "t.log"))  # the same seed, the same numbers


def test_resume_adds_trials_and_redoes_none(lesmis, tmp_path):
    train = split_edges(lesmis, 0.8, 0).train
    options = dict(storage=f"sqlite:///{tmp_path / 'tune.db'}", study="resume", seed=0, space=SMALL,
                   base=FAST)
    first = [t.params for t in search(train, trials=2, **options).trials]
    study = search(train, trials=2, **options)
    assert [t.number for t in study.trials] == [0, 1, 2, 3]
    assert [t.params for t in study.trials[:2]] == first  # finished trials kept as they were
    drawn = [json.dumps(t.params, sort_keys=True) for t in study.trials]
    assert len(set(drawn)) == 4  # a resumed random search draws anew
    with pytest.raises(StudyMismatch, match="study 'resume' was made with graph"):
        search(split_edges(lesmis, 0.7, 0).train, trials=1, **options)


def test_resuming_with_other_choices_is_one_line_before_any_trial(lesmis, tmp_path):
    """Optuna refuses a choice's other values only at the first suggestion, as a ValueError's traceback
    ("CategoricalDistribution does not support dynamic value space") and a failed trial in the study."""
    train = split_edges(lesmis, 0.8, 0).train
    options = dict(storage=str(tmp_path / "s.log"), study="s", seed=0, base=FAST)
    search(train, trials=1, space=SMALL, **options)
    with pytest.raises(StudyMismatch, match="study 's' searched batch_size over 64,128, not 256: search "
                                            "it as before"):
        search(train, trials=1, space=narrow_space(["dim=32:40", "neighborhood=10:20", "batch_size=256"]),
               **options)
    narrower = narrow_space(["dim=32:36", "neighborhood=10:20", "batch_size=64,128"])  # Optuna takes it
    assert len(search(train, trials=1, space=narrower, **options).trials) == 2
    assert all(t.state.is_finished() and t.state.name != "FAIL" for t in optuna.load_study(
        study_name="s", storage=tuning.open_storage(options["storage"])).trials)


@pytest.mark.parametrize("where, words", [
    ("folder", "is not a regular file: name a journal file"),  # was IsADirectoryError's traceback
    ("file/study.log", "cannot hold a study (a folder on its path is a file)"),
    ("damaged.log", "cannot open the study storage (UnicodeDecodeError"),
    ("other.log", "cannot open the study storage (KeyError"),  # JSON lines, not Optuna's journal
    ("bogus://x", "cannot open the study storage (NoSuchModuleError"),
    ("sqlite:///folder", "cannot open the study storage (OperationalError"),
])
def test_a_storage_that_cannot_hold_a_study_is_one_line(lesmis, tmp_path, monkeypatch, where, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    (tmp_path / "damaged.log").write_bytes(b"\xff\xfe not a journal\n")
    (tmp_path / "other.log").write_text('{"op_code": 0, "worker_id": "w", "study_name": "s"}\n')
    with pytest.raises(ParameterError) as err:
        search(lesmis, trials=1, storage=where, space=SMALL, base=FAST)
    assert str(err.value).startswith(f"{where}: {words}") and "\n" not in str(err.value)


def test_two_processes_share_one_study(tmp_path):
    storage = f"sqlite:///{tmp_path / 'shared.db'}"
    command = [sys.executable, "-m", "goat_core", "tune", str(ROOT / "sample_graphs" / "karate.txt"),
               "--train-ratio", "0.8", "--trials", "2", "--storage", storage, "--study", "shared",
               "--epochs", "2", "--space", "dim=32:40", "--space", "neighborhood=10:20", "--json"]
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    study = optuna.load_study(study_name="shared", storage=storage)
    assert sorted(t.number for t in study.trials) == [0, 1, 2, 3]
    assert len({json.dumps(t.params, sort_keys=True) for t in study.trials}) == 4
    finished = [json.loads(out)["trials_finished"] + json.loads(out)["trials_pruned"] for out, _ in outputs]
    assert max(finished) == 4 or sum(finished) >= 4  # the one ending last saw the other's trials


class SpySplit:
    """An EdgeSplit whose test edges record when they are read."""

    def __init__(self, split):
        self.train, self._split, self.reads = split.train, split, []

    @property
    def test_pos(self):
        self.reads.append("test_pos")
        return self._split.test_pos

    @property
    def test_neg(self):
        self.reads.append("test_neg")
        return self._split.test_neg


def test_the_search_never_reads_test_edges(lesmis, tmp_path, monkeypatch):
    spy = SpySplit(split_edges(lesmis, 0.8, 0))
    seen_by_trials = []
    real = tuning.choose_epochs

    def watched(params, graph, **run):
        seen_by_trials.append((list(spy.reads), graph))
        return real(params, graph, **run)

    monkeypatch.setattr(tuning, "choose_epochs", watched)
    result = tune_split(spy, storage=str(tmp_path / "s.log"), trials=3, seed=0, space=SMALL, base=FAST)
    assert len(seen_by_trials) == 3 and all(reads == [] for reads, _ in seen_by_trials)
    assert all(graph is spy.train for _, graph in seen_by_trials)  # only the training graph is searched
    assert spy.reads and result.test is not None  # read once the search is over, to score the best


def test_search_on_planted_communities_is_as_good_as_the_defaults_on_validation(tmp_path):
    train = split_edges(planted_graph(4, 25, 0.3, 0.02, seed=7), 0.8, 0).train
    fixed = {"epochs": 8, "patience": 3, "device": "cpu"}
    defaults = dict({k: p.default for k, p in PARAMETERS.items()}, **fixed)
    cpu = torch.device("cpu")
    run = dict(device=cpu, backend=resolve_backend("auto", "goat", cpu), callback=None, shard=(0, 1),
               wrap=None)
    baseline = max(choose_epochs(defaults, train, **run)["val_auc"])
    study = search(train, storage=str(tmp_path / "p.log"), trials=4, seed=0, base=fixed, default_first=False)
    assert study.best_value >= baseline, (study.best_value, baseline)  # the random draws alone
    assert np.isfinite(study.best_value)
    assert all(t.params["lr"] != defaults["lr"] for t in study.trials)
    first = search(train, storage=str(tmp_path / "p.log"), study="defaults", trials=1, seed=0, base=fixed)
    assert first.trials[0].params == {name: defaults[name] for name in SEARCH_SPACE}
    assert first.trials[0].value == baseline  # Goat()'s own early stopping, as its first trial


def test_the_default_trial_is_clipped_into_a_narrowed_space():
    base = {k: p.default for k, p in PARAMETERS.items()}
    trial = tuning.default_trial(SMALL, base)
    assert trial["dim"] == 40 and trial["neighborhood"] == 20 and trial["lr"] == base["lr"]
    assert "batch_size" not in trial  # 256 is not among the narrowed choices: the sampler draws it


def test_cli_tune_json_and_one_line_errors(tmp_path):  # run elsewhere: the default storage lands there
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "goat_core", "tune", "lesmis", *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)

    proc = cli("--train-ratio", "0.8", "--trials", "2", "--epochs", "2", "--space", "dim=32:40",
               "--space", "neighborhood=10:20", "--out", str(tmp_path / "best"), "--json")
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    keys = {"best_params", "best_validation_auc", "test_auc", "test_ap", "trials_finished", "trials_pruned",
            "study", "storage"}
    assert keys <= set(found) and found["storage"] == f"sqlite:///{tmp_path / 'tune.db'}"
    assert (tmp_path / "tune.db").is_file() and (tmp_path / "best" / "model.safetensors").is_file()
    for args, says in ((["--space", "lr=5:6"], "lr must be narrowed within"),
                       (["--preset", "paper"], "--preset does not apply"),
                       (["--sampler", "grid"], "invalid choice")):
        proc = cli("--train-ratio", "0.8", *args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and says in proc.stderr, proc.stderr


def test_processes_starting_together_on_a_new_database_all_open_the_study(tmp_path):
    # sqlite's tables are created by whichever process comes first; the others must not fail on it
    code = ("import sys, optuna; from goat_core import tune; "
            "tune._create_study(sys.argv[1], 'race', optuna.pruners.MedianPruner())")
    for round_ in range(3):
        storage = f"sqlite:///{tmp_path / f'race{round_}.db'}"
        procs = [subprocess.Popen([sys.executable, "-c", code, storage], cwd=ROOT, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], errors
