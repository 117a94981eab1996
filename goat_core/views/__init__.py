"""Figures for GOAT Explorer: plain arrays and node names in (never a model, as in BertViz), Plotly figures
or HTML out. Node ids travel in ``customdata`` as ``[id, name]`` so a click names its node; shared neighbors
are stars; mid-tone colours read on light and dark backgrounds."""

from .attention import (
    MUTED_SUFFIX,
    PADDING_LABEL,
    PARTNER_KINDS,
    alignment_heatmap,
    attention_bars,
    attention_replay,
    context_shift_bars,
    drivers_bar,
    entropy_curve,
    partners_bar,
)
from .embeddings import MAX_SCATTER_POINTS, embedding_scatter, persona_scatter, scatter_sample
from .equations import STEPS, pooling_figure, vectors_heatmap
from .evaluation import faithfulness_scatter, leak_bars
from .metrics import clustering_bars, contingency_heatmap, pr_figure, roc_figure, training_curve
from .network import MAX_NETWORK_EDGES, degree_histogram, ego_figure, network_figure, pyvis_html
from .runs import edge_duel, spread_vs_degree, wins_heatmap
from .style import (
    EDGE_COLOR,
    MAX_MATRIX_SIDE,
    PALETTE,
    PENDING_COLOR,
    ROLE_COLORS,
    SHARED_COLOR,
    SOURCE_COLOR,
    STAR,
    TARGET_COLOR,
    WEBGL_POINTS,
    group_color,
    scatter_trace,
)

__all__ = [
    "EDGE_COLOR", "MAX_MATRIX_SIDE", "MAX_NETWORK_EDGES", "MAX_SCATTER_POINTS", "MUTED_SUFFIX",
    "PADDING_LABEL", "PALETTE", "PARTNER_KINDS", "PENDING_COLOR", "ROLE_COLORS", "SHARED_COLOR",
    "SOURCE_COLOR", "STAR", "STEPS", "TARGET_COLOR", "WEBGL_POINTS", "alignment_heatmap", "attention_bars",
    "pooling_figure", "vectors_heatmap", "attention_replay", "clustering_bars", "faithfulness_scatter",
    "leak_bars", "context_shift_bars", "contingency_heatmap", "degree_histogram", "drivers_bar",
    "edge_duel", "ego_figure", "embedding_scatter", "entropy_curve", "group_color", "network_figure",
    "partners_bar", "persona_scatter", "pr_figure", "pyvis_html", "roc_figure", "scatter_sample",
    "scatter_trace", "spread_vs_degree", "training_curve", "wins_heatmap",
]
