"""6 · Case study: the paper's Les Misérables pairs 25 ↔ 55 and 48 ↔ 55, step by step."""

import numpy as np
import streamlit as st

import goat_core
from goat_core import explore, presets, quiz, views
from goat_core.paper import GAVROCHE, MARIUS, THENARDIER  # the paper's ids (Newman's numbering)
from ui import cache, classroom, jobs, navigation, parts, state, training
from ui.runs import run_key

ex = state.get()
seed = state.seed()
graph = cache.bundled_graph("lesmis")
fp = graph.fingerprint()
names = graph.names
CASE = presets.case_study(graph.num_edges)


st.title("Case study: who is Marius talking to?")
st.markdown(
    "The GOAT paper (Kefato & Girdzijauskas, AAAI 2020, §5) trains on the co-appearance network of "
    "*Les Misérables* and looks at one character, **Marius (55)**, gossiping with two partners: "
    "**Thenardier (25)** and **Gavroche (48)**. GOAT claims that Marius pays attention to *different "
    "parts of his neighborhood* depending on whom he gossips with. Let us check.")

params = training.case_study_params(graph, seed)
ahead = jobs.job_store().get(f"case-study|{seed}")  # trained ahead once the session trained its own
if ahead is not None and not ahead.done.is_set() and cache.run_store().get(run_key(fp, params, 0.0)) is None:
    with st.spinner(f"Training GOAT on Les Misérables (seed {seed}, about a second)…"):
        ahead.done.wait(120)
try:
    if cache.run_store().get(run_key(fp, params, 0.0)) is None:
        with st.status(f"Training GOAT on Les Misérables (seed {seed}, about 2 s)…", expanded=True) as status:
            record = training.train(graph, fp, params, 0.0, status, prefix="case", origin="case study",
                                    track=training.CASE_STUDY_PAIRS)
            status.update(label=f"Trained in {record.seconds:.1f} s (seed {seed})", state="complete",
                          expanded=False)
    else:
        record = training.train(graph, fp, params, 0.0, st.container(), prefix="case", origin="case study")
except goat_core.GoatError as err:  # the user's input; anything else is a bug and shows its traceback
    st.error(parts.md(str(err).splitlines()[0] if str(err) else type(err).__name__))
    parts.stop(ex)
goat = record.goat
about = parts.figure_config(ex, record, "Les Misérables (case study)")  # what an exported figure says
st.caption(f"Model: d = {CASE['dim']}, lr = {CASE['lr']}, {CASE['epochs']} epochs on every edge (as in the "
           f"paper's case study), seed {seed} from the sidebar: the same seed gives the same pictures.")
st.info("**A quiz for the class:** before each pair's attention is shown, guess which neighbor Marius will "
        "attend to most, then reveal it. Projector mode (sidebar) makes every page readable from the back "
        "of a room.", icon=":material/school:")

st.header("1 · The characters and their communities")
labels = graph.labels
fig = views.network_figure(cache.layout(fp, seed, graph), graph.src, graph.dst, names, graph.degrees(),
                           groups=labels.codes, group_names=labels.classes, seed=seed, height=560,
                           highlight={MARIUS: "focus", THENARDIER: "partner A", GAVROCHE: "partner B"},
                           labels=classroom.key_nodes(graph, (MARIUS, THENARDIER, GAVROCHE)))
parts.chart(st, fig, key="case_graph", about=about)
comm = {i: labels.classes[labels.codes[i]] for i in (MARIUS, THENARDIER, GAVROCHE)}
st.markdown(f"Colours are modularity communities, as in the paper's Fig. 3. Marius is in *{comm[MARIUS]}*, "
            f"Thenardier in *{comm[THENARDIER]}*, Gavroche in *{comm[GAVROCHE]}*. Marius has "
            f"{len(explore.neighbors(graph, MARIUS))} neighbors: his family and Cosette, the Thenardiers, "
            "and the students of the ABC society.")

for step, partner in ((2, THENARDIER), (3, GAVROCHE)):
    att = goat.attention(MARIUS, partner)
    st.header(f"{step} · Marius (55) gossips with {names[partner]} ({partner})")
    if classroom.quiz_step(quiz.top_neighbor_question(att), str(partner), record.key) is None:
        continue  # the attention stays hidden until revealed
    mass = att.shared_mass()
    ms, us, mt, ut = mass.source, mass.source_uniform, mass.target, mass.target_uniform
    c = st.columns(3)
    c[0].metric("Shared neighbors", len(att.shared))
    c[1].metric("Marius's attention on them", f"{ms:.0%}", f"{ms - us:+.0%} vs uniform")
    c[2].metric(f"{names[partner]}'s attention on them", f"{mt:.0%}", f"{mt - ut:+.0%} vs uniform")
    a, b = st.columns(2)
    parts.chart(a, views.attention_bars(att.source_names, att.source_attention, att.shared, node="Marius",
                                        partner=names[partner], color=views.SOURCE_COLOR, top=12),
                   key=f"case_att_s_{partner}", about=about)
    parts.chart(b, views.attention_bars(att.target_names, att.target_attention, att.shared,
                                        node=names[partner], partner="Marius", color=views.TARGET_COLOR,
                                        top=12), key=f"case_att_t_{partner}", about=about)
    top_s = att.source_names[int(np.argmax(att.source_attention))]
    top_t = att.target_names[int(np.argmax(att.target_attention))]
    st.markdown(f"Shared neighbors ({views.STAR.strip()}): {', '.join(att.shared) or 'none'}. Marius's "
                f"strongest attention goes to **{top_s}**, {names[partner]}'s to **{top_t}**; edge "
                f"probability σ(r·r) = **{att.probability:.2f}**.")

revealed = classroom.quiz_score(record.key, steps=2)

st.header("4 · The shift: same Marius, different partner")
if revealed < 2:  # the shift shows both answers: it waits for the quiz
    st.info("Reveal both answers above to compare Marius's attention with each partner.",
            icon=":material/visibility_off:")
else:
    shift = explore.context_shift(goat, MARIUS, THENARDIER, GAVROCHE)
    to_a, to_b = shift.gained()
    c = st.columns(3)
    c[0].metric("Attention moved", f"{shift.moved:.0%}",
                help="total variation distance of the two attention vectors: 0% = same, 100% = disjoint")
    c[1].metric("cos(r | Thenardier, r | Gavroche)", f"{shift.cosine:.2f}",
                help="1 = the same representation")
    c[2].metric("Marius's representations", f"{len(explore.neighbors(graph, MARIUS))}",
                help="one per gossip partner (neighbor)")
    parts.chart(st, views.context_shift_bars(shift.neighbor_names, shift.weights_a, shift.weights_b,
                                             node="Marius", partner_a="Thenardier", partner_b="Gavroche"),
                    key="case_shift", about=about)
    st.markdown(f"With **Thenardier**, Marius leans on *{', '.join(to_a) or '—'}*; with **Gavroche** his "
                f"attention moves to *{', '.join(to_b) or '—'}*, neighbors that got little attention before. "
                "That is the paper's observation: attention concentrates on the part of the neighborhood "
                "shared with the current partner, so Marius's representation r changes with the partner.")

st.header("5 · All of Marius's personas")
partner_ids, reps = cache.personas(record.key, MARIUS, False, goat)
coords = cache.projection(f"{record.key}|personas|{MARIUS}|neighbors", "pca", seed, reps)
parts.chart(st, views.persona_scatter(coords, partner_ids, names, node="Marius", groups=labels.codes,
                                      group_names=labels.classes,
                                      highlight={THENARDIER: "partner A", GAVROCHE: "partner B"}),
                key="case_personas", about=about)
st.markdown("One point per gossip partner (PCA of Marius's representations), coloured by the partner's "
            "community: partners from the same part of the novel give Marius similar representations.")

if st.button("Explore these pairs yourself", key="case_explore", type="primary",
             icon=":material/arrow_forward:"):
    if ex.graph_fp != fp:
        state.set_graph(ex, graph, "lesmis")
    ex.runs[fp] = record
    state.set_pair(ex, MARIUS, THENARDIER)
    st.switch_page(navigation.GOSSIP_PAGE)
