"""The training loop and batched inference, as plain functions over a model; batches group pairs of similar
neighborhood sizes, each trimmed to its widest, so little work goes to padding."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .backends.batch import make_batch
from .backends.dispatch import GramCache, PairScorer, uses_gram
from .backends.workers import DEFAULT_OPTIONS, KernelOptions, runner
from .data.graph import Graph
from .data.sampling import Adjacency, Neighborhoods, draw_negatives, noise_distribution, sample_neighborhoods
from .errors import TrainingCancelled, TrainingDiverged
from .model import Goat, GoatGlobal
from .optim import TableAdam, make_optimizer, sparse_table_gradient

BUCKET_GROUP = 32  # batches sorted together by size; larger = less padding, less randomness


@dataclass(frozen=True)
class Progress:
    """What a callback sees after every step and at the end of every epoch."""

    epoch: int  # 1-based
    epochs: int
    step: int  # steps done in this epoch
    steps_per_epoch: int
    loss: float  # running mean loss of this epoch
    elapsed: float  # seconds since training began
    val_auc: float | None = None  # at epoch ends, when validation pairs were given
    epoch_end: bool = False
    stage: str = "train"  # "select": early stopping's run on the carve-out; "train": the model kept

    @property
    def fraction(self) -> float:
        return ((self.epoch - 1) * self.steps_per_epoch + self.step) / (self.epochs * self.steps_per_epoch)


def plan_batches(len_s: torch.Tensor, len_t: torch.Tensor, batch_size: int,
                 generator: torch.Generator, bucket: bool = True) -> list[torch.Tensor]:
    """Shuffled index batches; with ``bucket``, batches hold pairs of similar sizes."""
    total = len_s.shape[0]
    order = torch.randperm(total, generator=generator)
    if bucket:
        group = batch_size * BUCKET_GROUP
        key = torch.maximum(len_s, len_t) * (len_s.max() + 1) + torch.minimum(len_s, len_t)
        chunks = [c[torch.argsort(key[c], stable=True)] for c in order.split(group)]
        order = torch.cat(chunks)
    batches = list(order.split(batch_size))
    shuffle = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[i] for i in shuffle]


def epoch_pairs(graph_src: torch.Tensor, graph_dst: torch.Tensor, weight: torch.Tensor, directed: bool,
                negatives: int, noise: torch.Tensor,
                generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Positive edges (randomly oriented if undirected) and ``negatives`` corruptions each."""
    src, dst = graph_src, graph_dst
    if not directed:
        flip = torch.rand(src.shape[0], generator=generator) < 0.5
        src, dst = torch.where(flip, dst, src), torch.where(flip, src, dst)
    m = src.shape[0]
    neg = draw_negatives(noise, m * negatives, generator)
    pairs_src = torch.cat([src, src.repeat(negatives)])
    pairs_dst = torch.cat([dst, neg])
    labels = torch.cat([torch.ones(m), torch.zeros(m * negatives)])
    weights = weight.repeat(negatives + 1)
    return pairs_src, pairs_dst, labels, weights


def small_machine_threads() -> int | None:
    """The intra-op thread count entry points set once: 1 on at most 2 cores (OpenMP barriers beside a busy
    server cost up to 10x), else None (torch's default). The library never sets it."""
    return 1 if (os.cpu_count() or 1) <= DEFAULT_OPTIONS.workers else None


def run_training(model: Goat | GoatGlobal, graph: Graph, *, epochs: int, batch_size: int, lr: float,
                 negatives: int, neighborhood: int, exclude_partner: bool, generator: torch.Generator,
                 device: torch.device, backend: str, options: KernelOptions = DEFAULT_OPTIONS,
                 padding: str = "mask", callback: Callable | None = None,
                 validation: tuple[np.ndarray, np.ndarray] | None = None,
                 inference_hood: Neighborhoods | None = None, bucket: bool = True,
                 shard: tuple[int, int] = (0, 1),
                 wrap: Callable[[torch.nn.Module], torch.nn.Module] | None = None,
                 patience: int | None = None, stage: str = "train", optimizer: str = "adam",
                 stop: Callable[[int], bool | None] | None = None) -> list[dict]:
    """Train ``model`` in place on ``graph``'s edges on the ``backend``'s path; one history row per epoch.
    ``shard=(rank, world)`` trains on every world-th pair of a batch, ``wrap`` wraps the step module (DDP);
    ``validation`` with ``patience`` stops by :class:`EarlyStopping`'s rule, ``stop(epoch)`` returning True
    too (the replay's watch); ``optimizer="lazy-adam"``: a sparse table gradient on every path."""
    adj = Adjacency.from_graph(graph)
    noise = noise_distribution(adj)
    src, dst = torch.from_numpy(graph.src), torch.from_numpy(graph.dst)
    weight = torch.from_numpy(graph.weight).float()
    weight = weight / weight.mean()  # mean weight 1: the learning rate means the same everywhere
    with sparse_table_gradient(model, optimizer == "lazy-adam"):  # the backends and DDP read it
        # The torch backend is torch code only (the optimiser too): nothing for numba to compile.
        step_optimizer = make_optimizer(optimizer, model.parameters(), lr,
                                        run=runner(device, options.workers),
                                        compiled=backend != "torch")
        uses_hood = hasattr(model, "attention")
        # One process with TableAdam: the fused loss leaves the gradient in its loops' buffers and
        # the update merges it as it goes (DDP all-reduces .grad, so it keeps the usual path).
        sink = step_optimizer.sink if isinstance(step_optimizer, TableAdam) and wrap is None else None
        scorer = PairScorer(model, backend, options, sink=sink)
        gram = GramCache()  # this training's validation scores: dropped with it
        step_module = wrap(scorer) if wrap is not None else scorer
        rank, world = shard
        drop_gen = _dropout_generator(generator, device, rank)
        history: list[dict] = []
        stopping = EarlyStopping(patience) if patience is not None and validation is not None else None
        start = time.perf_counter()
        for epoch in range(1, epochs + 1):
            hood = sample_neighborhoods(adj, neighborhood, generator)
            ps, pd, labels, w = epoch_pairs(src, dst, weight, graph.directed, negatives, noise, generator)
            if scorer.fast:  # the score is symmetric in (s, t): put the larger neighborhood first
                ps, pd = _larger_first(ps, pd, hood.length)
            batches = plan_batches(hood.length[ps], hood.length[pd], batch_size, generator,
                                   bucket and uses_hood)
            hood_dev = hood.to(device)
            step_module.train()
            total, seen = 0.0, 0
            for step, idx in enumerate(batches, start=1):
                idx = idx[rank::world] if world > 1 else idx
                batch = make_batch(ps[idx].to(device), pd[idx].to(device), hood_dev, exclude_partner, padding)
                # Before the forward: the fused loss makes the gradient in its forward, into the
                # buffer of the last one, which it reuses only once nothing holds it (fused._reused).
                step_optimizer.zero_grad(set_to_none=True)
                loss = step_module(*batch.args(), generator=drop_gen,
                                   targets=(labels[idx].to(device), w[idx].to(device)))
                loss.backward()
                step_optimizer.step()
                value = float(loss.detach())
                if not math.isfinite(value):  # stop at once: a NaN would spread into every answer
                    raise TrainingDiverged(f"training diverged at epoch {epoch}, step {step}: the loss is "
                                           f"{value}; try a smaller learning rate (lr={lr:g}) or check the "
                                           "edge weights")
                total += value * len(idx)
                seen += len(idx)
                _notify(callback, Progress(epoch, epochs, step, len(batches), total / seen,
                                           time.perf_counter() - start, stage=stage))
            row = {"epoch": epoch, "loss": total / seen, "elapsed": time.perf_counter() - start}
            if validation is not None and inference_hood is not None:
                row["val_auc"] = validation_auc(model, validation, inference_hood, exclude_partner, device,
                                                padding, backend, gram)
            history.append(row)
            _notify(callback, Progress(epoch, epochs, len(batches), len(batches), row["loss"],
                                       row["elapsed"], row.get("val_auc"), epoch_end=True, stage=stage))
            if stopping is not None and "val_auc" in row:
                stopping.update(epoch, row["val_auc"])
                if stopping.exhausted(epoch):
                    break
            if stop is not None and stop(epoch):
                break
    return history


@dataclass
class EarlyStopping:
    """Early stopping's rule, written once for ``fit``, the audit and the replay: the best epoch is the
    first with the highest score (NaN lowest); it stops after ``patience`` epochs without beating it."""

    patience: int
    epoch: int = 0  # the best epoch so far; 0 before any
    score: float = -math.inf

    def update(self, epoch: int, score: float) -> bool:
        """Record ``epoch``'s score; True when it is the new best."""
        value = score if math.isfinite(score) else -math.inf
        if self.epoch and value <= self.score:
            return False
        self.epoch, self.score = epoch, value
        return True

    def exhausted(self, epoch: int) -> bool:
        return epoch - self.epoch >= self.patience


def best_epoch(history: list[dict]) -> int:
    """The epoch :class:`EarlyStopping` chooses from a history's validation AUCs."""
    stopping = EarlyStopping(len(history))
    for row in history:
        stopping.update(row["epoch"], row["val_auc"])
    return stopping.epoch


def _larger_first(ps: torch.Tensor, pd: torch.Tensor, length: torch.Tensor):
    swap = length[pd] > length[ps]
    return torch.where(swap, pd, ps), torch.where(swap, ps, pd)


def _dropout_generator(generator: torch.Generator, device: torch.device, rank: int = 0) -> torch.Generator:
    """Dropout masks get their own stream (per process in data-parallel runs), seeded from
    ``generator``, on the device they are drawn on."""
    seed = int(torch.randint(0, 2**62, (1,), generator=generator)) + rank
    return torch.Generator(device=device).manual_seed(seed)


def _notify(callback, progress: Progress) -> None:
    if callback is not None and callback(progress) is False:
        raise TrainingCancelled(f"training cancelled at epoch {progress.epoch}")


@torch.no_grad()
def score_pairs(model: Goat | GoatGlobal, pairs: np.ndarray, hood: Neighborhoods, exclude_partner: bool,
                device: torch.device, backend: str = "module", gram: GramCache | None = None,
                batch_size: int = 4096, padding: str = "mask") -> np.ndarray:
    """Logits r_s·r_t (E_s·E_t for GoatGlobal) of many pairs in size-sorted batches, without dropout: in the
    Gram mode from the caller's ``gram`` cache where :func:`.backends.dispatch.uses_gram` says so."""
    model.eval()
    ids = torch.as_tensor(np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2))  # (P, 2)
    out = torch.empty(ids.shape[0])
    if ids.shape[0] == 0:
        return out.numpy()
    if gram is not None and uses_gram(model, backend, len(ids), gram):
        from .backends.gram import gram_scores  # numba: compiled (or loaded from its cache) on first use

        return gram_scores(model.embedding.weight.detach(), hood, ids.numpy(), exclude_partner, padding, gram)
    hood_dev = hood.to(device)
    key = torch.maximum(hood.length[ids[:, 0]], hood.length[ids[:, 1]])
    order = torch.argsort(key, stable=True)
    scorer = PairScorer(model, backend).eval()
    for idx in order.split(batch_size):
        chunk = ids[idx].to(device)
        batch = make_batch(chunk[:, 0], chunk[:, 1], hood_dev, exclude_partner, padding)
        out[idx] = scorer(*batch.args()).float().cpu()
    return out.numpy()


def validation_auc(model: Goat | GoatGlobal, validation: tuple[np.ndarray, np.ndarray], hood: Neighborhoods,
                   exclude_partner: bool, device: torch.device, padding: str = "mask",
                   backend: str = "module", gram: GramCache | None = None) -> float:
    from sklearn.metrics import roc_auc_score

    pos, neg = validation
    scores = score_pairs(model, np.concatenate([pos, neg]), hood, exclude_partner, device, backend, gram,
                         padding=padding)
    labels = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    return float(roc_auc_score(labels, scores)) if len(pos) and len(neg) else math.nan
