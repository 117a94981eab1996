"""``goat tune``: an Optuna study of GOAT's parameters on a validation split of the training edges.

As the paper tunes (random search on 20 % of the training edges): every trial trains on the
rest of the training edges and is scored, after every epoch, on the carved-out edges against as
many non-edges (:func:`.fitting.choose_epochs`, early stopping); the trial's value is its best
validation AUC, and a median pruner stops trials that are behind the others at the same epoch.
The search only ever receives the training graph: the test edges are read once, after it, to
score the best configuration retrained on every training edge (:func:`tune_split`).

Studies live in Optuna storage (an SQLAlchemy URL, or a journal file): the same call again
resumes a study, and several processes can work on one study through its storage.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import sqlalchemy
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from .backends.dispatch import resolve_backend, resolve_device
from .data.graph import Graph, first_line
from .data.sampling import EdgeSplit
from .errors import GoatError, ParameterError
from .estimator import Goat
from .fitting import choose_epochs
from .parameters import PARAMETERS, SEARCH_SPACE, SearchRange, check_params

SAMPLERS = ("random", "tpe")
DEFAULT_STORAGE = "tune.db"  # beside the output (CLI: beside --out; else the working directory)


class StudyMismatch(GoatError):
    """A study asked to resume that was made for another graph or validation split."""


# ---------------------------------------------------------------------------- the search space
def narrow_space(specs: Iterable[str], space: Mapping[str, SearchRange] = SEARCH_SPACE
                 ) -> dict[str, SearchRange]:
    """``space`` narrowed by ``NAME=LOW:HIGH`` (a range), ``NAME=A,B`` (choices) or ``NAME=V``
    (one value): each within the declared range, else a ParameterError naming the spec."""
    narrowed = dict(space)
    for spec in specs:
        name, _, text = spec.partition("=")
        name = name.strip().replace("-", "_")
        if name not in space or not text:
            raise ParameterError(f"--space {spec!r}: expected NAME=LOW:HIGH or NAME=A,B with NAME one of "
                                 f"{', '.join(space)}")
        narrowed[name] = _narrow(name, space[name], text, spec)
    return narrowed


def _narrow(name: str, declared: SearchRange, text: str, spec: str) -> SearchRange:
    kind = type(PARAMETERS[name].default)
    try:
        if ":" in text:
            low, high = (kind(part) for part in text.split(":", 1))
            if declared.choices is None and declared.low <= low <= high <= declared.high:
                return SearchRange(low, high, declared.log)
        elif declared.choices is not None:  # the declared values, read as they are written
            named = {str(c): c for c in declared.choices}
            if all(v in named for v in text.split(",")):
                return SearchRange(choices=tuple(named[v] for v in text.split(",")))
        else:
            values = tuple(kind(v) for v in text.split(","))
            if all(declared.low <= v <= declared.high for v in values):
                return SearchRange(choices=values)
    except ValueError:
        pass
    within = (", ".join(map(str, declared.choices)) if declared.choices
              else f"{declared.low:g}:{declared.high:g}")
    raise ParameterError(f"--space {spec!r}: {name} must be narrowed within its declared range {within} "
                         f"(LOW:HIGH or A,B of {kind.__name__}s)")


Distribution = CategoricalDistribution | IntDistribution | FloatDistribution


def distribution(name: str, rng: SearchRange) -> Distribution:
    """Optuna's distribution of one searched parameter: a choice, or a range of its type."""
    if rng.choices is not None:
        return CategoricalDistribution(list(rng.choices))
    low, high = rng.low if rng.low is not None else 0, rng.high if rng.high is not None else 0
    if isinstance(PARAMETERS[name].default, int):
        return IntDistribution(int(low), int(high), log=rng.log)
    return FloatDistribution(float(low), float(high), log=rng.log)


def suggest(trial: optuna.Trial, space: Mapping[str, SearchRange]) -> dict:
    """One trial's values of the searched parameters."""
    values = {}
    for name, rng in space.items():
        dist = distribution(name, rng)
        if isinstance(dist, CategoricalDistribution):
            values[name] = trial.suggest_categorical(name, dist.choices)
        elif isinstance(dist, IntDistribution):
            values[name] = trial.suggest_int(name, dist.low, dist.high, log=dist.log)
        else:
            values[name] = trial.suggest_float(name, dist.low, dist.high, log=dist.log)
    return values


def default_trial(space: Mapping[str, SearchRange], base: Mapping[str, Any]) -> dict:
    """``base``'s values (``Goat()``'s defaults) as a trial of ``space``: clipped into a narrowed
    range; left to the sampler where narrowed choices leave the default out."""
    values = {}
    for name, rng in space.items():
        if rng.choices is None:
            values[name] = type(base[name])(min(max(base[name], rng.low), rng.high))
        elif base[name] in rng.choices:
            values[name] = base[name]
    return values


# ---------------------------------------------------------------------------- studies
def open_storage(storage: str | optuna.storages.BaseStorage) -> str | optuna.storages.BaseStorage:
    """An SQLAlchemy URL (``sqlite:///tune.db``, ``postgresql://...``) as is; a path (``tune.log``)
    as an Optuna journal file, which needs no database and is safe for several processes; an
    Optuna storage object (the app's in-memory one) as is."""
    if not isinstance(storage, str) or "://" in storage:
        return storage
    path = Path(storage)
    try:
        if path.exists() and not path.is_file():  # a directory; a device would be read without end
            raise ParameterError(f"{storage}: is not a regular file: name a journal file (or an SQLAlchemy "
                                 "URL) for the study")
        path.parent.mkdir(parents=True, exist_ok=True)
        return JournalStorage(JournalFileBackend(str(path)))  # reads the journal
    except OSError as err:  # a name too long, a parent that is a file, no permission
        why = "a folder on its path is a file" if isinstance(err, (FileExistsError, NotADirectoryError)) \
            else err.strerror or err
        raise ParameterError(f"{storage}: cannot hold a study ({why})") from None
    except GoatError:
        raise
    except UNOPENABLE as err:
        raise _unopenable(storage, err) from None


def _create_study(storage: str, name: str, pruner: optuna.pruners.BasePruner, tries: int = 5) -> optuna.Study:
    """Create or load the study; processes that start together on a new database race to create its
    tables, and the loser's error only means the winner made them: it tries again."""
    def create() -> optuna.Study:
        return optuna.create_study(storage=open_storage(storage), study_name=name, direction="maximize",
                                   load_if_exists=True, pruner=pruner)

    for attempt in range(1, tries + 1):
        try:
            return create()
        except GoatError:
            raise
        except sqlalchemy.exc.SQLAlchemyError as err:  # the race, or a database that cannot be opened
            if attempt == tries:
                raise _unopenable(storage, err) from None
            time.sleep(0.2 * attempt)
        except UNOPENABLE as err:
            raise _unopenable(storage, err) from None
    raise AssertionError("unreachable")


# a driver not installed, a journal file that is not one (or damaged), a file system's refusal
UNOPENABLE = (ImportError, UnicodeDecodeError, KeyError, ValueError, TypeError, OSError)


def _unopenable(storage: object, err: Exception) -> ParameterError:
    return ParameterError(f"{storage}: cannot open the study storage ({type(err).__name__}: "
                          f"{first_line(err)})")


def study_name(graph: Graph, seed: int) -> str:
    """The default name: the training graph's content and the seed, so that the same command
    on the same split resumes its study, and another split never mixes in."""
    return f"goat-{Path(graph.source).stem or 'graph'}-{graph.fingerprint()[:10]}-s{seed}"


class TrialSeededRandom(optuna.samplers.RandomSampler):
    """The paper's random search, reproducible and resumable: trial k's values are drawn from
    (seed, k) alone, so a resumed study or a second process never repeats a trial's draw."""

    def __init__(self, seed: int):
        super().__init__(seed=seed)
        self.base_seed = seed

    def sample_independent(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, param_name: str,
                           param_distribution: optuna.distributions.BaseDistribution) -> Any:
        key = int(hashlib.sha256(param_name.encode()).hexdigest()[:8], 16)
        state = np.random.SeedSequence([self.base_seed, trial.number, key]).generate_state(1)[0]
        fresh = optuna.samplers.RandomSampler(seed=int(state))
        return fresh.sample_independent(study, trial, param_name, param_distribution)


class DefaultsFirst(optuna.samplers.BaseSampler):
    """``base``'s draws, except trial 0, which takes ``defaults``: the storage numbers trials
    atomically, so processes starting together on a new study run the defaults once."""

    def __init__(self, base: optuna.samplers.BaseSampler, defaults: Mapping[str, Any]):
        self.base, self.defaults = base, dict(defaults)

    def infer_relative_search_space(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> dict:
        return self.base.infer_relative_search_space(study, trial)

    def sample_relative(self, study: optuna.Study, trial: optuna.trial.FrozenTrial,
                        search_space: dict) -> dict:
        return {} if trial.number == 0 else self.base.sample_relative(study, trial, search_space)

    def sample_independent(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, param_name: str,
                           param_distribution: optuna.distributions.BaseDistribution) -> Any:
        if trial.number == 0 and param_name in self.defaults:
            return self.defaults[param_name]
        return self.base.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        self.base.before_trial(study, trial)

    def after_trial(self, study: optuna.Study, trial: optuna.trial.FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        self.base.after_trial(study, trial, state, values)

    def reseed_rng(self) -> None:
        self.base.reseed_rng()


def make_sampler(name: str, seed: int, finished: int) -> optuna.samplers.BaseSampler:
    if name == "random":
        return TrialSeededRandom(seed)
    if name == "tpe":  # seeded by the trials already there: a resumed study draws anew
        return optuna.samplers.TPESampler(seed=seed + finished, constant_liar=True)
    raise ParameterError(f"sampler must be one of {', '.join(SAMPLERS)}, got {name!r}")


def open_study(graph: Graph, *, storage: str, name: str | None = None, sampler: str = "random",
               seed: int = 0, validation_fraction: float = 0.2) -> optuna.Study:
    """The study (created, or loaded to resume) for tuning on ``graph``; a StudyMismatch when a
    study of that name was made for another graph, seed or validation fraction."""
    name = name or study_name(graph, seed)
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # the CLI and the app report trials their way
    pruner = optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1)
    study = _create_study(storage, name, pruner)
    about = {"graph": graph.fingerprint(), "seed": seed, "validation_fraction": validation_fraction}
    for key, value in about.items():
        found = study.user_attrs.get(key)
        if found is None:
            study.set_user_attr(key, value)
        elif found != value:
            raise StudyMismatch(f"{storage}: study {name!r} was made with {key} = {found!r}, not {value!r}: "
                                "name another study (--study)")
    study.sampler = make_sampler(sampler, seed, len(study.trials))
    return study


def _check_resumed_space(study: optuna.Study, space: Mapping[str, SearchRange], storage: str) -> None:
    """A StudyMismatch unless the study's trials searched each parameter of ``space`` as it would be
    searched now: Optuna takes a narrower range, but no other choices, type or scale, and says so only
    as a traceback at the first trial's suggestion, leaving a failed trial in the study."""
    for trial in study.get_trials(deepcopy=False):
        for name, before in trial.distributions.items():
            if name not in space:  # fixed now: not suggested
                continue
            now = distribution(name, space[name])
            try:
                optuna.distributions.check_distribution_compatibility(before, now)
            except ValueError:
                raise StudyMismatch(f"{storage}: study {study.study_name!r} searched {name} over "
                                    f"{_shown(before)}, not {_shown(now)}: search it as before, or name "
                                    "another study (--study)") from None


def _shown(dist: optuna.distributions.BaseDistribution) -> str:
    if isinstance(dist, CategoricalDistribution):
        return ",".join(map(str, dist.choices))
    assert isinstance(dist, (IntDistribution, FloatDistribution))
    return f"{dist.low:g}:{dist.high:g}" + (" (log scale)" if dist.log else "")


# ---------------------------------------------------------------------------- trials
def trial_params(base: Mapping[str, Any], values: Mapping[str, Any], validation_fraction: float) -> dict:
    """``base`` (GOAT's parameters) with a trial's ``values``, early stopping on: checked."""
    params = dict(base, **values, validation_fraction=validation_fraction)
    check_params(params)
    if params["epochs"] < 1:
        raise ParameterError("tuning needs epochs >= 1: the most epochs a trial may train")
    return params


def run_trial(trial: optuna.Trial, graph: Graph, base: Mapping[str, Any], space: Mapping[str, SearchRange],
              validation_fraction: float, callback: Callable | None = None) -> float:
    """One trial: early stopping on the carve-out of ``graph`` chooses its epochs; its best
    validation AUC is its value. Every epoch's AUC is reported to the pruner."""

    params = trial_params(base, suggest(trial, space), validation_fraction)
    device = resolve_device(params["device"])

    def report(progress):
        if callback is not None and callback(progress) is False:
            return False
        if progress.epoch_end and progress.val_auc is not None:
            auc = progress.val_auc if math.isfinite(progress.val_auc) else 0.0
            trial.report(auc, progress.epoch)
            if trial.should_prune():
                raise optuna.TrialPruned(f"validation AUC {auc:.4f} at epoch {progress.epoch}")
        return True

    start = time.perf_counter()
    chosen = choose_epochs(params, graph, device=device, callback=report, shard=(0, 1), wrap=None,
                           backend=resolve_backend(params["backend"], params["variant"], device))
    best = max((a for a in chosen["val_auc"] if math.isfinite(a)), default=0.0)
    trial.set_user_attr("best_epoch", chosen["best_epoch"])
    trial.set_user_attr("epochs_tried", chosen["epochs_tried"])
    trial.set_user_attr("seconds", time.perf_counter() - start)
    return best


def search(graph: Graph, *, trials: int | None = 20, timeout: float | None = None, sampler: str = "random",
           seed: int = 0, storage: str = DEFAULT_STORAGE, study: str | None = None,
           space: Mapping[str, SearchRange] = SEARCH_SPACE, base: Mapping[str, Any] | None = None,
           validation_fraction: float = 0.2, callback: Callable | None = None,
           on_trial: Callable | None = None, default_first: bool = True) -> optuna.Study:
    """Run ``trials`` more trials (or until ``timeout`` seconds) of the study on ``graph``, the
    training graph: the only graph the search sees. ``base``: parameters fixed, not searched
    (the others are ``Goat()``'s defaults; ``epochs`` is the most a trial trains).
    ``callback(progress)`` sees every step (False cancels); ``on_trial(study, frozen_trial)`` is
    called as each trial ends. ``default_first``: a new study's first trial is ``Goat()``'s defaults
    (:func:`default_trial`), so that the search never chooses worse than them on validation."""

    if not 0.0 < validation_fraction < 1.0:
        raise ParameterError(f"validation_fraction must be in (0, 1) for tuning, got {validation_fraction}")
    if (trials is not None and trials < 1) or (timeout is not None and not timeout > 0):
        raise ParameterError(f"trials must be >= 1 and timeout > 0 seconds, got {trials} and {timeout}")
    fixed = dict(base or {})
    free = {k: v for k, v in space.items() if k not in fixed}  # a parameter given is not searched
    base = dict({k: p.default for k, p in PARAMETERS.items()}, **fixed, seed=seed)
    trial_params(base, {}, validation_fraction)  # a bad fixed parameter: refused before any study
    opened = open_study(graph, storage=storage, name=study, sampler=sampler, seed=seed,
                        validation_fraction=validation_fraction)
    _check_resumed_space(opened, free, storage)
    if default_first:
        opened.sampler = DefaultsFirst(opened.sampler, default_trial(free, base))
    opened.optimize(lambda t: run_trial(t, graph, base, free, validation_fraction, callback),
                    n_trials=trials, timeout=timeout, callbacks=[on_trial] if on_trial else None)
    return opened


# ---------------------------------------------------------------------------- the best configuration
def best_params(study: optuna.Study, base: Mapping[str, Any] | None = None) -> dict:
    """The best trial's configuration as ``Goat`` parameters that retrain it on every training
    edge: its values, the epochs its early stopping chose, no further carve-out."""
    if not study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        raise ParameterError(f"study {study.study_name!r} has no finished trial yet: run more trials "
                             "(--trials) or a longer --timeout")
    best = study.best_trial
    params = dict({k: p.default for k, p in PARAMETERS.items()}, **(base or {}))
    params.update(best.params, epochs=int(best.user_attrs["best_epoch"]), validation_fraction=0.0,
                  seed=int(study.user_attrs["seed"]))
    check_params(params)
    return params


@dataclass(frozen=True)
class TuneResult:
    """What ``goat tune --json`` prints (:meth:`to_dict`), and the retrained best model."""

    study: Any
    storage: str
    params: dict
    model: Goat
    test: dict | None

    def to_dict(self) -> dict:
        states = [t.state for t in self.study.get_trials(deepcopy=False)]
        result = {
            "best_params": dict(self.study.best_trial.params),
            "best_epochs": self.params["epochs"],
            "best_validation_auc": self.study.best_value,
            "trials_finished": states.count(TrialState.COMPLETE),
            "trials_pruned": states.count(TrialState.PRUNED),
            "study": self.study.study_name, "storage": self.storage, "params": self.params,
        }
        if self.test is not None:
            result.update({"test_auc": self.test["auc"], "test_ap": self.test["ap"]})
        return result


def tune_split(split: EdgeSplit, *, storage: str = DEFAULT_STORAGE, callback: Callable | None = None,
               **options: Any) -> TuneResult:
    """:func:`search` on ``split.train``, the best configuration retrained on it, then scored once
    on the held-out edges: the only moment ``split``'s test edges are read."""
    from .analysis.evaluation import evaluate_link_prediction

    study = search(split.train, storage=storage, callback=callback, **options)
    params = best_params(study, options.get("base"))
    model = Goat(**params).fit(split.train, callback=callback)
    test = evaluate_link_prediction(model, split)
    return TuneResult(study, str(storage), params, model, test)
