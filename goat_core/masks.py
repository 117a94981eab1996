"""Dropout keep masks: one scheme for every compute path.

A keep mask compares 16-bit uniforms with round(keep·2¹⁶): the keep probability is exact to
2⁻¹⁷ (0.2 → 0.199997), and the exact one is returned so that scaling by its inverse keeps
E[mask·scale] = 1. On CPU the uniforms are cut from raw 64-bit random words (four per word),
much cheaper than ``bernoulli_``, which draws one number at a time; on other devices
they are ``torch.rand`` floats compared with keep.

The modules (:mod:`.model`) and the torch chunks (:mod:`.kernels`) draw their bits with
:func:`draw_noise`; the compiled CPU loop (:mod:`.fused`) takes the same 16-bit uniforms from a
counter-based hash instead, because its backward must regenerate a mask without storing it.
"""

from __future__ import annotations

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
    parts, start = [], 0
    for size, count in zip(sizes, counts, strict=True):
        parts.append(small[start:start + size])
        start += count * _PER_WORD
    return parts


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
    numel = 1
    for size in shape:
        numel *= int(size)
    (noise,) = draw_noise([numel], generator, device)
    return keep_from_noise(noise.view(shape), keep)
