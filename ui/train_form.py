"""The Train page's form: the presets, the training parameters (each with its meaning from
``goat_core.PARAMETERS``) and the hold-out, kept per graph in the session (``Explorer.forms``)."""

from __future__ import annotations

import streamlit as st

import goat_core
from goat_core import presets

from . import state, training
from .state import Explorer

FIELDS = (*presets.TRAINING_FIELDS, "holdout")
HELP = {name: spec.meaning for name, spec in goat_core.PARAMETERS.items()}
HELP["holdout"] = ("share of edges hidden from training: they give the live validation AUC and the "
                   "Scores page's link prediction (0 = train on every edge, no validation AUC)")


def apply_preset(values: dict) -> None:
    for name in FIELDS:
        st.session_state[f"train_{name}"] = values[name]


def preset_buttons(ex: Explorer) -> None:
    """Fast (the app's default), Validated (``Goat()``'s) and the paper's Table 2: each fills the form."""
    graph = ex.graph
    c1, c2, c3, _ = st.columns([1, 1, 1, 1])
    c1.button("Fast (app default)", key="preset_fast", on_click=apply_preset,
              args=(presets.fast(graph.num_edges),), help="A stable attention view in seconds.")
    c2.button("Validated (library default)", key="preset_validated", on_click=apply_preset,
              args=(presets.validated(graph.num_edges),),
              help="Goat()'s defaults: d = 200, lr = 3e-3, dropout 0.8, zero padding, epochs chosen by early "
                   "stopping on 20% of the training edges (validated on Email). Minutes, not seconds.")
    c3.button("Paper (Table 2)", key="preset_paper", on_click=apply_preset,
              args=(presets.paper(ex.graph_key if ex.bundled else "other"),),
              help="d = 200, lr = 1e-4, 20 epochs, the paper's dropout and N for this dataset, no early "
                   "stopping: the paper's configuration literally.")


def form(ex: Explorer) -> bool:
    """The parameters' form (this graph's last values, else the fast preset); True when submitted."""
    values = state.form_values(ex)
    for name in FIELDS:
        st.session_state.setdefault(f"train_{name}", values[name])
    with st.form("train_form"):
        a, b, c = st.columns(3)
        limit = state.FORM_LIMITS
        a.number_input("Embedding dimension d", *limit["dim"], step=8, key="train_dim", help=HELP["dim"])
        a.number_input("Neighborhood size N", *limit["neighborhood"], step=10, key="train_neighborhood",
                       help=HELP["neighborhood"])
        a.slider("Dropout", *limit["dropout"], step=0.05, key="train_dropout", help=HELP["dropout"])
        b.number_input("Learning rate", *limit["lr"], step=1e-4, format="%.5f", key="train_lr",
                       help=HELP["lr"])
        b.number_input("Epochs", *limit["epochs"], key="train_epochs", help=HELP["epochs"])
        b.number_input("Batch size", *limit["batch_size"], step=32, key="train_batch_size",
                       help=HELP["batch_size"])
        b.slider("Early stopping: carve-out (0 = off)", *limit["validation_fraction"], step=0.05,
                 key="train_validation_fraction", help=HELP["validation_fraction"])
        b.number_input("Early stopping: patience", *limit["patience"], key="train_patience",
                       help=HELP["patience"])
        c.number_input("Negatives per edge", *limit["negatives"], key="train_negatives",
                       help=HELP["negatives"])
        c.selectbox("Variant", goat_core.VARIANTS, key="train_variant", help=HELP["variant"])
        c.selectbox("Padding of small neighborhoods", goat_core.PADDINGS, key="train_padding",
                    help=HELP["padding"])
        c.checkbox("Leave the partner out of its neighborhood", key="train_exclude_partner",
                   help=HELP["exclude_partner"])
        c.slider("Hold out for validation", *limit["holdout"], step=0.05, key="train_holdout",
                 help=HELP["holdout"])
        return st.form_submit_button("Train", type="primary", key="train_submit")


def submitted(ex: Explorer) -> tuple[dict, float]:
    """The form's values, kept for this graph, as (training parameters with the seed, hold-out)."""
    values = ex.forms[ex.graph_fp] = {name: st.session_state[f"train_{name}"] for name in FIELDS}
    params = {name: values[name] for name in FIELDS if name != "holdout"}
    params["seed"] = state.seed()
    return params, float(values["holdout"])


def cancelled(ex: Explorer) -> None:
    """The Cancel button's callback: the click stopped the training; say where."""
    epoch, epochs = st.session_state.get(training.PROGRESS_KEY, (0, 0))
    kept = "the previous run is kept" if ex.run is not None else "no run yet"
    ex.message = ("warning", f"Training cancelled at epoch {epoch}/{epochs}; {kept}.")
