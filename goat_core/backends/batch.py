"""A batch of pairs as every compute path takes it: padding decided once, by :func:`make_batch` (``mask``:
pads out of the max and softmax; ``zero``, the paper's: N slots a side, pads are zero vectors that take
part), read back by :func:`slot_ids`, :func:`widths`, :func:`zero_padded` and :func:`real_slots`."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..data.sampling import Neighborhoods


@dataclass(frozen=True)
class PairBatch:
    src: torch.Tensor  # (B,)
    dst: torch.Tensor  # (B,)
    nbr_s: torch.Tensor  # (B, Ls)
    nbr_t: torch.Tensor  # (B, Lt)
    mask_s: torch.Tensor  # (B, Ls) bool
    mask_t: torch.Tensor  # (B, Lt) bool

    def args(self) -> tuple[torch.Tensor, ...]:
        return self.src, self.dst, self.nbr_s, self.nbr_t, self.mask_s, self.mask_t


PADDINGS = ("mask", "zero")


def _side(nodes, partners, hood: Neighborhoods, exclude_partner: bool, padding: str):
    pad = hood.table.shape[0]  # the pad id n: row n of the embedding table, zero
    if padding == "zero":  # the paper: N slots each, pads (and a left-out partner) are zero vectors
        nbr = hood.table[nodes]  # (B, N)
        if exclude_partner:
            nbr = torch.where(nbr == partners.unsqueeze(1), pad, nbr)
        real = nbr != pad  # (B, N)
        mask = torch.ones_like(real)  # every slot takes part
    else:
        width = max(int(hood.length[nodes].max()), 1)
        nbr = hood.table[nodes, :width]  # (B, L)
        mask = torch.arange(width, device=nbr.device) < hood.length[nodes].unsqueeze(1)  # (B, L)
        if exclude_partner:
            mask &= nbr != partners.unsqueeze(1)
        real = mask
    # A node with no (other) neighbor speaks for itself rather than for nobody.
    empty = ~real.any(1)
    if bool(empty.any()):
        nbr = nbr.clone()
        nbr[empty, 0] = nodes[empty]
        mask[empty, 0] = True
    return nbr, mask


def make_batch(src: torch.Tensor, dst: torch.Tensor, hood: Neighborhoods, exclude_partner: bool,
               padding: str = "mask") -> PairBatch:
    """Both sides' neighborhoods of pairs (src, dst): a slot masked False is out of the max and softmax
    (``mask`` padding); one True holding the pad id is a zero vector that takes part (``zero`` padding)."""
    nbr_s, mask_s = _side(src, dst, hood, exclude_partner, padding)
    nbr_t, mask_t = _side(dst, src, hood, exclude_partner, padding)
    return PairBatch(src, dst, nbr_s, nbr_t, mask_s, mask_t)


def slot_ids(nbr: torch.Tensor, mask: torch.Tensor, pad: int) -> torch.Tensor:
    """Neighbor ids with every masked slot set to the pad id ``pad`` (row n of the table: zero)."""
    return torch.where(mask, nbr, pad)


def real_slots(nbr: torch.Tensor, mask: torch.Tensor, pad: int) -> torch.Tensor:
    """(B, L) bool: the slot holds a real neighbor (taking part, and not a pad)."""
    return mask & (nbr != pad)


def widths(mask: torch.Tensor) -> torch.Tensor:
    """1 + index of the last real entry of each row (masks may have holes)."""
    pos = torch.arange(1, mask.shape[1] + 1, device=mask.device)
    return (mask * pos).amax(1)


def zero_padded(mask_s: torch.Tensor, mask_t: torch.Tensor) -> bool:
    """True when no slot is left out (``padding="zero"``): any pad id is then a zero vector that takes part;
    under ``"mask"`` a batch without a masked slot holds no pad id, so it changes nothing."""
    return bool(mask_s.all()) and bool(mask_t.all())


def zero_pad_counts(src: torch.Tensor, dst: torch.Tensor, hood: Neighborhoods, exclude_partner: bool,
                    padding: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(B,), (B,): each side's zero pads, the slots that take part holding no neighbor (0 under
    ``padding="mask"``, where such slots are masked out)."""
    batch = make_batch(src, dst, hood, exclude_partner, padding)
    pad = hood.table.shape[0]
    pads_s = batch.mask_s & ~real_slots(batch.nbr_s, batch.mask_s, pad)
    pads_t = batch.mask_t & ~real_slots(batch.nbr_t, batch.mask_t, pad)
    return pads_s.sum(1), pads_t.sum(1)
