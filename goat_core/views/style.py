"""Shared look of every figure: palette, roles' colours, escaping, node markers and traces."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from . import labels

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
MARGIN = dict(l=10, r=10, t=40, b=10)  # a figure's frame: room for a one-line title

# Above this many points a scatter is drawn with WebGL (one canvas) instead of SVG (one DOM node a
# point): Plotly Express' own threshold. SVG at 20k points takes seconds to draw and to pan.
WEBGL_POINTS = 1000


def scatter_trace(num_points: int) -> type[go.Scatter] | type[go.Scattergl]:
    return go.Scattergl if num_points > WEBGL_POINTS else go.Scatter


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def escape_markdown(text: object) -> str:
    """User text (node and file names) safe inside Markdown: no emphasis, links or HTML."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def _e(text) -> str:
    """Escape user-supplied text for Plotly, whose labels accept a subset of HTML."""
    return html.escape(str(text), quote=False)


def group_color(code: int) -> str:
    return "#9E9E9E" if code < 0 else PALETTE[code % len(PALETTE)]


def _blank_axes(fig: go.Figure, equal: bool = True) -> go.Figure:
    fig.update_xaxes(visible=False, showgrid=False, zeroline=False)
    fig.update_yaxes(visible=False, showgrid=False, zeroline=False)
    return fig.update_yaxes(scaleanchor="x", scaleratio=1) if equal else fig


def _customdata(ids: np.ndarray, names: Sequence[str]) -> list[list]:
    return [[int(i), names[int(i)]] for i in ids]


def _node_traces(fig, x, y, names, ids, sizes, groups, group_names, values, value_title, hover_end=None):
    """The nodes ``ids`` (sorted) as one trace per group of ``groups`` (codes, -1 = unlabelled), else as one
    trace coloured by ``values``; ``hover_end(i)`` ends node i's hover text."""
    end = hover_end or (lambda i: "")
    trace = scatter_trace(len(ids))
    outline = dict(width=0.5, color="rgba(60,60,60,0.6)")
    if groups is None:
        vals = np.asarray(values)
        fig.add_trace(trace(
            x=x[ids], y=y[ids], mode="markers", name=value_title, showlegend=False,
            marker=dict(size=sizes[ids], color=vals[ids], colorscale="Viridis", showscale=True,
                        colorbar=dict(title=value_title, thickness=12), line=outline),
            customdata=_customdata(ids, names), hoverinfo="text",
            hovertext=[f"{_e(names[i])}<br>{value_title} {_fmt(vals[i])}{end(i)}" for i in ids.tolist()],
        ))
        return
    codes = np.asarray(groups)
    for code in sorted(set(codes[ids].tolist()), key=lambda c: (c < 0, c)):
        idx = ids[codes[ids] == code]
        label = _e(_group_label(code, group_names))
        fig.add_trace(trace(
            x=x[idx], y=y[idx], mode="markers", name=label, showlegend=True,
            marker=dict(size=sizes[idx], color=group_color(code), symbol="circle", line=outline),
            customdata=_customdata(idx, names), hoverinfo="text",
            hovertext=[f"{_e(names[i])}<br>{label}{end(i)}" for i in idx.tolist()],
        ))


def _highlight_trace(fig, x, y, names, highlight: Mapping[int, str], base_sizes, named: bool = True):
    """Rings and name labels over highlighted nodes (pair, pending click, search hit); without
    ``named`` rings only (the figure places its names itself)."""
    for role in ("search", "pending", "focus", "source", "target", "partner A", "partner B"):
        ids = np.asarray([i for i, r in highlight.items() if r == role], dtype=np.int64)
        if len(ids):
            fig.add_trace(scatter_trace(len(x))(  # WebGL over WebGL: an SVG ring could hide under it
                x=x[ids], y=y[ids], mode="markers+text" if named else "markers", name=role,
                text=[_e(names[i]) for i in ids], textposition="top center",
                textfont=dict(size=14, color=ROLE_COLORS[role]),
                marker=dict(size=np.asarray(base_sizes)[ids] + 10, color="rgba(0,0,0,0)",
                            line=dict(width=4, color=ROLE_COLORS[role])),
                customdata=_customdata(ids, names), hovertext=[f"{_e(names[i])} ({role})" for i in ids],
                hoverinfo="text",
            ))


def _group_label(code, group_names) -> str:
    return "unlabelled" if code < 0 else str(group_names[code])


def _fmt(value) -> str:
    value = float(value)
    return f"{value:.0f}" if value.is_integer() else f"{value:.3g}"


AXIS_LABEL_CHARS = 24  # longer node names are shortened on axes (the hover shows them whole)


def short(label: str, limit: int = AXIS_LABEL_CHARS) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def names_axis(fig: go.Figure, labels: Sequence[str], axis: str = "y") -> go.Figure:
    """Node names as categories on ``axis``: integer ids ("0", "1004") stay names instead of
    positions on a numeric axis, and long names are shortened on the ticks."""
    labels = list(dict.fromkeys(labels))
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(type="category", tickmode="array", tickvals=labels, ticktext=[short(x) for x in labels])
    return fig


# --------------------------------------------------------------------------- projector mode

PROJECTOR_FONT = 20  # base font of a figure read from the back of a classroom (Plotly's default: 12)
PROJECTOR_GROWTH = 1.5  # markers, text, heights and line widths grow by this much
PROJECTOR_EDGE_COLOR = "rgba(40, 40, 40, 0.55)"  # edges darker than EDGE_COLOR on the white ground


def for_projector(fig: go.Figure, growth: float = PROJECTOR_GROWTH) -> go.Figure:
    """A copy of ``fig`` readable on a projector (larger fonts and markers, black on white, darker edges);
    traces keep their order and ``customdata``, so a click names the same node."""
    out = go.Figure(fig)
    layout = out.layout
    out.update_layout(
        font=dict(size=PROJECTOR_FONT, color="#000000"), paper_bgcolor="#FFFFFF", plot_bgcolor="#FFFFFF",
        title_font_size=round(PROJECTOR_FONT * 1.3), legend_font_size=PROJECTOR_FONT,
        hoverlabel_font_size=PROJECTOR_FONT,
    )
    if layout.height:
        out.update_layout(height=round(layout.height * growth))
    axes = dict(tickfont_size=PROJECTOR_FONT, title_font_size=PROJECTOR_FONT, gridcolor="#BDBDBD",
                linecolor="#000000", zerolinecolor="#757575")
    out.update_xaxes(**axes).update_yaxes(**axes)
    for annotation in layout.annotations:  # subplot titles and notes
        annotation.font.size = round((annotation.font.size or PROJECTOR_FONT) * growth)
    for trace in out.data:
        _project_trace(trace, growth)
    return labels.replace(out, growth)  # names placed again for the larger fonts, markers and figure


def _grow(value, growth: float):
    if isinstance(value, (int, float)):
        return value * growth
    return (np.asarray(value, dtype=float) * growth).tolist()


def _project_trace(trace, growth: float) -> None:
    """One trace's markers, lines and labels grown for a projector, in place."""
    marker = getattr(trace, "marker", None)
    if marker is not None and "size" in marker and marker.size is not None:
        marker.size = _grow(marker.size, growth)
    if marker is not None and "line" in marker and marker.line.width:
        marker.line.width = _grow(marker.line.width, growth)
    line = getattr(trace, "line", None)
    if line is not None and "width" in line:
        line.width = _grow(line.width if line.width is not None else 2, growth)
        if line.color == EDGE_COLOR:
            line.color = PROJECTOR_EDGE_COLOR
    textfont = getattr(trace, "textfont", None)
    if textfont is not None and textfont.size is not None:
        textfont.size = _grow(textfont.size, growth)
