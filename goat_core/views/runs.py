"""Runs side by side: the wins/losses matrix, the per-edge duel of two runs (edge points carry
``[source id, target id, source name, target name]``), context spread."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from .style import MARGIN, PALETTE, SOURCE_COLOR, TARGET_COLOR, _e, scatter_trace

TIE_COLOR = "#9E9E9E"


def wins_heatmap(names: Sequence[str], wins: ArrayLike, num_edges: int) -> go.Figure:
    """Cell (row a, column b): held-out edges run a ranks above run b (its wins against b); the
    mirror cell holds its losses. Colour: the share of the edges won."""
    wins = np.asarray(wins)
    k = len(names)
    share = wins / max(num_edges, 1)
    text = [["" if a == b else f"{wins[a, b]} won · {wins[b, a]} lost" for b in range(k)] for a in range(k)]
    z = np.where(np.eye(k, dtype=bool), np.nan, share)
    labels = [_e(n) for n in names]
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, text=text, texttemplate="%{text}", colorscale="RdBu", zmin=0, zmax=1,
        hovertemplate="%{y} vs %{x}: %{text} of " + f"{num_edges}" + " held-out edges<extra></extra>",
        colorbar=dict(title="share won", thickness=12)))
    fig.update_layout(title="Wins and losses, edge by edge (row vs column)", height=120 + 60 * k,
                      margin=MARGIN, xaxis_title="against", yaxis_title="run")
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def edge_duel(pct_a: ArrayLike, pct_b: ArrayLike, pairs: ArrayLike, labels: ArrayLike,
              names: Sequence[str], *, run_a: str, run_b: str,
              highlight: tuple[int, int] | None = None) -> go.Figure:
    """Every test pair at (rank percentile under run A, under run B): edges coloured by the run ranking them
    higher, non-edges grey (above the diagonal B ranks higher); ``highlight`` rings (s, t)."""
    pct_a, pct_b = np.asarray(pct_a, dtype=float), np.asarray(pct_b, dtype=float)
    pairs, labels = np.asarray(pairs), np.asarray(labels)
    trace = scatter_trace(len(pairs))
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="same rank", hoverinfo="skip",
                               line=dict(dash="dash", color="rgba(140,140,140,0.8)")))
    groups = (("non-edges (lower is better)", labels == 0, TIE_COLOR, 5, 0.35),
              (f"edges {run_a} ranks higher", (labels == 1) & (pct_a > pct_b), PALETTE[0], 8, 0.9),
              (f"edges {run_b} ranks higher", (labels == 1) & (pct_b > pct_a), PALETTE[1], 8, 0.9),
              ("edges tied", (labels == 1) & (pct_a == pct_b), PALETTE[2], 8, 0.9))
    for title, keep, color, size, opacity in groups:
        idx = np.flatnonzero(keep)
        data = [[int(pairs[i, 0]), int(pairs[i, 1]), names[pairs[i, 0]], names[pairs[i, 1]]] for i in idx]
        hover = [f"{_e(names[pairs[i, 0]])} ↔ {_e(names[pairs[i, 1]])}<br>{_e(run_a)}: {pct_a[i]:.2f} · "
                 f"{_e(run_b)}: {pct_b[i]:.2f}" for i in idx]
        fig.add_trace(trace(x=pct_a[idx], y=pct_b[idx], mode="markers", name=_e(title), customdata=data,
                            hovertext=hover, hoverinfo="text",
                            marker=dict(color=color, size=size, opacity=opacity)))
    if highlight is not None:
        s, t = highlight
        hit = np.flatnonzero((pairs == (s, t)).all(axis=1) | (pairs == (t, s)).all(axis=1))  # either way
        if len(hit):
            fig.add_trace(_ring(pct_a[hit[0]], pct_b[hit[0]], 16, SOURCE_COLOR, name="gossip pair",
                                mode="markers"))
    fig.update_layout(title=f"Each test pair's rank: {_e(run_a)} vs {_e(run_b)}", height=480, margin=MARGIN,
                      xaxis=dict(title=f"rank percentile under {_e(run_a)}", range=[-0.02, 1.02]),
                      yaxis=dict(title=f"rank percentile under {_e(run_b)}", range=[-0.02, 1.02]),
                      legend=dict(orientation="h", y=-0.2), clickmode="event+select")
    return fig


def spread_vs_degree(spread: ArrayLike, degree: ArrayLike, personas: ArrayLike, names: Sequence[str],
                     *, highlight: int | None = None) -> go.Figure:
    """Each node's context spread against its degree (log axis), coloured by persona clusters;
    ``customdata = [id, name]``."""
    spread, degree, personas = np.asarray(spread), np.asarray(degree), np.asarray(personas)
    fig = go.Figure()
    trace = scatter_trace(len(spread))
    for k in np.unique(personas):
        idx = np.flatnonzero(personas == k).tolist()
        fig.add_trace(trace(
            x=np.maximum(degree[idx], 1), y=spread[idx], mode="markers",
            name=f"{k} persona{'s' if k > 1 else ''}", customdata=[[int(i), names[i]] for i in idx],
            hovertext=[f"{_e(names[i])}<br>spread {spread[i]:.3f} · degree {degree[i]} · {k} persona(s)"
                       for i in idx], hoverinfo="text",
            marker=dict(color=PALETTE[(int(k) - 1) % len(PALETTE)], size=7, opacity=0.8)))
    if highlight is not None:
        fig.add_trace(_ring(max(int(degree[highlight]), 1), spread[highlight], 14, TARGET_COLOR,
                            name="chosen", mode="markers+text", text=[_e(names[highlight])],
                            textposition="top center"))
    fig.update_layout(title="Context spread against degree", height=380, margin=MARGIN,
                      xaxis=dict(title="degree", type="log"),
                      yaxis_title="context spread (mean cosine distance)",
                      legend=dict(orientation="h", y=-0.25))
    return fig


def _ring(x, y, size: int, color: str, **trace) -> go.Scatter:
    """An empty circle around one point: the chosen pair or node."""
    return go.Scatter(x=[x], y=[y], hoverinfo="skip", **trace,
                      marker=dict(size=size, color="rgba(0,0,0,0)", line=dict(width=2.5, color=color)))
