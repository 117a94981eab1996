"""3 · Gossip & attend: pick a pair (click two nodes, or the pickers) and watch them attend; mute
neighbors (a click on a bar) or switch to uniform attention to see what attention adds; replay
how the pair's attention moved over training."""

import streamlit as st

from ui import faithfulness_panel, gossip, gossip_tabs, pair_choice, parts, state
from ui.parts import md

ex = state.get()
run = parts.require_run(ex)
parts.require_attention(ex, run)

# Clicks on the charts arrive before anything is drawn, so the pickers below show the new pair.
pair_choice.take_clicks(ex)
gossip.take_mute_click(ex, run.goat)
pair_choice.sync_pickers(ex)

st.title("Gossip & attend")
parts.show_message(ex)
pair_choice.pickers(ex)
pair = gossip.pair_view(ex, run, uniform=gossip.uniform_on())  # every number the page shows of the pair
att = pair.shown

view = pair_choice.view_choice(ex)
with st.container(border=True):
    if view == "ego":
        pair_choice.ego_view(ex, att)
    else:
        pair_choice.whole_view(ex)

st.header(f"{md(att.source)} ↔ {md(att.target)}", anchor="attention-panel")
with st.container(horizontal=True, vertical_alignment="center"):
    st.toggle("Uniform attention", key="att_uniform",
              help="Replace the learned attention with uniform attention over the same neighbors: r_s and "
                   "r_t become the mean of their neighbors' embeddings. The difference in score is what "
                   "attention adds.")
    if att.muted:
        st.markdown(f"Muted: **{md(', '.join(att.muted))}**")
        st.button("Unmute all", key="att_unmute", on_click=state.set_mutes, args=(ex, ()),
                  icon=":material/volume_up:")
m = st.columns(4)
m[0].metric("Edge probability σ(r_s·r_t)", f"{att.probability:.3f}", pair.delta("probability"))
m[1].metric("Score r_s·r_t", f"{att.score:.3f}", pair.delta("score"))
m[2].metric("In the graph", pair.status)
m[3].metric("Shared neighbors", len(att.shared))
for line in pair.captions():
    st.caption(line)

# Tabs compute and draw only when open (the context shift alone runs dozens of attentions).
parts.valid_choice("gossip_tabs", gossip_tabs.TABS)  # e.g. a link's unknown tab
tabs = dict(zip(gossip_tabs.TABS, st.tabs(list(gossip_tabs.TABS), key="gossip_tabs", on_change="rerun"),
                strict=True))
if tabs["Attention"].open:
    with tabs["Attention"]:
        gossip_tabs.attention(ex, run, pair)  # the bars; a panel beside them takes (ex, run, pair) too
        faithfulness_panel.panel(ex, run, pair)  # weight vs leave-one-out effect, and what it means
for label in ("Over training", "Alignment matrix", "Context shift", "Drivers & top partners"):
    if tabs[label].open:
        with tabs[label]:
            gossip_tabs.TABS[label](ex, run, pair)
