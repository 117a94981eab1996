"""3 · Gossip & attend: pick a pair (click two nodes, or the pickers) and watch them attend; mute
neighbors (a click on a bar) or switch to uniform attention to see what attention adds; replay
how the pair's attention moved over training."""

import numpy as np
import pandas as pd
import streamlit as st

import goat_core
from goat_core import NodeIndex, attribution, explore, views
from ui import cache, classroom, parts, state, training
from ui.parts import md

CHART, EGO_CHART = "gossip_graph", "gossip_ego"
TABS = ["Attention", "Over training", "Alignment matrix", "Context shift", "Drivers & top partners"]
VIEWS = {"ego": "Around the pair", "whole": "The whole graph"}
WHOLE_GRAPH_NODES = 2000  # above this the whole graph is a hairball to click in: the pair's view only
DEFAULT_WHOLE_NODES = 300  # up to this the page opens on the whole graph

ex = state.get()
run = parts.require_run(ex)
parts.require_attention(ex, run)
goat, graph = run.goat, ex.graph
names = list(ex.names)
index = {name: i for i, name in enumerate(names)}

# Clicks on the charts arrive before anything is drawn, so the pickers below show the new pair.
state.take_chart_clicks(ex, CHART)
state.take_partner_click(ex, EGO_CHART)
clicked_bar = state.take_mute_click(ex)
if clicked_bar is not None:  # a click on an attention bar mutes that neighbor, a second one unmutes it
    now = state.mutes(ex)
    wanted = [v for v in now if v != clicked_bar] if clicked_bar in now else now + [clicked_bar]
    try:
        # e.g. the last neighbor of a side cannot be muted
        goat.attention(*map(NodeIndex, ex.pair), mute=[NodeIndex(v) for v in wanted])
    except goat_core.GoatError as err:
        ex.message = ("warning", str(err))
    else:
        state.set_mutes(ex, wanted)
s_name, t_name = parts.pair_names(ex)
for key, value in zip(state.PAIR_WIDGETS, (s_name, t_name), strict=True):
    if st.session_state.get(key) != value:
        st.session_state[key] = value


def picked() -> None:
    s, t = index[st.session_state["pair_source"]], index[st.session_state["pair_target"]]
    if not state.set_pair(ex, s, t):
        ex.message = ("warning", "A node cannot gossip with itself: pick two different nodes.")


def found_as(slot: str) -> None:
    node = st.session_state.get("pair_found")
    if node is None:
        ex.message = ("warning", "Search a node first.")
        return
    s, t = ex.pair
    ok = state.set_pair(ex, node, t) if slot == "source" else state.set_pair(ex, s, node)
    if not ok:
        ex.message = ("warning", f"{names[node]} is already the other node of the pair.")


def swap() -> None:
    state.set_pair(ex, ex.pair[1], ex.pair[0])


def random_pair(edge: bool) -> None:
    ex.draws += 1
    try:
        state.set_pair(ex, *explore.random_pair(graph, state.seed(), ex.draws, edge=edge))
    except goat_core.GoatError as err:  # e.g. a complete graph has no non-edge
        ex.message = ("warning", str(err))


def pair_buttons() -> None:
    with st.container(horizontal=True):
        st.button("Swap", key="pair_swap", on_click=swap, icon=":material/swap_horiz:")
        st.button("Random edge", key="pair_random_edge", on_click=random_pair, args=(True,),
                  icon=":material/shuffle:")
        st.button("Random non-edge", key="pair_random_non_edge", on_click=random_pair, args=(False,),
                  icon=":material/shuffle:")


st.title("Gossip & attend")
parts.show_message(ex)
if graph.num_nodes <= parts.PICKER_NODES:  # a list that searches as you type
    c = st.columns([2, 2, 4], vertical_alignment="bottom")
    c[0].selectbox("Source s", names, key="pair_source", on_change=picked)
    c[1].selectbox("Target t", names, key="pair_target", on_change=picked)
    with c[2]:
        pair_buttons()
else:  # too many nodes to list: search by name or id
    c = st.columns([3, 3, 3], vertical_alignment="bottom")
    with c[0]:
        parts.node_search(graph, "pair_found", "Find a node by name or id")
    with c[1]:
        with st.container(horizontal=True):
            st.button("Make it s", key="pair_found_source", on_click=found_as, args=("source",))
            st.button("Make it t", key="pair_found_target", on_click=found_as, args=("target",))
    with c[2]:
        pair_buttons()

s, t = map(NodeIndex, ex.pair)  # positions in the graph's names (a plain int would be a name)
seed = state.seed()
for key in ("shift_keep", "topk_node"):  # radios over the pair: forget a choice from an older pair
    if st.session_state.get(key) not in (s, t):
        st.session_state.pop(key, None)
mode = "labels" if graph.labels is not None else "communities"
groups, group_names, values, value_title = cache.colouring(ex, mode, seed)
model_att = goat.attention(s, t)  # the model's own answer; ``att`` is the one shown (counterfactual or not)
try:
    att = goat.attention(s, t, mute=[NodeIndex(v) for v in state.mutes(ex)],
                         uniform=bool(st.session_state.get("att_uniform")))
except goat_core.GoatError as err:  # mutes made for another run of this pair (e.g. another N)
    state.set_mutes(ex, ())
    ex.message = ("warning", f"Unmuted every neighbor: {err}")
    att = goat.attention(s, t, uniform=bool(st.session_state.get("att_uniform")))
counterfactual = bool(att.muted) or att.uniform
shared = att.shared
status = explore.edge_status(graph, goat.graph_, s, t)

views_offered = list(VIEWS) if graph.num_nodes <= WHOLE_GRAPH_NODES else ["ego"]
st.session_state.setdefault("gossip_view", "whole" if graph.num_nodes <= DEFAULT_WHOLE_NODES else "ego")
if st.session_state["gossip_view"] not in views_offered:
    st.session_state["gossip_view"] = "ego"
view = st.segmented_control("Choose the pair on", views_offered, format_func=VIEWS.get, key="gossip_view",
                            required=True)


def ego_view() -> None:
    st.markdown("Both sampled neighborhoods: **click a neighbor to make it the partner** (a neighbor of "
                f"{md(att.source)} gossips with {md(att.source)}, one of {md(att.target)} only with "
                f"{md(att.target)}); click s or t to swap them.")
    fig = views.ego_figure(att.source, att.target, att.source_neighbors, att.target_neighbors,
                           att.source_names, att.target_names, att.source_attention, att.target_attention,
                           source_id=s, target_id=t, placed_names=classroom.names_on())
    parts.chart(st, fig, key=state.chart_key(ex, EGO_CHART), on_select="rerun", selection_mode="points")
    st.caption("Left: s and its sampled neighbors; right: t and its; middle: neighbors of both (★). A "
               "neighbor's size and colour show its attention; a line's width, how much s (or t) attends "
               "to it.")


def whole_view() -> None:
    if ex.pending is not None:  # one line either way, so that the chart never jumps between clicks
        st.markdown(f":green[**First node: {md(names[ex.pending])}.**] Now click its gossip partner.")
    else:
        st.markdown("Click a node, then its partner, to choose a new gossip pair.")
    highlight = {s: "source", t: "target"}
    if ex.pending is not None:
        highlight[ex.pending] = "pending"
    fig = views.network_figure(cache.layout(ex.graph_fp, seed, graph), graph.src, graph.dst, names,
                               graph.degrees(), groups=groups, group_names=group_names, values=values,
                               value_title=value_title, highlight=highlight, seed=seed, height=520,
                               labels=classroom.key_nodes(graph, (s, t)))
    parts.chart(st, fig, key=state.chart_key(ex, CHART), on_select="rerun", selection_mode="points")
    parts.edges_drawn_caption(graph.num_edges)
    st.caption("Click one node, then another: they become the gossip pair (shift-click two nodes works "
               "too). Blue ring: source s; orange: target t; green: a first click waiting for its partner.")


with st.container(border=True):
    (ego_view if view == "ego" else whole_view)()


def unmute_all() -> None:
    state.set_mutes(ex, ())


st.header(f"{md(att.source)} ↔ {md(att.target)}", anchor="attention-panel")
with st.container(horizontal=True, vertical_alignment="center"):
    st.toggle("Uniform attention", key="att_uniform",
              help="Replace the learned attention with uniform attention over the same neighbors: r_s and "
                   "r_t become the mean of their neighbors' embeddings. The difference in score is what "
                   "attention adds.")
    if att.muted:
        st.markdown(f"Muted: **{md(', '.join(att.muted))}**")
        st.button("Unmute all", key="att_unmute", on_click=unmute_all, icon=":material/volume_up:")
m = st.columns(4)


def delta(now: float, was: float) -> str | None:
    return f"{now - was:+.3f} vs the model's" if counterfactual else None


m[0].metric("Edge probability σ(r_s·r_t)", f"{att.probability:.3f}",
            delta(att.probability, model_att.probability))
m[1].metric("Score r_s·r_t", f"{att.score:.3f}", delta(att.score, model_att.score))
m[2].metric("In the graph", status)
m[3].metric("Shared neighbors", len(shared))
if counterfactual:
    what = " and ".join(([f"{md(', '.join(att.muted))} muted"] if att.muted else [])
                        + (["uniform attention"] if att.uniform else []))
    st.caption(f"A counterfactual ({what}): the model's own answer is p = {model_att.probability:.3f}, score "
               f"{model_att.score:.3f}. Outlined bars below show the model's attention.")
if not att.uniform:
    flat = goat.attention(s, t, mute=list(att.muted), uniform=True)
    st.caption(f"With uniform attention over the same neighbors the score would be {flat.score:.3f} "
               f"(p = {flat.probability:.3f}): attention adds {att.score - flat.score:+.3f} to the score.")


def attention_tab() -> None:
    a, b = st.columns(2)
    for column, prefix, side, partner, color in ((a, "att_source", "source", att.target, views.SOURCE_COLOR),
                                                 (b, "att_target", "target", att.source, views.TARGET_COLOR)):
        fig = views.attention_bars(
            getattr(att, f"{side}_names"), getattr(att, f"{side}_attention"), shared, node=getattr(att, side),
            partner=partner, color=color, padding=getattr(att, f"{side}_padding"),
            ids=getattr(att, f"{side}_neighbors"), muted=att.muted,
            baseline=getattr(model_att, f"{side}_attention") if counterfactual else None,
            baseline_padding=getattr(model_att, f"{side}_padding"))
        parts.chart(column, fig, key=state.chart_key(ex, prefix), on_select="rerun", selection_mode="points")
    pads = (" Zero padding: a neighborhood smaller than N is filled with zero vectors, which take part "
            "in the max and the softmax; their share is the grey bar '(padding)'."
            if goat.padding == "zero" else "")
    st.caption(f"{views.STAR}= a neighbor of both (shared). Each node's attention sums to 1 over its sampled "
               f"neighborhood; the partner itself is left out of it when the run says so.{pads} **Click a "
               "bar to mute that neighbor** (click it again to unmute): it is left out of the max and the "
               "softmax of each side that sampled it, and the others share its attention.")
    rows = [{"side": side, "node": node, "partner": partner, "neighbor": n, "attention": float(w),
             "shared": n in shared}
            for side, node, partner, nbrs, weights in (
                ("source", att.source, att.target, att.source_names, att.source_attention),
                ("target", att.target, att.source, att.target_names, att.target_attention))
            for n, w in zip(nbrs, weights, strict=True)]
    rows += [{"side": side, "node": node, "partner": partner, "neighbor": views.PADDING_LABEL,
              "attention": mass, "shared": False}
             for side, node, partner, mass in (("source", att.source, att.target, att.source_padding),
                                               ("target", att.target, att.source, att.target_padding))
             if mass > 0.0]
    st.download_button("Download attention (CSV)", pd.DataFrame(rows).to_csv(index=False),
                       file_name="attention.csv", mime="text/csv", key="att_csv")


def replay_pair() -> None:
    """Train the run again with this pair tracked (seeded: the same model), then show it."""
    try:
        with st.status(f"Replaying the training with {md(att.source)} ↔ {md(att.target)} tracked…",
                       expanded=True) as status:
            record, same = training.replay(run, (s, t), status)
            status.update(label=f"Replayed in {record.seconds:.1f} s", state="complete", expanded=False)
    except goat_core.GoatError as err:
        st.error(md(str(err).splitlines()[0] if str(err) else type(err).__name__))
        return
    ex.runs[ex.graph_fp] = record
    if not same:
        ex.message = ("warning", "The replayed training gave another model than the run (saved by another "
                                 "version?): the pages now show the replayed one.")
    st.rerun()


def training_tab() -> None:
    history = goat.attention_history(s, t)
    if history is None:
        st.info("This pair's attention was not recorded while the run trained: the app tracks the pair "
                "chosen when training started and, on Les Misérables, the case study's pairs.")
        if st.button("Replay the training with this pair tracked", key="replay_track",
                     icon=":material/replay:",
                     help=f"Trains again with the run's seed and settings (it took {run.seconds:.1f} s): the "
                          "same model, with this pair's attention after every epoch."):
            replay_pair()
        return
    epochs = [int(e) for e in history.epochs]
    if st.session_state.get("replay_epoch") not in epochs:
        st.session_state["replay_epoch"] = epochs[-1]
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
        shared=model_att.shared, current=k), key="replay_bars")
    parts.chart(st, views.entropy_curve(
        history.epochs, h_s, h_t, probability=history.probability,
        uniform_probability=history.uniform_probability, source=history.source, target=history.target,
        current=epoch), key="replay_entropy")
    st.caption("Every row is the model after that epoch, on the same sampled neighborhoods as the answers "
               "above (the last epoch is the model's attention). At epoch 0 the embeddings are random and "
               "attention is close to uniform (entropy near 1); training makes it peak on a few neighbors.")


def alignment_tab() -> None:
    parts.chart(st, views.alignment_heatmap(att.alignment, att.source_names, att.target_names,
                                            att.source_attention, att.target_attention, source=att.source,
                                            target=att.target, shared=shared), key="att_alignment")
    st.caption("Each cell is E_u · E_v for a neighbor u of s (row) and v of t (column). Blue outline: the "
               "maximum of each row, i.e. s's unnormalised attention to u (column-wise max pooling, the "
               "paper's green box); orange: the maximum of each column, t's attention (the blue box).")


def shift_tab() -> None:
    keep = st.radio("Keep", [s, t], format_func=lambda i: md(names[i]), horizontal=True, key="shift_keep")
    partner_a = t if keep == s else s
    default_b = cache.contrasting_partner(run.key, int(keep), int(partner_a), goat)
    options = [int(v) for v in explore.neighbors(graph, keep) if v != partner_a] or \
        [v for v in range(graph.num_nodes) if v not in (keep, partner_a)]
    if not options:
        st.info("A context shift needs a third node to gossip with: this graph has only two.")
        return
    if st.session_state.get("shift_partner") not in options:
        st.session_state["shift_partner"] = default_b if default_b in options else options[0]
    label = f"Compare {md(names[partner_a])} with another partner of {md(names[keep])}"
    partner_b = st.selectbox(label, options, format_func=lambda i: names[i], key="shift_partner")
    shift = explore.context_shift(goat, keep, partner_a, NodeIndex(partner_b))
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
        coords = cache.projection(f"{run.key}|personas|{keep}|neighbors", "pca", seed, reps)
        fig = views.persona_scatter(coords, partner_ids, names, node=names[keep], groups=groups,
                                    group_names=group_names, height=460,
                                    highlight={partner_a: "partner A", partner_b: "partner B"})
        parts.chart(right, fig, key="shift_personas")
        right.caption("Every point is the node's representation while gossiping with one neighbor (PCA).")


def drivers_tab() -> None:
    c_s, c_t = attribution.score_contributions(att.alignment, att.source_attention, att.target_attention)
    drivers = attribution.neighbor_drivers(att.source_names, att.target_names, c_s, c_t)
    parts.chart(st, views.drivers_bar(drivers, shared, score=att.score), key="att_drivers")
    note = "" if goat.variant == "goat" else " (approximate for mean-pool, whose alignment is tanh'd)"
    st.caption("r_s·r_t = Σ p_s[i] p_t[j] E_i·E_j: each neighbor's share of the score, averaged over the "
               f"two sides{note}. Shared neighbors are starred.")
    a, b, c = st.columns([2, 1, 1])
    who = a.radio("Top partners of", [s, t], format_func=lambda i: md(names[i]), horizontal=True,
                  key="topk_node")
    k = b.slider("k", 3, 25, 10, key="topk_k")
    unseen = c.checkbox("Only pairs unseen in training", key="topk_new")
    top = goat.top_partners(who, k, exclude_neighbors=unseen)
    kinds = [explore.partner_kind(graph, goat.graph_, who, index[n]) for n, _ in top]
    parts.chart(st, views.partners_bar([n for n, _ in top], np.array([p for _, p in top]), kinds,
                                       node=names[who]), key="topk_chart")
    st.caption("Blue: neighbors the model trained on; green: edges held out from training (correctly "
               "predicted); orange: no edge in the graph.")


# Tabs compute and draw only when open (the context shift alone runs dozens of attentions).
if st.session_state.get("gossip_tabs") not in (None, *TABS):  # e.g. a link's unknown tab
    del st.session_state["gossip_tabs"]
tabs = st.tabs(TABS, key="gossip_tabs", on_change="rerun")
for tab, draw in zip(tabs, (attention_tab, training_tab, alignment_tab, shift_tab, drivers_tab), strict=True):
    if tab.open:
        with tab:
            draw()
