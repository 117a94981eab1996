"""Lazy (row-sparse) Adam: dense Adam where every row is touched, untouched rows left alone,
per-row bias correction; every backend's sparse table gradient is the dense gradient's rows."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from goat_core import Goat, ParameterError, load_graph
from goat_core.backends.dispatch import PairScorer
from goat_core.backends.fused import SegmentGradient
from goat_core.model import Goat as GoatModule
from goat_core.model import GoatGlobal
from goat_core.optim import (
    LAZY_FROM_NODES,
    LazyAdam,
    TableAdam,
    make_optimizer,
    resolve_optimizer,
    sparse_table_gradient,
)

from .conftest import FAST
from .tamper import as_format_1, tampered


def _sparse(rows: torch.Tensor, values: torch.Tensor, shape) -> torch.Tensor:
    return torch.sparse_coo_tensor(rows.unsqueeze(0), values, shape, check_invariants=True)


@pytest.mark.parametrize("shape", [(7, 5), (7,)])  # a table: the compiled pass; 1-D: torch ops (CUDA's)
def test_lazy_adam_is_adam_when_every_row_is_touched(shape):
    gen = torch.Generator().manual_seed(0)
    start = torch.randn(*shape, generator=gen, dtype=torch.float64)
    dense, lazy = start.clone().requires_grad_(), start.clone().requires_grad_()
    adam = torch.optim.Adam([dense], lr=0.01, foreach=False)
    lazy_adam = LazyAdam([lazy], lr=0.01)
    for step in range(6):
        grad = torch.randn(*shape, generator=gen, dtype=torch.float64)
        dense.grad = grad.clone()
        order = torch.randperm(7, generator=gen)  # rows in any order, as a sparse gradient
        lazy.grad = _sparse(order, grad[order], shape) if step % 2 else grad.clone()  # dense counts too
        adam.step()
        lazy_adam.step()
        torch.testing.assert_close(lazy, dense, rtol=1e-13, atol=1e-15)
    assert torch.equal(lazy_adam.state[lazy]["step"], torch.full((7,), 6, dtype=torch.int32))


def test_untouched_rows_keep_weights_and_moments_and_counts():
    gen = torch.Generator().manual_seed(1)
    weight = torch.randn(6, 4, generator=gen).requires_grad_()
    opt = LazyAdam([weight], lr=0.1)
    weight.grad = _sparse(torch.tensor([0, 2, 3]), torch.randn(3, 4, generator=gen), (6, 4))
    opt.step()
    before = {k: v.clone() for k, v in opt.state[weight].items()}
    w_before = weight.detach().clone()
    weight.grad = _sparse(torch.tensor([2, 2, 5]), torch.randn(3, 4, generator=gen), (6, 4))  # duplicates sum
    opt.step()
    state = opt.state[weight]
    untouched = torch.tensor([0, 1, 3, 4])
    assert torch.equal(weight.detach()[untouched], w_before[untouched])
    for key in ("exp_avg", "exp_avg_sq"):
        assert torch.equal(state[key][untouched], before[key][untouched])
    assert state["step"].tolist() == [1, 0, 2, 1, 0, 1]
    assert not torch.equal(weight.detach()[[2, 5]], w_before[[2, 5]])


def test_a_row_touched_late_takes_its_own_first_adam_step():
    """Per-row bias correction: a row first touched at step 4 moves as dense Adam's first step
    on that row alone would, not as a fourth step with zero moments."""
    weight = torch.zeros(3, 2, dtype=torch.float64, requires_grad=True)
    opt = LazyAdam([weight], lr=0.05)
    gen = torch.Generator().manual_seed(2)
    for _ in range(3):
        g0 = torch.randn(1, 2, generator=gen, dtype=torch.float64)
        weight.grad = _sparse(torch.tensor([0]), g0, (3, 2))
        opt.step()
    g = torch.tensor([[0.3, -2.0]], dtype=torch.float64)
    weight.grad = _sparse(torch.tensor([2]), g, (3, 2))
    opt.step()
    alone = torch.zeros(1, 2, dtype=torch.float64, requires_grad=True)
    fresh = torch.optim.Adam([alone], lr=0.05, foreach=False)
    alone.grad = g.clone()
    fresh.step()
    torch.testing.assert_close(weight.detach()[2:], alone.detach(), rtol=1e-13, atol=0)
    torch.testing.assert_close(weight.detach()[2:].abs(), torch.full((1, 2), 0.05, dtype=torch.float64),
                               rtol=1e-6, atol=0)  # Adam's first step: lr · sign(g)


@pytest.mark.parametrize("sparse", [False, True])
def test_lazy_adam_on_two_threads_gives_the_numbers_of_one(sparse):
    """A CPU step's rows split between two threads (``run``): the same weights, moments and
    counts, bit for bit, as one thread, on a table large enough to be split."""
    from goat_core.backends.workers import runner
    from goat_core.optim import THREADS_FROM_ROWS

    gen = torch.Generator().manual_seed(4)
    rows = 2 * THREADS_FROM_ROWS + 3
    start = torch.randn(rows, 6, generator=gen)
    tables = [start.clone().requires_grad_() for _ in range(2)]
    threads, split = runner(torch.device("cpu"), 2), []

    def run(tasks):
        split.append(len(tasks))
        return threads(tasks)

    optimizers = [LazyAdam([tables[0]], lr=0.01), LazyAdam([tables[1]], lr=0.01, run=run)]
    for _ in range(3):
        touched = torch.randperm(rows, generator=gen)[: rows * 3 // 4].sort().values
        grad = torch.randn(len(touched), 6, generator=gen)
        for table, opt in zip(tables, optimizers):
            dense = torch.zeros_like(start).index_copy_(0, touched, grad)
            table.grad = _sparse(touched, grad, start.shape) if sparse else dense
            opt.step()
    assert split == [2, 2, 2]  # the steps were split
    assert torch.equal(tables[0], tables[1])
    for key in ("step", "exp_avg", "exp_avg_sq"):
        assert torch.equal(optimizers[0].state[tables[0]][key], optimizers[1].state[tables[1]][key])
    assert not torch.equal(tables[0], start)


def test_table_adam_is_adam():
    """Dense Adam's compiled pass: torch.optim.Adam's numbers (float64, up to rounding), every
    row moved at every step, on two threads the numbers of one, bit for bit."""
    from goat_core.backends.workers import runner
    from goat_core.optim import THREADS_FROM_ROWS

    gen = torch.Generator().manual_seed(6)
    rows = 2 * THREADS_FROM_ROWS + 3  # large enough for the two threads to split it
    start = torch.randn(rows, 5, generator=gen, dtype=torch.float64)
    tables = [start.clone().requires_grad_() for _ in range(3)]
    reference = torch.optim.Adam([tables[0]], lr=0.01, foreach=False)
    threads = runner(torch.device("cpu"), 2)
    one, two = TableAdam([tables[1]], lr=0.01), TableAdam([tables[2]], lr=0.01, run=threads)
    for _ in range(5):
        grad = torch.randn(rows, 5, generator=gen, dtype=torch.float64)
        grad[: rows // 3] = 0.0  # rows without a gradient still move (their momentum), as in Adam
        for table, opt in zip(tables, (reference, one, two)):
            table.grad = grad.clone()
            opt.step()
        torch.testing.assert_close(tables[1], tables[0], rtol=1e-13, atol=1e-15)
    assert torch.equal(tables[1], tables[2])
    for key in ("exp_avg", "exp_avg_sq"):
        torch.testing.assert_close(one.state[tables[1]][key], reference.state[tables[0]][key], rtol=1e-13,
                                   atol=0)
        assert torch.equal(one.state[tables[1]][key], two.state[tables[2]][key])
    assert one.state[tables[1]]["step"] == 5


@pytest.mark.parametrize("padding", ["mask", "zero"])
def test_the_fused_loss_hands_table_adam_its_gradient_in_the_loops_buffers(padding):
    """With TableAdam's sink the fused loss leaves .grad alone and the update merges the two
    segments' buffers itself: the same table, bit for bit, as the dense gradient through .grad,
    the loss's own gradient (a scale) included, and the pad row stays zero."""
    from goat_core.backends.workers import runner

    n = 300  # enough pairs for both segments to have rows
    tables = []
    for sink in (False, True):
        model = GoatModule(n, 12, "max", generator=torch.Generator().manual_seed(3))
        opt = TableAdam(model.parameters(), lr=0.05, run=runner(torch.device("cpu"), 2))
        scorer = PairScorer(model, "fused", sink=opt.sink if sink else None).train()
        gen = torch.Generator().manual_seed(7)
        for step in range(3):
            nbr_s, nbr_t, mask_s, mask_t = _batch(n, gen, padding)
            labels = (torch.arange(24) % 2).float()
            opt.zero_grad(set_to_none=True)
            loss = scorer(nbr_s[:, 0], nbr_t[:, 0], nbr_s, nbr_t, mask_s, mask_t, generator=gen,
                          targets=(labels, torch.ones(24)))
            (loss * (1.0 if step else 0.5)).backward()
            assert (model.embedding.weight.grad is None) == sink
            opt.step()
        tables.append(model.embedding.weight.detach())
    assert torch.equal(tables[0], tables[1])
    assert np.count_nonzero(tables[1][-1]) == 0


def test_a_segment_gradient_is_taken_once_and_only_after_a_backward():
    sink, weight, other = SegmentGradient(), torch.zeros(3, 2), torch.zeros(3, 2)
    with pytest.raises(RuntimeError, match="without a held gradient"):
        sink.release(1.0)
    sink.hold(weight, ["b0", "b1"], ["f0", "f1"])
    assert sink.take(weight) is None  # held by a forward, not yet released by its backward
    sink.release(2.0)
    assert sink.take(other) is None
    assert sink.take(weight) == (["b0", "b1"], ["f0", "f1"], 2.0)
    assert sink.take(weight) is None


def test_dense_adam_is_table_adam_on_cpu_tables_and_torch_adam_elsewhere():
    table = torch.nn.Parameter(torch.zeros(4, 3))
    assert isinstance(make_optimizer("adam", [table], 0.01), TableAdam)
    assert type(make_optimizer("adam", [torch.nn.Parameter(torch.zeros(4))], 0.01)) is torch.optim.Adam
    assert isinstance(make_optimizer("lazy-adam", [table], 0.01), LazyAdam)
    with pytest.raises(ValueError, match="2-D float tables on CPU"):
        TableAdam([torch.nn.Parameter(torch.zeros(4))], lr=0.01)


def test_lazy_adam_rejects_bad_settings():
    with pytest.raises(ValueError, match="lr > 0"):
        LazyAdam([torch.zeros(2, requires_grad=True)], lr=0.0)


def test_auto_chooses_lazy_adam_on_large_tables():
    assert resolve_optimizer("auto", LAZY_FROM_NODES - 1) == "adam"
    assert resolve_optimizer("auto", LAZY_FROM_NODES) == "lazy-adam"
    assert resolve_optimizer("adam", 10**7) == "adam"
    assert resolve_optimizer("lazy-adam", 10) == "lazy-adam"


def _batch(n: int, gen: torch.Generator, padding: str):
    nbr_s = torch.randint(0, n + 1, (24, 7), generator=gen)
    nbr_t = torch.randint(0, n + 1, (24, 5), generator=gen)
    nbr_s[:, 0], nbr_t[:, 0] = torch.arange(24), torch.arange(24) + 24  # a real first slot each
    if padding == "zero":
        every = torch.ones_like(nbr_s, dtype=torch.bool), torch.ones_like(nbr_t, dtype=torch.bool)
        return nbr_s, nbr_t, *every
    return nbr_s, nbr_t, nbr_s != n, nbr_t != n


def _table_gradient(model, backend: str, sparse: bool, padding: str, dropout: float) -> torch.Tensor:
    n = model.embedding.weight.shape[0] - 1
    nbr_s, nbr_t, mask_s, mask_t = _batch(n, torch.Generator().manual_seed(5), padding)
    model.embedding.weight.grad = None
    model.dropout = dropout
    with sparse_table_gradient(model, sparse):
        scorer = PairScorer(model, backend).train()
        dtype = model.embedding.weight.dtype  # a training loss: the fused path's gradient comes with it
        targets = (torch.arange(24) % 2).to(dtype), torch.linspace(-1, 1, 24, dtype=dtype)
        scorer(nbr_s[:, 0], nbr_t[:, 0], nbr_s, nbr_t, mask_s, mask_t,
               generator=torch.Generator().manual_seed(9), targets=targets).backward()  # the same masks twice
    return model.embedding.weight.grad


@pytest.mark.parametrize("padding", ["mask", "zero"])
@pytest.mark.parametrize("backend,pooling", [("fused", "max"), ("fused", "mean"), ("torch", "max"),
                                             ("module", "max"), ("module", "mean"), ("module", "global")])
def test_sparse_table_gradients_are_the_dense_gradients_rows(backend, pooling, padding):
    n = 60
    gen = torch.Generator().manual_seed(3)
    if pooling == "global":
        model = GoatGlobal(n, 12, generator=gen).double()
    else:
        model = GoatModule(n, 12, pooling, generator=gen).double()
    dense = _table_gradient(model, backend, False, padding, 0.5)  # the same dropout masks in both
    sparse = _table_gradient(model, backend, True, padding, 0.5)
    assert not dense.is_sparse and sparse.is_sparse
    sparse = sparse.coalesce()
    rows = sparse.indices()[0]
    assert n not in rows.tolist()  # the pad row is never updated
    nonzero = dense.abs().sum(1).nonzero().squeeze(1)
    assert set(nonzero.tolist()) <= set(rows.tolist()) and len(nonzero) > 10
    if backend == "module":  # autograd sums duplicate lookups in its own order
        torch.testing.assert_close(sparse.to_dense(), dense, rtol=1e-12, atol=1e-15)
    else:  # the kernels add the same terms in the same order: bit for bit
        assert torch.equal(sparse.values(), dense[rows])
        assert torch.equal(sparse.to_dense(), dense)
    assert not model.embedding.sparse  # the flag is restored after training


@pytest.mark.parametrize("backend", ["fused", "torch", "module"])
def test_lazy_adam_trains_through_every_backend(backend):
    graph = load_graph("lesmis")
    params = dict(FAST, epochs=3, validation_fraction=0.0, backend=backend, seed=2)
    lazy = Goat(**params, optimizer="lazy-adam").fit(graph)
    dense = Goat(**params, optimizer="adam").fit(graph)
    assert lazy.optimizer_ == "lazy-adam" and dense.optimizer_ == "adam"
    assert lazy.history_[-1]["loss"] < lazy.history_[0]["loss"]  # it learns
    assert not np.allclose(lazy.embedding_, dense.embedding_)  # and is not dense Adam in disguise
    assert np.isfinite(lazy.embedding_).all()
    assert np.count_nonzero(lazy.model_.embedding.weight.detach()[-1]) == 0  # the pad row stays zero


def test_the_optimizer_is_a_checked_parameter():
    with pytest.raises(ParameterError, match="optimizer must be one of"):
        Goat(**FAST, optimizer="sgd").fit(load_graph("lesmis"))
    assert Goat().optimizer == "auto" and Goat(**FAST).fit(load_graph("lesmis")).optimizer_ == "adam"


def test_the_optimizer_is_saved_and_older_runs_load_as_dense_adam(tmp_path):
    goat = Goat(**FAST, optimizer="lazy-adam").fit(load_graph("lesmis"))
    goat.save(tmp_path / "run")
    again = Goat.load(tmp_path / "run", device="cpu")
    assert again.optimizer == "lazy-adam" and again.optimizer_ == "lazy-adam"
    pairs = np.array([[0, 11], [55, 25]])
    assert np.array_equal(again.decision_function(pairs), goat.decision_function(pairs))

    def before_optimizers(config, nodes, tensors):  # as written before the parameter existed
        del config["params"]["optimizer"]
        as_format_1(config)  # (and before checksums: its tensors in weights.pt)
    old = Goat.load(tampered(tmp_path / "run", tmp_path / "old", before_optimizers), device="cpu")
    assert old.optimizer == "adam" and old.optimizer_ == "adam"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_lazy_adam_on_cuda_matches_cpu():
    gen = torch.Generator().manual_seed(4)
    start = torch.randn(50, 8, generator=gen)
    grads = [(torch.randperm(50, generator=gen)[:20], torch.randn(20, 8, generator=gen)) for _ in range(4)]
    tables = []
    for device in ("cpu", "cuda"):
        w = start.clone().to(device).requires_grad_()
        opt = LazyAdam([w], lr=0.01)
        for rows, values in grads:
            w.grad = _sparse(rows.to(device), values.to(device), (50, 8))
            opt.step()
        tables.append(w.detach().cpu())
    torch.testing.assert_close(tables[1], tables[0], rtol=1e-5, atol=1e-6)


def test_uncompiled_optimizers_are_torch_code_with_the_compiled_numbers():
    """compiled=False (the torch backend's): torch's Adam for dense tables, torch rows for lazy Adam;
    the same updates as the compiled passes up to float rounding."""
    assert type(make_optimizer("adam", [torch.nn.Parameter(torch.zeros(4, 3))], 0.01, compiled=False)) \
        is torch.optim.Adam
    start = torch.randn(9, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    tables = [torch.nn.Parameter(start.clone()) for _ in range(2)]
    optimizers = [LazyAdam([tables[0]], lr=0.05), LazyAdam([tables[1]], lr=0.05, compiled=False)]
    grads = torch.Generator().manual_seed(1)
    for step in range(5):
        rows = torch.tensor([step % 9, (3 * step + 1) % 9, 8])
        values = torch.randn(3, 4, dtype=torch.float64, generator=grads)
        for table, optimizer in zip(tables, optimizers, strict=True):
            table.grad = _sparse(rows, values, table.shape)
            optimizer.step()
    assert torch.allclose(tables[0], tables[1], atol=1e-12)
    assert not torch.equal(tables[0], start)


@pytest.mark.parametrize("optimizer", ["adam", "lazy-adam"])
def test_the_torch_backend_runs_no_compiled_code(monkeypatch, optimizer):
    """A fresh install trains on the torch backend without waiting for numba: no loop of
    goat_core.backends.fused (compiled on first call) runs, optimiser included; the fused backend does."""
    import numba.core.dispatcher

    from goat_core.backends import fused

    def compiled(*args, **kwargs):
        raise AssertionError("a compiled loop ran")

    for name, value in vars(fused).items():
        if isinstance(value, numba.core.dispatcher.Dispatcher):
            monkeypatch.setattr(fused, name, compiled)
    params = dict(FAST, epochs=2, validation_fraction=0.0, seed=1, optimizer=optimizer)
    graph = load_graph("lesmis")
    goat = Goat(**params, backend="torch").fit(graph)
    assert goat.backend_ == "torch" and np.isfinite(goat.embedding_).all()
    with pytest.raises(AssertionError, match="a compiled loop ran"):
        Goat(**params, backend="fused").fit(graph)
