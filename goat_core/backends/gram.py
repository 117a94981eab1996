"""Inference through the Gram matrix: without dropout, A = S Tᵀ is a block of G = E Eᵀ, and
r_s·r_t = p_sᵀ A p_t, so scoring a pair needs no d-dimensional work at all once G exists.
G lives in a :class:`GramCache` that the scorer owns (a fitted ``Goat``, one training's
validation); :mod:`.dispatch` decides when a scoring goes through it."""

from __future__ import annotations

import threading

import numpy as np
import torch

from .batch import slot_ids, widths, zero_padded

GRAM_MAX_NODES = 4096  # G is (n+1)² floats: 64 MiB at this size


GRAM_CHUNK = 1 << 20  # alignment entries per chunk


_PAD_SCORE = -1e30  # pad rows/columns of G: never a max, exactly zero softmax mass


class GramCache:
    """G = E Eᵀ for one embedding table, recomputed when the table changes; owned by whoever
    scores (a fitted ``Goat``, one training's validation), never shared by the process.

    Thread-safe: app sessions may score with the same fitted model at the same time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._weight: torch.Tensor | None = None
        self._gram: torch.Tensor | None = None

    def table(self, weight: torch.Tensor) -> torch.Tensor:
        """(n+1, n+1) G with the pad row and column set to -1e30. Valid while the weights equal
        those G was computed from: an exact O(n·d) comparison, because the version counter is
        not enough (a fused Adam step does not bump it)."""
        with self._lock:
            cached, gram = self._weight, self._gram
            if (cached is not None and gram is not None and cached.shape == weight.shape
                    and cached.device == weight.device and cached.dtype == weight.dtype
                    and torch.equal(cached, weight)):
                return gram
            with torch.no_grad():
                gram = weight @ weight.T  # (n+1, n+1)
                gram[-1, :] = _PAD_SCORE
                gram[:, -1] = _PAD_SCORE
            self._weight, self._gram = weight.detach().clone(), gram
            return gram


@torch.no_grad()
def gram_logits(weight: torch.Tensor, nbr_s: torch.Tensor, nbr_t: torch.Tensor, mask_s: torch.Tensor,
                mask_t: torch.Tensor, cache: GramCache) -> torch.Tensor:
    """Logits (B,) of ``model.Goat`` (max pooling, eval mode) from the Gram matrix in ``cache``."""
    gram, pad = cache.table(weight), weight.shape[0] - 1
    zero_pads = zero_padded(mask_s, mask_t)
    ids_s = slot_ids(nbr_s, mask_s, pad)  # (B, Ls)
    ids_t = slot_ids(nbr_t, mask_t, pad)  # (B, Lt)
    ws, wt = widths(mask_s).cpu().numpy(), widths(mask_t).cpu().numpy()
    logits = torch.empty(nbr_s.shape[0], dtype=weight.dtype, device=weight.device)
    order = np.argsort(-(ws * wt), kind="stable")
    p = 0
    while p < len(order):
        size = max(1, GRAM_CHUNK // int(ws[order[p]] * max(wt[order[p:]].max(), 1)))
        idx = torch.from_numpy(order[p:p + size].copy()).to(weight.device)
        Ls, Lt = int(ws[order[p:p + size]].max()), int(wt[order[p:p + size]].max())
        flat = (ids_s[idx, :Ls] * gram.shape[1]).unsqueeze(2) + ids_t[idx, :Lt].unsqueeze(1)  # (n, Ls, Lt)
        A = gram.view(-1).index_select(0, flat.view(-1)).view(flat.shape)  # blocks of G
        if zero_pads:  # the pad row of G is -1e30 (left out); a zero pad's alignments are 0
            A.masked_fill_(A == _PAD_SCORE, 0.0)
        p_s = torch.softmax(A.amax(2), dim=1)  # (n, Ls)
        p_t = torch.softmax(A.amax(1), dim=1)  # (n, Lt)
        logits[idx] = torch.bmm(torch.bmm(p_s.unsqueeze(1), A), p_t.unsqueeze(2)).view(-1)
        p += size
    return logits
