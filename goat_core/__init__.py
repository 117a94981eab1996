"""GOAT Explorer's library: graphs in, GOAT trained, attention and evaluation out; no Streamlit import (the
app and the CLI both stand on this package)."""

from .analysis.attention import AttentionHistory, PairAttention
from .analysis.evaluation import evaluate_clustering, evaluate_link_prediction
from .backends.batch import PADDINGS
from .data.datasets import BUNDLED, load_graph
from .data.formats import FORMATS, ReadOptions, ReadReport
from .data.graph import Graph, NodeIndex, NodeLabels, parse_labels, read_labels
from .data.readers import (
    label_attributes,
    labels_from_attribute,
    parse_edge_list,
    read_graph_bytes,
    read_graph_file,
)
from .data.sampling import EdgeSplit, split_edges
from .errors import (
    GoatError,
    GraphFormatError,
    NotFittedError,
    ParameterError,
    TrainingCancelled,
    TrainingDiverged,
    UnknownNodeError,
)
from .estimator import Goat
from .paper import paper_config
from .parameters import BACKENDS, PARAMETERS, VARIANTS
from .persistence import GoatState
from .training import Progress

__all__ = [
    "AttentionHistory", "BACKENDS", "BUNDLED", "EdgeSplit", "FORMATS", "Goat", "GoatState", "GoatError",
    "Graph", "GraphFormatError", "NodeIndex", "NodeLabels", "NotFittedError", "PARAMETERS",
    "PairAttention", "ParameterError", "Progress", "ReadOptions", "ReadReport", "TrainingCancelled",
    "TrainingDiverged", "UnknownNodeError", "PADDINGS", "VARIANTS", "evaluate_clustering",
    "evaluate_link_prediction", "label_attributes", "labels_from_attribute", "load_graph",
    "paper_config", "parse_edge_list", "parse_labels", "read_graph_bytes", "read_graph_file",
    "read_labels", "split_edges",
]
__version__ = "0.1.0"
