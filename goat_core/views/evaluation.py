"""Figures of how a score was measured: the leak audit's bars and attention's faithfulness scatter."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from .style import MARGIN, PALETTE, SHARED_COLOR, SOURCE_COLOR, TARGET_COLOR, _e

TRAINED, UNTRAINED = PALETTE[0], "rgba(150,150,150,0.85)"


def leak_bars(labels: Sequence[str], trained: Sequence[float | None], untrained: Sequence[float | None],
              *, metric: str = "AUC") -> go.Figure:
    """One bar per protocol (leak-free, each leak alone, the paper's), the trained model's beside
    the untrained model's where there is one (None: no bar), with the leak-free value as a line."""
    names = [_e(label) for label in labels]
    fig = go.Figure([
        go.Bar(x=names, y=[np.nan if v is None else float(v) for v in seq], name=name, marker_color=color,
               text=[None if v is None else f"{v:.3f}" for v in seq], textposition="outside")
        for seq, name, color in ((trained, "trained", TRAINED), (untrained, "untrained (epoch 0)", UNTRAINED))
    ])
    if trained and trained[0] is not None:
        fig.add_hline(y=float(trained[0]), line_dash="dot", line_color=TRAINED,
                      annotation_text=f"leak-free {metric}", annotation_position="top left")
    low = min([v for v in [*trained, *untrained] if v is not None] + [0.5])
    fig.update_layout(barmode="group", height=380, margin=MARGIN,
                      yaxis=dict(title=metric, range=[max(0.0, low - 0.1), 1.05]),
                      title=f"The same model, {metric} under each protocol",
                      legend=dict(orientation="h", y=-0.2))
    return fig


def faithfulness_scatter(names: Sequence[str], weights: ArrayLike, effects: ArrayLike, sides: Sequence[str],
                         *, source: str = "s", target: str = "t") -> go.Figure:
    """Each neighbor's attention weight (x) against its leave-one-out effect (y), coloured by side;
    neighbors with no effect (NaN: a side's only neighbor) left out."""
    w, e = np.asarray(weights, dtype=float), np.asarray(effects, dtype=float)
    fig = go.Figure()
    for side, color, legend in (("source", SOURCE_COLOR, f"{_e(source)}'s neighbor"),
                                ("target", TARGET_COLOR, f"{_e(target)}'s neighbor"),
                                ("both", SHARED_COLOR, "shared")):
        keep = [i for i, s in enumerate(sides) if s == side and np.isfinite(e[i])]
        if keep:
            fig.add_trace(go.Scatter(
                x=w[keep], y=e[keep], mode="markers", name=legend, marker=dict(color=color, size=9),
                text=[_e(names[i]) for i in keep],
                hovertemplate="%{text}<br>attention %{x:.3f}<br>effect %{y:+.4f}<extra></extra>"))
    fig.add_hline(y=0.0, line_color="rgba(140,140,140,0.6)")
    fig.update_layout(title="Attention weight vs effect of muting", xaxis_title="attention weight",
                      yaxis_title="score drop when muted", height=360, margin=MARGIN,
                      legend=dict(orientation="h", y=-0.25))
    return fig
