"""Whole-graph and ego-network figures: Plotly networks, the pyvis physics view, degree histogram."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from .labels import frame_axes, label_trace
from .style import (
    EDGE_COLOR,
    MARGIN,
    PALETTE,
    ROLE_COLORS,
    SHARED_COLOR,
    SOURCE_COLOR,
    STAR,
    TARGET_COLOR,
    _blank_axes,
    _e,
    _group_label,
    _highlight_trace,
    _node_traces,
    group_color,
    scatter_trace,
)

MAX_NETWORK_EDGES = 6000  # the whole-graph view draws a seeded sample of this many edges above it
EGO_PAD = 0.3  # the ego view's margin for placed names (share of its span): the arcs' names go beside them


def network_figure(pos: ArrayLike, src: ArrayLike, dst: ArrayLike, names: Sequence[str], degrees: ArrayLike,
                   *, groups: ArrayLike | None = None, group_names: Sequence[str] = (),
                   values: ArrayLike | None = None, value_title: str = "degree",
                   highlight: Mapping[int, str] | None = None, max_edges: int = MAX_NETWORK_EDGES,
                   seed: int = 0, height: int = 600, title: str | None = None,
                   labels: Sequence[int] | None = None) -> go.Figure:
    """The whole graph: size by degree, colour by group or value, ``highlight`` rings by role, ``labels``
    named without overlap; above ``max_edges`` a seeded edge sample, above ``WEBGL_POINTS`` nodes WebGL."""
    pos = np.asarray(pos, dtype=float)
    src, dst = np.asarray(src), np.asarray(dst)
    n = len(names)
    shown = np.arange(len(src))
    if len(src) > max_edges:
        shown = np.sort(np.random.default_rng(seed).choice(len(src), max_edges, replace=False))
    ex, ey = _edge_segments(pos, src[shown], dst[shown])
    fig = go.Figure(scatter_trace(n)(x=ex, y=ey, mode="lines", line=dict(width=0.6, color=EDGE_COLOR),
                               hoverinfo="skip", showlegend=False, name="edges"))
    degree = np.asarray(degrees)
    sizes = _node_sizes(degree)
    _node_traces(fig, pos[:, 0], pos[:, 1], names, np.arange(n), sizes, groups, group_names,
                 degree if values is None else values, value_title, lambda i: f" · degree {degree[i]}")
    if highlight:
        _highlight_trace(fig, pos[:, 0], pos[:, 1], names, highlight, sizes, named=not labels)
    if labels:  # the highlighted nodes that lead the list (the pair, the case study's three) are named first
        leading = next((k for k, v in enumerate(labels) if v not in (highlight or {})), len(labels))
        frame_axes(fig.add_trace(label_trace(pos, names, labels, sizes, height, required=max(leading, 2),
                                             webgl=scatter_trace(n) is go.Scattergl)))
    note = f" (showing {max_edges:,} of {len(src):,} edges)" if len(src) > max_edges else ""
    fig.update_layout(
        title=_e(title or "") + note or None, height=height, margin=MARGIN, hovermode="closest",
        legend=dict(itemsizing="constant", title="colour"), clickmode="event+select", dragmode="pan",
    )
    return _blank_axes(fig)


def _edge_segments(pos: np.ndarray, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, ...]:
    """The edges' x and y as one line each, segments separated by NaN (one trace draws them all)."""
    gaps = np.full(len(src), np.nan)
    return tuple(np.column_stack([pos[src, k], pos[dst, k], gaps]).ravel() for k in (0, 1))


def _node_sizes(degrees: np.ndarray, low: float = 6.0, high: float = 26.0) -> np.ndarray:
    degrees = np.asarray(degrees, dtype=float)
    top = degrees.max() if len(degrees) and degrees.max() > 0 else 1.0
    return low + (high - low) * np.sqrt(degrees / top)


def degree_histogram(degrees: ArrayLike, log_y: bool = False) -> go.Figure:
    degrees = np.asarray(degrees, dtype=np.int64)
    values, counts = np.unique(degrees, return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=counts, marker_color=PALETTE[0],
                           hovertemplate="degree %{x}: %{y} nodes<extra></extra>"))
    fig.update_layout(title="Degree distribution", xaxis_title="degree", yaxis_title="nodes",
                      height=320, margin=MARGIN, bargap=0.1)
    return fig.update_yaxes(type="log") if log_y else fig


def pyvis_html(names: Sequence[str], src: ArrayLike, dst: ArrayLike, degrees: ArrayLike, *,
               groups: ArrayLike | None = None, group_names: Sequence[str] = (), directed: bool = False,
               highlight: Mapping[int, str] | None = None, height: int = 560) -> str:
    """A self-contained, offline pyvis page for ``st.iframe``. Labels and tooltips show the names as written:
    vis-network 9 draws labels on the canvas and writes a string tooltip as text (an HTML escape would show
    literally), except that pyvis swaps in its own popup, which writes tooltips with ``innerHTML``, once
    any tooltip holds "href": then every tooltip is HTML-escaped. ``tojson`` keeps names in the script."""
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=directed, cdn_resources="in_line",
                  bgcolor="#ffffff", font_color="#222222")
    degree = np.asarray(degrees)
    sizes = _node_sizes(degree, 8, 30)
    codes = [-1] * len(names) if groups is None else [int(c) for c in np.asarray(groups)]
    group_of = [""] * len(names) if groups is None else [f" | {_group_label(c, group_names)}" for c in codes]
    tips = [f"{name} | degree {degree[i]}{group_of[i]}" for i, name in enumerate(names)]
    if any("href" in tip for tip in tips):  # pyvis' innerHTML popup (Network.generate_html)
        tips = [html.escape(tip) for tip in tips]
    for i, name in enumerate(names):
        options = dict(size=float(sizes[i]), title=tips[i], color=group_color(codes[i]))
        if role := (highlight or {}).get(i):
            options.update(borderWidth=5, color={"background": group_color(codes[i]),
                                                 "border": ROLE_COLORS.get(role, SHARED_COLOR)})
        net.add_node(i, label=str(name), **options)
    for s, d in zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), strict=True):
        net.add_edge(int(s), int(d), color="#b0b0b0")
    net.barnes_hut(gravity=-3000, spring_length=120)
    net.options.edges.smooth.enabled = False  # straight edges: lighter and easier to read
    page = net.generate_html()
    return _REMOTE.sub("", page).replace("</body>", _REFIT + "</body>", 1)


# Tags that would fetch from the network (pyvis' Bootstrap CSS/JS): dropped, the page works offline.
_REMOTE = re.compile(r"<(link|script)\b[^>]*https?://[^>]*>(\s*</script>)?", re.IGNORECASE)


# Fit the view whenever the frame changes size: a page drawn inside a hidden tab starts at
# zero size and would otherwise stay zoomed in on a corner.
_REFIT = """<script>
(function () {
  var box = document.getElementById("mynetwork");
  if (!box || !window.ResizeObserver) { return; }
  new ResizeObserver(function () {
    if (typeof network !== "undefined" && network) { network.redraw(); network.fit(); }
  }).observe(box);
})();
</script>
"""


def ego_figure(source: str, target: str, source_ids: ArrayLike, target_ids: ArrayLike,
               source_names: Sequence[str], target_names: Sequence[str], source_attention: ArrayLike,
               target_attention: ArrayLike, *, source_id: int = -1, target_id: int = -2,
               height: int = 520, placed_names: bool = False) -> go.Figure:
    """Both neighborhoods around the pair (s left, t right, shared between), attention as size, colour and
    line width; ``customdata`` ``[id, name, partner]``; ``placed_names``: names placed without overlap."""
    sid, tid = (_by_id(ids, names, weights) for ids, names, weights in
                ((source_ids, source_names, source_attention), (target_ids, target_names, target_attention)))
    centers = {int(source_id): (-1.0, 0.0), int(target_id): (1.0, 0.0)}
    only_s = sorted((i for i in sid if i not in tid and i not in centers), key=lambda i: -sid[i][1])
    only_t = sorted((i for i in tid if i not in sid and i not in centers), key=lambda i: -tid[i][1])
    shared = sorted((i for i in sid if i in tid and i not in centers), key=lambda i: -(sid[i][1] + tid[i][1]))
    between = {i: (0.0, 0.9 - 1.8 * k / (len(shared) - 1) if len(shared) > 1 else 0.0)
               for k, i in enumerate(shared)}
    pos = {**_arc(only_s, (-1.0, 0.0), 100, 260), **_arc(only_t, (1.0, 0.0), -80, 80), **between, **centers}
    top = max([w for _, w in sid.values()] + [w for _, w in tid.values()] + [1e-9])
    fig = go.Figure()
    for table, center, color in ((sid, source_id, SOURCE_COLOR), (tid, target_id, TARGET_COLOR)):
        cx, cy = pos[int(center)]
        for i, (_, w) in table.items():
            x, y = pos[i]
            fig.add_trace(go.Scatter(x=[cx, x], y=[cy, y], mode="lines", hoverinfo="skip",
                                     showlegend=False, line=dict(color=color, width=0.5 + 8 * w / top)))
    nbrs = [i for i in pos if i not in centers]
    weight = [max(sid.get(i, ("", 0.0))[1], tid.get(i, ("", 0.0))[1]) for i in nbrs]
    names = [sid[i][0] if i in sid else tid[i][0] for i in nbrs]
    hover = ["<br>".join([_e(name)] + [f"{_e(end)}'s attention {table[i][1]:.3f}"
                                       for end, table in ((source, sid), (target, tid)) if i in table])
             for i, name in zip(nbrs, names, strict=True)]
    marker_sizes = [8 + 30 * w / top for w in weight]
    fig.add_trace(go.Scatter(
        x=[pos[i][0] for i in nbrs], y=[pos[i][1] for i in nbrs],
        mode="markers" if placed_names else "markers+text",
        text=[_e((STAR + n) if i in shared else n) for i, n in zip(nbrs, names, strict=True)],
        textposition="middle right", hovertext=hover, hoverinfo="text", showlegend=False,
        marker=dict(size=marker_sizes, color=weight, colorscale="Viridis",
                    cmin=0, cmax=top, showscale=True, colorbar=dict(title="attention", thickness=12),
                    line=dict(width=[3 if i in shared else 0.5 for i in nbrs],
                              color=[SHARED_COLOR if i in shared else "rgba(60,60,60,0.6)"
                                     for i in nbrs])),
        customdata=[[i, n, int(source_id) if i in sid else int(target_id)]
                    for i, n in zip(nbrs, names, strict=True)],
    ))
    for label, center, other, color in ((source, source_id, target_id, SOURCE_COLOR),
                                        (target, target_id, source_id, TARGET_COLOR)):
        x, y = pos[int(center)]
        fig.add_trace(go.Scatter(x=[x], y=[y], mode="markers" if placed_names else "markers+text",
                                 text=[_e(label)], name=_e(label),
                                 textposition="bottom center", textfont=dict(size=16, color=color),
                                 marker=dict(size=34, color=color, symbol="diamond"),
                                 customdata=[[int(center), label, int(other)]], hovertext=[_e(label)],
                                 hoverinfo="text"))
    if placed_names:  # s and t first, then shared neighbors, then the rest, by attention
        ranked = sorted(range(len(nbrs)), key=lambda k: (nbrs[k] not in shared, -weight[k]))
        every = np.array([pos[i] for i in [int(source_id), int(target_id)] + [nbrs[k] for k in ranked]])
        texts = [source, target] + [(STAR + names[k]) if nbrs[k] in shared else names[k] for k in ranked]
        sizes = [34.0, 34.0] + [marker_sizes[k] for k in ranked]
        # the arcs' outer names need room beside them: a wider margin than the whole graph's
        frame_axes(fig.add_trace(label_trace(every, texts, range(len(every)), sizes, height, pad=EGO_PAD)))
    fig.update_layout(title=f"Ego view: {_e(source)} (left) ↔ {_e(target)} (right); shared in the middle",
                      height=height, margin=MARGIN, showlegend=False,
                      hovermode="closest", clickmode="event+select", dragmode="pan")
    return _blank_axes(fig)


def _by_id(ids: ArrayLike, names: Sequence[str], weights: ArrayLike) -> dict[int, tuple[str, float]]:
    """One side's neighbors: id -> (name, attention)."""
    return {int(i): (n, float(w)) for i, n, w in zip(np.asarray(ids).tolist(), names,
                                                     np.asarray(weights).tolist(), strict=True)}


def _arc(ids: list[int], center: tuple[float, float], start_deg: float, end_deg: float,
         radius: float = 0.8) -> dict[int, tuple[float, float]]:
    if not ids:
        return {}
    angles = np.radians(np.linspace(start_deg, end_deg, len(ids) + 2)[1:-1])
    return {i: (center[0] + radius * np.cos(a), center[1] + radius * np.sin(a))
            for i, a in zip(ids, angles, strict=True)}
