"""6 · Case study: the paper's Les Misérables pairs 25 ↔ 55 and 48 ↔ 55, step by step."""

import streamlit as st

from goat_core import presets, views
from goat_core.analysis import contexts, picking
from goat_core.paper import GAVROCHE, MARIUS, THENARDIER  # the paper's ids (Newman's numbering)
from ui import cache, case_study, classroom, parts, state

ex = state.get()
seed = state.seed()
graph = cache.bundled_graph("lesmis")
names = graph.names
CASE = presets.case_study(graph.num_edges)


st.title("Case study: who is Marius talking to?")
st.markdown(
    "The GOAT paper (Kefato & Girdzijauskas, AAAI 2020, §5) trains on the co-appearance network of "
    "*Les Misérables* and looks at one character, **Marius (55)**, gossiping with two partners: "
    "**Thenardier (25)** and **Gavroche (48)**. GOAT claims that Marius pays attention to *different "
    "parts of his neighborhood* depending on whom he gossips with. Let us check.")

record = case_study.model(ex, graph, seed)  # trained ahead, fetched, or trained here
goat = record.goat
about = parts.figure_config(ex, record, "Les Misérables (case study)")  # what an exported figure says
st.caption(f"Model: d = {CASE['dim']}, lr = {CASE['lr']}, {CASE['epochs']} epochs on every edge (as in the "
           f"paper's case study), seed {seed} from the sidebar: the same seed gives the same pictures.")
st.info("**A quiz for the class:** before each pair's attention is shown, guess which neighbor Marius will "
        "attend to most, then reveal it. Projector mode (sidebar) makes every page readable from the back "
        "of a room.", icon=":material/school:")

st.header("1 · The characters and their communities")
labels = graph.labels
fig = views.network_figure(cache.layout(record.graph_fp, seed, graph), graph.src, graph.dst, names,
                           graph.degrees(), groups=labels.codes, group_names=labels.classes, seed=seed,
                           height=560,
                           highlight={MARIUS: "focus", THENARDIER: "partner A", GAVROCHE: "partner B"},
                           labels=classroom.key_nodes(graph, (MARIUS, THENARDIER, GAVROCHE)))
parts.chart(st, fig, key="case_graph", about=about)
comm = {i: labels.classes[labels.codes[i]] for i in (MARIUS, THENARDIER, GAVROCHE)}
st.markdown(f"Colours are modularity communities, as in the paper's Fig. 3. Marius is in *{comm[MARIUS]}*, "
            f"Thenardier in *{comm[THENARDIER]}*, Gavroche in *{comm[GAVROCHE]}*. Marius has "
            f"{len(picking.neighbors(graph, MARIUS))} neighbors: his family and Cosette, the Thenardiers, "
            "and the students of the ABC society.")

for step, partner in ((2, THENARDIER), (3, GAVROCHE)):
    st.header(f"{step} · Marius (55) gossips with {names[partner]} ({partner})")
    case_study.partner_step(record, partner, about)  # the quiz, then the attention once revealed

revealed = classroom.quiz_score(record.key, steps=2)

st.header("4 · The shift: same Marius, different partner")
if revealed < 2:  # the shift shows both answers: it waits for the quiz
    st.info("Reveal both answers above to compare Marius's attention with each partner.",
            icon=":material/visibility_off:")
else:
    shift = contexts.context_shift(goat, MARIUS, THENARDIER, GAVROCHE)
    to_a, to_b = shift.gained()
    c = st.columns(3)
    c[0].metric("Attention moved", f"{shift.moved:.0%}",
                help="total variation distance of the two attention vectors: 0% = same, 100% = disjoint")
    c[1].metric("cos(r | Thenardier, r | Gavroche)", f"{shift.cosine:.2f}",
                help="1 = the same representation")
    c[2].metric("Marius's representations", f"{len(picking.neighbors(graph, MARIUS))}",
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

case_study.explore_button(ex, graph, record)
