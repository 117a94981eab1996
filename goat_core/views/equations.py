"""The paper's Fig. 2 on a real pair: the alignment with its pooled logits and attention in the
margins, one step of the computation highlighted at a time, and slices of the vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from .attention import _top_cells, maxima_outlines
from .style import MARGIN, MAX_MATRIX_SIDE, SOURCE_COLOR, TARGET_COLOR, _e, short

# The steps of the score, in order; each highlights where it lives in the figure.
STEPS = ("alignment", "row maxima", "column maxima", "softmax", "representations", "score")


def pooling_figure(A: ArrayLike, source_names: Sequence[str], target_names: Sequence[str],
                   a_s: ArrayLike, a_t: ArrayLike, p_s: ArrayLike, p_t: ArrayLike,
                   row_winner: ArrayLike, col_winner: ArrayLike, *, step: str = "alignment",
                   source: str = "s", target: str = "t", max_side: int = MAX_MATRIX_SIDE) -> go.Figure:
    """A = S Tᵀ with s's pooled logits (attention from the softmax step on) at the right and t's underneath;
    ``step`` (:data:`STEPS`) outlines row maxima (blue), column maxima (orange) or both."""
    if step not in STEPS:
        raise ValueError(f"step must be one of {', '.join(STEPS)}, got {step!r}")
    A = np.asarray(A, dtype=float)
    p_s, p_t = np.asarray(p_s, dtype=float), np.asarray(p_t, dtype=float)
    rows, cols, hover_names, cut = _top_cells(A, source_names, target_names, p_s, p_t, max_side)
    attention_on = STEPS.index(step) >= STEPS.index("softmax")
    margin_s = (p_s if attention_on else np.asarray(a_s, dtype=float))[rows]
    margin_t = (p_t if attention_on else np.asarray(a_t, dtype=float))[cols]
    fig = make_subplots(rows=2, cols=2, column_widths=[0.88, 0.12], row_heights=[0.88, 0.12],
                        horizontal_spacing=0.02, vertical_spacing=0.03, shared_xaxes=True, shared_yaxes=True)
    fig.add_trace(go.Heatmap(z=A[np.ix_(rows, cols)], colorscale="RdBu", zmid=0, customdata=hover_names,
                             colorbar=dict(title="A", thickness=10, x=1.02),
                             hovertemplate="%{customdata[0]} · %{customdata[1]}: %{z:.4f}<extra></extra>"),
                  row=1, col=1)
    label = "p" if attention_on else "a"
    fig.add_trace(_margin(margin_s.reshape(-1, 1), SOURCE_COLOR, f"{label}_s",
                          [[_e(source_names[r])] for r in rows]), row=1, col=2)
    fig.add_trace(_margin(margin_t.reshape(1, -1), TARGET_COLOR, f"{label}_t",
                          [[_e(target_names[c]) for c in cols]]), row=2, col=1)
    outlined = step in ("softmax", "representations")  # both maxima, the attention's source
    shapes = maxima_outlines(rows, cols, row_winner, col_winner, outlined or step == "row maxima",
                             outlined or step == "column maxima")
    fig.update_layout(shapes=shapes, height=max(380, 18 * len(rows) + 240), margin=dict(MARGIN, t=50),
                      title=_title(step, source, target) + cut)
    axis = dict(tickmode="array", automargin=True)
    fig.update_yaxes(tickvals=list(range(len(rows))), ticktext=[short(_e(source_names[r])) for r in rows],
                     autorange="reversed", row=1, col=1, **axis)
    fig.update_xaxes(tickvals=list(range(len(cols))), ticktext=[short(_e(target_names[c])) for c in cols],
                     tickangle=-60, row=2, col=1, **axis)
    fig.update_xaxes(showticklabels=False, row=1, col=2)
    fig.update_yaxes(showticklabels=False, row=2, col=1)
    return fig


def _margin(z: np.ndarray, color: str, name: str, names: list) -> go.Heatmap:
    return go.Heatmap(z=z, colorscale=[[0, "rgba(255,255,255,0)"], [1, color]], showscale=False,
                      texttemplate="%{z:.2f}", customdata=names, name=name,
                      hovertemplate=f"{name}[%{{customdata}}] = %{{z:.4f}}<extra></extra>")


def _title(step: str, source: str, target: str) -> str:
    return {
        "alignment": f"A = S Tᵀ: {_e(source)}'s neighbors (rows) × {_e(target)}'s (columns)",
        "row maxima": f"a_s = max over each row: how well each of {_e(source)}'s neighbors matches the best "
                      f"of {_e(target)}'s",
        "column maxima": f"a_t = max over each column, for {_e(target)}'s neighbors",
        "softmax": "p_s = softmax(a_s), p_t = softmax(a_t): the attention in the margins",
        "representations": "r_s = Σ p_s S and r_t = Σ p_t T: attention-weighted sums of the rows of E",
        "score": "score = r_s · r_t",
    }[step]


def vectors_heatmap(vectors: Mapping[str, ArrayLike], dims: Sequence[int], *, title: str = "") -> go.Figure:
    """Rows of named vectors (neighbors' embeddings, r_s, r_t) on a readable slice of dimensions."""
    names = list(vectors)
    dims = [int(d) for d in dims]
    z = np.array([np.asarray(vectors[name], dtype=float)[dims] for name in names])
    z = z.reshape(len(names), len(dims))  # (rows, dims)
    fig = go.Figure(go.Heatmap(z=z, x=[f"d{d}" for d in dims], y=list(range(len(names))),
                               colorscale="RdBu", zmid=0, texttemplate="%{z:.2f}",
                               customdata=[[_e(n)] * len(dims) for n in names],
                               hovertemplate="%{customdata} · %{x}: %{z:.4f}<extra></extra>",
                               colorbar=dict(thickness=10)))
    fig.update_yaxes(tickmode="array", tickvals=list(range(len(names))), autorange="reversed",
                     ticktext=[short(_e(n)) for n in names], automargin=True)
    fig.update_xaxes(type="category")
    fig.update_layout(title=_e(title), height=max(180, 24 * len(names) + 110), margin=MARGIN)
    return fig
