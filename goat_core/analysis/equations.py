"""The paper's equations on one pair, step by step: A = S Tᵀ, row and column pooling, the softmaxes,
r_s, r_t and the score, recomputed in float64 from the model's embeddings, independently of the training
paths, and checked against the model's own score (zero pads counted per side, not drawn as rows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..backends.batch import zero_pad_counts
from ..backends.logistic import sigmoid
from ..views.style import escape_markdown

if TYPE_CHECKING:
    from ..estimator import Goat

SCORE_TOLERANCE = 1e-3  # float32 training kernels against this float64 recomputation


@dataclass(frozen=True)
class PairEquations:
    """Every intermediate of one pair's score; arrays over real neighbors, pads counted apart."""

    source: str
    target: str
    source_names: list[str]
    target_names: list[str]
    S: np.ndarray  # (Ls, d) s's neighbors' global embeddings
    T: np.ndarray  # (Lt, d)
    pads_s: int  # zero slots on s's side (padding="zero")
    pads_t: int
    pooling: str  # "max" (the paper) or "mean" (tanh + mean, the authors' code)
    A: np.ndarray  # (Ls, Lt) S Tᵀ (tanh'd for mean pooling)
    a_s: np.ndarray  # (Ls,) pooled logits of s's neighbors
    a_t: np.ndarray  # (Lt,)
    pad_logit_s: float  # the pooled logit of each of s's pad slots (0)
    pad_logit_t: float
    row_winner: np.ndarray  # (Ls,) the column holding each row's maximum, -1 for a pad (max pooling)
    col_winner: np.ndarray  # (Lt,) the row holding each column's maximum, -1 for a pad
    p_s: np.ndarray  # (Ls,) attention on s's neighbors
    p_t: np.ndarray  # (Lt,)
    pad_share_s: float  # attention the pads take, all together
    pad_share_t: float
    r_s: np.ndarray  # (d,)
    r_t: np.ndarray  # (d,)
    score: float  # r_s · r_t
    model_score: float  # the model's own logit for the pair

    @property
    def probability(self) -> float:
        return float(sigmoid(self.score))

    def top_dimensions(self, k: int = 8) -> np.ndarray:
        """The k dimensions whose products r_s[i]·r_t[i] add most (in absolute value) to the score."""
        contribution = np.abs(self.r_s * self.r_t)
        return np.argsort(-contribution, kind="stable")[:k]


def pair_equations(goat: Goat, source: int | str, target: int | str) -> PairEquations:
    """The equations of a fitted ``Goat`` on the pair (source, target), by name or ``NodeIndex``."""
    pair = goat.attention(source, target)
    E = np.asarray(goat.embedding_, dtype=np.float64)
    S, T = E[pair.source_neighbors], E[pair.target_neighbors]  # (Ls, d), (Lt, d)
    ends = torch.tensor([pair.source_id]), torch.tensor([pair.target_id])
    counts = zero_pad_counts(*ends, goat.neighborhoods_.to("cpu"), goat.exclude_partner, goat.padding)
    pads_s, pads_t = (int(count[0]) for count in counts)
    pooling = "mean" if goat.variant == "mean-pool" else "max"
    steps = _steps(S, T, pads_s, pads_t, pooling)
    eq = PairEquations(source=pair.source, target=pair.target, source_names=list(pair.source_names),
                       target_names=list(pair.target_names), S=S, T=T, pads_s=pads_s, pads_t=pads_t,
                       pooling=pooling, model_score=pair.score, **steps)
    if abs(eq.score - pair.score) > SCORE_TOLERANCE * max(1.0, abs(pair.score)):
        raise AssertionError(f"the recomputed score {eq.score:.6f} differs from the model's {pair.score:.6f}")
    return eq


def _steps(S: np.ndarray, T: np.ndarray, pads_s: int, pads_t: int, pooling: str) -> dict:
    A = S @ T.T  # (Ls, Lt)
    if pooling == "max":
        a_s, row_winner = _max_with_pads(A, pads_t)  # (Ls,)
        a_t, col_winner = _max_with_pads(A.T, pads_s)  # (Lt,)
    else:
        A = np.tanh(A)
        a_s = A.sum(1) / (A.shape[1] + pads_t)  # tanh(0) = 0 for the other side's pads
        a_t = A.sum(0) / (A.shape[0] + pads_s)
        row_winner, col_winner = np.full(len(a_s), -1), np.full(len(a_t), -1)
    pad_s = pad_t = 0.0  # a zero row pools to 0: its max over anything, or its mean of tanh(0)
    p_s, share_s = _softmax_with_pads(a_s, pad_s, pads_s)
    p_t, share_t = _softmax_with_pads(a_t, pad_t, pads_t)
    r_s, r_t = p_s @ S, p_t @ T  # (d,): the pads are zero vectors
    return dict(A=A, a_s=a_s, a_t=a_t, pad_logit_s=pad_s, pad_logit_t=pad_t, row_winner=row_winner,
                col_winner=col_winner, p_s=p_s, p_t=p_t, pad_share_s=share_s, pad_share_t=share_t,
                r_s=r_s, r_t=r_t, score=float(r_s @ r_t))


def _max_with_pads(A: np.ndarray, other_pads: int) -> tuple[np.ndarray, np.ndarray]:
    """Row maxima of A and where they are; a pad column (value 0) wins where every entry is negative."""
    winner = A.argmax(1) if A.shape[1] else np.zeros(A.shape[0], dtype=np.int64)
    best = A.max(1) if A.shape[1] else np.full(A.shape[0], -np.inf)
    if other_pads:
        pad_wins = best < 0.0
        best = np.where(pad_wins, 0.0, best)
        winner = np.where(pad_wins, -1, winner)
    return best, winner


def _softmax_with_pads(logits: np.ndarray, pad_logit: float, pads: int) -> tuple[np.ndarray, float]:
    top = max(float(logits.max()) if len(logits) else -np.inf, pad_logit if pads else -np.inf)
    e = np.exp(logits - top)
    e_pad = pads * np.exp(pad_logit - top) if pads else 0.0
    total = e.sum() + e_pad
    return e / total, float(e_pad / total)


def step_text(eq: PairEquations, step: str) -> tuple[str, str]:
    """(LaTeX formula, Markdown with the pair's numbers) for one of ``views.STEPS``'s steps."""
    i, j = int(np.argmax(eq.p_s)), int(np.argmax(eq.p_t))  # the most attended neighbor of each side
    md = escape_markdown
    u, v = md(eq.source_names[i]), md(eq.target_names[j])
    s, t = md(eq.source), md(eq.target)
    pads = (f" Under zero padding {s} also has {eq.pads_s} zero slot(s) and {t} {eq.pads_t}: a zero row "
            "scores 0 against anything." if eq.pads_s or eq.pads_t else "")
    if step == "alignment":
        return (r"S = E[\mathcal{N}(s)],\quad T = E[\mathcal{N}(t)],\quad A = S\,T^\top" + (
                    "" if eq.pooling == "max" else r"\ (\tanh\text{'d})"),
                f"{s} brings {len(eq.S)} neighbors, {t} brings {len(eq.T)}; each cell is the dot product of "
                f"two neighbors' global embeddings (d = {eq.S.shape[1]}), e.g. A[{u}, {v}] = "
                f"{eq.A[i, j]:.4f}.{pads}")
    if step in ("row maxima", "column maxima"):
        row = step == "row maxima"
        k, names, logits, winners = (i, eq.source_names, eq.a_s, eq.row_winner) if row else \
            (j, eq.target_names, eq.a_t, eq.col_winner)
        pool = r"\max" if eq.pooling == "max" else r"\operatorname{mean}"
        formula = rf"a_s[i] = {pool}_j A_{{ij}}" if row else rf"a_t[j] = {pool}_i A_{{ij}}"
        if eq.pooling == "mean":
            return formula, (f"The authors' code averages instead of taking the maximum: "
                             f"a[{md(names[k])}] = {logits[k]:.4f}.")
        other = eq.target_names if row else eq.source_names
        w = int(winners[k])
        best = "a zero pad (every real entry is negative)" if w < 0 else md(other[w])
        return formula, (f"Each neighbor keeps its best match on the other side: for {md(names[k])} that is "
                         f"{best}, so a = {logits[k]:.4f}.")
    if step == "softmax":
        share = (f" The {eq.pads_s} pad slot(s) of {s} take {eq.pad_share_s:.3f} together."
                 if eq.pads_s else "")
        return (r"p_s = \operatorname{softmax}(a_s),\quad p_t = \operatorname{softmax}(a_t)",
                f"p_s[{u}] = exp({eq.a_s[i]:.3f}) / Σ_k exp(a_s[k]) = **{eq.p_s[i]:.3f}** (the most "
                f"attended of {s}'s neighbors); p_t[{v}] = **{eq.p_t[j]:.3f}**. Uniform attention would give "
                f"{1 / (len(eq.p_s) + eq.pads_s):.3f}.{share}")
    if step == "representations":
        return (r"r_s = \sum_i p_s[i]\, S_i,\qquad r_t = \sum_j p_t[j]\, T_j",
                f"{s}'s representation while gossiping with {t}: {u} contributes {eq.p_s[i]:.0%} of it. "
                f"|r_s| = {np.linalg.norm(eq.r_s):.4f}, |r_t| = {np.linalg.norm(eq.r_t):.4f}.")
    if step == "score":
        dims = eq.top_dimensions(3)
        parts = " + ".join(f"({eq.r_s[d]:.3f})({eq.r_t[d]:.3f})" for d in dims)
        formula = (r"\operatorname{score} = r_s \cdot r_t = \sum_k r_s[k]\, r_t[k],"
                   r"\qquad P = \sigma(\operatorname{score})")
        return (formula,
                f"The largest terms: {parts} + … = **{eq.score:.4f}** (the model: {eq.model_score:.4f}); "
                f"σ(score) = **{eq.probability:.3f}**.")
    raise ValueError(f"unknown step {step!r}")


