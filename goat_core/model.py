"""GOAT's modules (Kefato & Girdzijauskas, 2020). Only nn.Modules live here.

Shapes: B pairs in a batch, Ls/Lt the (trimmed) neighborhood widths of sources/targets,
d the embedding dimension, n the number of nodes (row n of the table is the zero pad).
"""

from __future__ import annotations

import torch
from torch import nn

from .backends.masks import dropout

POOLINGS = ("max", "mean")


class MutualAttention(nn.Module):
    """Alignment A = S Tᵀ, pooled row-/column-wise into attention over each neighborhood.

    ``pooling="max"`` is the paper (Eq. 2-4); ``"mean"`` is the authors' code (tanh of the
    alignment, mean over real neighbors). Padding never wins a max nor takes softmax mass.
    """

    def __init__(self, pooling: str = "max"):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
        self.pooling = pooling

    def forward(self, S: torch.Tensor, T: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        A = torch.bmm(S, T.transpose(1, 2))  # (B, Ls, Lt)
        if self.pooling == "max":
            real = mask_s.unsqueeze(2) & mask_t.unsqueeze(1)  # (B, Ls, Lt)
            pooled = A.masked_fill(~real, float("-inf"))  # (B, Ls, Lt)
            a_s = pooled.amax(dim=2)  # (B, Ls), -inf on padded rows
            a_t = pooled.amax(dim=1)  # (B, Lt)
        else:
            A = torch.tanh(A)  # (B, Ls, Lt)
            a_s = (A * mask_t.unsqueeze(1)).sum(2) / mask_t.sum(1, keepdim=True)  # (B, Ls)
            a_t = (A * mask_s.unsqueeze(2)).sum(1) / mask_s.sum(1, keepdim=True)  # (B, Lt)
            a_s = a_s.masked_fill(~mask_s, float("-inf"))
            a_t = a_t.masked_fill(~mask_t, float("-inf"))
        return torch.softmax(a_s, dim=1), torch.softmax(a_t, dim=1), A  # (B, Ls), (B, Lt)


class Goat(nn.Module):
    """Global embedding table + mutual attention → context-sensitive r_s, r_t per pair."""

    def __init__(self, num_nodes: int, dim: int, pooling: str = "max", dropout: float = 0.5,
                 generator: torch.Generator | None = None):
        super().__init__()
        self.embedding = nn.Embedding(num_nodes + 1, dim, padding_idx=num_nodes)  # (n+1, d)
        with torch.no_grad():
            nn.init.xavier_uniform_(self.embedding.weight[:num_nodes], generator=generator)
        self.attention = MutualAttention(pooling)
        self.dropout = dropout

    def gather(self, ids: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        E = self.embedding(ids)  # (B, L, d)
        return dropout(E, self.dropout, generator) if self.training else E

    def forward(self, src: torch.Tensor, dst: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor,
                mask_s: torch.Tensor, mask_t: torch.Tensor,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor, tuple]:
        S = self.gather(nbr_s, generator)  # (B, Ls, d)
        T = self.gather(nbr_t, generator)  # (B, Lt, d)
        p_s, p_t, A = self.attention(S, T, mask_s, mask_t)  # (B, Ls), (B, Lt), (B, Ls, Lt)
        r_s = torch.bmm(p_s.unsqueeze(1), S).squeeze(1)  # (B, d)
        r_t = torch.bmm(p_t.unsqueeze(1), T).squeeze(1)  # (B, d)
        return (r_s * r_t).sum(-1), (r_s, r_t, p_s, p_t, A)  # (B,) logits


class GoatGlobal(nn.Module):
    """The paper's ablation: score a pair with the global embeddings E_s · E_t."""

    def __init__(self, num_nodes: int, dim: int, dropout: float = 0.5,
                 generator: torch.Generator | None = None):
        super().__init__()
        self.embedding = nn.Embedding(num_nodes + 1, dim, padding_idx=num_nodes)  # (n+1, d)
        with torch.no_grad():
            nn.init.xavier_uniform_(self.embedding.weight[:num_nodes], generator=generator)
        self.dropout = dropout

    def forward(self, src: torch.Tensor, dst: torch.Tensor, nbr_s: torch.Tensor | None = None,
                nbr_t: torch.Tensor | None = None, mask_s: torch.Tensor | None = None,
                mask_t: torch.Tensor | None = None,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor, tuple]:
        e_s = self.embedding(src)  # (B, d)
        e_t = self.embedding(dst)  # (B, d)
        if self.training:
            e_s, e_t = dropout(e_s, self.dropout, generator), dropout(e_t, self.dropout, generator)
        return (e_s * e_t).sum(-1), (e_s, e_t)  # (B,) logits

