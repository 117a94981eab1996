"""Figures for GOAT Explorer: arrays and node names in, Plotly figures or HTML out.

Like BertViz's views, nothing here takes a model: every function receives plain arrays (an
attention vector, an alignment matrix, 2-D coordinates) with the names of the nodes they
describe, so the same views work for any source of numbers. No Streamlit here either: the
app's pages call these and render what they return.

Conventions: node ids travel in ``customdata`` as ``[id, name]`` (a click on a point tells the
app which node it was); shared neighbors of a gossip pair are marked with a star; colours
are mid-tone so that they read on light and dark backgrounds; no font colour is fixed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

# Mid-tone qualitative palette (readable on white and on near-black backgrounds).
PALETTE = (
    "#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2", "#EECA3B", "#9D755D",
    "#FF9DA6", "#BAB0AC", "#439894", "#D67195", "#88D27A", "#8F6D31", "#79706E", "#B6992D",
)
SOURCE_COLOR = "#2E86DE"  # the gossip pair's source s
TARGET_COLOR = "#F39C12"  # its target t
SHARED_COLOR = "#8E44AD"  # neighbors of both
PENDING_COLOR = "#27AE60"  # a first click waiting for its partner
EDGE_COLOR = "rgba(140, 140, 140, 0.35)"
STAR = "★ "
ROLE_COLORS = {"source": SOURCE_COLOR, "target": TARGET_COLOR, "pending": PENDING_COLOR,
               "search": SHARED_COLOR, "focus": PENDING_COLOR, "partner A": SOURCE_COLOR,
               "partner B": TARGET_COLOR}
MAX_MATRIX_SIDE = 40  # the alignment heatmap shows at most this many neighbors per side


def _e(text) -> str:
    """Escape user-supplied text for Plotly, whose labels accept a subset of HTML."""
    return html.escape(str(text), quote=False)


def group_color(code: int) -> str:
    return "#9E9E9E" if code < 0 else PALETTE[code % len(PALETTE)]


def _node_sizes(degrees: np.ndarray, low: float = 6.0, high: float = 26.0) -> np.ndarray:
    degrees = np.asarray(degrees, dtype=float)
    top = degrees.max() if len(degrees) and degrees.max() > 0 else 1.0
    return low + (high - low) * np.sqrt(degrees / top)


def _blank_axes(fig: go.Figure, equal: bool = True) -> go.Figure:
    fig.update_xaxes(visible=False, showgrid=False, zeroline=False)
    fig.update_yaxes(visible=False, showgrid=False, zeroline=False)
    if equal:
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return fig


def _customdata(ids: np.ndarray, names: Sequence[str]) -> list[list]:
    return [[int(i), names[int(i)]] for i in ids]


def _grouped_traces(fig, x, y, ids, names, hover, sizes, groups, group_names, symbol="circle",
                    legend=True):
    """One scatter trace per group (legend entries); ``groups`` codes, -1 = unlabelled."""
    codes = np.asarray(groups)
    for code in sorted(set(codes.tolist()), key=lambda c: (c < 0, c)):
        idx = np.flatnonzero(codes == code)
        label = "unlabelled" if code < 0 else str(group_names[code])
        fig.add_trace(go.Scatter(
            x=x[idx], y=y[idx], mode="markers", name=_e(label), showlegend=legend,
            marker=dict(size=sizes[idx], color=group_color(code), symbol=symbol,
                        line=dict(width=0.5, color="rgba(60,60,60,0.6)")),
            customdata=_customdata(ids[idx], names), hovertext=[hover[i] for i in idx],
            hoverinfo="text",
        ))


def _continuous_trace(fig, x, y, ids, names, hover, sizes, values, title):
    fig.add_trace(go.Scatter(
        x=x, y=y, mode="markers", name=title, showlegend=False,
        marker=dict(size=sizes, color=values, colorscale="Viridis", showscale=True,
                    colorbar=dict(title=title, thickness=12),
                    line=dict(width=0.5, color="rgba(60,60,60,0.6)")),
        customdata=_customdata(ids, names), hovertext=hover, hoverinfo="text",
    ))


def _highlight_trace(fig, x, y, names, highlight: Mapping[int, str], base_sizes):
    """Rings and name labels over highlighted nodes (pair, pending click, search hit)."""
    for role in ("search", "pending", "focus", "source", "target", "partner A", "partner B"):
        ids = [i for i, r in highlight.items() if r == role]
        if not ids:
            continue
        ids_arr = np.asarray(ids, dtype=np.int64)
        fig.add_trace(go.Scatter(
            x=x[ids_arr], y=y[ids_arr], mode="markers+text", name=role,
            text=[_e(names[i]) for i in ids_arr], textposition="top center",
            textfont=dict(size=14, color=ROLE_COLORS[role]),
            marker=dict(size=np.asarray(base_sizes)[ids_arr] + 10, color="rgba(0,0,0,0)",
                        line=dict(width=4, color=ROLE_COLORS[role])),
            customdata=_customdata(ids_arr, names),
            hovertext=[f"{_e(names[i])} ({role})" for i in ids_arr], hoverinfo="text",
        ))


def _edge_segments(pos: np.ndarray, src: np.ndarray, dst: np.ndarray):
    xs = np.column_stack([pos[src, 0], pos[dst, 0], np.full(len(src), np.nan)]).ravel()
    ys = np.column_stack([pos[src, 1], pos[dst, 1], np.full(len(src), np.nan)]).ravel()
    return xs, ys


# ------------------------------------------------------------------------- the graph


def network_figure(pos, src, dst, names, degrees, *, groups=None, group_names=(), values=None,
                   value_title="degree", highlight: Mapping[int, str] | None = None,
                   max_edges: int = 6000, seed: int = 0, height: int = 600,
                   title: str | None = None) -> go.Figure:
    """The whole graph: node size by degree, colour by group code (or a continuous value).

    ``pos`` (n, 2) coordinates; ``src``/``dst`` edge endpoints; ``highlight`` maps node ids
    to a role ("source", "target", "pending", "search") drawn as a coloured ring with its
    name. Above ``max_edges`` edges a seeded sample is drawn (the title says so).
    """
    pos = np.asarray(pos, dtype=float)
    src, dst = np.asarray(src), np.asarray(dst)
    n = len(names)
    shown = np.arange(len(src))
    if len(src) > max_edges:
        shown = np.sort(np.random.default_rng(seed).choice(len(src), max_edges, replace=False))
    ex, ey = _edge_segments(pos, src[shown], dst[shown])
    fig = go.Figure(go.Scatter(x=ex, y=ey, mode="lines", line=dict(width=0.6, color=EDGE_COLOR),
                               hoverinfo="skip", showlegend=False, name="edges"))
    sizes = _node_sizes(degrees)
    ids = np.arange(n)
    degrees = np.asarray(degrees)
    if groups is not None:
        hover = [f"{_e(names[i])}<br>{_e(_group_label(groups[i], group_names))} · degree {degrees[i]}"
                 for i in ids]
        _grouped_traces(fig, pos[:, 0], pos[:, 1], ids, names, hover, sizes, groups, group_names)
    else:
        vals = degrees if values is None else np.asarray(values)
        hover = [f"{_e(names[i])}<br>{value_title} {_fmt(vals[i])} · degree {degrees[i]}" for i in ids]
        _continuous_trace(fig, pos[:, 0], pos[:, 1], ids, names, hover, sizes, vals, value_title)
    if highlight:
        _highlight_trace(fig, pos[:, 0], pos[:, 1], names, highlight, sizes)
    note = f" (showing {max_edges:,} of {len(src):,} edges)" if len(src) > max_edges else ""
    fig.update_layout(
        title=_e(title or "") + note or None, height=height, margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(itemsizing="constant", title="colour"), hovermode="closest",
        clickmode="event+select", dragmode="pan",
    )
    return _blank_axes(fig)


def _group_label(code, group_names) -> str:
    return "unlabelled" if code < 0 else str(group_names[code])


def _fmt(value) -> str:
    value = float(value)
    return f"{value:.0f}" if value.is_integer() else f"{value:.3g}"


def degree_histogram(degrees, log_y: bool = False) -> go.Figure:
    """How many nodes have each degree."""
    degrees = np.asarray(degrees, dtype=np.int64)
    values, counts = np.unique(degrees, return_counts=True)
    fig = go.Figure(go.Bar(x=values, y=counts, marker_color=PALETTE[0],
                           hovertemplate="degree %{x}: %{y} nodes<extra></extra>"))
    fig.update_layout(title="Degree distribution", xaxis_title="degree", yaxis_title="nodes",
                      height=320, margin=dict(l=10, r=10, t=40, b=10), bargap=0.1)
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def pyvis_html(names, src, dst, degrees, *, groups=None, group_names=(), directed=False,
               highlight: Mapping[int, str] | None = None, height: int = 560) -> str:
    """A self-contained pyvis (vis-network) page with physics, for ``st.iframe``.

    Works offline: vis-network is inlined (``cdn_resources="in_line"``) and pyvis' remote
    Bootstrap links, which it adds to every page, are removed. Labels and tooltips are
    HTML-escaped: the page runs in an iframe that can reach the app's origin, and pyvis
    writes tooltips with ``innerHTML``.
    """
    from pyvis.network import Network

    net = Network(height=f"{height}px", width="100%", directed=directed, cdn_resources="in_line",
                  bgcolor="#ffffff", font_color="#222222")
    sizes = _node_sizes(degrees, 8, 30)
    highlight = highlight or {}
    degrees = np.asarray(degrees)
    for i, name in enumerate(names):
        code = -1 if groups is None else int(groups[i])
        tip = f"{name} | degree {degrees[i]}"
        if groups is not None:
            tip += f" | {_group_label(code, group_names)}"
        role = highlight.get(i)
        options = dict(size=float(sizes[i]), title=html.escape(tip), color=group_color(code))
        if role:
            options.update(borderWidth=5, color={"background": group_color(code),
                                                 "border": ROLE_COLORS.get(role, SHARED_COLOR)})
        net.add_node(i, label=html.escape(str(name)), **options)
    for s, d in zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), strict=True):
        net.add_edge(int(s), int(d), color="#b0b0b0")
    net.barnes_hut(gravity=-3000, spring_length=120)
    net.options.edges.smooth.enabled = False  # straight edges: lighter and easier to read
    page = net.generate_html()
    return _strip_remote(page).replace("</body>", _REFIT + "</body>", 1)


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


def _strip_remote(page: str) -> str:
    """Drop tags that would fetch from the network (pyvis' Bootstrap CSS/JS)."""
    return _REMOTE.sub("", page)


# ------------------------------------------------------------------------- one gossip pair


def _mark(names: Sequence[str], shared: set[str]) -> list[str]:
    return [(STAR + n) if n in shared else n for n in names]


def attention_bars(names: Sequence[str], weights, shared: Sequence[str] = (), *, node: str = "",
                   partner: str = "", color: str = SOURCE_COLOR, top: int | None = None) -> go.Figure:
    """``node``'s attention over its neighbors while gossiping with ``partner``, sorted.

    Shared neighbors (of both gossipers) are starred and drawn in the shared colour.
    """
    weights = np.asarray(weights, dtype=float)
    order = np.argsort(-weights, kind="stable")
    if top is not None:
        order = order[:top]
    shared_set = set(shared)
    labels = [_e(x) for x in _mark([names[i] for i in order], shared_set)]
    colors = [SHARED_COLOR if names[i] in shared_set else color for i in order]
    fig = go.Figure(go.Bar(
        x=weights[order], y=labels, orientation="h", marker_color=colors,
        hovertemplate="%{y}: %{x:.3f}<extra></extra>",
    ))
    title = f"{_e(node)} attends to … (partner: {_e(partner)})" if node else "attention"
    fig.update_layout(title=title, height=max(220, 22 * len(order) + 80),
                      margin=dict(l=10, r=10, t=40, b=10), xaxis_title="attention weight")
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def max_pool_cells(alignment) -> tuple[np.ndarray, np.ndarray]:
    """(row argmax for each row, column argmax for each column) of the alignment matrix.

    Row i's maximum is a_s[i] (the source neighbor's unnormalised attention, Eq. 3 of the
    paper); column j's maximum is a_t[j] (Eq. 4).
    """
    alignment = np.asarray(alignment, dtype=float)
    return alignment.argmax(axis=1), alignment.argmax(axis=0)


def alignment_heatmap(alignment, source_names, target_names, source_attention, target_attention, *,
                      source: str = "s", target: str = "t", shared: Sequence[str] = (),
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


def ego_figure(source: str, target: str, source_ids, target_ids, source_names, target_names,
               source_attention, target_attention, *, source_id: int = -1, target_id: int = -2,
               height: int = 520) -> go.Figure:
    """Both neighborhoods around the pair: s on the left, t on the right, shared in between.

    A neighbor's size and colour show its attention (the larger of its two weights when it
    is shared); the width of the line to s (or t) shows s's (t's) attention to it.
    """
    sid = {int(i): (n, float(w)) for i, n, w in zip(source_ids, source_names, source_attention, strict=True)}
    tid = {int(i): (n, float(w)) for i, n, w in zip(target_ids, target_names, target_attention, strict=True)}
    centers = {int(source_id): (-1.0, 0.0), int(target_id): (1.0, 0.0)}
    shared = [i for i in sid if i in tid and i not in centers]
    only_s = [i for i in sid if i not in tid and i not in centers]
    only_t = [i for i in tid if i not in sid and i not in centers]
    pos: dict[int, tuple[float, float]] = {}
    pos.update(_arc(sorted(only_s, key=lambda i: -sid[i][1]), (-1.0, 0.0), 100, 260))
    pos.update(_arc(sorted(only_t, key=lambda i: -tid[i][1]), (1.0, 0.0), -80, 80))
    for k, i in enumerate(sorted(shared, key=lambda i: -(sid[i][1] + tid[i][1]))):
        y = 0.0 if len(shared) == 1 else 0.9 - 1.8 * k / (len(shared) - 1)
        pos[i] = (0.0, y)
    pos.update(centers)
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
    names = [(sid.get(i) or tid.get(i))[0] for i in nbrs]
    hover = []
    for i, name in zip(nbrs, names, strict=True):
        parts = [_e(name)]
        if i in sid:
            parts.append(f"{_e(source)}'s attention {sid[i][1]:.3f}")
        if i in tid:
            parts.append(f"{_e(target)}'s attention {tid[i][1]:.3f}")
        hover.append("<br>".join(parts))
    fig.add_trace(go.Scatter(
        x=[pos[i][0] for i in nbrs], y=[pos[i][1] for i in nbrs], mode="markers+text",
        text=[_e((STAR + n) if i in shared else n) for i, n in zip(nbrs, names, strict=True)],
        textposition="middle right", hovertext=hover, hoverinfo="text", showlegend=False,
        marker=dict(size=[8 + 30 * w / top for w in weight], color=weight, colorscale="Viridis",
                    cmin=0, cmax=top, showscale=True, colorbar=dict(title="attention", thickness=12),
                    line=dict(width=[3 if i in shared else 0.5 for i in nbrs],
                              color=[SHARED_COLOR if i in shared else "rgba(60,60,60,0.6)"
                                     for i in nbrs])),
        customdata=[[i, n] for i, n in zip(nbrs, names, strict=True)],
    ))
    for label, center, color in ((source, source_id, SOURCE_COLOR), (target, target_id, TARGET_COLOR)):
        x, y = pos[int(center)]
        fig.add_trace(go.Scatter(x=[x], y=[y], mode="markers+text", text=[_e(label)], name=_e(label),
                                 textposition="bottom center", textfont=dict(size=16, color=color),
                                 marker=dict(size=34, color=color, symbol="diamond"),
                                 customdata=[[int(center), label]], hovertext=[_e(label)], hoverinfo="text"))
    fig.update_layout(title=f"Ego view: {_e(source)} (left) ↔ {_e(target)} (right); shared in the middle",
                      height=height, margin=dict(l=10, r=10, t=40, b=10), showlegend=False)
    return _blank_axes(fig)


def _arc(ids: list[int], center: tuple[float, float], start_deg: float, end_deg: float,
         radius: float = 0.8) -> dict[int, tuple[float, float]]:
    if not ids:
        return {}
    angles = np.radians(np.linspace(start_deg, end_deg, len(ids) + 2)[1:-1])
    return {i: (center[0] + radius * np.cos(a), center[1] + radius * np.sin(a))
            for i, a in zip(ids, angles, strict=True)}


def score_contributions(alignment, source_attention, target_attention) -> tuple[np.ndarray, np.ndarray]:
    """Split the pair's score r_s·r_t over s's neighbors and over t's neighbors.

    With A = S Tᵀ (max-pooling GOAT), r_s·r_t = Σ_ij p_s[i] p_t[j] A[i, j], so neighbor i of s
    contributes p_s[i] (A p_t)[i] and neighbor j of t contributes p_t[j] (Aᵀ p_s)[j]; each
    vector sums to the score. (For the mean-pool variant A is tanh'd: an approximation.)
    """
    A = np.asarray(alignment, dtype=float)
    p_s, p_t = np.asarray(source_attention, dtype=float), np.asarray(target_attention, dtype=float)
    return p_s * (A @ p_t), p_t * (A.T @ p_s)


def neighbor_drivers(source_names, target_names, source_contrib, target_contrib) -> list[tuple[str, float]]:
    """Each neighbor's share of the score, averaged over the two sides (sums to the score)."""
    total: dict[str, float] = {}
    for names, contrib in ((source_names, source_contrib), (target_names, target_contrib)):
        for name, c in zip(names, contrib, strict=True):
            total[name] = total.get(name, 0.0) + float(c) / 2.0
    return sorted(total.items(), key=lambda kv: -abs(kv[1]))


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
    return fig


PARTNER_KINDS = {"neighbor": PALETTE[0], "held out": PENDING_COLOR, "new": PALETTE[1]}


def partners_bar(names: Sequence[str], probabilities, kinds: Sequence[str], *,
                 node: str = "") -> go.Figure:
    """A node's top-k predicted gossip partners.

    ``kinds[i]`` is "neighbor" (an edge the model trained on), "held out" (an edge hidden from
    training: a correct prediction) or "new" (no edge); each kind has its colour and suffix.
    """
    colors = [PARTNER_KINDS.get(k, PALETTE[9]) for k in kinds]
    labels = [_e(n) + ("" if k == "neighbor" else f" ({k})") for n, k in zip(names, kinds, strict=True)]
    fig = go.Figure(go.Bar(
        x=list(probabilities), y=labels,
        orientation="h", marker_color=colors, hovertemplate="%{y}: p = %{x:.3f}<extra></extra>",
    ))
    fig.update_layout(title=f"Most likely partners of {_e(node)}" if node else "Most likely partners",
                      height=max(220, 22 * len(names) + 80), margin=dict(l=10, r=10, t=40, b=10),
                      xaxis=dict(title="edge probability", range=[0, 1]))
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def context_shift_bars(names: Sequence[str], weights_a, weights_b, *, node: str, partner_a: str,
                       partner_b: str, top: int = 25) -> go.Figure:
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
    return fig


# ------------------------------------------------------------------------- embeddings


def embedding_scatter(coords, names, *, groups=None, group_names=(), values=None,
                      value_title: str = "degree", highlight: Mapping[int, str] | None = None,
                      title: str = "", height: int = 600) -> go.Figure:
    """2-D projection of node embeddings; colour by group code or a continuous value."""
    coords = np.asarray(coords, dtype=float)
    ids = np.arange(len(names))
    sizes = np.full(len(names), 9.0)
    fig = go.Figure()
    if groups is not None:
        hover = [f"{_e(names[i])}<br>{_e(_group_label(groups[i], group_names))}" for i in ids]
        _grouped_traces(fig, coords[:, 0], coords[:, 1], ids, names, hover, sizes, groups, group_names)
    else:
        vals = np.asarray(values)
        hover = [f"{_e(names[i])}<br>{value_title} {_fmt(vals[i])}" for i in ids]
        _continuous_trace(fig, coords[:, 0], coords[:, 1], ids, names, hover, sizes, vals, value_title)
    if highlight:
        _highlight_trace(fig, coords[:, 0], coords[:, 1], names, highlight, sizes)
    fig.update_layout(title=_e(title) or None, height=height, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(itemsizing="constant"), hovermode="closest", clickmode="event+select")
    return _blank_axes(fig, equal=False)


def persona_scatter(coords, partner_ids, names, *, node: str, groups=None, group_names=(),
                    highlight: Mapping[int, str] | None = None, height: int = 560) -> go.Figure:
    """All context-sensitive representations of one node (one per partner), projected.

    Point k is r_node while gossiping with partner ``partner_ids[k]`` (``names`` are all
    node names); it is coloured by the partner's group and hovers the partner's name.
    """
    coords = np.asarray(coords, dtype=float)
    partner_ids = np.asarray(partner_ids, dtype=np.int64)
    fig = go.Figure()
    codes = np.full(len(partner_ids), -1) if groups is None else np.asarray(groups)[partner_ids]
    for code in sorted(set(codes.tolist()), key=lambda c: (c < 0, c)):
        idx = np.flatnonzero(codes == code)
        label = "partners" if groups is None else _group_label(code, group_names)
        fig.add_trace(go.Scatter(
            x=coords[idx, 0], y=coords[idx, 1], mode="markers", name=_e(label),
            marker=dict(size=11, color=group_color(code) if groups is not None else PALETTE[0],
                        line=dict(width=0.5, color="rgba(60,60,60,0.6)")),
            customdata=_customdata(partner_ids[idx], names),
            hovertext=[f"{_e(node)} gossiping with {_e(names[p])}" for p in partner_ids[idx]],
            hoverinfo="text",
        ))
    for role, pid in ((r, p) for p, r in (highlight or {}).items()):
        k = np.flatnonzero(partner_ids == pid)
        if len(k):
            fig.add_trace(go.Scatter(
                x=coords[k, 0], y=coords[k, 1], mode="markers+text", name=f"with {_e(names[pid])}",
                text=[f"with {_e(names[pid])}"], textposition="top center",
                textfont=dict(color=ROLE_COLORS.get(role, SHARED_COLOR)),
                marker=dict(size=22, color="rgba(0,0,0,0)",
                            line=dict(width=3, color=ROLE_COLORS.get(role, SHARED_COLOR))),
                customdata=_customdata(partner_ids[k], names), hoverinfo="skip",
            ))
    fig.update_layout(title=f"Personas of {_e(node)}",
                      height=height, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(title="partner's group"))
    return _blank_axes(fig, equal=False)


# ------------------------------------------------------------------------- training and scores


def training_curve(history: Sequence[Mapping]) -> go.Figure:
    """Loss per epoch (left axis) and validation AUC when present (right axis)."""
    epochs = [row["epoch"] for row in history]
    fig = go.Figure(go.Scatter(x=epochs, y=[row["loss"] for row in history], mode="lines+markers",
                               name="training loss", line=dict(color=PALETTE[0])))
    auc = [row.get("val_auc") for row in history]
    if any(v is not None for v in auc):
        fig.add_trace(go.Scatter(x=epochs, y=auc, mode="lines+markers", name="validation AUC",
                                 yaxis="y2", line=dict(color=PALETTE[1])))
        fig.update_layout(yaxis2=dict(title="validation AUC", overlaying="y", side="right", range=[0, 1]))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=40, b=10), title="Training",
                      xaxis_title="epoch", yaxis_title="loss", legend=dict(orientation="h", y=-0.25))
    return fig


def contingency_heatmap(table, class_names: Sequence[str], *, title: str = "") -> go.Figure:
    """Rows: ground-truth classes; columns: k-means clusters; cells: node counts."""
    table = np.asarray(table)
    order = np.argsort(-table.sum(axis=1), kind="stable")
    fig = go.Figure(go.Heatmap(
        z=table[order], x=[f"cluster {j}" for j in range(table.shape[1])],
        y=[_e(class_names[i]) for i in order], colorscale="Blues",
        hovertemplate="%{y} · %{x}: %{z} nodes<extra></extra>", colorbar=dict(title="nodes", thickness=12),
    ))
    fig.update_layout(title=title or "Contingency: labels × clusters", margin=dict(l=10, r=10, t=40, b=10),
                      height=max(300, 16 * table.shape[0] + 140))
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def clustering_bars(results: Mapping[str, Mapping[str, float]]) -> go.Figure:
    """NMI and AMI side by side for each embedding (e.g. GOAT context vs global)."""
    names = list(results)
    fig = go.Figure([
        go.Bar(x=names, y=[results[n]["nmi"] for n in names], name="NMI", marker_color=PALETTE[0]),
        go.Bar(x=names, y=[results[n]["ami"] for n in names], name="AMI", marker_color=PALETTE[1]),
    ])
    fig.update_layout(barmode="group", yaxis=dict(range=[0, 1], title="score"), height=320,
                      margin=dict(l=10, r=10, t=40, b=10), title="Clustering against labels (k-means)")
    return fig


def roc_figure(curves: Mapping[str, tuple], aucs: Mapping[str, float]) -> go.Figure:
    """ROC curves, ``curves[name] = (fpr, tpr)``, with the chance diagonal."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                               line=dict(dash="dash", color="rgba(140,140,140,0.8)")))
    for k, (name, (fpr, tpr)) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines", name=f"{name} (AUC {aucs[name]:.3f})",
                                 line=dict(color=PALETTE[k % len(PALETTE)])))
    fig.update_layout(title="ROC on held-out edges", xaxis_title="false positive rate",
                      yaxis_title="true positive rate", height=380, margin=dict(l=10, r=10, t=40, b=10),
                      legend=dict(orientation="h", y=-0.25))
    return fig


def pr_figure(curves: Mapping[str, tuple], aps: Mapping[str, float], base_rate: float = 0.5) -> go.Figure:
    """Precision-recall curves, ``curves[name] = (precision, recall)``."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=[base_rate, base_rate], mode="lines", name="chance",
                               line=dict(dash="dash", color="rgba(140,140,140,0.8)")))
    for k, (name, (precision, recall)) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=recall, y=precision, mode="lines", name=f"{name} (AP {aps[name]:.3f})",
                                 line=dict(color=PALETTE[k % len(PALETTE)])))
    fig.update_layout(title="Precision-recall on held-out edges", xaxis_title="recall",
                      yaxis=dict(title="precision", range=[0, 1.02]), height=380,
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.25))
    return fig
