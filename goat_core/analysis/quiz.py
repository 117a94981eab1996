"""A classroom question: which neighbor will a node attend to most while gossiping with a partner? The
answer is read from the model's attention, never stored, so it changes with the run as the bars do."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .attention import PairAttention


@dataclass(frozen=True)
class Verdict:
    """How a guess fared: right or not, and where the guessed neighbor ranks."""

    guess: int | None  # node id guessed; None: revealed without a guess
    answer: int  # the most attended neighbor's id
    correct: bool
    answer_weight: float
    guess_weight: float | None
    guess_rank: int | None  # 1 = the most attended
    options: int  # how many neighbors there were to choose from


@dataclass(frozen=True)
class TopNeighborQuestion:
    """"Which of ``node``'s neighbors gets its most attention while it gossips with ``partner``?"
    ``options`` in name order (no hint), ``weights`` their attention."""

    node: str
    partner: str
    options: tuple[int, ...]
    names: tuple[str, ...]  # aligned with options
    weights: tuple[float, ...]  # aligned with options

    @property
    def answer(self) -> int:
        """The most attended neighbor (the first in name order on a tie)."""
        return self.options[int(np.argmax(self.weights))]

    def name(self, node: int) -> str:
        return self.names[self.options.index(node)]

    def weight(self, node: int) -> float:
        return self.weights[self.options.index(node)]

    def rank(self, node: int) -> int:
        """1 for the most attended neighbor; tied weights share the better rank."""
        return 1 + sum(w > self.weight(node) for w in self.weights)

    def check(self, guess: int | None) -> Verdict:
        """Grade ``guess`` (a neighbor's id; None = no guess)."""
        if guess is not None and guess not in self.options:
            raise ParameterError(f"guess {guess!r} is not a neighbor of {self.node} in this question")
        answer = self.answer
        top = self.weight(answer)
        return Verdict(
            guess=guess, answer=answer, answer_weight=top, options=len(self.options),
            correct=guess is not None and self.weight(guess) >= top,  # a tie with the top counts
            guess_weight=None if guess is None else self.weight(guess),
            guess_rank=None if guess is None else self.rank(guess),
        )


def top_neighbor_question(att: PairAttention) -> TopNeighborQuestion:
    """The question for the source side of ``att`` (muted neighbors, at attention 0, left out)."""
    ids = np.asarray(att.source_neighbors).tolist()
    weights = np.asarray(att.source_attention, dtype=float).tolist()
    rows = sorted((name, int(i), w) for name, i, w in zip(att.source_names, ids, weights, strict=True)
                  if name not in att.muted)
    if not rows:
        raise ParameterError(f"{att.source} has no neighbor in its message: nothing to guess")
    return TopNeighborQuestion(node=att.source, partner=att.target, options=tuple(r[1] for r in rows),
                               names=tuple(r[0] for r in rows), weights=tuple(r[2] for r in rows))
