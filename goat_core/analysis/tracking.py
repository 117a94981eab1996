"""A pair's attention under the fixed inference draw: counterfactuals and its course over training.

:func:`pair_forward` is the one computation behind ``Goat.attention`` (with neighbors muted, or
with uniform attention in place of the learned one) and behind the tracked history
(``Goat.fit(graph, track_pairs=[...])``): :class:`AttentionTracker` records each tracked pair's
attention, on both sides, and its score after every epoch, and :class:`AttentionHistory` is
what it leaves, one per pair, saved with the run.

Muting a neighbor leaves it out of the max and the softmax of every side whose message holds it
(as the mask leaves out padding): its attention is 0 and the other neighbors share what it had.
Uniform attention is the mean of the same (unmuted, real) neighbors' embeddings: what the pair
would score without attention.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..backends.batch import PairBatch, make_batch, real_slots
from ..backends.logistic import sigmoid
from ..data.sampling import Neighborhoods
from ..model import Goat
from ..training import Progress
from .attribution import attention_entropy


@dataclass(frozen=True)
class PairForward:
    """What the model computes for a batch of pairs under one neighborhood draw (tensors)."""

    batch: PairBatch  # both sides' slots, masks as drawn (before muting)
    real_s: torch.Tensor  # (B, Ls) bool: a real neighbor in the slot (not a pad), muted or not
    real_t: torch.Tensor  # (B, Lt)
    muted_s: torch.Tensor  # (B, Ls) bool: muted slots
    muted_t: torch.Tensor  # (B, Lt)
    p_s: torch.Tensor  # (B, Ls) attention (uniform over the unmuted real neighbors when uniform)
    p_t: torch.Tensor  # (B, Lt)
    alignment: torch.Tensor  # (B, Ls, Lt)
    r_s: torch.Tensor  # (B, d)
    r_t: torch.Tensor  # (B, d)
    logits: torch.Tensor  # (B,) r_s · r_t of what was asked (attention, or uniform)
    uniform_logits: torch.Tensor  # (B,) with the mean of the same unmuted neighbors' embeddings


def pair_batch(model: Goat, src: torch.Tensor, dst: torch.Tensor, hood: Neighborhoods, exclude_partner: bool,
               padding: str) -> tuple[PairBatch, torch.Tensor, torch.Tensor]:
    """(batch, real_s, real_t) of pairs (src, dst) under ``hood`` (on the model's device)."""
    batch = make_batch(src, dst, hood, exclude_partner, padding)
    pad = model.embedding.weight.shape[0] - 1  # zero padding: slots holding the pad id are zero vectors
    return batch, real_slots(batch.nbr_s, batch.mask_s, pad), real_slots(batch.nbr_t, batch.mask_t, pad)


@torch.no_grad()
def pair_forward(model: Goat, batch: PairBatch, real_s: torch.Tensor, real_t: torch.Tensor,
                 muted_s: torch.Tensor | None = None, muted_t: torch.Tensor | None = None,
                 uniform: bool = False) -> PairForward:
    """The model's answer for ``batch`` (no dropout, no gradient; the module's training mode is
    restored), with ``muted_*`` slots left out of the max and the softmax.

    Every row must keep at least one unmuted real neighbor on each side (the caller checks:
    a side with nothing to attend to has no softmax).
    """
    muted_s = torch.zeros_like(real_s) if muted_s is None else muted_s & real_s
    muted_t = torch.zeros_like(real_t) if muted_t is None else muted_t & real_t
    was_training = model.training
    model.eval()
    try:
        logits, (r_s, r_t, p_s, p_t, A) = model(batch.src, batch.dst, batch.nbr_s, batch.nbr_t,
                                                batch.mask_s & ~muted_s, batch.mask_t & ~muted_t)
        keep_s, keep_t = (real_s & ~muted_s).float(), (real_t & ~muted_t).float()
        u_s = keep_s / keep_s.sum(1, keepdim=True).clamp(min=1.0)  # (B, Ls)
        u_t = keep_t / keep_t.sum(1, keepdim=True).clamp(min=1.0)  # (B, Lt)
        S, T = model.gather(batch.nbr_s), model.gather(batch.nbr_t)  # (B, Ls, d), (B, Lt, d)
        ur_s = torch.bmm(u_s.unsqueeze(1), S).squeeze(1)  # (B, d)
        ur_t = torch.bmm(u_t.unsqueeze(1), T).squeeze(1)
        uniform_logits = (ur_s * ur_t).sum(-1)  # (B,)
    finally:
        model.train(was_training)
    if uniform:
        p_s, p_t, r_s, r_t, logits = u_s, u_t, ur_s, ur_t, uniform_logits
    return PairForward(batch, real_s, real_t, muted_s, muted_t, p_s, p_t, A, r_s, r_t, logits, uniform_logits)


@dataclass(frozen=True)
class AttentionHistory:
    """One tracked pair's attention (both sides) and score after every epoch.

    All rows use the fixed inference draw the final model answers with, so the last row is
    ``Goat.attention(source, target)`` of the fitted model; row 0 (epoch 0) is the untrained
    model, just initialised: attention close to uniform. Arrays cover the real neighbors of
    that draw (pads left out, as in :class:`~.estimator.PairAttention`).
    """

    source: str
    target: str
    source_id: int
    target_id: int
    source_neighbors: np.ndarray  # (Ls,) node ids
    target_neighbors: np.ndarray  # (Lt,)
    source_names: list[str]
    target_names: list[str]
    epochs: np.ndarray  # (E,) 0 (before training), 1, 2, ...
    source_attention: np.ndarray  # (E, Ls) each row sums to 1 - source_padding
    target_attention: np.ndarray  # (E, Lt)
    source_padding: np.ndarray  # (E,) mass on zero pads (padding="zero"), else 0
    target_padding: np.ndarray  # (E,)
    score: np.ndarray  # (E,) r_s · r_t
    uniform_score: np.ndarray  # (E,) the same with uniform attention (mean of the same neighbors)

    @property
    def probability(self) -> np.ndarray:
        """(E,) sigmoid(r_s · r_t) after each epoch."""
        return sigmoid(self.score)

    @property
    def uniform_probability(self) -> np.ndarray:
        return sigmoid(self.uniform_score)

    @property
    def source_entropy(self) -> np.ndarray:
        """(E,) normalised entropy of s's attention (1 = uniform, 0 = on one neighbor)."""
        return attention_entropy(self.source_attention)

    @property
    def target_entropy(self) -> np.ndarray:
        return attention_entropy(self.target_attention)

    def swapped(self) -> AttentionHistory:
        """The same history seen from the other side: (target, source)."""
        return AttentionHistory(
            self.target, self.source, self.target_id, self.source_id, self.target_neighbors,
            self.source_neighbors, self.target_names, self.source_names, self.epochs, self.target_attention,
            self.source_attention, self.target_padding, self.source_padding, self.score, self.uniform_score)

    def rows(self, top: int = 0) -> list[dict]:
        """One row per epoch: ``{"epoch", "source_attention", "target_attention", "probability"}``,
        each side as ``[{"node", "weight"}, ...]`` sorted by weight (the rows of
        ``PairAttention.to_dict()``), the ``top`` first only when ``top`` > 0."""
        def side(names, weights):
            order = np.argsort(-weights, kind="stable")
            order = order[:top] if top > 0 else order
            return [{"node": names[i], "weight": float(weights[i])} for i in order]
        return [{"epoch": int(epoch), "source_attention": side(self.source_names, self.source_attention[k]),
                 "target_attention": side(self.target_names, self.target_attention[k]),
                 "probability": float(probability)}
                for k, (epoch, probability) in enumerate(zip(self.epochs, self.probability, strict=True))]

    def series(self) -> dict:
        """Per-epoch numbers beside :meth:`rows`: score, uniform attention's score and
        probability, each side's normalised entropy and padding mass (lists, one per epoch)."""
        return {"epochs": self.epochs.tolist(), "score": self.score.tolist(),
                "uniform_score": self.uniform_score.tolist(),
                "uniform_probability": self.uniform_probability.tolist(),
                "source_entropy": self.source_entropy.tolist(),
                "target_entropy": self.target_entropy.tolist(),
                "source_padding": self.source_padding.tolist(),
                "target_padding": self.target_padding.tolist()}


class AttentionTracker:
    """Records the attention of fixed pairs (node ids) under ``hood`` whenever :meth:`record`
    is called: at epoch 0 and at every epoch end (:meth:`wrap` a ``fit`` callback).

    The pairs' slots are built once (the draw is fixed); each record is one forward pass of
    every tracked pair together, without dropout and without touching any random generator,
    so tracking never changes what training computes.
    """

    def __init__(self, model: Goat, pairs: np.ndarray, hood: Neighborhoods, names: Sequence[str],
                 exclude_partner: bool, padding: str, device: torch.device):
        self.model = model
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.names = names
        src = torch.as_tensor(self.pairs[:, 0], device=device)
        dst = torch.as_tensor(self.pairs[:, 1], device=device)
        self.batch, self.real_s, self.real_t = pair_batch(model, src, dst, hood.to(device), exclude_partner,
                                                          padding)
        self.epochs: list[int] = []
        self.p_s: list[np.ndarray] = []
        self.p_t: list[np.ndarray] = []
        self.scores: list[np.ndarray] = []
        self.uniform: list[np.ndarray] = []

    def record(self, epoch: int) -> None:
        out = pair_forward(self.model, self.batch, self.real_s, self.real_t)
        self.epochs.append(int(epoch))
        self.p_s.append(out.p_s.float().cpu().numpy())
        self.p_t.append(out.p_t.float().cpu().numpy())
        self.scores.append(out.logits.float().cpu().numpy())
        self.uniform.append(out.uniform_logits.float().cpu().numpy())

    def wrap(self, callback: Callable | None) -> Callable:
        """A ``fit`` callback that records at every epoch end, then calls ``callback``."""
        def tracked(progress: Progress):
            if progress.epoch_end:
                self.record(progress.epoch)
            return callback(progress) if callback is not None else None
        return tracked

    def histories(self) -> tuple[AttentionHistory, ...]:
        nbr_s, nbr_t = self.batch.nbr_s.cpu().numpy(), self.batch.nbr_t.cpu().numpy()
        real_s, real_t = self.real_s.cpu().numpy(), self.real_t.cpu().numpy()
        p_s, p_t = np.stack(self.p_s, axis=1), np.stack(self.p_t, axis=1)  # (K, E, Ls), (K, E, Lt)
        scores, uniform = np.stack(self.scores, axis=1), np.stack(self.uniform, axis=1)  # (K, E)
        out = []
        for k, (s, t) in enumerate(self.pairs.tolist()):
            ms, mt = real_s[k], real_t[k]
            out.append(AttentionHistory(
                source=self.names[s], target=self.names[t], source_id=s, target_id=t,
                source_neighbors=nbr_s[k][ms], target_neighbors=nbr_t[k][mt],
                source_names=[self.names[i] for i in nbr_s[k][ms]],
                target_names=[self.names[i] for i in nbr_t[k][mt]],
                epochs=np.asarray(self.epochs, dtype=np.int64),
                source_attention=p_s[k][:, ms], target_attention=p_t[k][:, mt],
                source_padding=p_s[k][:, ~ms].sum(1), target_padding=p_t[k][:, ~mt].sum(1),
                score=scores[k], uniform_score=uniform[k]))
        return tuple(out)
