"""The Train page's Tune panel: ``goat_core.tune``'s search on the current graph, in the background.

The trials run as a job (:mod:`ui.jobs`: one worker thread, progress followed by a fragment); the
search sees only the training part of the page's hold-out split, so the held-out edges stay the
run's test edges. Cancel stops the trial under way and keeps the finished ones. Once done: Optuna's
optimisation history and parameter importances, and *Train the best*, whose run opens like any
other (its link carries its parameters).
"""

from __future__ import annotations

import threading

import optuna
import streamlit as st

import goat_core
from goat_core import presets, tune

from . import jobs, parts, state, training
from .runs import with_backend
from .state import Explorer

DEFAULTS = {"tune_trials": 10, "tune_epochs": 20, "tune_holdout": 0.15, "tune_sampler": "random"}
STUDIES_KEPT = 16  # searches Start again can resume; older ended ones are dropped (a server runs for days)


@st.cache_resource(show_spinner=False)
def cancels() -> dict[str, threading.Event]:
    """Cancel flags of the searches under way, by job key (shared: the job runs in another thread)."""
    return {}


@st.cache_resource(show_spinner=False)
def storages() -> dict[str, optuna.storages.BaseStorage]:
    """Each search's study storage, by job key: Start again adds trials to the same study."""
    return {}


def study_storage(key: str) -> optuna.storages.BaseStorage:
    """The study of the search ``key`` (a new one the first time), made the newest of those kept;
    beyond :data:`STUDIES_KEPT`, the oldest ended searches' studies and cancel flags are dropped."""
    kept = storages()
    kept[key] = kept.pop(key, None) or optuna.storages.InMemoryStorage()  # re-inserted: newest last
    ended = [old for old in kept if old != key and _ended(old)]
    for old in ended[:max(len(kept) - STUDIES_KEPT, 0)]:
        del kept[old]
        cancels().pop(old, None)
    return kept[key]


def _ended(key: str) -> bool:
    job = jobs.job_store().get(key)
    return job is None or job.done.is_set()


def settings() -> dict:
    return {k: st.session_state.get(k, v) for k, v in DEFAULTS.items()}


def fixed_params(graph: goat_core.Graph, max_epochs: int) -> dict:
    """What the search does not vary: the most epochs a trial trains (early stopping picks fewer),
    a short patience, and the app's compute path for this graph."""
    return with_backend({"epochs": max_epochs, "patience": 3}, graph.num_edges)


def job_key(ex: Explorer, chosen: dict, seed: int) -> str:
    return (f"tune|{ex.graph_fp}|{chosen['tune_holdout']:.4f}|{chosen['tune_trials']}|{chosen['tune_epochs']}"
            f"|{chosen['tune_sampler']}|{seed}")


def submit(ex: Explorer, chosen: dict, seed: int) -> jobs.Job:
    """The search as a background job: ``tune_trials`` more trials of the study on the training part
    of the split the page's runs use (hold-out ``tune_holdout``), resumed when one ended with the
    same settings (finished or cancelled: nothing redone); its result is the study and the fixed
    parameters."""
    graph, key = ex.graph, job_key(ex, chosen, seed)
    split = goat_core.split_edges(graph, 1.0 - chosen["tune_holdout"], seed)  # errors here, not in the job
    jobs.job_store().forget(key)  # an ended search with these settings: this one adds to its study
    stop = cancels()[key] = threading.Event()  # a new flag: an earlier search's cancel must not stop it
    storage = study_storage(key)
    base = fixed_params(graph, int(chosen["tune_epochs"]))
    trials = int(chosen["tune_trials"])

    def work(report: jobs.Report) -> dict:
        done = [0]

        def on_epoch(progress) -> bool:
            auc = f", validation AUC {progress.val_auc:.3f}" if progress.val_auc is not None else ""
            report(done[0] / trials, f"trial {done[0] + 1}/{trials}, epoch {progress.epoch}{auc}")
            return not stop.is_set()

        def on_trial(study, trial) -> None:
            done[0] += 1

        try:
            study = tune.search(split.train, trials=trials, sampler=chosen["tune_sampler"], seed=seed,
                                storage=storage, base=base, callback=on_epoch, on_trial=on_trial)
            cancelled = False
        except goat_core.TrainingCancelled:  # the trial under way failed; the finished ones are kept
            study, cancelled = optuna.load_study(study_name=tune.study_name(split.train, seed),
                                                 storage=storage), True
        return {"study": study, "base": base, "cancelled": cancelled}

    return jobs.job_store().submit(key, "Tuning", work)


def panel(ex: Explorer) -> None:
    """The Tune expander of the Train page."""
    with st.expander("Tune: search the parameters on validation edges (Optuna)"):
        st.caption("A random search (the paper's) or TPE over lr, dropout, N, d, negatives, batch size "
                   "and padding; each trial trains on 80 % of the training edges and is scored on the other "
                   "20 % after every epoch (early stopping picks its epochs; trials behind the median are "
                   "pruned). The held-out edges are never seen. Start again adds trials to the same study. "
                   "`goat tune` does the same in a terminal.")
        for name, value in DEFAULTS.items():
            st.session_state.setdefault(name, value)
        a, b, c, d = st.columns(4)
        a.number_input("Trials", 1, 200, key="tune_trials")
        b.number_input("Most epochs per trial", 1, 500, key="tune_epochs")
        c.slider("Hold out (test edges)", 0.05, 0.5, step=0.05, key="tune_holdout")
        d.selectbox("Sampler", tune.SAMPLERS, key="tune_sampler")
        chosen, seed = settings(), state.seed()
        key = job_key(ex, chosen, seed)
        job = jobs.job_store().get(key)
        if st.button("Start tuning", key="tune_start", disabled=job is not None and not job.done.is_set()):
            try:
                job = submit(ex, chosen, seed)
            except goat_core.GoatError as err:
                parts.show_error(err)
                return
        if job is None:
            return
        if not job.done.is_set():
            st.button("Cancel tuning", key="tune_cancel", on_click=lambda: cancels()[key].set())
            jobs.follow(job)
            return
        if job.error is not None:
            jobs.show_error(job)
            return
        show_result(ex, job.result, chosen["tune_holdout"], seed)


def show_result(ex: Explorer, result: dict, holdout: float, seed: int) -> None:
    study = result["study"]
    finished = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    pruned = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.PRUNED,))
    note = " (cancelled: the finished trials are kept)" if result["cancelled"] else ""
    st.write(f"{len(finished)} trials finished, {len(pruned)} pruned{note}.")
    if not finished:
        return
    st.metric("Best validation AUC", f"{study.best_value:.3f}")
    st.caption(parts.md(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                  for k, v in study.best_params.items())))
    history = optuna.visualization.plot_optimization_history(study)
    history.update_xaxes(tick0=0, dtick=max(1, len(study.trials) // 10))  # whole trials, never 0.5
    figures = {"tune_history": history}
    if len(finished) >= 2:  # importances need two finished trials at least
        try:
            figures["tune_importance"] = optuna.visualization.plot_param_importances(study)
        except (RuntimeError, ValueError) as err:  # e.g. every trial drew the same values
            st.caption(f"No importances: {err}")
    for key, fig in figures.items():
        parts.chart(st, fig, key=key)
    if st.button("Train the best", key="tune_train_best", type="primary"):
        best = tune.best_params(study, result["base"])  # the form's fields: what a link carries
        params = {name: best[name] for name in (*presets.TRAINING_FIELDS, "seed", "backend")}
        try:
            with st.status("Training the best configuration…", expanded=True) as status:
                record = training.train(ex.graph, ex.graph_fp, params, holdout, status, prefix="tune",
                                        track=training.pairs_to_track(ex.graph, ex.pair))
                status.update(label="Training done", state="complete")
        except goat_core.GoatError as err:
            parts.show_error(err)
            st.caption("The previous run, if any, is kept.")
            return
        ex.runs[ex.graph_fp] = record
        ex.message = ("success", f"Trained the best configuration in {record.seconds:.1f} s.")
        st.rerun()
