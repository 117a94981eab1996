"""What a fitted ``Goat`` learned, as plain data: the one currency between the estimator,
persistence and experiments (no private methods cross module boundaries)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .analysis.attention import AttentionHistory
from .data.graph import Graph
from .data.sampling import Neighborhoods


@dataclass(frozen=True)
class GoatState:
    """A fitted model's learned state; ``Goat.state()`` returns one and ``Goat.from_state``
    rebuilds a model from one."""

    graph: Graph  # the training graph
    embedding: torch.Tensor  # (n+1, d) global embeddings; row n is the zero pad
    neighborhoods: Neighborhoods  # the fixed inference draw
    history: list  # one row per epoch: loss, elapsed, val_auc
    backend: str = ""  # the compute path training took ("" when unknown, e.g. an older run)
    early_stopping: dict | None = None  # how the epoch count was chosen (Goat.early_stopping_)
    tracked: tuple[AttentionHistory, ...] = ()  # attention of pairs tracked during training, per epoch
