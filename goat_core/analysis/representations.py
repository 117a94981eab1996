"""Context representations: r_u while u gossips with partner v, for many (u, v) at once, and
each node's mean representation over its neighbors (``Goat.node_embeddings("context")``)."""

from __future__ import annotations

import numpy as np
import torch

from ..backends.batch import make_batch
from ..data.graph import Graph
from ..data.sampling import Adjacency, Neighborhoods
from ..model import Goat, GoatGlobal


@torch.no_grad()
def representations(model: Goat | GoatGlobal, embedding: np.ndarray, hood: Neighborhoods, nodes: np.ndarray,
                    partners: np.ndarray, exclude_partner: bool, padding: str, device: torch.device,
                    batch_size: int = 4096) -> np.ndarray:
    """(len(nodes), d) r_node (gossiping with partner) for aligned arrays of nodes and partners,
    under the fixed draw ``hood``; GoatGlobal's is the node's global embedding, whoever the partner."""
    out = np.zeros((len(nodes), embedding.shape[1]), dtype=np.float32)
    if not isinstance(model, Goat):
        out[:] = embedding[nodes]
        return out
    hood = hood.to(device)
    for start in range(0, len(nodes), batch_size):
        s = torch.as_tensor(nodes[start:start + batch_size], device=device)
        t = torch.as_tensor(partners[start:start + batch_size], device=device)
        _, (r_s, *_rest) = model(*make_batch(s, t, hood, exclude_partner, padding).args())
        out[start:start + len(s)] = r_s.float().cpu().numpy()
    return out


def mean_context(model: Goat | GoatGlobal, embedding: np.ndarray, graph: Graph, hood: Neighborhoods,
                 exclude_partner: bool, padding: str, device: torch.device) -> np.ndarray:
    """(n, d) each node's mean of r_u over the neighbors u gossips with (none: its global embedding)."""
    adj = Adjacency.from_graph(graph)
    nodes = torch.repeat_interleave(torch.arange(adj.num_nodes), adj.degree).numpy()
    partners = adj.indices.numpy()
    reps = representations(model, embedding, hood, nodes, partners, exclude_partner, padding, device)
    sums = np.zeros((adj.num_nodes, embedding.shape[1]))
    np.add.at(sums, nodes, reps)
    deg = adj.degree.numpy()
    mean = sums / np.maximum(deg, 1)[:, None]
    lonely = deg == 0  # no partner: the node can only speak for itself
    mean[lonely] = embedding[lonely]
    return mean.astype(np.float32)
