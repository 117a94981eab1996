"""The Scores page's "Evaluate as the paper did": the current run's model scored leak-free and under
the authors' protocol, leak by leak, beside the untrained model (:func:`goat_core.analysis.audit.audit`).

The audit trains the run again from its seed on the run's own split (the same model: the same
settings, seed and split) and runs on until the test pairs stop choosing a better epoch, so it is
a background job started by a button: the page never waits for it. Jobs are shared by run key, so
another session auditing the same run finds it running or done.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import goat_core
from goat_core import views
from goat_core.analysis.audit import LEAK_TITLES, LEAKS, audit

from . import jobs, parts
from .runs import RunRecord
from .state import Explorer

NUMBER = st.column_config.NumberColumn(format="%.3f")


def start(graph: goat_core.Graph, run: RunRecord) -> jobs.Job:
    """The audit of ``run`` in the background (trains once, reports its epochs as progress)."""
    params, ratio = dict(run.params), 1.0 - run.holdout

    def work(report: jobs.Report) -> dict:
        def progress(p) -> None:
            what = "choosing the epoch on validation" if p.stage == "select" else "training, scoring epochs"
            report(p.fraction, f"{what}: epoch {p.epoch}")
        return audit(graph, ratio, params, callback=progress)

    return jobs.job_store().submit(f"audit|{run.key}", "Evaluate as the paper did", work)


def rows(result: dict) -> list[dict]:
    """The table: leak-free, each leak alone, the paper's protocol (trained and untrained AUC/AP)."""
    free, untrained = result["leak_free"], result["untrained"]
    out = [{"protocol": "leak-free (ours)", "AUC": free["auc"], "AP": free["ap"],
            "untrained AUC": untrained["leak_free"]["auc"], "what the leak lets through": "—"}]
    for leak in result["leaks"]:
        out.append({"protocol": f"only: {LEAK_TITLES[leak['name']]}", "AUC": leak["auc"], "AP": leak["ap"],
                    "untrained AUC": None, "what the leak lets through": seen(leak)})
    paper = result["paper_protocol"]
    out.append({"protocol": "the paper's (all four)", "AUC": paper["auc"], "AP": paper["ap"],
                "untrained AUC": untrained["paper_protocol"]["auc"], "what the leak lets through": "all"})
    return out


def seen(leak: dict) -> str:
    """How much one leak let through, in words."""
    name = leak["name"]
    if leak.get("note"):
        return leak["note"]
    if name == "full_graph_neighborhoods":
        return f"{100 * leak['exposure']:.0f} % of the test pairs' sampled neighbors came via held-out edges"
    if name == "unchecked_negatives":
        return f"{100 * leak['exposure']:.1f} % of the negatives are real edges"
    if name == "reversed_edges":
        return f"{100 * leak['exposure']:.0f} % of the test pairs trained the other way round"
    return f"epoch {leak['epoch']} instead of the validation's"


def section(ex: Explorer, run: RunRecord) -> None:
    """The button, the job's progress, then the bars, the table and one sentence per leak."""
    st.header("Evaluate as the paper did")
    if run.split is None:
        st.info("This run has no held-out edges: train with 'Hold out for validation' above 0 to audit it.")
        return
    st.caption("The authors' evaluation differs from ours in four ways, each of which lets the score see "
               "something a deployed model would not. The audit trains this run's model again (same "
               "settings, seed and split: the same model), then scores it leak-free, under each leak alone "
               "and under all four, beside the untrained model (epoch 0).")
    job = jobs.job_store().get(f"audit|{run.key}")
    if job is None:
        if not st.button("Evaluate as the paper did", key="audit_start", icon=":material/fact_check:",
                         help=f"Trains once in the background (the run took {run.seconds:.0f} s; the audit "
                              "runs on past its epoch to see which one the test pairs would pick)."):
            return
        job = start(ex.graph, run)
    if not job.done.is_set():
        jobs.follow(job)
        return
    if job.error is not None:
        jobs.show_error(job)
        return
    show(job.result)


def show(result: dict) -> None:
    table = rows(result)
    labels = [r["protocol"] for r in table]
    parts.chart(st, views.leak_bars(labels, [r["AUC"] for r in table], [r["untrained AUC"] for r in table]),
                key="audit_bars")
    st.dataframe(pd.DataFrame(table), hide_index=True, key="audit_table",
                 column_config={"AUC": NUMBER, "AP": NUMBER, "untrained AUC": NUMBER})
    for leak in result["leaks"]:
        st.markdown(f"- **{LEAK_TITLES[leak['name']]}**: {LEAKS[leak['name']]}")
    gain = result["paper_protocol"]["auc"] - result["leak_free"]["auc"]
    untrained, epochs = result["untrained"]["paper_protocol"]["auc"], result["epochs"]
    st.caption(f"The paper's protocol moves this AUC by {100 * gain:+.1f} points; the untrained model "
               f"scores {untrained:.3f} under it. Epochs: validation chose {epochs['validation']}, the test "
               f"pairs {epochs['test']}.")


