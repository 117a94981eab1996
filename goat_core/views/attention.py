"""A gossip pair's attention: bars, the alignment heatmap with its max-pooled cells, drivers,
top partners and the context shift of one node between two partners."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from ..attribution import max_pool_cells
from .style import (
    MAX_MATRIX_SIDE,
    PALETTE,
    PENDING_COLOR,
    SHARED_COLOR,
    SOURCE_COLOR,
    TARGET_COLOR,
    _e,
    _mark,
    names_axis,
)

PADDING_LABEL = "(padding)"  # the zero pads' share of attention (padding="zero")
PADDING_COLOR = "#BDBDBD"


def attention_bars(names: Sequence[str], weights: ArrayLike, shared: Sequence[str] = (), *, node: str = "",
                   partner: str = "", color: str = SOURCE_COLOR, top: int | None = None,
                   padding: float = 0.0) -> go.Figure:
    """``node``'s attention over its neighbors while gossiping with ``partner``, sorted.

    Shared neighbors (of both gossipers) are starred and drawn in the shared colour. Under
    zero padding, ``padding`` (the mass the pads take) is one grey bar, "(padding)", last: with
    it the bars sum to 1.
    """
    weights = np.asarray(weights, dtype=float)
    order = np.argsort(-weights, kind="stable")
    if top is not None:
        order = order[:top]
    shared_set = set(shared)
    labels = [_e(x) for x in _mark([names[i] for i in order], shared_set)]
    colors = [SHARED_COLOR if names[i] in shared_set else color for i in order]
    values = weights[order]
    if padding > 0.0:
        labels, colors = labels + [PADDING_LABEL], colors + [PADDING_COLOR]
        values = np.append(values, padding)
    fig = go.Figure(go.Bar(
        x=values, y=labels, orientation="h", marker_color=colors,
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    title = f"{_e(node)} attends to … (partner: {_e(partner)})" if node else "attention"
    fig.update_layout(title=title, height=max(220, 22 * len(labels) + 80),
                      margin=dict(l=10, r=10, t=40, b=10), xaxis_title="attention weight")
    fig.update_yaxes(autorange="reversed", automargin=True)
    names_axis(fig, fig.data[0].y)
    return fig


def alignment_heatmap(alignment: ArrayLike, source_names: Sequence[str], target_names: Sequence[str],
                      source_attention: ArrayLike, target_attention: ArrayLike, *, source: str = "s",
                      target: str = "t", shared: Sequence[str] = (),
                      max_side: int = MAX_MATRIX_SIDE) -> go.Figure:
    """The alignment matrix A = S Tᵀ with the max-pooled cells outlined (the paper's Fig. 2).

    Rows are s's neighbors, columns t's, both sorted by attention (most attended first). The
    cell holding each row's maximum (s-side attention) has a blue outline, each column's
    maximum (t-side attention) an orange one. Only the ``max_side`` most attended neighbors
    per side are shown; the maxima are taken over the full matrix first.
    """
    A = np.asarray(alignment, dtype=float)
    row_max, col_max = max_pool_cells(A)
    rows = np.argsort(-np.asarray(source_attention), kind="stable")[:max_side]
    cols = np.argsort(-np.asarray(target_attention), kind="stable")[:max_side]
    row_pos = {r: k for k, r in enumerate(rows.tolist())}
    col_pos = {c: k for k, c in enumerate(cols.tolist())}
    shared_set = set(shared)
    fig = go.Figure(go.Heatmap(
        z=A[np.ix_(rows, cols)], x=list(range(len(cols))), y=list(range(len(rows))),
        colorscale="RdBu", zmid=0, colorbar=dict(title="E·E", thickness=12),
        customdata=[[[_e(source_names[r]), _e(target_names[c])] for c in cols] for r in rows],
        hovertemplate="%{customdata[0]} · %{customdata[1]}: %{z:.3f}<extra></extra>",
    ))
    shapes = []
    for r in rows.tolist():
        c = int(row_max[r])
        if c in col_pos:
            shapes.append(_cell(col_pos[c], row_pos[r], SOURCE_COLOR, 0.0))
    for c in cols.tolist():
        r = int(col_max[c])
        if r in row_pos:
            shapes.append(_cell(col_pos[c], row_pos[r], TARGET_COLOR, 0.12))
    cut = "" if len(rows) == A.shape[0] and len(cols) == A.shape[1] else \
        f" (top {len(rows)}×{len(cols)} of {A.shape[0]}×{A.shape[1]})"
    fig.update_layout(
        shapes=shapes, height=max(340, 18 * len(rows) + 200), margin=dict(l=10, r=10, t=50, b=10),
        title=f"Alignment A = S Tᵀ: {_e(source)}'s neighbors (rows) × {_e(target)}'s (columns){cut}",
    )
    fig.update_xaxes(tickvals=list(range(len(cols))), tickangle=-60, automargin=True,
                     ticktext=[_e(x) for x in _mark([target_names[c] for c in cols], shared_set)])
    fig.update_yaxes(tickvals=list(range(len(rows))), autorange="reversed", automargin=True,
                     ticktext=[_e(x) for x in _mark([source_names[r] for r in rows], shared_set)])
    return fig


def _cell(x: int, y: int, color: str, inset: float) -> dict:
    return dict(type="rect", x0=x - 0.5 + inset, x1=x + 0.5 - inset, y0=y - 0.5 + inset,
                y1=y + 0.5 - inset, line=dict(color=color, width=2.5), fillcolor="rgba(0,0,0,0)")


def drivers_bar(drivers: Sequence[tuple[str, float]], shared: Sequence[str] = (), *, top: int = 15,
                score: float | None = None) -> go.Figure:
    """Which neighbors push the pair's score up (or down)."""
    rows = list(drivers)[:top]
    shared_set = set(shared)
    fig = go.Figure(go.Bar(
        x=[c for _, c in rows], y=[_e(x) for x in _mark([n for n, _ in rows], shared_set)], orientation="h",
        marker_color=[SHARED_COLOR if n in shared_set else PALETTE[9] for n, _ in rows],
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    title = "Which neighbors drive the score"
    if score is not None:
        title += f" (score r_s·r_t = {score:.3f})"
    fig.update_layout(title=title, height=max(240, 22 * len(rows) + 80), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title="contribution to r_s·r_t")
    fig.update_yaxes(autorange="reversed", automargin=True)
    names_axis(fig, fig.data[0].y)
    return fig


PARTNER_KINDS = {"neighbor": PALETTE[0], "held out": PENDING_COLOR, "new": PALETTE[1]}


def partners_bar(names: Sequence[str], probabilities: ArrayLike, kinds: Sequence[str], *,
                 node: str = "") -> go.Figure:
    """A node's top-k predicted gossip partners.

    ``kinds[i]`` is "neighbor" (an edge the model trained on), "held out" (an edge hidden from
    training: a correct prediction) or "new" (no edge); each kind has its colour and suffix.
    """
    colors = [PARTNER_KINDS.get(k, PALETTE[9]) for k in kinds]
    labels = [_e(n) + ("" if k == "neighbor" else f" ({k})") for n, k in zip(names, kinds, strict=True)]
    fig = go.Figure(go.Bar(
        x=np.asarray(probabilities).tolist(), y=labels,
        orientation="h", marker_color=colors, hovertemplate="%{y}: p = %{x:.3f}<extra></extra>",
    ))
    fig.update_layout(title=f"Most likely partners of {_e(node)}" if node else "Most likely partners",
                      height=max(220, 22 * len(names) + 80), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis=dict(title="edge probability", range=[0, 1]))
    fig.update_yaxes(autorange="reversed", automargin=True)
    names_axis(fig, fig.data[0].y)
    return fig


def context_shift_bars(names: Sequence[str], weights_a: ArrayLike, weights_b: ArrayLike, *, node: str,
                       partner_a: str, partner_b: str, top: int = 25) -> go.Figure:
    """One node's attention over its neighbors under two partners, side by side.

    ``weights_a``/``weights_b`` are aligned with ``names``; NaN where that neighbor is not in
    the node's message for that partner (a partner is left out of its own gossip).
    """
    a = np.nan_to_num(np.asarray(weights_a, dtype=float))
    b = np.nan_to_num(np.asarray(weights_b, dtype=float))
    order = np.argsort(-np.maximum(a, b), kind="stable")[:top]
    labels = [_e(names[i]) for i in order]
    pa, pb = _e(partner_a), _e(partner_b)
    fig = go.Figure([
        go.Bar(y=labels, x=a[order], orientation="h", name=f"with {pa}", marker_color=SOURCE_COLOR,
               hovertemplate="%{y}: %{x:.3f}<extra>with " + pa + "</extra>"),
        go.Bar(y=labels, x=b[order], orientation="h", name=f"with {pb}", marker_color=TARGET_COLOR,
               hovertemplate="%{y}: %{x:.3f}<extra>with " + pb + "</extra>"),
    ])
    fig.update_layout(barmode="group", title=f"{_e(node)}'s attention: with {pa} vs with {pb}",
                      height=max(280, 30 * len(order) + 100), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis_title="attention weight", legend=dict(orientation="h", y=-0.12))
    fig.update_yaxes(autorange="reversed", automargin=True)
    names_axis(fig, fig.data[0].y)
    return fig
