"""The baseline: a plain dense batched PyTorch GOAT, every neighborhood padded to N.

This is the "naive dense implementation" of issue 5: B pairs at a time, S and T gathered at
full width N, dropout by ``bernoulli_``, A = S Tᵀ with a -inf fill on padding, max pooling,
softmax, r_s·r_t, BCE, autograd backward (two dense bmm's through A), dense Adam. Same
model function as ``goat_core.model.Goat`` (max pooling); nothing is trimmed or sparse.

    python bench/naive.py            # pairs/s on Email (55 % training edges), paper config
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class NaiveGoat(nn.Module):
    def __init__(self, num_nodes: int, dim: int, dropout: float, generator: torch.Generator):
        super().__init__()
        self.embedding = nn.Embedding(num_nodes + 1, dim, padding_idx=num_nodes)  # (n+1, d)
        with torch.no_grad():
            nn.init.xavier_uniform_(self.embedding.weight[:num_nodes], generator=generator)
        self.p = dropout

    def forward(self, nbr_s, nbr_t, mask_s, mask_t, generator=None):
        S = self.embedding(nbr_s)  # (B, N, d)
        T = self.embedding(nbr_t)  # (B, N, d)
        if self.training and self.p > 0:
            S = S * torch.empty_like(S).bernoulli_(1 - self.p, generator=generator) / (1 - self.p)
            T = T * torch.empty_like(T).bernoulli_(1 - self.p, generator=generator) / (1 - self.p)
        A = torch.bmm(S, T.transpose(1, 2))  # (B, N, N)
        real = mask_s.unsqueeze(2) & mask_t.unsqueeze(1)  # (B, N, N)
        A = A.masked_fill(~real, float("-inf"))
        p_s = torch.softmax(A.amax(2), dim=1)  # (B, N)
        p_t = torch.softmax(A.amax(1), dim=1)  # (B, N)
        r_s = torch.bmm(p_s.unsqueeze(1), S).squeeze(1)  # (B, d)
        r_t = torch.bmm(p_t.unsqueeze(1), T).squeeze(1)  # (B, d)
        return (r_s * r_t).sum(-1)  # (B,)


def full_width(nodes, partners, hood):
    """(B, N) ids and mask, never trimmed; the partner left out; lonely nodes speak for themselves."""
    nbr = hood.table[nodes]  # (B, N)
    mask = torch.arange(nbr.shape[1]) < hood.length[nodes].unsqueeze(1)
    mask &= nbr != partners.unsqueeze(1)
    empty = ~mask.any(1)
    nbr[empty, 0] = nodes[empty]
    mask[empty, 0] = True
    return nbr, mask


def naive_epoch(model, optimizer, pairs, hood, batch_size: int, generator: torch.Generator,
                max_pairs: int | None = None) -> tuple[int, float]:
    """One (possibly truncated) epoch; returns (pairs trained, seconds)."""
    src, dst, labels = pairs
    total = src.shape[0] if max_pairs is None else min(max_pairs, src.shape[0])
    order = torch.randperm(src.shape[0], generator=generator)[:total]
    model.train()
    start = time.perf_counter()
    for idx in order.split(batch_size):
        nbr_s, mask_s = full_width(src[idx], dst[idx], hood)
        nbr_t, mask_t = full_width(dst[idx], src[idx], hood)
        logits = model(nbr_s, nbr_t, mask_s, mask_t, generator)
        loss = F.binary_cross_entropy_with_logits(logits, labels[idx])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return total, time.perf_counter() - start


def main() -> None:
    from goat_core import load_graph, split_edges
    from goat_core.data.sampling import Adjacency, noise_distribution, sample_neighborhoods
    from goat_core.training import epoch_pairs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--max-pairs", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    graph = split_edges(load_graph("email"), 0.55, 0).train
    gen = torch.Generator().manual_seed(0)
    adj = Adjacency.from_graph(graph)
    hood = sample_neighborhoods(adj, 100, gen)
    ps, pd, labels, _ = epoch_pairs(torch.from_numpy(graph.src), torch.from_numpy(graph.dst),
                                    torch.ones(graph.num_edges), False, 1, noise_distribution(adj), gen)
    model = NaiveGoat(graph.num_nodes, 200, 0.8, gen)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    n, secs = naive_epoch(model, opt, (ps, pd, labels), hood, args.batch_size, gen, args.max_pairs)
    print(f"naive dense: {n / secs:.0f} pairs/s ({n} pairs in {secs:.2f} s)")


if __name__ == "__main__":
    main()
