"""4 · The equations: the current pair's score computed step by step with its real numbers."""

import streamlit as st

from goat_core import NodeIndex, views
from goat_core.analysis import equations
from ui import navigation, parts, state
from ui.parts import md

MAX_ROWS = 8  # neighbors shown in the vector slices

ex = state.get()
run = parts.require_run(ex)
parts.require_attention(ex, run)
s, t = ex.pair

st.title("How a score is made")
parts.show_message(ex)
eq = equations.pair_equations(run.goat, NodeIndex(s), NodeIndex(t))
st.markdown(f"The pair **{md(eq.source)}** (s) and **{md(eq.target)}** (t), as on the Gossip page: the "
            "paper's Fig. 2 with this model's numbers. Step through it; each step is highlighted where it "
            "lives in the alignment.")
st.page_link(navigation.GOSSIP_PAGE, label="Pick another pair", icon=":material/forum:")

c = st.columns([4, 2], vertical_alignment="bottom")
parts.valid_choice("eq_step", views.STEPS)  # e.g. a link's unknown step
step = c[0].segmented_control("Step", views.STEPS, key="eq_step", default=views.STEPS[0], required=True)
width = c[1].slider("Dimensions shown", 2, min(16, eq.S.shape[1]), min(8, eq.S.shape[1]), key="eq_dims",
                    help="A readable slice of d: the dimensions that add most to the score r_s · r_t.")
formula, numbers = equations.step_text(eq, step)
st.latex(formula)
st.markdown(numbers)

left, right = st.columns([3, 2])
parts.chart(left, views.pooling_figure(eq.A, eq.source_names, eq.target_names, eq.a_s, eq.a_t, eq.p_s, eq.p_t,
                                       eq.row_winner, eq.col_winner, step=step, source=eq.source,
                                       target=eq.target), key="eq_pooling")
dims = eq.top_dimensions(width)
top_s = eq.p_s.argsort()[::-1][:MAX_ROWS]
top_t = eq.p_t.argsort()[::-1][:MAX_ROWS]
rows_s = {f"{eq.source_names[i]} (p={eq.p_s[i]:.2f})": eq.S[i] for i in top_s}
rows_t = {f"{eq.target_names[j]} (p={eq.p_t[j]:.2f})": eq.T[j] for j in top_t}
if step in ("representations", "score"):
    rows_s["r_s"], rows_t["r_t"] = eq.r_s, eq.r_t
parts.chart(right, views.vectors_heatmap(rows_s, dims, title=f"S: {eq.source}'s neighbors"), key="eq_S")
parts.chart(right, views.vectors_heatmap(rows_t, dims, title=f"T: {eq.target}'s neighbors"), key="eq_T")
st.caption(f"Recomputed in float64 from the embeddings: score {eq.score:.5f}, the model's "
           f"{eq.model_score:.5f}. "
           f"Rows of S and T: the {MAX_ROWS} most attended neighbors of each side; columns: the {width} "
           "dimensions with the largest |r_s[k] r_t[k]|.")
