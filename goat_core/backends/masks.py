"""Dropout keep masks, one scheme for every path: 16-bit uniforms compared with round(keep·2¹⁶), the exact
keep probability returned for the 1/keep scale. On CPU four uniforms are cut from each random 64-bit word;
elsewhere ``torch.rand``. The compiled loop takes the same uniforms from a counter hash (no stored mask)."""

from __future__ import annotations

import math
from itertools import accumulate

import torch

MASK_BITS = 16  # resolution of the keep probability
_PER_WORD = 64 // MASK_BITS


def threshold_for(keep: float) -> tuple[int, float]:
    """The 16-bit threshold for keep probability ``keep`` and the exact probability it gives."""
    t = max(1, min(2**MASK_BITS, round(keep * 2**MASK_BITS)))
    return t, t / 2**MASK_BITS


def draw_noise(sizes: list[int], generator: torch.Generator | None,
               device: torch.device | str) -> list[torch.Tensor]:
    """One flat tensor of uniforms per size, drawn in one call (in order, so that what each part
    gets does not depend on how the parts are later scheduled): int16 on CPU, floats elsewhere."""
    if torch.device(device).type != "cpu":
        return list(torch.rand(sum(sizes), device=device, generator=generator).split(sizes))
    counts = [-(-size // _PER_WORD) for size in sizes]  # whole words per part
    words = torch.empty(sum(counts), dtype=torch.int64)
    words.random_(-(2**63), None, generator=generator)  # all 64 bits random
    small = words.view(torch.int16)
    starts = accumulate(counts, initial=0)  # each part's first word (one more than there are parts)
    return [small[start * _PER_WORD:start * _PER_WORD + size] for start, size in zip(starts, sizes)]


def keep_from_noise(noise: torch.Tensor, keep: float) -> tuple[torch.Tensor, float]:
    """0/1 float mask from uniform floats (CUDA) or 16-bit uniform integers (CPU), and the exact
    keep probability it was drawn with."""
    if noise.dtype.is_floating_point:
        return (noise < keep).to(torch.float32), keep
    threshold, exact = threshold_for(keep)
    mask = torch.empty(noise.shape, dtype=torch.float32, device=noise.device)
    torch.lt(noise, threshold - 2 ** (MASK_BITS - 1), out=mask)
    return mask, exact


def keep_mask(shape: tuple[int, ...], keep: float, generator: torch.Generator | None,
              device: torch.device | str) -> tuple[torch.Tensor, float]:
    """A float 0/1 mask of ``shape`` and the exact keep probability it was drawn with."""
    (noise,) = draw_noise([math.prod(int(size) for size in shape)], generator, device)
    return keep_from_noise(noise.view(shape), keep)


def dropout(x: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    """Inverted dropout drawn from an explicit generator (no global RNG state), with the masks
    above, which the fast paths use too (the modules' dropout)."""
    if p <= 0.0:
        return x
    keep, q = keep_mask(tuple(x.shape), 1.0 - p, generator, x.device)  # (..., d) 0/1, exact keep rate
    return x * keep.to(x.dtype) / q
