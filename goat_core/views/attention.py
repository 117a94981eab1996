"""A gossip pair's attention: bars (muted neighbors, the model's own beside a counterfactual), its course
over training, the alignment heatmap, drivers, top partners and one node's shift between two partners."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from ..analysis.attribution import max_pool_cells
from .style import (
    MARGIN,
    MAX_MATRIX_SIDE,
    PALETTE,
    PENDING_COLOR,
    SHARED_COLOR,
    SOURCE_COLOR,
    STAR,
    TARGET_COLOR,
    _e,
    names_axis,
    short,
)

PADDING_LABEL = "(padding)"  # the zero pads' share of attention (padding="zero")
PADDING_COLOR = "#BDBDBD"
MUTED_SUFFIX = " (muted)"  # a muted neighbor's label: left out of the max and the softmax
BASELINE_COLOR = "rgba(110, 110, 110, 0.9)"  # the outline of the model's own attention


def attention_bars(names: Sequence[str], weights: ArrayLike, shared: Sequence[str] = (), *, node: str = "",
                   partner: str = "", color: str = SOURCE_COLOR, top: int | None = None,
                   padding: float = 0.0, ids: ArrayLike | None = None, muted: Sequence[str] = (),
                   baseline: ArrayLike | None = None, baseline_padding: float = 0.0) -> go.Figure:
    """``node``'s attention over its neighbors with ``partner``, sorted: shared neighbors starred, zero pads
    one grey bar; ``ids`` as customdata, ``muted`` grey, ``baseline`` outlined so bars keep their place."""
    weights = np.asarray(weights, dtype=float)
    reference = weights if baseline is None else np.asarray(baseline, dtype=float)
    order = np.argsort(-reference, kind="stable")[:top]
    shared_set, muted_set = set(shared), set(muted)
    labels = [label + (MUTED_SUFFIX if names[i] in muted_set else "")
              for label, i in zip(_marked([names[i] for i in order], shared_set), order, strict=True)]
    colors = [PADDING_COLOR if names[i] in muted_set else SHARED_COLOR if names[i] in shared_set else color
              for i in order]
    values, before = weights[order], reference[order]
    custom = None if ids is None else [[int(v), names[i]] for i, v in zip(order, np.asarray(ids)[order])]
    if padding > 0.0 or (baseline is not None and baseline_padding > 0.0):
        labels, colors = labels + [PADDING_LABEL], colors + [PADDING_COLOR]
        values, before = np.append(values, padding), np.append(before, baseline_padding)
        custom = custom + [[-1, PADDING_LABEL]] if custom is not None else None
    fig = go.Figure(go.Bar(
        x=values, y=labels, orientation="h", marker_color=colors, customdata=custom,
        name="attention", hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    if baseline is not None:
        fig.add_trace(go.Bar(
            x=before, y=labels, orientation="h", customdata=custom, name="the model's attention",
            marker=dict(color="rgba(0,0,0,0)", line=dict(color=BASELINE_COLOR, width=1.5)),
            hovertemplate="%{y}: %{x:.3f}<extra>the model's attention</extra>",
        ))
        fig.update_layout(barmode="overlay", showlegend=False)
    title = f"{_e(node)} attends to … (partner: {_e(partner)})" if node else "attention"
    return _ranked_bars(fig, title, max(220, 22 * len(labels) + 80), xaxis_title="attention weight")


def _marked(names: Sequence[str], shared: set[str]) -> list[str]:
    """Names escaped for Plotly, shared neighbors starred."""
    return [_e(STAR + n if n in shared else n) for n in names]


def _ranked_bars(fig: go.Figure, title: str, height: int, **layout) -> go.Figure:
    """The frame of a horizontal bar chart of nodes: the first bar on top, names on a category axis."""
    fig.update_layout(title=title, height=height, margin=MARGIN, **layout)
    fig.update_yaxes(autorange="reversed", automargin=True)
    return names_axis(fig, fig.data[0].y)


def attention_replay(epochs: ArrayLike, source_names: Sequence[str], source_weights: ArrayLike,
                     target_names: Sequence[str], target_weights: ArrayLike, probability: ArrayLike, *,
                     source: str = "s", target: str = "t", shared: Sequence[str] = (),
                     current: int | None = None, top: int = 15, frame_ms: int = 300) -> go.Figure:
    """Both sides' attention per epoch (``source_weights`` (E, Ls), ``target_weights`` (E, Lt)) as animation
    frames with a Play button; each side's ``top`` neighbors on a fixed axis, bars growing in place."""
    rows: list = np.asarray(epochs).tolist()
    prob = np.asarray(probability, dtype=float)
    shown = current if current is not None else len(rows) - 1
    shared_set = set(shared)
    sides = []
    for names, weights, color in ((source_names, source_weights, SOURCE_COLOR),
                                  (target_names, target_weights, TARGET_COLOR)):
        W = np.asarray(weights, dtype=float).reshape(len(rows), -1)  # (E, L)
        keep = np.argsort(-W.max(axis=0), kind="stable")[:top]
        keep = keep[np.argsort(-W[-1, keep], kind="stable")]  # the last epoch's order
        labels = _marked([names[i] for i in keep], shared_set)
        colors = [SHARED_COLOR if names[i] in shared_set else color for i in keep]
        sides.append((W[:, keep], labels, colors))
    high = max([float(W.max()) for W, _, _ in sides if W.size] + [1e-9])
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.18,
                        subplot_titles=(f"{_e(source)} attends to …", f"{_e(target)} attends to …"))

    def bars(k: int) -> list[go.Bar]:
        return [go.Bar(x=W[k], y=labels, orientation="h", marker_color=colors, showlegend=False,
                       hovertemplate="%{y}: %{x:.3f}<extra></extra>") for W, labels, colors in sides]

    def title(k: int) -> str:
        return f"Epoch {rows[k]}: p(edge) = {prob[k]:.3f}"

    for col, bar in enumerate(bars(shown), start=1):
        fig.add_trace(bar, row=1, col=col)
    fig.frames = [go.Frame(name=str(epoch), data=bars(k), traces=[0, 1], layout=dict(title_text=title(k)))
                  for k, epoch in enumerate(rows)]
    play = dict(frame=dict(duration=frame_ms, redraw=True), transition=dict(duration=frame_ms // 2),
                fromcurrent=False, mode="immediate")
    pause = dict(frame=dict(duration=0, redraw=False), transition=dict(duration=0), mode="immediate")
    fig.update_layout(
        title_text=title(shown), height=max(300, 24 * max(len(labels) for _, labels, _ in sides) + 130),
        margin=dict(MARGIN, t=80),
        updatemenus=[dict(type="buttons", direction="left", x=1.0, xanchor="right", y=1.18, yanchor="top",
                          showactive=False,
                          buttons=[dict(label="▶ Play", method="animate", args=[None, play]),
                                   dict(label="❚❚ Pause", method="animate", args=[[None], pause])])],
    )
    for col, (_, labels, _) in enumerate(sides, start=1):
        fig.update_xaxes(range=[0, high * 1.08], title_text="attention weight", row=1, col=col)
        fig.update_yaxes(autorange="reversed", automargin=True, type="category", tickmode="array",
                         tickvals=labels, ticktext=[short(x) for x in labels], row=1, col=col)
    return fig


def entropy_curve(epochs: ArrayLike, source_entropy: ArrayLike, target_entropy: ArrayLike, *,
                  probability: ArrayLike | None = None, uniform_probability: ArrayLike | None = None,
                  source: str = "s", target: str = "t", current: int | None = None) -> go.Figure:
    """Each side's normalised attention entropy per epoch (1 uniform, 0 on one neighbor) with the pair's
    edge probability (and uniform attention's) on the same axis; a line marks the ``current`` epoch."""
    x = np.asarray(epochs).tolist()
    lines = [(f"entropy of {_e(source)}'s attention", source_entropy, dict(color=SOURCE_COLOR)),
             (f"entropy of {_e(target)}'s attention", target_entropy, dict(color=TARGET_COLOR))]
    if probability is not None:
        lines.append(("p(edge)", probability, dict(color=PALETTE[2], dash="dash")))
    if uniform_probability is not None:
        lines.append(("p(edge), uniform attention", uniform_probability, dict(color=PALETTE[9], dash="dot")))
    fig = go.Figure([go.Scatter(x=x, y=np.asarray(y, dtype=float).tolist(), mode="lines+markers", name=name,
                                line=line, hovertemplate="epoch %{x}: %{y:.3f}<extra>" + name + "</extra>")
                     for name, y, line in lines])
    if current is not None:
        fig.add_vline(x=current, line=dict(color="rgba(120,120,120,0.7)", width=2, dash="dot"))
    fig.update_layout(title="Attention entropy over training (1 = uniform)", height=320, margin=MARGIN,
                      xaxis_title="epoch", yaxis=dict(range=[0, 1.02], title="0–1"),
                      legend=dict(orientation="h", y=-0.25))
    return fig


def alignment_heatmap(alignment: ArrayLike, source_names: Sequence[str], target_names: Sequence[str],
                      source_attention: ArrayLike, target_attention: ArrayLike, *, source: str = "s",
                      target: str = "t", shared: Sequence[str] = (),
                      max_side: int = MAX_MATRIX_SIDE) -> go.Figure:
    """The alignment A = S Tᵀ (the paper's Fig. 2), neighbors by attention, row maxima outlined blue and
    column maxima orange (taken over the full matrix); the ``max_side`` most attended per side shown."""
    A = np.asarray(alignment, dtype=float)
    row_max, col_max = max_pool_cells(A)
    rows, cols, pair_names, cut = _top_cells(A, source_names, target_names, source_attention,
                                             target_attention, max_side)
    shared_set = set(shared)
    fig = go.Figure(go.Heatmap(
        z=A[np.ix_(rows, cols)], x=list(range(len(cols))), y=list(range(len(rows))),
        colorscale="RdBu", zmid=0, colorbar=dict(title="E·E", thickness=12), customdata=pair_names,
        hovertemplate="%{customdata[0]} · %{customdata[1]}: %{z:.3f}<extra></extra>",
    ))
    fig.update_layout(
        shapes=maxima_outlines(rows, cols, row_max, col_max), height=max(340, 18 * len(rows) + 200),
        margin=dict(MARGIN, t=50),
        title=f"Alignment A = S Tᵀ: {_e(source)}'s neighbors (rows) × {_e(target)}'s (columns){cut}",
    )
    fig.update_xaxes(tickvals=list(range(len(cols))), tickangle=-60, automargin=True,
                     ticktext=_marked([target_names[c] for c in cols], shared_set))
    fig.update_yaxes(tickvals=list(range(len(rows))), autorange="reversed", automargin=True,
                     ticktext=_marked([source_names[r] for r in rows], shared_set))
    return fig


def _top_cells(A: np.ndarray, source_names: Sequence[str], target_names: Sequence[str],
               source_weights: ArrayLike, target_weights: ArrayLike,
               max_side: int) -> tuple[np.ndarray, np.ndarray, list, str]:
    """The ``max_side`` rows and columns of A with the most weight (in that order), each cell's
    ``[source name, target name]`` escaped, and the title's note when some are left out."""
    rows = np.argsort(-np.asarray(source_weights), kind="stable")[:max_side]
    cols = np.argsort(-np.asarray(target_weights), kind="stable")[:max_side]
    names = [[[_e(source_names[r]), _e(target_names[c])] for c in cols] for r in rows]
    (h, w), (height, width) = (len(rows), len(cols)), A.shape
    return rows, cols, names, "" if (h, w) == (height, width) else f" (top {h}×{w} of {height}×{width})"


def maxima_outlines(rows: np.ndarray, cols: np.ndarray, row_winner: ArrayLike, col_winner: ArrayLike,
                    row_maxima: bool = True, col_maxima: bool = True) -> list[dict]:
    """Outlines of the shown cells (``rows`` × ``cols`` of A, in that order) holding a row's maximum
    (blue) and a column's (orange, inset); a winner not shown (or -1, a pad) is not outlined."""
    row_pos = {int(r): k for k, r in enumerate(rows.tolist())}
    col_pos = {int(c): k for k, c in enumerate(cols.tolist())}
    shapes = []
    if row_maxima:
        shapes += [_cell(col_pos[int(c)], row_pos[int(r)], SOURCE_COLOR, 0.0)
                   for r, c in zip(rows.tolist(), np.asarray(row_winner)[rows].tolist()) if int(c) in col_pos]
    if col_maxima:
        shapes += [_cell(col_pos[int(c)], row_pos[int(r)], TARGET_COLOR, 0.12)
                   for c, r in zip(cols.tolist(), np.asarray(col_winner)[cols].tolist()) if int(r) in row_pos]
    return shapes


def _cell(x: int, y: int, color: str, inset: float) -> dict:
    return dict(type="rect", x0=x - 0.5 + inset, x1=x + 0.5 - inset, y0=y - 0.5 + inset,
                y1=y + 0.5 - inset, line=dict(color=color, width=2.5), fillcolor="rgba(0,0,0,0)")


def drivers_bar(drivers: Sequence[tuple[str, float]], shared: Sequence[str] = (), *, top: int = 15,
                score: float | None = None) -> go.Figure:
    """Which neighbors push the pair's score up (or down)."""
    rows = list(drivers)[:top]
    shared_set = set(shared)
    fig = go.Figure(go.Bar(
        x=[c for _, c in rows], y=_marked([n for n, _ in rows], shared_set), orientation="h",
        marker_color=[SHARED_COLOR if n in shared_set else PALETTE[9] for n, _ in rows],
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    title = "Which neighbors drive the score" + ("" if score is None else f" (score r_s·r_t = {score:.3f})")
    return _ranked_bars(fig, title, max(240, 22 * len(rows) + 80), xaxis_title="contribution to r_s·r_t")


PARTNER_KINDS = {"neighbor": PALETTE[0], "held out": PENDING_COLOR, "new": PALETTE[1]}


def partners_bar(names: Sequence[str], probabilities: ArrayLike, kinds: Sequence[str], *,
                 node: str = "") -> go.Figure:
    """A node's top-k predicted partners, coloured by ``kinds[i]``: "neighbor", "held out" or "new"."""
    colors = [PARTNER_KINDS.get(k, PALETTE[9]) for k in kinds]
    labels = [_e(n) + ("" if k == "neighbor" else f" ({k})") for n, k in zip(names, kinds, strict=True)]
    fig = go.Figure(go.Bar(x=np.asarray(probabilities).tolist(), y=labels, orientation="h",
                           marker_color=colors, hovertemplate="%{y}: p = %{x:.3f}<extra></extra>"))
    return _ranked_bars(fig, f"Most likely partners of {_e(node)}" if node else "Most likely partners",
                        max(220, 22 * len(names) + 80), xaxis=dict(title="edge probability", range=[0, 1]))


def context_shift_bars(names: Sequence[str], weights_a: ArrayLike, weights_b: ArrayLike, *, node: str,
                       partner_a: str, partner_b: str, top: int = 25) -> go.Figure:
    """One node's attention over its neighbors under two partners, side by side (NaN where a neighbor is not
    in the message for that partner)."""
    a, b = (np.nan_to_num(np.asarray(w, dtype=float)) for w in (weights_a, weights_b))
    order = np.argsort(-np.maximum(a, b), kind="stable")[:top]
    labels = [_e(names[i]) for i in order]
    pa, pb = _e(partner_a), _e(partner_b)
    fig = go.Figure([go.Bar(y=labels, x=w[order], orientation="h", name=f"with {p}", marker_color=color,
                            hovertemplate="%{y}: %{x:.3f}<extra>with " + p + "</extra>")
                     for w, p, color in ((a, pa, SOURCE_COLOR), (b, pb, TARGET_COLOR))])
    return _ranked_bars(fig, f"{_e(node)}'s attention: with {pa} vs with {pb}",
                        max(280, 30 * len(order) + 100), barmode="group", xaxis_title="attention weight",
                        legend=dict(orientation="h", y=-0.12))
