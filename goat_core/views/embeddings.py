"""Point clouds of embeddings: whole-graph projections and one node's personas."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from .style import (
    MARGIN,
    PALETTE,
    ROLE_COLORS,
    SHARED_COLOR,
    _blank_axes,
    _customdata,
    _e,
    _group_label,
    _highlight_trace,
    _node_traces,
    group_color,
    scatter_trace,
)

MAX_SCATTER_POINTS = 50_000  # above, a seeded sample is drawn: 200k points are ~25 MB of figure


def scatter_sample(n: int, max_points: int = MAX_SCATTER_POINTS, seed: int = 0,
                   keep: Sequence[int] = ()) -> np.ndarray:
    """Sorted ids of the points to draw: all of them up to ``max_points``, else a seeded sample
    that always contains ``keep`` (e.g. the gossip pair)."""
    if n <= max_points:
        return np.arange(n)
    chosen = np.random.default_rng(seed).choice(n, max_points, replace=False)
    return np.unique(np.concatenate([chosen, np.asarray(keep, dtype=np.int64)]))


def embedding_scatter(coords: ArrayLike, names: Sequence[str], *, groups: ArrayLike | None = None,
                      group_names: Sequence[str] = (), values: ArrayLike | None = None,
                      value_title: str = "degree", highlight: Mapping[int, str] | None = None,
                      title: str = "", height: int = 600, max_points: int = MAX_SCATTER_POINTS,
                      seed: int = 0) -> go.Figure:
    """2-D projection of node embeddings coloured by group or value; above ``max_points`` a seeded sample
    (highlighted nodes kept; the title says so); node ids in ``customdata``."""
    coords = np.asarray(coords, dtype=float)
    ids = scatter_sample(len(names), max_points, seed, list(highlight or ()))
    x, y = coords[:, 0], coords[:, 1]  # only ``ids`` are drawn (the highlighted among them)
    sizes = np.full(len(names), 9.0)
    fig = go.Figure()
    _node_traces(fig, x, y, names, ids, sizes, groups, group_names, values, value_title)
    if highlight:
        _highlight_trace(fig, x, y, names, highlight, sizes)
    if len(ids) < len(names):
        title = f"{title} (showing a sample of {len(ids):,} of {len(names):,} nodes)"
    fig.update_layout(title=_e(title) or None, height=height, margin=MARGIN,
                      legend=dict(itemsizing="constant"), hovermode="closest", clickmode="event+select")
    return _blank_axes(fig, equal=False)


def persona_scatter(coords: ArrayLike, partner_ids: ArrayLike, names: Sequence[str], *, node: str,
                    groups: ArrayLike | None = None, group_names: Sequence[str] = (),
                    highlight: Mapping[int, str] | None = None, height: int = 560) -> go.Figure:
    """One node's context representations projected: point k is r_node while gossiping with
    ``partner_ids[k]``, coloured by the partner's group, hovering its name."""
    coords = np.asarray(coords, dtype=float)
    partner_ids = np.asarray(partner_ids, dtype=np.int64)
    fig = go.Figure()
    codes = np.full(len(partner_ids), -1) if groups is None else np.asarray(groups)[partner_ids]
    trace = scatter_trace(len(partner_ids))
    for code in sorted(set(codes.tolist()), key=lambda c: (c < 0, c)):
        idx = np.flatnonzero(codes == code)
        label = "partners" if groups is None else _group_label(code, group_names)
        fig.add_trace(trace(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers", name=_e(label),
            marker=dict(size=11, color=group_color(code) if groups is not None else PALETTE[0],
                        line=dict(width=0.5, color="rgba(60,60,60,0.6)")),
            customdata=_customdata(partner_ids[idx], names),
            hovertext=[f"{_e(node)} gossiping with {_e(names[p])}" for p in partner_ids[idx]],
            hoverinfo="text",
        ))
    for pid, role in (highlight or {}).items():
        k = np.flatnonzero(partner_ids == pid)
        if len(k):
            label, color = f"with {_e(names[pid])}", ROLE_COLORS.get(role, SHARED_COLOR)
            fig.add_trace(trace(
                x=coords[k, 0], y=coords[k, 1], mode="markers+text", name=label, text=[label],
                textposition="top center", textfont=dict(color=color),
                marker=dict(size=22, color="rgba(0,0,0,0)", line=dict(width=3, color=color)),
                customdata=_customdata(partner_ids[k], names), hoverinfo="skip",
            ))
    fig.update_layout(title=f"Personas of {_e(node)}", height=height, margin=MARGIN,
                      legend=dict(title="partner's group"))
    return _blank_axes(fig, equal=False)
