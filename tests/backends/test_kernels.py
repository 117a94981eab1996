"""The fast kernels against the plain implementation: same logits, same gradients.

The plain implementation is ``model.MutualAttention`` (dense A, -inf masks, autograd through
``bmm`` and ``amax``); the fast one is ``kernels.goat_logits``'s torch path (chunks trimmed to
their own widths, -inf bias, sparse argmax backward, index_add into the table), the path CUDA
takes (``backend="torch"``), run here on CPU. ``test_fused.py`` runs the path-agnostic cases
below again with ``backend="fused"``, the compiled CPU loop.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from goat_core.backends import dispatch, masks
from goat_core.backends.batch import make_batch
from goat_core.backends.dispatch import GramCache, PairScorer
from goat_core.backends.logistic import logistic_loss
from goat_core.backends.workers import DEFAULT_OPTIONS, KernelOptions
from goat_core.data.sampling import Adjacency, sample_neighborhoods
from goat_core.model import Goat, MutualAttention
from goat_core.training import run_training, score_pairs

from ..conftest import planted_graph


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny tensors: one intra-op thread (two spin-wait on a busy 2-core machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def backend(request) -> str:
    """The kernel backend under test: the torch chunks (the CUDA path) here; a module that
    collects these cases again names its own (``BACKEND = "fused"`` in test_fused.py)."""
    return getattr(request.module, "BACKEND", "torch")


def reference_logits(weight, nbr_s, nbr_t, mask_s, mask_t, keep_s=None, keep_t=None, keep=1.0, pooling="max"):
    """The plain dense computation of model.Goat.forward (max pooling, or the authors' tanh +
    mean pooling), with given dropout masks."""
    S, T = weight[nbr_s], weight[nbr_t]  # (B, Ls, d), (B, Lt, d)
    if keep_s is not None:
        S, T = S * keep_s / keep, T * keep_t / keep
    p_s, p_t, _ = MutualAttention(pooling)(S, T, mask_s, mask_t)
    r_s = torch.bmm(p_s.unsqueeze(1), S).squeeze(1)
    r_t = torch.bmm(p_t.unsqueeze(1), T).squeeze(1)
    return (r_s * r_t).sum(-1)


def random_batch(gen, n=60, d=24, B=48, Ls=11, Lt=7, dtype=torch.float64, holes=True):
    """Ragged, left-aligned neighborhoods padded with id n, some with a partner-shaped hole."""
    weight = torch.randn(n + 1, d, generator=gen, dtype=dtype)
    weight[n] = 0.0
    nbr_s = torch.randint(0, n, (B, Ls), generator=gen)
    nbr_t = torch.randint(0, n, (B, Lt), generator=gen)
    mask_s = torch.arange(Ls) < torch.randint(1, Ls + 1, (B,), generator=gen).unsqueeze(1)
    mask_t = torch.arange(Lt) < torch.randint(1, Lt + 1, (B,), generator=gen).unsqueeze(1)
    mask_s[0] = True  # one full-width pair
    mask_t[0] = True
    nbr_s[~mask_s] = n
    nbr_t[~mask_t] = n
    if holes:  # an excluded partner: a real id inside the neighborhood, masked out, on either side
        hole = (torch.arange(B) % 3 == 1) & (mask_s.sum(1) >= 2)
        mask_s[hole, 0] = False
        hole_t = (torch.arange(B) % 3 != 0) & (mask_t.sum(1) >= 2)
        mask_t[hole_t, 0] = False
    return weight, nbr_s, nbr_t, mask_s, mask_t


def loss_gradient(weight, nbr_s, nbr_t, mask_s, mask_t, masks=None, *, backend=None, options=DEFAULT_OPTIONS):
    """(logits, the table's gradient of a pair-weighted logistic loss of them) on the plain model
    (``backend`` None) or a fast path. The fused path's gradient comes with its loss, in one pass
    (``goat_loss``); the torch path's through autograd. Labels alternate and the pair weights run
    from -1 to 2: every pair's gradient is scaled by its own factor."""
    def logits_of(w):
        if backend is None:
            return reference_logits(w, nbr_s, nbr_t, mask_s, mask_t, *(masks or ()))
        return dispatch.goat_logits(w, nbr_s, nbr_t, mask_s, mask_t, masks=masks, backend=backend,
                                    options=options)

    with torch.no_grad():
        logits = logits_of(weight)
    labels = (torch.arange(len(logits)) % 2).to(weight.dtype)
    pair_weights = torch.linspace(-1.0, 2.0, len(logits), dtype=weight.dtype)
    w = weight.clone().requires_grad_()
    if backend == "fused":
        loss = dispatch.goat_loss(w, nbr_s, nbr_t, mask_s, mask_t, labels, pair_weights, options=options)
    else:
        loss = logistic_loss(logits_of(w), labels, pair_weights)
    loss.backward()
    return logits, w.grad


def compare(weight, nbr_s, nbr_t, mask_s, mask_t, masks=None, atol=1e-9, *, backend="torch",
            options=DEFAULT_OPTIONS):
    y_ref, g_ref = loss_gradient(weight, nbr_s, nbr_t, mask_s, mask_t, masks)
    y_fast, g_fast = loss_gradient(weight, nbr_s, nbr_t, mask_s, mask_t, masks, backend=backend,
                                   options=options)
    scale = g_ref.abs().max().item()
    assert torch.allclose(y_fast, y_ref, atol=atol, rtol=1e-7), (y_fast - y_ref).abs().max()
    assert torch.allclose(g_fast, g_ref, atol=atol * max(scale, 1.0), rtol=1e-7), (g_fast - g_ref).abs().max()
    assert (g_fast[-1] == 0).all()


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("chunk_rows", [16, 64, 100_000])
@pytest.mark.parametrize("seed", [0, 1])
def test_logits_and_gradients_match_the_plain_model(chunk_rows, seed, workers):
    # many chunks, or one; chunks in order, or on two threads
    options = KernelOptions(workers=workers, chunk_rows_cpu=chunk_rows)
    compare(*random_batch(torch.Generator().manual_seed(seed)), options=options)


def test_with_dropout_masks_it_matches_the_plain_model():
    gen = torch.Generator().manual_seed(2)
    weight, nbr_s, nbr_t, mask_s, mask_t = random_batch(gen)
    d = weight.shape[1]
    keep_s = (torch.rand(*nbr_s.shape, d, generator=gen) < 0.2).double()
    keep_t = (torch.rand(*nbr_t.shape, d, generator=gen) < 0.2).double()
    compare(weight, nbr_s, nbr_t, mask_s, mask_t, masks=(keep_s, keep_t, 0.2),
            options=KernelOptions(chunk_rows_cpu=64))


def test_float32_matches_within_float_rounding(backend):
    gen = torch.Generator().manual_seed(4)
    weight, *rest = random_batch(gen, d=200, Ls=40, Lt=30, B=32, dtype=torch.float64)
    w32 = weight.float()
    y_ref = reference_logits(w32, *rest)
    y_fast = dispatch.goat_logits(w32, *rest, backend=backend)
    # d = 200 float32 dot products summed in another order: ~1e-5 relative, and a near-tie of
    # two maxima may pick the other cell (logits up to ~250 here)
    assert torch.allclose(y_fast, y_ref, rtol=3e-5, atol=1e-3)


def test_padding_never_wins_a_max_even_when_every_real_entry_is_negative(backend):
    # Two real neighbors per side, all alignments negative; pads are zero rows (A = 0 there).
    weight = torch.tensor([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [-3.0, 0.0], [0.0, 0.0]],
                          dtype=torch.float64)
    nbr_s, nbr_t = torch.tensor([[0, 1, 4]]), torch.tensor([[2, 3, 4]])
    mask_s = mask_t = torch.tensor([[True, True, False]])
    compare(weight, nbr_s, nbr_t, mask_s, mask_t, backend=backend)


def test_a_left_out_slot_never_wins_a_max_on_either_side(backend):
    # Holes (a left-out partner) inside both neighborhoods, all real alignments negative: the
    # hole is a zero row (A = 0 there) inside the width, so only the masks keep it out of the max.
    weight = torch.tensor([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [-3.0, 0.0], [0.0, 0.0]],
                          dtype=torch.float64)
    nbr_s, nbr_t = torch.tensor([[0, 3, 1], [2, 0, 3]]), torch.tensor([[2, 1, 3], [0, 3, 1]])
    mask_s = torch.tensor([[True, False, True], [True, True, True]])
    mask_t = torch.tensor([[True, False, True], [True, False, True]])
    compare(weight, nbr_s, nbr_t, mask_s, mask_t, backend=backend)
    compare(weight, nbr_t, nbr_s, mask_t, mask_s, backend=backend)  # the other way round


def test_single_neighbor_sides_and_no_padding():
    gen = torch.Generator().manual_seed(5)
    weight = torch.randn(9, 6, generator=gen, dtype=torch.float64)
    weight[8] = 0
    full = torch.ones(5, 3, dtype=torch.bool)
    compare(weight, torch.randint(0, 8, (5, 3), generator=gen), torch.randint(0, 8, (5, 3), generator=gen),
            full, full)
    one = torch.ones(5, 1, dtype=torch.bool)
    compare(weight, torch.randint(0, 8, (5, 1), generator=gen), torch.randint(0, 8, (5, 1), generator=gen),
            one, one)


def test_keep_mask_rate_resolution_and_seeding():
    mask, keep = masks.keep_mask((400, 500), 0.2, torch.Generator().manual_seed(0), "cpu")
    assert abs(keep - 0.2) <= 2.0**-17 and mask.dtype == torch.float32
    assert set(mask.unique().tolist()) == {0.0, 1.0}
    assert abs(mask.mean().item() - keep) < 0.003  # 200k draws: sd 0.0009
    again, _ = masks.keep_mask((400, 500), 0.2, torch.Generator().manual_seed(0), "cpu")
    other, _ = masks.keep_mask((400, 500), 0.2, torch.Generator().manual_seed(1), "cpu")
    assert torch.equal(mask, again) and not torch.equal(mask, other)
    # rows are not copies of each other (all 64 bits of each word are used)
    assert (mask[:, :4] != mask[:, 4:8]).any()


def test_scorer_matches_the_module_on_real_batches():
    graph = planted_graph(groups=3, size=15, p_in=0.6, p_out=0.05, seed=1)
    gen = torch.Generator().manual_seed(0)
    model = Goat(graph.num_nodes, 16, "max", dropout=0.0, generator=gen)
    hood = sample_neighborhoods(Adjacency.from_graph(graph), 6, gen)
    src = torch.arange(graph.num_nodes)
    dst = torch.randint(0, graph.num_nodes, (graph.num_nodes,), generator=gen)
    batch = make_batch(src, dst, hood, exclude_partner=True)
    plain, _ = model(*batch.args())
    plain.sum().backward()
    grad_plain = model.embedding.weight.grad.clone()
    model.zero_grad()
    fast = PairScorer(model, "torch")(*batch.args())
    fast.sum().backward()
    assert torch.allclose(fast, plain, atol=1e-5)
    assert torch.allclose(model.embedding.weight.grad, grad_plain, atol=1e-5)
    pairs = np.stack([src.numpy(), dst.numpy()], 1)
    scores = score_pairs(model, pairs, hood, True, torch.device("cpu"), "torch", GramCache())
    assert np.allclose(scores, plain.detach().numpy(), atol=1e-5)


def test_training_is_reproducible_and_learns():
    graph = planted_graph(groups=3, size=15, p_in=0.6, p_out=0.05, seed=1)

    def train(seed, workers=2):  # several chunks per batch, on two threads (or in order)
        gen = torch.Generator().manual_seed(seed)
        model = Goat(graph.num_nodes, 16, "max", dropout=0.5, generator=gen)
        history = run_training(model, graph, epochs=3, batch_size=32, lr=0.02, negatives=1,
                               neighborhood=8, exclude_partner=True, generator=gen,
                               device=torch.device("cpu"), backend="torch",
                               options=KernelOptions(workers=workers, chunk_rows_cpu=32))
        return model.embedding.weight.detach().clone(), history

    w1, h1 = train(0)
    w2, h2 = train(0)
    w3, _ = train(1)
    w4, _ = train(0, workers=1)  # the same numbers whether chunks ran on threads or in order
    assert torch.equal(w1, w2) and [r["loss"] for r in h1] == [r["loss"] for r in h2]
    assert torch.equal(w1, w4)
    assert not torch.equal(w1, w3)
    assert h1[-1]["loss"] < h1[0]["loss"]


@pytest.mark.parametrize("path, through_gram", [("torch", False), ("fused", False), ("fused", True)])
def test_score_pairs_matches_the_module(path, through_gram):
    graph = planted_graph(groups=4, size=20, p_in=0.5, p_out=0.05, seed=2)
    gen = torch.Generator().manual_seed(0)
    model = Goat(graph.num_nodes, 12, "max", dropout=0.5, generator=gen).eval()
    hood = sample_neighborhoods(Adjacency.from_graph(graph), 7, gen)
    pairs = torch.randint(0, graph.num_nodes, (300, 2), generator=gen)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    with torch.no_grad():
        plain, _ = model(*make_batch(pairs[:, 0], pairs[:, 1], hood, True).args())
    gram = GramCache() if through_gram else None  # what a fitted Goat owns; None: the per-pair path
    assert dispatch.uses_gram(model, path, len(pairs), gram) == through_gram  # the compiled path's Gram mode
    scores = score_pairs(model, pairs.numpy(), hood, True, torch.device("cpu"), path, gram, batch_size=64)
    assert np.allclose(scores, plain.numpy(), atol=1e-5)
    # An optimizer step must not reuse a stale Gram matrix (fused Adam does not even bump the
    # parameter's version counter).
    model.embedding.weight.grad = torch.randn_like(model.embedding.weight)
    torch.optim.Adam(model.parameters(), lr=0.1, fused=True).step()
    with torch.no_grad():
        plain, _ = model(*make_batch(pairs[:, 0], pairs[:, 1], hood, True).args())
    scores = score_pairs(model, pairs.numpy(), hood, True, torch.device("cpu"), path, gram, batch_size=64)
    assert np.allclose(scores, plain.numpy(), atol=1e-5)


def compare_zero_padded(weight, nbr_s, nbr_t, backend: str, atol: float = 1e-9) -> None:
    """padding="zero": every slot takes part and a pad slot (id n) is the zero row. The plain
    model with all-true masks is the reference; the pad row's gradient stays zero."""
    full_s, full_t = torch.ones_like(nbr_s, dtype=torch.bool), torch.ones_like(nbr_t, dtype=torch.bool)
    y_ref, g_ref = loss_gradient(weight, nbr_s, nbr_t, full_s, full_t)
    y_fast, g_fast = loss_gradient(weight, nbr_s, nbr_t, full_s, full_t, backend=backend)
    assert torch.allclose(y_fast, y_ref, atol=atol, rtol=1e-7), (y_fast - y_ref).abs().max()
    assert torch.allclose(g_fast[:-1], g_ref[:-1], atol=atol, rtol=1e-7)
    assert (g_fast[-1] == 0).all()


def test_zero_pads_win_the_max_when_every_real_entry_is_negative(backend):
    # The case above under zero padding: the pads' alignment 0 beats every real one, on both sides.
    weight = torch.tensor([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0], [-3.0, 0.0], [0.0, 0.0]],
                          dtype=torch.float64)
    nbr_s, nbr_t = torch.tensor([[0, 1, 4]]), torch.tensor([[2, 3, 4]])
    compare_zero_padded(weight, nbr_s, nbr_t, backend)
    masked = dispatch.goat_logits(weight, nbr_s, nbr_t, nbr_s != 4, nbr_t != 4, backend=backend)
    zero = dispatch.goat_logits(weight, nbr_s, nbr_t, torch.ones_like(nbr_s, dtype=torch.bool),
                               torch.ones_like(nbr_t, dtype=torch.bool), backend=backend)
    assert not torch.allclose(masked, zero)  # the pads changed the answer: they took part


@pytest.mark.parametrize("seed", [0, 1])
def test_zero_padding_matches_the_plain_model_with_pads_on_both_sides(backend, seed):
    weight, nbr_s, nbr_t, mask_s, mask_t = random_batch(torch.Generator().manual_seed(seed))
    pad = weight.shape[0] - 1
    nbr_s, nbr_t = torch.where(mask_s, nbr_s, pad), torch.where(mask_t, nbr_t, pad)  # holes too
    assert bool((nbr_s == pad).any()) and bool((nbr_t == pad).any())
    compare_zero_padded(weight, nbr_s, nbr_t, backend)


def test_make_batch_zero_padding_fills_every_side_to_n():
    graph = planted_graph(groups=2, size=6, p_in=0.6, p_out=0.1)
    adj = Adjacency.from_graph(graph)
    hood = sample_neighborhoods(adj, 9, torch.Generator().manual_seed(0))
    src, dst = torch.tensor([0, 1, 2]), torch.tensor([1, 7, 3])
    zero = make_batch(src, dst, hood, exclude_partner=True, padding="zero")
    assert zero.nbr_s.shape == (3, 9) and bool(zero.mask_s.all()) and bool(zero.mask_t.all())
    pad = graph.num_nodes
    assert not (zero.nbr_s == dst.unsqueeze(1)).any()  # the left-out partner is a zero pad
    assert ((zero.nbr_s != pad).sum(1) <= hood.length[src]).all()
    masked = make_batch(src, dst, hood, exclude_partner=True)
    assert masked.nbr_s.shape[1] <= 9 and not bool(masked.mask_s.all())


def test_gram_scores_stay_finite_when_every_alignment_is_below_exps_range():
    """Masked padding, no pad slot, every pooled alignment under -709: the softmax's pad term was
    0 * exp(709+) = NaN in the Gram mode (a run fuzzer found it); the module's numbers, finite."""
    from goat_core.data.readers import parse_edge_list

    n = 40  # an even cycle: a node's neighbours have the other parity, so do a pair's when s - t is odd
    graph = parse_edge_list("".join(f"{i} {(i + 1) % n}\n" for i in range(n)).encode(), "cycle.txt")
    model = Goat(n, 8, "max", dropout=0.0, generator=torch.Generator().manual_seed(0)).eval()
    with torch.no_grad():
        model.embedding.weight[:n] = torch.tensor([10.0 if i % 2 else -10.0 for i in range(n)])[:, None]
    hood = sample_neighborhoods(Adjacency.from_graph(graph), 4, torch.Generator().manual_seed(0))
    pairs = torch.tensor([(s, t) for s in range(n) for t in range(n) if (s - t) % 2])
    with torch.no_grad():
        plain, _ = model(*make_batch(pairs[:, 0], pairs[:, 1], hood, True).args())
    gram = GramCache()
    assert dispatch.uses_gram(model, "fused", len(pairs), gram)
    scores = score_pairs(model, pairs.numpy(), hood, True, torch.device("cpu"), "fused", gram, batch_size=64)
    assert np.isfinite(plain.numpy()).all() and np.allclose(scores, plain.numpy(), rtol=1e-5)
