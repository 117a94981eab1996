"""The Gossip & attend page's tabs, one function each, drawn only when open: the attention bars,
the attention over training, the alignment matrix, the context shift, the drivers and top partners.
Each takes the session (``ex``), the run and the page's :class:`ui.gossip.PairView`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import goat_core
from goat_core import NodeIndex, views
from goat_core.analysis import attribution, contexts, picking, splits

from . import cache, pair_choice, parts, state, training
from .gossip import PairView
from .parts import md
from .runs import RunRecord
from .state import Explorer


def attention(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    """Both sides' attention bars (a click mutes a neighbor), their caption and the CSV."""
    att, model = pair.shown, pair.model
    a, b = st.columns(2)
    for column, prefix, side, partner, color in ((a, "att_source", "source", att.target, views.SOURCE_COLOR),
                                                 (b, "att_target", "target", att.source, views.TARGET_COLOR)):
        fig = views.attention_bars(
            getattr(att, f"{side}_names"), getattr(att, f"{side}_attention"), att.shared,
            node=getattr(att, side), partner=partner, color=color, padding=getattr(att, f"{side}_padding"),
            ids=getattr(att, f"{side}_neighbors"), muted=att.muted,
            baseline=getattr(model, f"{side}_attention") if pair.counterfactual else None,
            baseline_padding=getattr(model, f"{side}_padding"))
        parts.chart(column, fig, key=state.chart_key(ex, prefix), on_select="rerun", selection_mode="points")
    pads = (" Zero padding: a neighborhood smaller than N is filled with zero vectors, which take part "
            "in the max and the softmax; their share is the grey bar '(padding)'."
            if run.goat.padding == "zero" else "")
    st.caption(f"{views.STAR}= a neighbor of both (shared). Each node's attention sums to 1 over its sampled "
               f"neighborhood; the partner itself is left out of it when the run says so.{pads} **Click a "
               "bar to mute that neighbor** (click it again to unmute): it is left out of the max and the "
               "softmax of each side that sampled it, and the others share its attention.")
    st.download_button("Download attention (CSV)", pd.DataFrame(pair.rows()).to_csv(index=False),
                       file_name="attention.csv", mime="text/csv", key="att_csv")


def replay_pair(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    """Train the run again with this pair tracked (seeded: the same model), then show it."""
    att = pair.shown
    try:
        with st.status(f"Replaying the training with {md(att.source)} ↔ {md(att.target)} tracked…",
                       expanded=True) as status:
            record, same = training.replay(run, ex.pair, status)
            status.update(label=f"Replayed in {record.seconds:.1f} s", state="complete", expanded=False)
    except goat_core.GoatError as err:
        parts.show_error(err)
        return
    ex.runs[ex.graph_fp] = record
    if not same:
        ex.message = ("warning", "The replayed training gave another model than the run (saved by another "
                                 "version?): the pages now show the replayed one.")
    st.rerun()


def over_training(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    """The pair's attention after every epoch, scrubbed with a slider (or replayed to record it)."""
    history = run.goat.attention_history(*map(NodeIndex, ex.pair))
    if history is None:
        st.info("This pair's attention was not recorded while the run trained: the app tracks the pair "
                "chosen when training started and, on Les Misérables, the case study's pairs.")
        if st.button("Replay the training with this pair tracked", key="replay_track",
                     icon=":material/replay:",
                     help=f"Trains again with the run's seed and settings (it took {run.seconds:.1f} s): the "
                          "same model, with this pair's attention after every epoch."):
            replay_pair(ex, run, pair)
        return
    epochs = [int(e) for e in history.epochs]
    parts.valid_choice("replay_epoch", epochs, epochs[-1])
    epoch = st.select_slider("Epoch (0 = before training)", options=epochs, key="replay_epoch",
                             help="Drag to scrub through training; ▶ Play on the chart runs every epoch.")
    k = epochs.index(epoch)
    h_s, h_t = history.source_entropy, history.target_entropy
    c = st.columns(4)
    c[0].metric("Edge probability at this epoch", f"{history.probability[k]:.3f}",
                f"{history.probability[k] - history.probability[0]:+.3f} since epoch 0" if k else None)
    c[1].metric(f"Entropy of {md(history.source)}'s attention", f"{h_s[k]:.3f}",
                help="normalised: 1 = uniform over its neighbors, 0 = all on one neighbor")
    c[2].metric(f"Entropy of {md(history.target)}'s attention", f"{h_t[k]:.3f}",
                help="normalised: 1 = uniform over its neighbors, 0 = all on one neighbor")
    c[3].metric("Uniform attention's p(edge)", f"{history.uniform_probability[k]:.3f}",
                help="the same neighbors' mean embedding instead of attention, at this epoch")
    parts.chart(st, views.attention_replay(
        history.epochs, history.source_names, history.source_attention, history.target_names,
        history.target_attention, history.probability, source=history.source, target=history.target,
        shared=pair.model.shared, current=k), key="replay_bars")
    parts.chart(st, views.entropy_curve(
        history.epochs, h_s, h_t, probability=history.probability,
        uniform_probability=history.uniform_probability, source=history.source, target=history.target,
        current=epoch), key="replay_entropy")
    st.caption("Every row is the model after that epoch, on the same sampled neighborhoods as the answers "
               "above (the last epoch is the model's attention). At epoch 0 the embeddings are random and "
               "attention is close to uniform (entropy near 1); training makes it peak on a few neighbors.")


def alignment(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    att = pair.shown
    parts.chart(st, views.alignment_heatmap(att.alignment, att.source_names, att.target_names,
                                            att.source_attention, att.target_attention, source=att.source,
                                            target=att.target, shared=att.shared), key="att_alignment")
    st.caption("Each cell is E_u · E_v for a neighbor u of s (row) and v of t (column). Blue outline: the "
               "maximum of each row, i.e. s's unnormalised attention to u (column-wise max pooling, the "
               "paper's green box); orange: the maximum of each column, t's attention (the blue box).")


def context_shift(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    """One node of the pair with its partner and with another: how its attention moves."""
    goat, graph, names, seed = run.goat, ex.graph, ex.names, state.seed()
    s, t = map(NodeIndex, ex.pair)
    parts.valid_choice("shift_keep", (s, t))  # a choice from an older pair is forgotten
    keep = st.radio("Keep", [s, t], format_func=lambda i: md(names[i]), horizontal=True, key="shift_keep")
    partner_a = t if keep == s else s
    default_b = cache.contrasting_partner(run.key, int(keep), int(partner_a), goat)
    options = [int(v) for v in picking.neighbors(graph, keep) if v != partner_a] or \
        [v for v in range(graph.num_nodes) if v not in (keep, partner_a)]
    if not options:
        st.info("A context shift needs a third node to gossip with: this graph has only two.")
        return
    parts.valid_choice("shift_partner", options, default_b if default_b in options else options[0])
    label = f"Compare {md(names[partner_a])} with another partner of {md(names[keep])}"
    partner_b = st.selectbox(label, options, format_func=lambda i: names[i], key="shift_partner")
    shift = contexts.context_shift(goat, keep, partner_a, NodeIndex(partner_b))
    k = st.columns(4)
    k[0].metric(f"p(edge) with {md(names[partner_a])}", f"{shift.probability_a:.3f}")
    k[1].metric(f"p(edge) with {md(names[partner_b])}", f"{shift.probability_b:.3f}")
    k[2].metric("Attention moved (0–1)", f"{shift.moved:.2f}", help="total variation distance")
    k[3].metric("cos(r | A, r | B)", f"{shift.cosine:.3f}", help="1 = the same representation")
    to_a, to_b = shift.gained()
    st.markdown(f"With **{md(shift.partner_a)}**, {md(shift.node)} attends more to "
                f"{md(', '.join(to_a) or '—')}; with **{md(shift.partner_b)}** its attention moves to "
                f"{md(', '.join(to_b) or '—')}.")
    left, right = st.columns([3, 2])
    parts.chart(left, views.context_shift_bars(shift.neighbor_names, shift.weights_a, shift.weights_b,
                                               node=shift.node, partner_a=shift.partner_a,
                                               partner_b=shift.partner_b), key="shift_bars")
    partner_ids, reps = cache.personas(run.key, int(keep), False, goat)
    if len(partner_ids) >= 3:
        groups, group_names, _, _ = cache.colouring(ex, pair_choice.group_mode(graph), seed)
        coords = cache.projection(f"{run.key}|personas|{keep}|neighbors", "pca", seed, reps)
        fig = views.persona_scatter(coords, partner_ids, list(names), node=names[keep], groups=groups,
                                    group_names=group_names, height=460,
                                    highlight={partner_a: "partner A", partner_b: "partner B"})
        parts.chart(right, fig, key="shift_personas")
        right.caption("Every point is the node's representation while gossiping with one neighbor (PCA).")


def drivers(ex: Explorer, run: RunRecord, pair: PairView) -> None:
    """Each neighbor's share of the score, and the pair's nodes' top-scoring partners."""
    goat, graph, names, att = run.goat, ex.graph, ex.names, pair.shown
    s, t = map(NodeIndex, ex.pair)
    c_s, c_t = attribution.score_contributions(att.alignment, att.source_attention, att.target_attention)
    found = attribution.neighbor_drivers(att.source_names, att.target_names, c_s, c_t)
    parts.chart(st, views.drivers_bar(found, att.shared, score=att.score), key="att_drivers")
    note = "" if goat.variant == "goat" else " (approximate for mean-pool, whose alignment is tanh'd)"
    st.caption("r_s·r_t = Σ p_s[i] p_t[j] E_i·E_j: each neighbor's share of the score, averaged over the "
               f"two sides{note}. Shared neighbors are starred.")
    a, b, c = st.columns([2, 1, 1])
    parts.valid_choice("topk_node", (s, t))
    who = a.radio("Top partners of", [s, t], format_func=lambda i: md(names[i]), horizontal=True,
                  key="topk_node")
    k = b.slider("k", 3, 25, 10, key="topk_k")
    unseen = c.checkbox("Only pairs unseen in training", key="topk_new")
    top = goat.top_partners(who, k, exclude_neighbors=unseen)
    index = {name: i for i, name in enumerate(names)}
    kinds = [splits.partner_kind(graph, goat.graph_, who, index[n]) for n, _ in top]
    parts.chart(st, views.partners_bar([n for n, _ in top], np.array([p for _, p in top]), kinds,
                                       node=names[who]), key="topk_chart")
    st.caption("Blue: neighbors the model trained on; green: edges held out from training (correctly "
               "predicted); orange: no edge in the graph.")


TABS = {"Attention": attention, "Over training": over_training, "Alignment matrix": alignment,
        "Context shift": context_shift, "Drivers & top partners": drivers}
