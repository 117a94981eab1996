"""The nn.Modules on hand-made inputs: attention invariants and the paper's equations."""

from __future__ import annotations

import pytest
import torch

from goat_core.model import Goat, GoatGlobal, MutualAttention


def masks(lengths, width):
    return torch.arange(width) < torch.tensor(lengths).unsqueeze(1)


@pytest.mark.parametrize("pooling", ["max", "mean"])
def test_attention_sums_to_one_over_real_neighbors(pooling):
    gen = torch.Generator().manual_seed(0)
    S, T = torch.randn(4, 6, 8, generator=gen), torch.randn(4, 5, 8, generator=gen)
    ms, mt = masks([6, 3, 1, 4], 6), masks([5, 2, 5, 1], 5)
    p_s, p_t, _ = MutualAttention(pooling)(S, T, ms, mt)
    assert torch.allclose(p_s.sum(1), torch.ones(4)) and torch.allclose(p_t.sum(1), torch.ones(4))
    assert (p_s[~ms] == 0).all() and (p_t[~mt] == 0).all()


def test_padding_never_wins_a_max():
    # Every real alignment is negative, so a zero pad column would win an unmasked max.
    S = torch.tensor([[[1.0, 0.0], [2.0, 0.0], [0.0, 0.0]]])  # third row is padding
    T = torch.tensor([[[-1.0, 0.0], [-3.0, 0.0], [0.0, 0.0]]])  # third column is padding
    ms, mt = masks([2], 3), masks([2], 3)
    p_s, p_t, A = MutualAttention("max")(S, T, ms, mt)
    # a_s = row maxima over real columns = [-1, -2]; a_t = column maxima over real rows = [-1, -3]
    assert torch.allclose(p_s[0, :2], torch.softmax(torch.tensor([-1.0, -2.0]), 0))
    assert torch.allclose(p_t[0, :2], torch.softmax(torch.tensor([-1.0, -3.0]), 0))
    assert p_s[0, 2] == 0 and p_t[0, 2] == 0


def test_max_pooling_follows_the_paper_equations():
    gen = torch.Generator().manual_seed(3)
    S, T = torch.randn(1, 4, 5, generator=gen), torch.randn(1, 3, 5, generator=gen)
    ms, mt = masks([4], 4), masks([3], 3)
    p_s, p_t, A = MutualAttention("max")(S, T, ms, mt)
    expected_A = S[0] @ T[0].T
    assert torch.allclose(A[0], expected_A, atol=1e-6)
    assert torch.allclose(p_s[0], torch.softmax(expected_A.max(1).values, 0), atol=1e-6)
    assert torch.allclose(p_t[0], torch.softmax(expected_A.max(0).values, 0), atol=1e-6)


def test_score_changes_with_the_partner():
    gen = torch.Generator().manual_seed(0)
    model = Goat(num_nodes=6, dim=8, dropout=0.0, generator=gen).eval()
    nbr_s = torch.tensor([[1, 2, 3], [1, 2, 3]])  # same source neighborhood ...
    nbr_t = torch.tensor([[2, 4, 6], [5, 1, 6]])  # ... two partners with different neighborhoods
    ms, mt = masks([3, 3], 3), masks([2, 2], 3)
    logits, (r_s, _, p_s, _, _) = model(torch.tensor([0, 0]), torch.tensor([4, 5]), nbr_s, nbr_t, ms, mt)
    assert not torch.allclose(p_s[0], p_s[1])
    assert not torch.allclose(r_s[0], r_s[1])
    assert logits[0] != logits[1]


def test_pad_row_is_zero_and_gets_no_gradient():
    model = Goat(num_nodes=4, dim=3, dropout=0.0, generator=torch.Generator().manual_seed(0))
    assert (model.embedding.weight[4] == 0).all()
    nbr = torch.tensor([[1, 4], [2, 3]])
    m = masks([1, 2], 2)
    logits, _ = model(torch.tensor([0, 1]), torch.tensor([2, 0]), nbr, nbr.flip(0), m, m.flip(0))
    logits.sum().backward()
    assert (model.embedding.weight.grad[4] == 0).all()


def test_global_scores_with_the_embeddings():
    model = GoatGlobal(num_nodes=3, dim=4, dropout=0.0, generator=torch.Generator().manual_seed(0)).eval()
    logits, _ = model(torch.tensor([0]), torch.tensor([2]))
    E = model.embedding.weight
    assert torch.allclose(logits, (E[0] * E[2]).sum().unsqueeze(0))
