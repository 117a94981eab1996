"""The case study's quiz: the answer is the argmax of the model's own attention, never stored."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, NodeIndex, ParameterError, load_graph
from goat_core.analysis.quiz import top_neighbor_question
from goat_core.paper import GAVROCHE, MARIUS, THENARDIER

from ..conftest import FAST


@pytest.fixture(scope="module")
def goat():
    return Goat(**FAST, seed=3).fit(load_graph("lesmis"))


@pytest.mark.parametrize("partner", [THENARDIER, GAVROCHE])
def test_the_answer_is_the_argmax_of_the_models_attention(goat, partner):
    att = goat.attention(MARIUS, partner)
    question = top_neighbor_question(att)
    top = int(np.asarray(att.source_neighbors)[np.argmax(att.source_attention)])
    assert question.answer == top
    assert sorted(question.options) == sorted(np.asarray(att.source_neighbors).tolist())
    assert list(question.names) == sorted(question.names)  # name order: gives nothing away
    assert question.check(top).correct and question.check(top).guess_rank == 1
    assert question.check(top).answer_weight == pytest.approx(float(att.source_attention.max()))


def test_a_wrong_guess_gets_its_weight_and_rank(goat):
    question = top_neighbor_question(goat.attention(MARIUS, THENARDIER))
    order = np.argsort(-np.asarray(question.weights), kind="stable")
    last = question.options[int(order[-1])]
    verdict = question.check(last)
    assert not verdict.correct and verdict.answer == question.answer
    assert verdict.guess_weight == pytest.approx(min(question.weights))
    assert verdict.guess_rank == 1 + sum(w > min(question.weights) for w in question.weights) > 1
    assert verdict.options == len(question.options)
    blank = question.check(None)
    assert not blank.correct and blank.guess is None and blank.guess_rank is None


def test_a_guess_outside_the_neighborhood_is_refused(goat):
    question = top_neighbor_question(goat.attention(MARIUS, THENARDIER))
    with pytest.raises(ParameterError, match="not a neighbor of Marius"):
        question.check(MARIUS)


def test_muting_the_answer_moves_it_to_the_next_neighbor(goat):
    first = top_neighbor_question(goat.attention(MARIUS, GAVROCHE))
    muted = goat.attention(MARIUS, GAVROCHE, mute=[NodeIndex(first.answer)])
    second = top_neighbor_question(muted)
    assert first.answer not in second.options  # a muted neighbor is not a choice
    assert second.answer == int(np.asarray(muted.source_neighbors)[np.argmax(muted.source_attention)])
