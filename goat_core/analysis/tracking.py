"""A pair's attention under the fixed inference draw: :func:`pair_forward` is the one computation behind
``Goat.attention`` (muted neighbors are left out of the max and softmax; uniform attention is the mean of the
real neighbors' embeddings) and behind :class:`AttentionTracker`, which records tracked pairs every epoch."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..backends.batch import PairBatch, make_batch, real_slots
from ..backends.logistic import sigmoid
from ..data.graph import Graph, NodeIndex
from ..data.sampling import Neighborhoods
from ..errors import GraphFormatError, ParameterError
from ..model import Goat
from ..training import Progress
from .attention import AttentionHistory, PairAttention


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
    """The model's answer for ``batch`` (no dropout or gradient, training mode restored), ``muted_*`` slots
    out of the max and softmax; the caller keeps an unmuted real neighbor on each side."""
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


@torch.no_grad()
def pair_attention(model: Goat, graph: Graph, hood: Neighborhoods, s: int, t: int, muted: Sequence[int],
                   uniform: bool, exclude_partner: bool, padding: str, device: torch.device) -> PairAttention:
    """``Goat.attention``: the pair (s, t) under the fixed draw ``hood``, the ``muted`` nodes left out
    (:func:`check_mutes`), or with uniform attention."""
    src, dst = torch.tensor([s], device=device), torch.tensor([t], device=device)
    batch, real_s, real_t = pair_batch(model, src, dst, hood.to(device), exclude_partner, padding)
    names = graph.names
    check_mutes(names, s, t, muted, batch, real_s, real_t)
    muted_ids = torch.tensor(muted, dtype=torch.int64, device=device)
    out = pair_forward(model, batch, real_s, real_t, torch.isin(batch.nbr_s, muted_ids),
                       torch.isin(batch.nbr_t, muted_ids), uniform=uniform)
    ms, mt = real_s[0].cpu().numpy(), real_t[0].cpu().numpy()  # real neighbors, muted ones included
    ids_s, ids_t = batch.nbr_s[0].cpu().numpy()[ms], batch.nbr_t[0].cpu().numpy()[mt]
    weights_s, weights_t = out.p_s[0].cpu().numpy(), out.p_t[0].cpu().numpy()
    score = float(out.logits[0])
    return PairAttention(
        **_sides(names, s, t, ids_s, ids_t), alignment=out.alignment[0].cpu().numpy()[np.ix_(ms, mt)],
        source_attention=weights_s[ms], target_attention=weights_t[mt],
        source_padding=float(weights_s[~ms].sum()), target_padding=float(weights_t[~mt].sum()),
        r_source=out.r_s[0].cpu().numpy(), r_target=out.r_t[0].cpu().numpy(),
        score=score, probability=float(sigmoid(score)),
        is_edge=graph.has_edge(s, t), muted=tuple(names[i] for i in muted), uniform=bool(uniform),
    )


def _sides(names: Sequence[str], s: int, t: int, ids_s: np.ndarray, ids_t: np.ndarray) -> dict[str, Any]:
    return dict(source=names[s], target=names[t], source_id=s, target_id=t, source_neighbors=ids_s,
                target_neighbors=ids_t, source_names=[names[i] for i in ids_s],
                target_names=[names[i] for i in ids_t])


def check_mutes(names: Sequence[str], s: int, t: int, muted: Sequence[int], batch: PairBatch,
                real_s: torch.Tensor, real_t: torch.Tensor) -> None:
    """A ParameterError unless every muted node is in one of the pair's messages and each side
    keeps a neighbor to attend to."""
    side_s = set(batch.nbr_s[0][real_s[0]].tolist())
    side_t = set(batch.nbr_t[0][real_t[0]].tolist())
    for v in muted:
        if v not in side_s and v not in side_t:
            raise ParameterError(f"{names[v]} is not in the sampled neighborhood of {names[s]} or "
                                 f"{names[t]}: only a neighbor in either message can be muted")
    for node, side in ((s, side_s), (t, side_t)):
        if side and side <= set(muted):
            left_out = ", ".join(names[v] for v in muted if v in side)
            raise ParameterError(f"muting {left_out} leaves {names[node]} no neighbor to attend to: keep at "
                                 "least one of its neighbors unmuted")


# The most pairs ``fit(track_pairs=...)`` records: each costs a forward pass per epoch, and up to this cap
# the tracker stays within its 10 % budget (bench/track_pairs.py --scaling; BENCHMARKS.md, "Tracked pairs").
MAX_TRACKED_PAIRS = 64


def tracked_pair_ids(graph: Graph, track_pairs: Sequence | None, variant: str) -> np.ndarray | None:
    """``track_pairs`` (names or ``NodeIndex``) as (k, 2) node indices, checked before any
    training (None when there are none)."""
    if track_pairs is None:
        return None
    if isinstance(track_pairs, (str, bytes)) or not isinstance(track_pairs, Iterable):
        raise ParameterError(f"track_pairs must be a list of (source, target) pairs, got {track_pairs!r}")
    track_pairs = list(track_pairs)
    if not track_pairs:
        return None
    if variant == "global":
        raise ParameterError("track_pairs records attention, which GoatGlobal has not: train variant "
                             "'goat' or 'mean-pool'")
    if len(track_pairs) > MAX_TRACKED_PAIRS:
        raise ParameterError(f"track_pairs holds {len(track_pairs)} pairs; at most {MAX_TRACKED_PAIRS} "
                             "are tracked (each costs memory for every epoch and a pass per epoch)")
    pairs: list[tuple[int, int]] = []
    for pair in track_pairs:
        try:
            if isinstance(pair, (str, bytes)):
                raise TypeError
            source, target = pair  # a tuple, a list, a row of an (k, 2) array
        except (TypeError, ValueError):
            raise ParameterError(f"track_pairs holds (source, target) pairs, got {pair!r}") from None
        s, t = graph.index_of(source), graph.index_of(target)
        if s == t:
            raise ParameterError(f"track_pairs: a node cannot gossip with itself ({graph.names[s]!r})")
        if (s, t) not in pairs:
            pairs.append((s, t))
    return np.array(pairs)


class AttentionTracker:
    """Records fixed pairs' attention under ``hood`` at epoch 0 and every epoch end (:meth:`wrap` a
    callback): one forward of every pair, no dropout, no generator touched, so training is unchanged."""

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
        self.records: list[tuple[np.ndarray, ...]] = []  # per epoch: p_s, p_t, scores, uniform scores

    def record(self, epoch: int) -> None:
        out = pair_forward(self.model, self.batch, self.real_s, self.real_t)
        self.epochs.append(int(epoch))
        self.records.append(tuple(x.float().cpu().numpy()
                                  for x in (out.p_s, out.p_t, out.logits, out.uniform_logits)))

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
        # (K, E, Ls), (K, E, Lt), (K, E), (K, E)
        p_s, p_t, scores, uniform = (np.stack(column, axis=1) for column in zip(*self.records, strict=True))
        out = []
        for k, (s, t) in enumerate(self.pairs.tolist()):
            ms, mt = real_s[k], real_t[k]
            out.append(AttentionHistory(
                **_sides(self.names, s, t, nbr_s[k][ms], nbr_t[k][mt]),
                epochs=np.asarray(self.epochs, dtype=np.int64),
                source_attention=p_s[k][:, ms], target_attention=p_t[k][:, mt],
                source_padding=p_s[k][:, ~ms].sum(1), target_padding=p_t[k][:, ~mt].sum(1),
                score=scores[k], uniform_score=uniform[k]))
        return tuple(out)


# -- the record in a run: persistence writes these tensors, and checks them before reading them back
TRACKED_PARTS = ("source_attention", "target_attention", "padding", "scores")  # tracked_K_PART, pair K


def tracked_tensors(tracked: Sequence[AttentionHistory]) -> dict[str, np.ndarray]:
    """``tracked`` as a run holds it: ``tracked_pairs`` (K, 2), ``tracked_epochs``, and each pair's
    parts (padding and scores: (E, 2), each side's padding; r_s·r_t and the uniform one's)."""
    if not tracked:
        return {}
    out = {"tracked_pairs": np.array([[h.source_id, h.target_id] for h in tracked], dtype=np.int64),
           "tracked_epochs": np.asarray(tracked[0].epochs, dtype=np.int64)}
    for k, h in enumerate(tracked):
        parts = (h.source_attention, h.target_attention, np.stack([h.source_padding, h.target_padding], 1),
                 np.stack([h.score, h.uniform_score], 1))
        out |= {f"tracked_{k}_{part}": np.asarray(a, np.float32) for part, a in zip(TRACKED_PARTS, parts)}
    return out


def saved_histories(names: Sequence[str], pairs: list, sides: list, tensors: dict[str, torch.Tensor]
                    ) -> tuple[AttentionHistory, ...]:
    """The histories :func:`tracked_tensors` wrote, of ``pairs`` (s, t) whose real neighbors in the
    saved draw are ``sides`` (ids_s, ids_t)."""
    out, epochs = [], tensors["tracked_epochs"].numpy()
    for k, ((s, t), (ids_s, ids_t)) in enumerate(zip(pairs, sides, strict=True)):
        att_s, att_t, pad, scores = (tensors[f"tracked_{k}_{part}"].numpy() for part in TRACKED_PARTS)
        out.append(AttentionHistory(
            **_sides(names, s, t, ids_s, ids_t), epochs=epochs, source_attention=att_s,
            target_attention=att_t, source_padding=pad[:, 0], target_padding=pad[:, 1], score=scores[:, 0],
            uniform_score=scores[:, 1]))
    return tuple(out)


def check_tracked_last_rows(tracked: Sequence[AttentionHistory], attention: Callable[..., PairAttention],
                            tensors: Path) -> None:
    """Each tracked pair's last row is the loaded model's own attention and scores (``attention``:
    its ``Goat.attention``), as the tracker's last record is the final model's: a history changed
    after saving is refused, in one line naming the ``tensors`` file."""
    for k, h in enumerate(tracked):
        pair = NodeIndex(h.source_id), NodeIndex(h.target_id)
        att, flat = attention(*pair), attention(*pair, uniform=True)
        parts = ("source_attention", "target_attention", "source_padding", "target_padding", "score")
        mine = [getattr(att, part) for part in parts] + [flat.score]
        saved = [getattr(h, part)[-1] for part in (*parts, "uniform_score")]
        if not all(np.allclose(a, b, rtol=1e-4, atol=1e-4) for a, b in zip(mine, saved, strict=True)):
            problem = f"tracked pair {k} ({h.source!r}, {h.target!r}): its last row is not the final model's"
            raise GraphFormatError(str(tensors), f"{problem} attention (changed after saving)")
