"""Scores: training curves, clustering bars and contingency tables, ROC and PR curves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from .style import MARGIN, PALETTE, _e


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
    fig.update_layout(height=320, margin=MARGIN, title="Training", xaxis_title="epoch", yaxis_title="loss",
                      legend=dict(orientation="h", y=-0.25))
    return fig


def contingency_heatmap(table: ArrayLike, class_names: Sequence[str], *, title: str = "") -> go.Figure:
    """Rows: ground-truth classes; columns: k-means clusters; cells: node counts."""
    table = np.asarray(table)
    order = np.argsort(-table.sum(axis=1), kind="stable")
    fig = go.Figure(go.Heatmap(
        z=table[order], x=[f"cluster {j}" for j in range(table.shape[1])],
        y=[_e(class_names[i]) for i in order], colorscale="Blues",
        hovertemplate="%{y} · %{x}: %{z} nodes<extra></extra>", colorbar=dict(title="nodes", thickness=12),
    ))
    fig.update_layout(title=title or "Contingency: labels × clusters", margin=MARGIN,
                      height=max(300, 16 * table.shape[0] + 140))
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


def clustering_bars(results: Mapping[str, Mapping[str, float]]) -> go.Figure:
    """NMI and AMI side by side for each embedding (e.g. GOAT context vs global)."""
    names = list(results)
    fig = go.Figure([go.Bar(x=names, y=[results[n][key] for n in names], name=key.upper(),
                            marker_color=PALETTE[k]) for k, key in enumerate(("nmi", "ami"))])
    fig.update_layout(barmode="group", yaxis=dict(range=[0, 1], title="score"), height=320, margin=MARGIN,
                      title="Clustering against labels (k-means)")
    return fig


def roc_figure(curves: Mapping[str, tuple], aucs: Mapping[str, float]) -> go.Figure:
    """ROC curves, ``curves[name] = (fpr, tpr)``, with the chance diagonal."""
    return _curves_figure(curves, aucs, "AUC", (0, 1), title="ROC on held-out edges",
                          xaxis_title="false positive rate", yaxis=dict(title="true positive rate"))


def pr_figure(curves: Mapping[str, tuple], aps: Mapping[str, float], base_rate: float = 0.5) -> go.Figure:
    """Precision-recall curves, ``curves[name] = (precision, recall)``."""
    points = {name: (recall, precision) for name, (precision, recall) in curves.items()}
    return _curves_figure(points, aps, "AP", (base_rate, base_rate),
                          title="Precision-recall on held-out edges",
                          xaxis_title="recall", yaxis=dict(title="precision", range=[0, 1.02]))


def _curves_figure(curves: Mapping[str, tuple], values: Mapping[str, float], metric: str, chance: tuple,
                   **layout) -> go.Figure:
    """One line per ``curves[name] = (x, y)``, named with its ``metric`` value, over a dashed chance line."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=list(chance), mode="lines", name="chance",
                               line=dict(dash="dash", color="rgba(140,140,140,0.8)")))
    for k, (name, (x, y)) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"{name} ({metric} {values[name]:.3f})",
                                 line=dict(color=PALETTE[k % len(PALETTE)])))
    fig.update_layout(height=380, margin=MARGIN, legend=dict(orientation="h", y=-0.25), **layout)
    return fig
