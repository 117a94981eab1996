"""Node names on a network figure, placed greedily so that no two overlap: in priority order, each name
takes the first of eight spots around its node that overlaps no placed label, no node and no frame edge
(boxes estimated in pixels from the font size), else it is left out. The trace's ``meta["node_labels"]``
keeps every candidate, so :func:`replace` can place them again at another size (projector mode)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

CHAR_WIDTH = 0.62  # em per character: wide enough for Plotly's default sans-serif
LINE_HEIGHT = 1.3  # em
GAP = 3.0  # px between a node and its name, and around every box
# px assumed for the plot area: the app's network views span the page (a 1280-px window leaves
# them ~760 px beside the legend); a wider plot only spreads the names further apart
PLOT_WIDTH = 700
DATA_PAD = 0.08  # share of the data's span shown around it (markers near the edges; names fit in it)
LABEL_SIZE = 13
LABEL_COLOR = "#111111"
# Where a name may go around its node, in order of preference (Plotly's textposition values)
SPOTS = ("top center", "bottom center", "middle right", "middle left", "top right", "top left",
         "bottom right", "bottom left")


@dataclass(frozen=True)
class Box:
    """A rectangle in pixels (y up)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        return self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1

    def inside(self, other: Box) -> bool:
        return other.x0 <= self.x0 and self.x1 <= other.x1 and other.y0 <= self.y0 and self.y1 <= other.y1


def text_box(x: float, y: float, radius: float, text: str, size: float, spot: str) -> Box:
    """The box of ``text`` (font ``size`` px) at ``spot`` around a node at (x, y) px of ``radius``."""
    width, height = len(text) * CHAR_WIDTH * size + 2 * GAP, LINE_HEIGHT * size + 2 * GAP
    vertical, horizontal = spot.split(" ")
    off = radius + GAP
    aside = off if vertical == "middle" else 0.5 * off  # a corner spot sits nearer on each axis
    above = off if horizontal == "center" else 0.5 * off
    left = {"center": x - width / 2, "right": x + aside, "left": x - width - aside}[horizontal]
    bottom = {"middle": y - height / 2, "top": y + above, "bottom": y - height - above}[vertical]
    return Box(left, bottom, left + width, bottom + height)


def place(xy: np.ndarray, radii: Sequence[float], texts: Sequence[str], size: float,
          required: int = 0, frame: Box | None = None) -> list[str | None]:
    """Each candidate's spot (pixels, priority order), or None: no name covers another name, a candidate's
    node or the ``frame``'s edge; the first ``required`` may cover nodes when nothing else is free."""
    placed: list[Box] = []
    nodes = [Box(x - r, y - r, x + r, y + r) for (x, y), r in zip(xy.tolist(), radii, strict=True)]
    spots: list[str | None] = []
    for k, ((x, y), r, text) in enumerate(zip(xy, radii, texts, strict=True)):
        others = [b for j, b in enumerate(nodes) if j != k]
        boxes = {spot: text_box(float(x), float(y), float(r), text, size, spot) for spot in SPOTS}
        boxes = {spot: box for spot, box in boxes.items() if frame is None or box.inside(frame)}
        free = [spot for spot, box in boxes.items() if not any(box.overlaps(b) for b in (*placed, *others))]
        if not free and k < required:
            free = [spot for spot, box in boxes.items() if not any(box.overlaps(b) for b in placed)]
        if free:
            placed.append(boxes[free[0]])
        spots.append(free[0] if free else None)
    return spots


def label_trace(pos: ArrayLike, names: Sequence[str], nodes: Sequence[int], marker_sizes: ArrayLike,
                height: int, margin: tuple[int, int] = (40, 10), size: int = LABEL_SIZE,
                required: int = 2, pad: float = DATA_PAD, webgl: bool = False) -> go.Scatter | go.Scattergl:
    """A text trace naming ``nodes`` (ids, priority order) where they fit, given ``marker_sizes`` (px), the
    figure's ``height``, ``margin`` and ``pad``; the first ``required`` may cover nodes (:func:`place`)."""
    pos = np.asarray(pos, dtype=float)
    marker_sizes = np.asarray(marker_sizes, dtype=float)
    nodes = list(dict.fromkeys(int(v) for v in nodes))
    extent = [float(pos[:, 0].min()), float(pos[:, 0].max()), float(pos[:, 1].min()), float(pos[:, 1].max())]
    meta = {"x": [float(pos[v, 0]) for v in nodes], "y": [float(pos[v, 1]) for v in nodes],
            "text": [str(names[v]) for v in nodes], "radius": [float(marker_sizes[v]) / 2 for v in nodes],
            "extent": extent, "margin": list(margin), "required": required, "pad": pad}
    # ``webgl``: the nodes are WebGL points, whose canvas would hide an SVG text trace under it
    kind = go.Scattergl if webgl else go.Scatter
    trace = kind(mode="text", hoverinfo="skip", showlegend=False, name="names",
                 textfont=dict(size=size, color=LABEL_COLOR), meta={"node_labels": meta})
    _fill(trace, height, 1.0)
    return trace


def frame_axes(fig: go.Figure) -> go.Figure:
    """Show what the names were placed in: the axes' ranges are the data's extent and its margin
    (with equal scales Plotly widens one of them to fill the plot, never narrows it)."""
    for trace in _label_traces(fig):
        meta = trace.meta["node_labels"]
        x0, x1, y0, y1 = meta["extent"]
        dx, dy = max(x1 - x0, 1e-9) * meta["pad"], max(y1 - y0, 1e-9) * meta["pad"]
        fig.update_xaxes(range=[x0 - dx, x1 + dx]).update_yaxes(range=[y0 - dy, y1 + dy])
    return fig


def _label_traces(fig: go.Figure) -> list:
    """The traces of ``fig`` that :func:`label_trace` made."""
    return [trace for trace in fig.data if isinstance(trace.meta, dict) and "node_labels" in trace.meta]


def replace(fig: go.Figure, growth: float = 1.0) -> go.Figure:
    """Place the names of every label trace of ``fig`` again, for its current font sizes and height,
    with markers ``growth`` times larger than when it was made (projector mode grows them)."""
    for trace in _label_traces(fig):
        _fill(trace, fig.layout.height or 450, growth)
    return fig


def _fill(trace, height: float, growth: float) -> None:
    """Place the candidates of ``trace.meta`` for this height and marker growth; draw those placed."""
    meta = dict(trace.meta["node_labels"])
    xy = _pixels(meta, height)
    radii = [r * growth for r in meta["radius"]]
    spots = place(xy, radii, meta["text"], float(trace.textfont.size or LABEL_SIZE), meta["required"],
                  frame(meta, height))
    kept = [k for k, spot in enumerate(spots) if spot is not None]
    meta.update(growth=growth, kept=kept)
    trace.meta = {"node_labels": meta}
    trace.x = [meta["x"][k] for k in kept]
    trace.y = [meta["y"][k] for k in kept]
    trace.text = [html.escape(meta["text"][k], quote=False) for k in kept]
    trace.textposition = [spots[k] for k in kept]


def _scale(meta: dict, height: float, plot_width: float = PLOT_WIDTH) -> float:
    """Pixels per data unit at equal axis scales: the data's extent and ``pad`` of its span fill the plot."""
    x0, x1, y0, y1 = meta["extent"]
    top, bottom = meta["margin"]
    pad = meta.get("pad", DATA_PAD)
    span_x, span_y = max(x1 - x0, 1e-9) * (1 + 2 * pad), max(y1 - y0, 1e-9) * (1 + 2 * pad)
    return min(plot_width / span_x, max(height - top - bottom, 50) / span_y)


def _pixels(meta: dict, height: float, plot_width: float = PLOT_WIDTH) -> np.ndarray:
    """The candidates' positions in pixels (origin at the data's lower left corner)."""
    scale = _scale(meta, height, plot_width)
    x0, y0 = meta["extent"][0], meta["extent"][2]
    return np.column_stack([(np.asarray(meta["x"]) - x0) * scale, (np.asarray(meta["y"]) - y0) * scale])


def frame(meta: dict, height: float, plot_width: float = PLOT_WIDTH) -> Box:
    """The plot's area in the pixels of :func:`_pixels`: the data's extent and its margin."""
    scale = _scale(meta, height, plot_width)
    x0, x1, y0, y1 = meta["extent"]
    pad = meta.get("pad", DATA_PAD)
    dx, dy = max(x1 - x0, 1e-9) * pad * scale, max(y1 - y0, 1e-9) * pad * scale
    return Box(-dx, -dy, (x1 - x0) * scale + dx, (y1 - y0) * scale + dy)


def drawn_boxes(fig: go.Figure, plot_width: float = PLOT_WIDTH) -> list[Box]:
    """The pixel boxes of the names ``fig`` draws, from the drawn traces' positions, spots and font
    sizes (tests check that none overlaps another, at the assumed plot width or any wider one)."""
    boxes = []
    height = fig.layout.height or 450
    for trace in _label_traces(fig):
        meta = trace.meta["node_labels"]
        xy = _pixels(meta, height, plot_width)
        size = float(trace.textfont.size or LABEL_SIZE)
        for k, x, y, spot in zip(meta["kept"], trace.x, trace.y, trace.textposition, strict=True):
            assert (x, y) == (meta["x"][k], meta["y"][k])
            boxes.append(text_box(xy[k, 0], xy[k, 1], meta["radius"][k] * meta["growth"], meta["text"][k],
                                  size, spot))
    return boxes
