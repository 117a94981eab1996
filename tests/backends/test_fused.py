"""The compiled CPU loop (``goat_core.backends.fused``) against the plain implementation.

Same logits as ``model.MutualAttention`` in float64, and the same gradient of a training loss
(the loop's one pass), with dropout masks rebuilt from the kernel's own hash; the same numbers
on one thread and two; training through it is reproducible and learns.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score

from goat_core.backends import dispatch, fused
from goat_core.backends.batch import widths
from goat_core.backends.dispatch import GramCache
from goat_core.backends.logistic import logistic_loss
from goat_core.backends.workers import KernelOptions, run_tasks
from goat_core.data.sampling import Adjacency, sample_neighborhoods
from goat_core.model import Goat
from goat_core.training import run_training, score_pairs

from ..conftest import planted_graph
from .test_kernels import (  # noqa: F401 - fixtures, helpers, and path-agnostic cases collected again:
    backend,  # with BACKEND below, test_kernels' own cases run the compiled loop here
    one_thread,
    random_batch,
    reference_logits,
    test_a_left_out_slot_never_wins_a_max_on_either_side,
    test_float32_matches_within_float_rounding,
    test_padding_never_wins_a_max_even_when_every_real_entry_is_negative,
    test_zero_padding_matches_the_plain_model_with_pads_on_both_sides,
    test_zero_pads_win_the_max_when_every_real_entry_is_negative,
)
from .test_kernels import compare as compare_with

BACKEND = "fused"  # read by test_kernels' backend fixture


def compare(*args, **kwargs):
    return compare_with(*args, backend=BACKEND, **kwargs)


def sequential(tasks):
    return [task() for task in tasks]


def ids_and_widths(weight, nbr_s, nbr_t, mask_s, mask_t):
    pad = weight.shape[0] - 1
    ids_s, ids_t = torch.where(mask_s, nbr_s, pad), torch.where(mask_t, nbr_t, pad)
    return ids_s, ids_t, widths(mask_s), widths(mask_t)


def masks_for(key, keep, weight, ids_s, ids_t, len_s, len_t):
    threshold, exact = fused.threshold_for(keep)
    ms, mt = fused.dropout_masks(np.uint64(key), threshold, len_s.numpy(), len_t.numpy(), ids_s.shape[1],
                                 ids_t.shape[1], weight.shape[1], weight.shape[0] - 1, ids_s.numpy(),
                                 ids_t.numpy())
    return torch.from_numpy(ms), torch.from_numpy(mt), exact


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_logits_and_gradients_match_the_plain_model(seed, workers):
    # two segments in order, or on two threads
    compare(*random_batch(torch.Generator().manual_seed(seed)), options=KernelOptions(workers=workers))


def test_the_path_under_test_is_the_compiled_loop(monkeypatch):
    calls = []
    original = fused.pair_loop
    monkeypatch.setattr(fused, "pair_loop", lambda *a: calls.append(len(a[16])) or original(*a))
    compare(*random_batch(torch.Generator().manual_seed(0)))
    assert 0 in calls and max(calls) > 0  # scoring (no loss terms) and training (one per pair)


def matches_the_plain_model(pooling: str, keep: float, seed: int = 3, key: int = 987654321) -> None:
    """The compiled loop against the dense module in float64: logits, and the gradient of a
    pair-weighted logistic loss (the one pass), padding on both sides, partner holes, and dropout
    masks rebuilt from the loop's own hash."""
    weight, nbr_s, nbr_t, mask_s, mask_t = random_batch(torch.Generator().manual_seed(seed))
    ids_s, ids_t, len_s, len_t = ids_and_widths(weight, nbr_s, nbr_t, mask_s, mask_t)
    masks = masks_for(key, keep, weight, ids_s, ids_t, len_s, len_t) if keep < 1.0 else ()
    w_ref, w_fast = weight.clone().requires_grad_(), weight.clone().requires_grad_()
    y_ref = reference_logits(w_ref, nbr_s, nbr_t, mask_s, mask_t, *masks, pooling=pooling)
    y_fast = fused.fused_logits(weight, ids_s, ids_t, len_s, len_t, keep, key, sequential, pooling=pooling)
    labels = (torch.arange(len(y_ref)) % 2).to(weight.dtype)
    pair_weights = torch.linspace(-1.0, 2.0, len(y_ref), dtype=weight.dtype)
    logistic_loss(y_ref, labels, pair_weights).backward()
    fused.fused_loss(w_fast, ids_s, ids_t, len_s, len_t, labels, pair_weights, keep, key, sequential,
                     pooling=pooling).backward()
    assert torch.allclose(y_fast, y_ref, atol=1e-9, rtol=1e-7)
    assert torch.allclose(w_fast.grad, w_ref.grad, atol=1e-9 * w_ref.grad.abs().max().item(), rtol=1e-7)
    assert (w_fast.grad[-1] == 0).all()


@pytest.mark.parametrize("keep", [0.2, 0.65])
def test_with_its_dropout_masks_it_matches_the_plain_model(keep):
    matches_the_plain_model("max", keep)


def test_dropout_masks_rate_seeding_and_padding():
    gen = torch.Generator().manual_seed(6)
    weight, nbr_s, nbr_t, mask_s, mask_t = random_batch(gen, n=50, d=200, B=64, Ls=30, Lt=20)
    args = ids_and_widths(weight, nbr_s, nbr_t, mask_s, mask_t)
    ms, mt, exact = masks_for(11, 0.2, weight, *args)
    again, _, _ = masks_for(11, 0.2, weight, *args)
    other, _, _ = masks_for(12, 0.2, weight, *args)
    assert abs(exact - 0.2) <= 2.0**-17
    real = (args[0] != weight.shape[0] - 1).unsqueeze(2).expand_as(ms)
    assert (ms[~real] == 0).all()  # pad rows are zero, kept or not
    assert abs(ms[real].mean().item() - exact) < 0.005  # ~300k draws: sd 0.0007
    assert torch.equal(ms, again) and not torch.equal(ms, other)
    assert not torch.equal(ms[:, 0], ms[:, 1]) and not torch.equal(ms[0], mt[0, :1].expand_as(ms[0]))


def test_single_neighbor_sides_and_reused_gradient_buffers():
    gen = torch.Generator().manual_seed(5)
    weight = torch.randn(9, 6, generator=gen, dtype=torch.float64)
    weight[8] = 0
    for width in (3, 1, 3):  # the second segment's buffer is reused: stale rows must not leak
        full = torch.ones(6, width, dtype=torch.bool)
        compare(weight, torch.randint(0, 8, (6, width), generator=gen),
                torch.randint(0, 8, (6, width), generator=gen), full, full)


@pytest.mark.parametrize("sparse", [False, True])
def test_reused_gradient_memory_is_zeroed_and_never_shared_with_a_live_gradient(sparse):
    """The dense gradient (and the sparse one's values) come from a reused buffer: a step after
    a larger one sees none of its rows, and a gradient still held (accumulated over two
    backward passes) is not overwritten by the next one."""
    gen = torch.Generator().manual_seed(8)
    weight = torch.randn(40, 6, generator=gen, dtype=torch.float64)
    weight[-1] = 0
    first = (torch.randint(0, 39, (30, 5), generator=gen), torch.randint(0, 39, (30, 5), generator=gen))
    second = (torch.randint(0, 39, (4, 2), generator=gen), torch.randint(0, 39, (4, 2), generator=gen))

    def gradient(ids, w=None):
        w = weight.clone().requires_grad_() if w is None else w
        widths, labels = torch.full((len(ids[0]),), ids[0].shape[1]), torch.zeros(len(ids[0]), dtype=w.dtype)
        fused.fused_loss(w, *ids, widths, widths, labels, torch.ones_like(labels), 1.0, 3, sequential,
                         sparse=sparse).backward()
        return w

    fused._local.__dict__.pop("zeroed", None)  # nothing reused: the reference gradients
    alone = [gradient(ids).grad.to_dense() for ids in (first, second)]
    fused._local.__dict__.pop("zeroed", None)
    gradient(first)  # dropped at once: its memory is reused by the next
    assert torch.equal(gradient(second).grad.to_dense(), alone[1])
    both = gradient(second, gradient(first))  # accumulated: the first gradient is still held
    assert torch.equal(both.grad.to_dense(), alone[0] + alone[1])


def test_two_threads_give_the_same_numbers_as_one():
    weight, nbr_s, nbr_t, mask_s, mask_t = random_batch(torch.Generator().manual_seed(7), B=200,
                                                        dtype=torch.float32)
    args = ids_and_widths(weight, nbr_s, nbr_t, mask_s, mask_t)

    def grad(run):
        w = weight.clone().requires_grad_()
        y = fused.fused_logits(weight, *args, 0.2, 5, run)
        labels = (torch.arange(len(y)) % 2).float()
        fused.fused_loss(w, *args, labels, torch.linspace(-1, 1, len(y)), 0.2, 5, run).backward()
        return y, w.grad

    threads = lambda tasks: run_tasks(tasks, torch.device("cpu"), workers=2)
    y1, g1 = grad(sequential)
    y2, g2 = grad(threads)
    assert torch.equal(y1, y2) and torch.equal(g1, g2)


def _segment_buffers(rows: int, width: int, seed: int):
    """Two segments' gradient buffers with stale rows, each touching a random third (fresh == 2),
    some rows in both, some in neither, and -0.0 in some touched rows."""
    rng = np.random.default_rng(seed)
    bufs = [rng.standard_normal((rows, width)) for _ in range(2)]
    fresh = [np.where(rng.random(rows) < 0.35, 2, 1).astype(np.uint8) for _ in range(2)]
    for buf in bufs:
        buf[rng.random(rows) < 0.1, 0] = -0.0
    return bufs, fresh


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint64)  # -0.0 and 0.0 differ here, unlike ==


@pytest.mark.parametrize("run", [sequential, lambda tasks: run_tasks(tasks, torch.device("cpu"), 2)])
def test_merged_segments_are_the_zeroed_and_added_buffers_bit_for_bit(run):
    """The dense gradient's one-pass merge of two segments (``_dense_rows``) gives what zeroing
    segment 0's untouched rows and adding segment 1's touched rows gave; the sparse gradient's
    rows (``_touched_rows``) are what adding each segment into zeroed rows gave."""
    bufs, fresh = _segment_buffers(301, 5, seed=11)
    expected = np.where((fresh[0] == 2)[:, None], bufs[0], 0.0)  # zeroed where segment 0 did not touch
    expected[fresh[1] == 2] += bufs[1][fresh[1] == 2]
    expected[-1] = 0.0
    rows = np.flatnonzero(((fresh[0] == 2) | (fresh[1] == 2))[:-1])
    expected_values = np.zeros((len(rows), 5))
    for buf, f in zip(bufs, fresh):  # added into zeroed rows, segment by segment
        expected_values[f[rows] == 2] += buf[rows[f[rows] == 2]]
    sparse = fused._touched_rows(np.zeros((301, 5)), bufs, fresh, run)
    assert np.array_equal(sparse._indices()[0].numpy(), rows)
    assert np.array_equal(_bits(sparse._values().numpy()), _bits(expected_values))
    dense = fused._dense_rows([bufs[0].copy(), bufs[1]], fresh, run).numpy()
    assert np.array_equal(_bits(dense), _bits(expected))


def test_training_through_it_is_reproducible_and_learns():
    graph = planted_graph(groups=3, size=15, p_in=0.6, p_out=0.05, seed=1)
    hood = sample_neighborhoods(Adjacency.from_graph(graph), 8, torch.Generator().manual_seed(9))
    pos = np.stack([graph.src, graph.dst], 1)
    neg = np.random.default_rng(0).integers(0, graph.num_nodes, (len(pos), 2))
    labels = np.r_[np.ones(len(pos)), np.zeros(len(neg))]

    def train(seed, epochs=8, workers=2):
        gen = torch.Generator().manual_seed(seed)
        model = Goat(graph.num_nodes, 16, "max", dropout=0.5, generator=gen)
        history = run_training(model, graph, epochs=epochs, batch_size=32, lr=0.02, negatives=1,
                               neighborhood=8, exclude_partner=True, generator=gen,
                               device=torch.device("cpu"), backend="fused",
                               options=KernelOptions(workers=workers))
        scores = score_pairs(model, np.concatenate([pos, neg]), hood, True, torch.device("cpu"), "fused",
                             GramCache())
        return model.embedding.weight.detach().clone(), history, roc_auc_score(labels, scores)

    w1, h1, auc = train(0)
    w2, h2, _ = train(0)
    w3, _, _ = train(1)
    _, _, untrained_auc = train(0, epochs=0)
    w4, _, _ = train(0, workers=1)  # segments in order on one thread: the same numbers
    assert torch.equal(w1, w2) and [r["loss"] for r in h1] == [r["loss"] for r in h2]
    assert torch.equal(w1, w4)
    assert not torch.equal(w1, w3)
    assert auc > untrained_auc + 0.02  # measured: 0.754 vs 0.719 (the torch path: 0.758)


def test_two_trainings_side_by_side_give_what_each_gives_alone():
    """App sessions train in threads of one process: no state may be shared between them."""
    graph = planted_graph(groups=4, size=20, p_in=0.5, p_out=0.05, seed=2)

    def train(seed, out=None):
        gen = torch.Generator().manual_seed(seed)
        model = Goat(graph.num_nodes, 32, "max", dropout=0.5, generator=gen)
        run_training(model, graph, epochs=6, batch_size=16, lr=0.02, negatives=1, neighborhood=10,
                     exclude_partner=True, generator=gen, device=torch.device("cpu"), backend="fused")
        weight = model.embedding.weight.detach().clone()
        if out is not None:
            out[seed] = weight
        return weight

    alone = {seed: train(seed) for seed in (0, 1)}
    together: dict = {}
    threads = [threading.Thread(target=train, args=(seed, together)) for seed in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert torch.equal(together[0], alone[0]) and torch.equal(together[1], alone[1])


@pytest.mark.parametrize("keep", [1.0, 0.2, 0.65])
@pytest.mark.parametrize("seed", [3, 4])
def test_mean_pooling_matches_the_plain_model(keep, seed):
    """The authors' variant through the compiled loop."""
    matches_the_plain_model("mean", keep, seed, key=424242)


def test_mean_pooling_padding_takes_no_part():
    """A pad's alignment is tanh(0) = 0: counted in a mean, it would pull every score to 0."""
    weight = torch.tensor([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [0.0, 0.0]], dtype=torch.float64)
    nbr_s, nbr_t = torch.tensor([[0, 1, 3]]), torch.tensor([[2, 3, 3]])
    mask_s, mask_t = torch.tensor([[True, True, False]]), torch.tensor([[True, False, False]])
    ids_s, ids_t, len_s, len_t = ids_and_widths(weight, nbr_s, nbr_t, mask_s, mask_t)
    y = fused.fused_logits(weight.clone(), ids_s, ids_t, len_s, len_t, 1.0, 0, sequential, pooling="mean")
    expected = reference_logits(weight, nbr_s, nbr_t, mask_s, mask_t, pooling="mean")
    assert torch.allclose(y, expected, atol=1e-12)


def bce_of_logits_and_one_pass(batch, labels, pair_weights, *, pooling="max", sparse=False, dropout=0.5,
                               upstream=1.0, workers=1):
    """(loss, table gradient) of F.binary_cross_entropy_with_logits over the plain model's logits
    with the loop's dropout masks (rebuilt from its hash), and of the one-pass fused loss."""
    weight, nbr_s, nbr_t, mask_s, mask_t = batch
    w, w_ref = weight.clone().requires_grad_(), weight.clone().requires_grad_()
    loss = dispatch.goat_loss(w, nbr_s, nbr_t, mask_s, mask_t, labels, pair_weights, dropout,
                              torch.Generator().manual_seed(21), options=KernelOptions(workers=workers),
                              pooling=pooling, sparse=sparse)
    (loss * upstream).backward()
    assert w.grad.is_sparse == sparse
    key = int(torch.randint(0, 2**62, (1,), generator=torch.Generator().manual_seed(21)))  # goat_loss's draw
    masks = masks_for(key, 1.0 - dropout, weight, *ids_and_widths(*batch)) if dropout > 0 else ()
    logits = reference_logits(w_ref, nbr_s, nbr_t, mask_s, mask_t, *masks, pooling=pooling)
    reference = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, weight=pair_weights)
    (reference * upstream).backward()
    return (reference.detach(), w_ref.grad), (loss.detach(), w.grad.to_dense())


@pytest.mark.parametrize("upstream", [1.0, 2.5])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("pooling", ["max", "mean"])
@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_the_one_pass_loss_is_the_logistic_loss_of_the_logits_with_their_gradient(dropout, pooling, sparse,
                                                                                   upstream):
    gen = torch.Generator().manual_seed(13)
    batch = random_batch(gen)
    B = batch[1].shape[0]
    labels = (torch.rand(B, generator=gen) < 0.5).double()
    pair_weights = torch.rand(B, generator=gen, dtype=torch.float64) * 2  # weighted edges
    (loss2, grad2), (loss1, grad1) = bce_of_logits_and_one_pass(
        batch, labels, pair_weights, pooling=pooling, sparse=sparse, dropout=dropout, upstream=upstream)
    assert grad2.abs().max() > 0
    assert torch.allclose(loss1, loss2, rtol=1e-9, atol=0)
    assert torch.allclose(grad1, grad2, rtol=1e-7, atol=1e-9 * grad2.abs().max().item())
    assert (grad1[-1] == 0).all()  # the pad row


def test_the_one_pass_loss_with_zero_pads_on_two_threads_in_float32():
    gen = torch.Generator().manual_seed(14)
    weight, nbr_s, nbr_t, _, _ = random_batch(gen, B=120, dtype=torch.float32, holes=False)
    full_s, full_t = torch.ones_like(nbr_s, dtype=torch.bool), torch.ones_like(nbr_t, dtype=torch.bool)
    labels = (torch.arange(120) % 2).float()
    (loss2, grad2), (loss1, grad1) = bce_of_logits_and_one_pass(
        (weight, nbr_s, nbr_t, full_s, full_t), labels, torch.ones(120), workers=2)
    assert torch.allclose(loss1, loss2, rtol=1e-6)
    assert torch.allclose(grad1, grad2, rtol=1e-4, atol=1e-6 * grad2.abs().max().item())


def test_training_takes_the_one_pass_loss(monkeypatch):
    calls = {"one pass": 0, "logits": 0}
    loss_apply, logits = fused.FusedPairLoss.apply, fused.fused_logits

    def count(name, apply):
        return lambda *a, **k: calls.__setitem__(name, calls[name] + 1) or apply(*a, **k)

    monkeypatch.setattr(fused.FusedPairLoss, "apply", count("one pass", loss_apply))
    monkeypatch.setattr(fused, "fused_logits", count("logits", logits))
    graph = planted_graph(groups=2, size=10, p_in=0.6, p_out=0.05, seed=3)
    gen = torch.Generator().manual_seed(0)
    model = Goat(graph.num_nodes, 8, "max", dropout=0.5, generator=gen)
    history = run_training(model, graph, epochs=2, batch_size=16, lr=0.02, negatives=1, neighborhood=5,
                           exclude_partner=True, generator=gen, device=torch.device("cpu"), backend="fused")
    steps = 2 * -(-2 * graph.num_edges // 16)
    assert calls == {"one pass": steps, "logits": 0}
    assert all(np.isfinite(row["loss"]) for row in history)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ls, lt", [(1, 1), (1, 7), (3, 5), (4, 2), (4, 3), (5, 1), (9, 8), (45, 38),
                                    (100, 100)])
def test_alignment_kernel_equals_the_matrix_product(ls, lt, dtype):
    """The blocked kernel covers every entry: whole 4x2 blocks, the odd column, the last rows."""
    rng = np.random.default_rng(ls * 1000 + lt)
    S, T = rng.standard_normal((100, 200)).astype(dtype), rng.standard_normal((100, 200)).astype(dtype)
    A = fused._align(S, T, ls, lt)
    assert A.shape == (ls, lt) and A.dtype == dtype
    exact = S[:ls].astype(np.float64) @ T[:lt].T.astype(np.float64)
    np.testing.assert_allclose(A, exact, rtol=0, atol=2e-4 if dtype == np.float32 else 1e-11)
