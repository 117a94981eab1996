"""Attention over training (``fit(..., track_pairs=...)``) and counterfactuals (``attention(...,
mute=..., uniform=...)``): the library's contract."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, NodeIndex, ParameterError, UnknownNodeError, presets
from goat_core.analysis.attribution import attention_entropy

from ..conftest import FAST

PAIRS = [("Marius", "Thenardier"), (NodeIndex(55), NodeIndex(48)), ("Valjean", "Javert")]  # names, positions


@pytest.fixture(scope="module")
def tracked(lesmis):
    return Goat(**FAST, seed=1).fit(lesmis, track_pairs=PAIRS)


def test_one_row_per_epoch_plus_the_untrained_start(tracked):
    assert len(tracked.tracked_) == 3
    history = tracked.attention_history("Marius", "Thenardier")
    assert history.epochs.tolist() == [0, 1, 2, 3, 4, 5]  # epochs + 1 rows
    for weights, pad in ((history.source_attention, history.source_padding),
                         (history.target_attention, history.target_padding)):
        assert weights.shape[0] == 6 and np.allclose(weights.sum(axis=1) + pad, 1.0, atol=1e-5)
    assert history.score.shape == history.uniform_score.shape == (6,)
    assert np.all((history.probability > 0) & (history.probability < 1))
    rows = history.rows()
    assert [row["epoch"] for row in rows] == [0, 1, 2, 3, 4, 5]
    assert all(set(row) == {"epoch", "source_attention", "target_attention", "probability"} for row in rows)
    assert all(set(r) == {"node", "weight"} for row in rows for r in row["source_attention"])


def test_the_last_row_is_the_final_models_attention(tracked):
    for s, t in PAIRS:
        history, att = tracked.attention_history(s, t), tracked.attention(s, t)
        assert history.source_names == att.source_names and history.target_names == att.target_names
        assert np.allclose(history.source_attention[-1], att.source_attention, atol=1e-6)
        assert np.allclose(history.target_attention[-1], att.target_attention, atol=1e-6)
        assert history.score[-1] == pytest.approx(att.score, abs=1e-5)
        assert history.probability[-1] == pytest.approx(att.probability, abs=1e-6)
        assert history.rows()[-1]["source_attention"] == att.to_dict()["source_attention"]
        uniform = tracked.attention(s, t, uniform=True)
        assert history.uniform_score[-1] == pytest.approx(uniform.score, abs=1e-5)


def test_attention_starts_near_uniform_and_sharpens(lesmis):
    params = dict(presets.fast(lesmis.num_edges), epochs=15)  # the app's default, shorter
    params.pop("holdout")
    goat = Goat(**params).fit(lesmis, track_pairs=[("Marius", "Thenardier")])
    history = goat.attention_history("Marius", "Thenardier")
    for entropy in (history.source_entropy, history.target_entropy):
        assert entropy[0] > 0.97  # the initialised model: close to uniform
        assert entropy[1:].min() < entropy[0] - 0.1  # training peaks it


def test_tracking_changes_nothing_training_computes(lesmis, tracked):
    plain = Goat(**FAST, seed=1).fit(lesmis)
    assert np.array_equal(plain.embedding_, tracked.embedding_)
    assert [r["loss"] for r in plain.history_] == [r["loss"] for r in tracked.history_]
    assert plain.tracked_ == () and plain.attention_history("Marius", "Thenardier") is None


def test_pairs_may_be_rows_of_an_array(lesmis):
    rows = np.array([["Marius", "Thenardier"], ["Marius", "Thenardier"], ["Valjean", "Javert"]])
    goat = Goat(**{**FAST, "epochs": 1}).fit(lesmis, track_pairs=rows)
    assert [(h.source, h.target) for h in goat.tracked_] == [("Marius", "Thenardier"), ("Valjean", "Javert")]


def test_a_pair_is_found_from_either_side_and_untracked_is_none(tracked):
    forward = tracked.attention_history("Marius", "Gavroche")
    backward = tracked.attention_history("Gavroche", NodeIndex(55))
    assert (backward.source, backward.target) == ("Gavroche", "Marius")
    assert np.array_equal(backward.source_attention, forward.target_attention)
    assert tracked.attention_history("Cosette", "Marius") is None
    with pytest.raises(UnknownNodeError, match="Nobody"):
        tracked.attention_history("Nobody", "Marius")


@pytest.mark.parametrize("pairs, error, words", [
    ([("Marius", "Nobody")], UnknownNodeError, "'Nobody' is not in the graph"),
    ([("Marius", "Marius")], ParameterError, "cannot gossip with itself"),
    (["Marius"], ParameterError, "track_pairs holds \\(source, target\\) pairs"),
    ([(NodeIndex(0), NodeIndex(500))], UnknownNodeError, "out of range"),
    ([(55, 25)], UnknownNodeError, "'55' is not in the graph"),  # an int is a name, never a position
])
def test_bad_tracked_pairs_fail_before_training(lesmis, pairs, error, words):
    seen = []
    with pytest.raises(error, match=words):
        Goat(**FAST).fit(lesmis, callback=seen.append, track_pairs=pairs)
    assert seen == []  # nothing trained


def test_global_variant_cannot_be_tracked(lesmis):
    with pytest.raises(ParameterError, match="GoatGlobal"):
        Goat(**FAST, variant="global").fit(lesmis, track_pairs=[("Marius", "Thenardier")])


@pytest.mark.parametrize("variant, padding", [("goat", "zero"), ("mean-pool", "mask")])
def test_tracking_other_variants_and_zero_padding(lesmis, variant, padding):
    goat = Goat(**dict(FAST, padding=padding, neighborhood=30), variant=variant).fit(
        lesmis, track_pairs=[("Marius", "Thenardier")])
    pair = NodeIndex(55), NodeIndex(25)  # Marius, Thenardier by position
    history, att = goat.attention_history(*pair), goat.attention(*pair)
    assert np.allclose(history.target_attention[-1], att.target_attention, atol=1e-6)
    assert history.target_padding[-1] == pytest.approx(att.target_padding, abs=1e-6)
    if padding == "zero":  # Thenardier has 16 neighbors besides Marius: 14 pads take mass
        assert history.target_padding[-1] > 0


def test_entropy_is_normalised():
    assert attention_entropy(np.full(4, 0.25)) == pytest.approx(1.0)
    assert attention_entropy(np.array([1.0, 0.0, 0.0])) == pytest.approx(0.0)
    assert attention_entropy(np.array([0.3, 0.3])) == pytest.approx(1.0)  # renormalised (pads' mass)
    assert attention_entropy(np.ones((3, 1))).tolist() == [0.0, 0.0, 0.0]


# --------------------------------------------------------------------------- counterfactuals


def test_muting_redistributes_attention_and_changes_the_probability(tracked):
    plain = tracked.attention("Marius", "Thenardier")
    top = plain.source_names[int(np.argmax(plain.source_attention))]
    muted = tracked.attention("Marius", "Thenardier", mute=[top])
    assert muted.muted == (top,) and muted.to_dict()["muted"] == [top]
    assert muted.source_names == plain.source_names  # the muted neighbor stays, at 0
    i = muted.source_names.index(top)
    assert muted.source_attention[i] == 0.0
    assert muted.source_attention.sum() == pytest.approx(1.0, abs=1e-5)
    others = np.arange(len(plain.source_names)) != i
    assert np.all(muted.source_attention[others] > plain.source_attention[others])  # they share its mass
    assert muted.probability != pytest.approx(plain.probability, abs=1e-6)
    assert muted.score == pytest.approx(float(muted.r_source @ muted.r_target), abs=1e-5)


def test_muting_is_reproducible_and_order_free(tracked):
    plain = tracked.attention("Marius", "Thenardier")
    a, b = plain.source_names[0], plain.target_names[0]
    one = tracked.attention("Marius", "Thenardier", mute=[a, b])
    two = tracked.attention(NodeIndex(55), NodeIndex(25), mute=[b, a, a])
    assert np.array_equal(one.source_attention, two.source_attention)
    assert np.array_equal(one.target_attention, two.target_attention)
    assert one.probability == two.probability and set(one.muted) == set(two.muted) == {a, b}
    assert tracked.attention("Marius", "Thenardier", mute=[]).to_dict() == plain.to_dict()


def test_a_shared_neighbor_is_muted_on_both_sides(tracked):
    plain = tracked.attention("Valjean", "Javert")
    shared = plain.shared
    assert shared
    muted = tracked.attention("Valjean", "Javert", mute=[shared[0]])
    assert muted.source_attention[muted.source_names.index(shared[0])] == 0.0
    assert muted.target_attention[muted.target_names.index(shared[0])] == 0.0


def test_muting_a_node_outside_both_messages_or_every_neighbor_is_an_error(tracked):
    with pytest.raises(ParameterError, match="Napoleon is not in the sampled neighborhood of Marius or "
                                             "Thenardier"):
        tracked.attention("Marius", "Thenardier", mute=["Napoleon"])
    with pytest.raises(UnknownNodeError, match="Nobody"):
        tracked.attention("Marius", "Thenardier", mute=["Nobody"])
    plain = tracked.attention("Marius", "Thenardier")
    with pytest.raises(ParameterError, match="leaves Marius no neighbor to attend to"):
        tracked.attention("Marius", "Thenardier", mute=plain.source_names)
    kept = tracked.attention("Marius", "Thenardier", mute=plain.source_names[1:])  # one left: all on it
    assert kept.source_attention[0] == pytest.approx(1.0)


def test_uniform_attention_is_the_mean_of_the_same_neighbors(tracked):
    att = tracked.attention("Marius", "Thenardier", uniform=True)
    assert att.uniform and np.allclose(att.source_attention, 1 / len(att.source_names))
    E = tracked.embedding_
    r_s, r_t = E[att.source_neighbors].mean(0), E[att.target_neighbors].mean(0)
    assert np.allclose(att.r_source, r_s, atol=1e-6)
    assert att.score == pytest.approx(float(r_s @ r_t), abs=1e-5)
    top = att.source_names[0]
    both = tracked.attention("Marius", "Thenardier", uniform=True, mute=[top])
    assert both.source_attention[0] == 0.0
    assert np.allclose(both.source_attention[1:], 1 / (len(att.source_names) - 1))


def test_uniform_attention_leaves_zero_pads_out(lesmis):
    goat = Goat(**dict(FAST, padding="zero", neighborhood=30)).fit(lesmis)
    att = goat.attention("Marius", "Thenardier", uniform=True)
    assert att.target_padding == 0.0 and att.target_attention.sum() == pytest.approx(1.0)


def test_the_run_zip_carries_the_tracked_history(tracked):
    from goat_core import archive

    again = archive.run_from_zip(archive.run_to_zip(tracked), file="run.zip")
    assert again.attention_history("Marius", "Thenardier").rows() == \
        tracked.attention_history("Marius", "Thenardier").rows()


def test_tracked_pairs_are_capped_before_training(lesmis):
    from goat_core.analysis.tracking import MAX_TRACKED_PAIRS

    names = lesmis.names
    pairs = [(names[i], names[j]) for i in range(12) for j in range(i + 1, 12)][:MAX_TRACKED_PAIRS + 1]
    seen = []
    with pytest.raises(ParameterError, match=f"track_pairs holds {MAX_TRACKED_PAIRS + 1} pairs; at most "
                                             f"{MAX_TRACKED_PAIRS} are tracked"):
        Goat(**FAST).fit(lesmis, callback=seen.append, track_pairs=pairs)
    assert seen == []
