"""The Goat estimator: parameters, reproducibility, answers, and quality on planted graphs."""

from __future__ import annotations

import numpy as np
import pytest

from goat_core import Goat, TrainingCancelled, evaluate_clustering, evaluate_link_prediction, split_edges

from .conftest import FAST, planted_graph
from .tamper import as_format_1, tampered


@pytest.mark.parametrize("name, value, words", [
    ("dim", -3, "dim must be an integer >= 1"),
    ("dim", 2.5, "dim must be an integer"),
    ("dropout", 1.0, "dropout must be a number in [0.0, 1.0)"),
    ("lr", 0, "lr must be a number in (0.0"),
    ("lr", float("nan"), "lr must be a number"),
    ("variant", "transformer", "variant must be one of 'goat', 'global', 'mean-pool'"),
    ("neighborhood", 0, "neighborhood must be an integer >= 1"),
    ("device", "tpu9", "device must be 'auto'"),
    ("epochs", True, "epochs must be an integer"),
    ("inference_draws", 0, "inference_draws must be an integer >= 1"),
])
def test_bad_parameters_get_actionable_errors(triangle_tail, name, value, words):
    with pytest.raises(ValueError) as info:
        Goat(**{name: value}).fit(triangle_tail)
    assert words in str(info.value) and repr(value) in str(info.value)


def test_init_only_stores_and_fit_returns_self(triangle_tail):
    goat = Goat(dim=-1)  # not validated until fit
    assert goat.dim == -1 and not hasattr(goat, "model_")
    fitted = Goat(**FAST).fit(triangle_tail)
    assert isinstance(fitted, Goat)
    assert fitted.embedding_.shape == (5, 16) and len(fitted.history_) == 5
    with pytest.raises(RuntimeError, match="not fitted"):
        Goat().attention(0, 1)


def test_same_seed_same_numbers_other_seed_other_numbers(planted):
    a = Goat(**FAST, seed=11).fit(planted)
    b = Goat(**{**FAST, "dropout": 0.0}, seed=11).fit(planted)
    c = Goat(**FAST, seed=12).fit(planted)
    assert np.array_equal(a.embedding_, b.embedding_)
    assert [r["loss"] for r in a.history_] == [r["loss"] for r in b.history_]
    assert not np.array_equal(a.embedding_, c.embedding_)
    with_dropout = [Goat(**{**FAST, "dropout": 0.5}, seed=5).fit(planted).embedding_ for _ in range(2)]
    assert np.array_equal(*with_dropout)


def test_inference_draws_average_the_logits_of_independent_draws(planted):
    from goat_core.backends.dispatch import GramCache
    from goat_core.training import score_pairs

    goat = Goat(**{**FAST, "neighborhood": 3}, seed=2).fit(planted)  # most nodes have > 3 neighbors
    pairs = np.array([[0, 1], [0, 40], [5, 6], [22, 70], [41, 42], [10, 60]])
    one = goat.decision_function(pairs)
    four = goat.set_params(inference_draws=4).decision_function(pairs)
    hoods = list(goat._draws())
    assert len(hoods) == 4 and hoods[0] is goat.neighborhoods_
    assert all(not np.array_equal(hoods[0].table, h.table) for h in hoods[1:])
    each = [score_pairs(goat.model_, pairs, h, goat.exclude_partner, goat.device_, goat.backend_, GramCache())
            for h in hoods]
    assert np.allclose(four, np.mean(each, axis=0), atol=1e-6)
    assert np.array_equal(one, each[0]) and not np.allclose(four, one)
    again = Goat(**{**FAST, "neighborhood": 3}, seed=2, inference_draws=4).fit(planted)
    assert np.array_equal(again.decision_function(pairs), four)  # the draws are seeded
    assert np.array_equal(goat.set_params(inference_draws=1).decision_function(pairs), one)


def test_draws_past_the_cache_are_drawn_again_to_the_same_scores(planted, monkeypatch):
    """All draws were held at once (1,024 draws of a 10k-node graph's table: 8 GB); past the cache's
    budget they are drawn again per call, each seeded as before: the same numbers."""
    from goat_core import estimator

    pairs = np.array([[0, 1], [0, 40], [5, 6], [22, 70], [41, 42], [10, 60]])
    cached = Goat(**{**FAST, "neighborhood": 3}, seed=2, inference_draws=6).fit(planted)
    expected = cached.decision_function(pairs)
    assert len(cached.__dict__["_draws_cache"]) == 6
    table = cached.neighborhoods_.table
    monkeypatch.setattr(estimator, "DRAW_CACHE_BYTES", 2 * table.numel() * table.element_size())
    tight = Goat(**{**FAST, "neighborhood": 3}, seed=2, inference_draws=6).fit(planted)
    assert np.array_equal(tight.decision_function(pairs), expected)
    again = tight.decision_function(pairs)  # the draws past the cache, drawn again
    assert np.array_equal(again, expected) and len(tight.__dict__["_draws_cache"]) == 2


def test_inference_draws_change_nothing_when_every_neighborhood_is_complete(planted):
    goat = Goat(**{**FAST, "neighborhood": 80}, seed=2).fit(planted)  # N >= every degree
    pairs = np.array([[0, 1], [0, 40], [5, 6], [22, 70]])
    one = goat.decision_function(pairs)
    assert np.allclose(goat.set_params(inference_draws=5).decision_function(pairs), one, atol=1e-6)


def test_attention_for_adjacent_and_non_adjacent_pairs(planted):
    goat = Goat(**FAST).fit(planted)
    for s, t in [(0, 1), (0, 70)]:
        pair = goat.attention(s, t)
        assert pair.source_attention.sum() == pytest.approx(1, abs=1e-5)
        assert pair.target_attention.sum() == pytest.approx(1, abs=1e-5)
        assert pair.alignment.shape == (len(pair.source_neighbors), len(pair.target_neighbors))
        assert pair.is_edge == planted.has_edge(s, t)
        assert 0 < pair.probability < 1
        assert t not in pair.source_neighbors and s not in pair.target_neighbors  # partner left out
        assert pair.probability == pytest.approx(goat.predict_proba([[s, t]])[0], abs=1e-5)
    with pytest.raises(ValueError, match="itself"):
        goat.attention(3, 3)
    with pytest.raises(KeyError):
        goat.attention("nobody", 1)


def test_context_representations_differ_per_partner(planted):
    goat = Goat(**FAST).fit(planted)
    partners, reps = goat.context_representations(0)
    assert reps.shape == (len(partners), 16) and len(partners) == planted.degrees()[0]
    assert np.unique(reps.round(5), axis=0).shape[0] > 1
    context = goat.node_embeddings("context")
    assert np.allclose(context[0], reps.mean(0), atol=1e-5)
    assert goat.node_embeddings("global").shape == (planted.num_nodes, 16)
    top = goat.top_partners(0, k=5)
    assert len(top) == 5 and all(name != planted.names[0] for name, _ in top)
    assert [p for _, p in top] == sorted((p for _, p in top), reverse=True)


def test_callback_sees_progress_and_can_cancel(planted):
    seen = []
    Goat(**FAST).fit(planted, callback=seen.append)
    ends = [p for p in seen if p.epoch_end]
    assert [p.epoch for p in ends] == [1, 2, 3, 4, 5] and ends[-1].fraction == pytest.approx(1.0)
    with pytest.raises(TrainingCancelled):
        Goat(**FAST).fit(planted, callback=lambda p: p.epoch < 2)


def test_validation_auc_is_reported(planted):
    split = split_edges(planted, 0.7, 0)
    goat = Goat(**FAST).fit(split.train, validation=(split.test_pos, split.test_neg))
    assert all(0 <= row["val_auc"] <= 1 for row in goat.history_)


# GoatGlobal is the paper's weaker ablation: it must beat chance, not match GOAT.
@pytest.mark.parametrize("variant, min_auc", [("goat", 0.8), ("mean-pool", 0.8), ("global", 0.65)])
def test_planted_communities_are_recovered(variant, min_auc):
    graph = planted_graph(groups=4, size=25, p_in=0.4, p_out=0.02, seed=1)
    split = split_edges(graph, 0.7, seed=0)
    params = dict(dim=32, epochs=40, lr=0.01, batch_size=64, dropout=0.2, neighborhood=20)
    goat = Goat(**params, variant=variant, seed=0).fit(split.train)
    lp = evaluate_link_prediction(goat, split)
    assert lp["auc"] > min_auc, lp  # chance is 0.5
    clusters = evaluate_clustering(goat.node_embeddings("context"), graph.labels, seed=0)
    assert clusters["nmi"] > 0.6, clusters  # chance is ~0.05 for 4 balanced groups


def test_zero_epochs_is_the_untrained_reference(planted):
    untrained = Goat(**{**FAST, "epochs": 0}, seed=3).fit(planted)
    trained = Goat(**FAST, seed=3).fit(planted)
    assert untrained.history_ == []
    assert untrained.attention(0, 1).source_attention.sum() == pytest.approx(1, abs=1e-5)
    assert not np.array_equal(untrained.embedding_, trained.embedding_)


@pytest.mark.parametrize("variant, expected",
                         [("goat", "fused"), ("mean-pool", "fused"), ("global", "module")])
def test_the_compute_path_is_resolved_in_fit_and_recorded(triangle_tail, variant, expected):
    goat = Goat(**FAST, variant=variant, device="cpu").fit(triangle_tail)
    assert goat.backend == "auto" and goat.backend_ == expected


@pytest.mark.parametrize("padding", ["mask", "zero"])
@pytest.mark.parametrize("variant, backends", [("goat", ("fused", "torch", "module")),
                                               ("mean-pool", ("fused", "module"))])
def test_every_backend_computes_the_same_model(planted, variant, backends, padding):
    """The backends train the same function: without dropout (the masks are drawn differently)
    the same seed gives the same model up to float rounding, with either padding."""
    pairs = np.array([[0, 1], [0, 40], [5, 6], [22, 70], [41, 42], [10, 60]])
    scores = {}
    for backend in backends:
        goat = Goat(**dict(FAST, padding=padding), variant=variant, backend=backend, seed=3).fit(planted)
        assert goat.backend_ == backend
        scores[backend] = goat.decision_function(pairs)
    for backend in backends[1:]:
        assert np.allclose(scores[backends[0]], scores[backend], atol=1e-4)


@pytest.mark.parametrize("params, words", [
    (dict(variant="mean-pool", backend="torch"), "backend='torch' computes variant 'goat' only"),
    (dict(variant="global", backend="fused"), "use backend='module' or 'auto' for variant 'global'"),
    (dict(backend="cuda"), "backend must be one of 'auto', 'fused', 'torch', 'module'"),
])
def test_impossible_compute_paths_are_actionable_errors(triangle_tail, params, words):
    from goat_core import ParameterError

    with pytest.raises(ParameterError, match=words):
        Goat(**FAST, **params).fit(triangle_tail)


def test_a_diverging_training_stops_with_one_clear_error():
    """An infinite weight (which the parsers now refuse, but a Graph can still be built with)
    once turned the loss into NaN and ended in a ZeroDivisionError far from the cause."""
    from goat_core import Graph, TrainingDiverged

    graph = Graph(names=("a", "b", "c", "d"), src=np.array([0, 1, 2]), dst=np.array([1, 2, 3]),
                  weight=np.array([1.0, np.inf, 1.0]), source="inf.txt")
    with pytest.raises(TrainingDiverged, match=r"training diverged at epoch 1, step 1: the loss is nan"):
        Goat(**FAST).fit(graph)


def test_zero_padding_is_another_model_and_its_pads_take_attention(planted):
    """padding="zero" (the paper): a neighborhood smaller than N is filled with zero vectors that
    take part in the max and the softmax; their share of attention is reported, not hidden."""
    params = dict(FAST, dropout=0.0, seed=1)
    params["neighborhood"] = 40  # more than any planted node's degree: every side has pads
    masked = Goat(**dict(params, padding="mask")).fit(planted)
    zero = Goat(**dict(params, padding="zero")).fit(planted)
    pairs = np.array([[0, 1], [5, 6], [22, 70]])
    assert not np.allclose(masked.decision_function(pairs), zero.decision_function(pairs))
    att = zero.attention(0, 1)
    assert att.source_padding > 0.0 and att.target_padding > 0.0
    for weights, pad in ((att.source_attention, att.source_padding),
                         (att.target_attention, att.target_padding)):
        assert abs(weights.sum() + pad - 1.0) < 1e-5
    assert zero.graph_.num_nodes not in att.source_neighbors  # pads are not neighbors
    assert masked.attention(0, 1).source_padding == 0.0
    assert att.to_dict()["source_padding"] == att.source_padding


def test_padding_is_saved_and_old_runs_load_masked(planted, tmp_path):
    goat = Goat(**dict(FAST, padding="zero")).fit(planted)
    again = Goat.load(goat.save(tmp_path / "run"))
    assert again.padding == "zero"
    assert np.allclose(again.decision_function([[0, 1]]), goat.decision_function([[0, 1]]))

    def before_padding(config, nodes, tensors):  # a run saved before padding was a parameter
        del config["params"]["padding"]
        as_format_1(config)  # (and before checksums: its tensors in weights.pt)
    assert Goat.load(tampered(tmp_path / "run", tmp_path / "old", before_padding)).padding == "mask"
    assert Goat().padding == "zero"  # the paper's, chosen on validation
    with pytest.raises(ValueError, match="padding must be one of"):
        Goat(padding="zeros").fit(planted)


def test_early_stopping_chooses_the_epochs_then_trains_on_every_edge(planted):
    goat = Goat(**dict(FAST, epochs=40, validation_fraction=0.2, patience=3, seed=2)).fit(planted)
    stop = goat.early_stopping_
    tried, best = stop["epochs_tried"], stop["best_epoch"]
    assert 1 <= best <= tried <= 40 and len(stop["val_auc"]) == tried
    assert stop["val_auc"][best - 1] == max(stop["val_auc"])  # the best epoch is the argmax
    assert tried == 40 or tried - best == 3  # stopped by patience, or ran out of epochs
    assert stop["validation_edges"] == round(0.2 * planted.num_edges)
    assert len(goat.history_) == best  # the kept model: `best` epochs on every edge
    assert goat.graph_.num_edges == planted.num_edges
    again = Goat(**dict(FAST, epochs=40, validation_fraction=0.2, patience=3, seed=2)).fit(planted)
    assert again.early_stopping_ == stop and np.array_equal(again.embedding_, goat.embedding_)


def test_early_stopping_rule_first_best_nan_lowest_then_patience():
    from goat_core.training import EarlyStopping, best_epoch

    stopping = EarlyStopping(patience=2)
    seen = [(e, stopping.update(e, s), stopping.exhausted(e))
            for e, s in enumerate([float("nan"), 0.6, 0.7, 0.7, 0.5], start=1)]
    assert seen == [(1, True, False), (2, True, False), (3, True, False), (4, False, False), (5, False, True)]
    assert best_epoch([{"epoch": e, "val_auc": s} for e, s in [(1, float("nan")), (2, float("nan"))]]) == 1
    assert best_epoch([{"epoch": e, "val_auc": s} for e, s in [(1, 0.5), (2, 0.9), (3, 0.9)]]) == 2


def test_fit_audit_and_replay_stop_by_the_one_rule(planted, monkeypatch):
    """Every early stop goes through EarlyStopping.exhausted: made to say never, fit tries every epoch."""
    from goat_core import training
    from goat_core.analysis.audit import audit

    params = dict(FAST, epochs=12, validation_fraction=0.2, patience=1, seed=2)
    assert Goat(**params).fit(planted).early_stopping_["epochs_tried"] < 12
    calls = []
    monkeypatch.setattr(training.EarlyStopping, "exhausted", lambda _, epoch: calls.append(epoch) and False)
    assert Goat(**params).fit(planted).early_stopping_["epochs_tried"] == 12
    report = audit(planted, 0.8, params)
    assert report["epochs"]["trained"] == 12 and calls  # the audit ran to its last epoch


def test_without_early_stopping_every_epoch_is_trained(planted):
    goat = Goat(**dict(FAST, epochs=4)).fit(planted)
    assert goat.early_stopping_ is None and len(goat.history_) == 4


def test_early_stopping_on_too_small_a_graph_says_how_to_turn_it_off():
    from goat_core.data.graph import Graph

    graph = Graph(names=("a", "b"), src=np.array([0]), dst=np.array([1]), weight=np.array([1.0]),
                  source="one-edge.txt")
    with pytest.raises(ValueError, match="early stopping: .*set validation_fraction to 0"):
        Goat(**dict(FAST, validation_fraction=0.2)).fit(graph)


def test_early_stopping_is_saved_and_older_runs_load_without_it(planted, tmp_path):
    goat = Goat(**dict(FAST, epochs=6, validation_fraction=0.25, patience=2)).fit(planted)
    again = Goat.load(goat.save(tmp_path / "run"))
    assert again.early_stopping_ == goat.early_stopping_ and again.validation_fraction == 0.25

    def before_stopping(config, nodes, tensors):  # saved before early stopping: it trained `epochs` epochs
        del config["early_stopping"], config["params"]["validation_fraction"], config["params"]["patience"]
        config["params"]["epochs"] = len(config["history"])  # without early stopping, every epoch asked for
        as_format_1(config)  # (and before checksums: its tensors in weights.pt)
    old = Goat.load(tampered(tmp_path / "run", tmp_path / "old", before_stopping))
    assert old.early_stopping_ is None and old.validation_fraction == 0.0

    def half_a_record(config, nodes, tensors):
        before_stopping(config, nodes, tensors)
        config["early_stopping"] = {"best_epoch": 9, "val_auc": [0.5]}
    with pytest.raises(ValueError, match="early_stopping: 'epochs_tried' is missing"):  # its keys, all
        Goat.load(tampered(tmp_path / "run", tmp_path / "half", half_a_record))


def test_the_defaults_learn_planted_links_that_the_papers_schedule_leaves_undertrained():
    """Issue 11: ``Goat()`` with no options (lr 3e-3, epochs by early stopping) reaches a better
    link prediction than Table 2's lr 1e-4 for 20 epochs (the old defaults), which is
    undertrained; measured 0.82 against 0.75 AUC on this graph (seed 0), 0.81 against 0.73 (seed 1)."""
    graph = planted_graph(groups=4, size=25, p_in=0.3, p_out=0.02)
    split = split_edges(graph, 0.7, 0)
    default = Goat(seed=0, device="cpu").fit(split.train)
    paper = Goat(seed=0, device="cpu", lr=1e-4, epochs=20, dropout=0.5,
                 validation_fraction=0.0).fit(split.train)
    ours, theirs = (evaluate_link_prediction(g, split)["auc"] for g in (default, paper))
    assert ours > theirs + 0.03 and ours > 0.78
    assert 1 <= default.early_stopping_["best_epoch"] == len(default.history_) <= 100


def test_a_number_past_int64_is_a_parameter_error_not_a_crash():
    """Found by issue 24's sweep: numpy's isfinite refused 10**20 with a TypeError."""
    from goat_core import ParameterError

    for name in ("dropout", "lr", "validation_fraction"):
        for value in (10**20, 10**400):
            with pytest.raises(ParameterError, match=f"{name} must be a number"):
                Goat(**{name: value}).resolved_device()


# --------------------------------------------------------------------------- issue 24, second sweep
# Probes the first fix did not cover: answers that take arrays of positions or a count, a mute
# given as bytes, parameters without an upper bound, and a run's compute path on another device.

@pytest.fixture(scope="module")
def numbered():
    """Nodes named 10, 20, 30, 48, 51 (a 5-cycle with the chord 10-30), fitted once."""
    from goat_core.data.graph import normalise

    graph = normalise(["10", "20", "30", "48", "51"], np.array([0, 1, 2, 3, 4, 0]),
                      np.array([1, 2, 3, 4, 0, 2]), None, False, False, "<numbered>")
    return Goat(**{**FAST, "neighborhood": 4}).fit(graph)


@pytest.mark.parametrize("pairs, words", [
    ([[0, -1]], "the position -1, outside 0..4"),  # once answered for the last node (numpy's -1)
    ([[10, 20]], "the position 10, outside 0..4"),  # names where positions go: once an IndexError
    ([[0.5, 1.7]], "got an array of float64"),  # once truncated to [[0, 1]] without a word
    ([["10", "20"]], "turn names into positions with graph_.index_of(name)"),
    ([0, 1, 2], "must be a (k, 2) array of node positions, got shape (3,)"),  # once a reshape ValueError
    ([[True, False]], "got an array of bool"),
    ([[0, 1], [2]], "got rows of different lengths"),  # once numpy's inhomogeneous-shape ValueError
])
def test_arrays_of_pairs_are_positions_checked_in_one_place(numbered, pairs, words):
    from goat_core import ParameterError

    for answer in (numbered.predict_proba, numbered.decision_function, numbered.global_scores):
        with pytest.raises(ParameterError) as err:
            answer(pairs)
        assert words in str(err.value), answer.__name__
    assert numbered.predict_proba(np.zeros((0, 2), dtype=np.int64)).shape == (0,)
    assert numbered.predict_proba([[0, 4]]).shape == (1,)  # a list of positions is still fine


@pytest.mark.parametrize("mute, shown", [(b"30", "b'30' (bytes)"), (np.array(30), "array(30) (ndarray)"),
                                         (float("nan"), "nan (float)")])
def test_a_mute_given_as_bytes_or_a_scalar_is_refused_not_read_as_numbers(numbered, mute, shown):
    """b"30" iterates as the integers 51 and 48, which are names here: they were muted instead; a 0-d
    array and a float were "not iterable" TypeErrors."""
    from goat_core import GoatError

    with pytest.raises(GoatError) as err:
        numbered.attention("10", "20", mute=mute)
    assert f"a node is named by text (or an integer name), got {shown}" in str(err.value)
    muted = numbered.attention("10", "20", mute=(name for name in ["51"]))  # any iterable of names
    assert muted.to_dict() == numbered.attention("10", "20", mute=["51"]).to_dict()


def test_a_2d_array_quoted_in_an_error_stays_on_one_line(numbered):
    """numpy's repr of a (2, 2) array holds a line break; every GoatError shows it as its escape."""
    from goat_core import GoatError

    grid = np.array([[0, 1], [1, 2]])
    for call in (lambda: Goat(device=grid).fit(numbered.graph_), lambda: numbered.top_partners(grid),
                 lambda: numbered.attention(grid, "10")):
        with pytest.raises(GoatError) as err:
            call()
        assert "\n" not in str(err.value) and "array([[0, 1],\\n" in str(err.value)


@pytest.mark.parametrize("validation, words", [
    (([[0, 1]],), "validation must be (positive pairs, negative pairs)"),
    (([[0, 1]], [[0, 9]]), "validation pairs hold the position 9, outside 0..4"),
    (([[0, 1]], [["10", "20"]]), "validation pairs must be node positions"),
    (np.array([[0, 1], [1, 2]]), "validation must be (positive pairs, negative pairs)"),
])
def test_validation_pairs_are_checked_before_training(numbered, validation, words):
    """They were unpacked and scored as given: sklearn's or numpy's errors after the first epoch."""
    from goat_core import ParameterError

    with pytest.raises(ParameterError) as err:
        Goat(**FAST).fit(numbered.graph_, validation=validation)
    assert words in str(err.value)
    fitted = Goat(**FAST).fit(numbered.graph_, validation=([[0, 1]], [[0, 3]]))
    assert all(0 <= row["val_auc"] <= 1 for row in fitted.history_)
    with pytest.raises(ParameterError, match="track_pairs must be a list of"):
        Goat(**FAST).fit(numbered.graph_, track_pairs=3)


def test_one_partner_on_its_own_is_one_partner(numbered):
    """context_representations(node, 30) was "'int' object is not iterable"."""
    ids, reps = numbered.context_representations("10", 30)
    again = numbered.context_representations("10", ["30"])
    assert ids.tolist() == again[0].tolist() == [2] and np.array_equal(reps, again[1])


def test_numpy_numbers_are_the_numbers_they_hold(triangle_tail, tmp_path):
    """A seed or batch size from an array (np.int64) was a TypeError inside torch; now the same model,
    saved with plain JSON numbers."""
    plain = Goat(**FAST, seed=2).fit(triangle_tail)
    numpy = Goat(**{**FAST, "batch_size": np.int64(32), "epochs": np.int64(5), "lr": np.float64(0.02)},
                 seed=np.int64(2)).fit(triangle_tail)
    assert np.array_equal(plain.embedding_, numpy.embedding_)
    numpy.save(tmp_path / "run")
    assert Goat.load(tmp_path / "run").get_params() == plain.get_params()


@pytest.mark.parametrize("backend, variant", [("fused", "goat"), ("torch", "goat"), ("module", "mean-pool"),
                                              ("module", "global")])
def test_no_negatives_trains_on_the_edges_alone(triangle_tail, backend, variant):
    """negatives=0 (in the parameter's range, and the app's) was torch.multinomial's RuntimeError."""
    goat = Goat(**{**FAST, "negatives": 0}, backend=backend, variant=variant).fit(triangle_tail)
    assert np.isfinite([row["loss"] for row in goat.history_]).all()


@pytest.mark.parametrize("k", [-1, 2.5, True, "3"])
def test_top_partners_refuses_a_count_that_is_not_one(numbered, k):
    """k = -1 once returned every partner but the last, as ``attention --top -1`` did its rows."""
    from goat_core import ParameterError

    with pytest.raises(ParameterError, match="k must be a whole number >= 0"):
        numbered.top_partners("10", k)
    assert numbered.top_partners("10", 0) == [] and len(numbered.top_partners("10", 10)) == 4


@pytest.mark.parametrize("name, value", [("batch_size", 10**30), ("batch_size", 2**25), ("epochs", 10**30),
                                         ("epochs", 100_001)])
def test_parameters_without_a_natural_bound_have_one(triangle_tail, name, value):
    """A batch of 10**30 pairs ended in numpy's OverflowError after the split; 10**30 epochs never
    ended. Both are refused before any work, in the parameter's own words."""
    from goat_core import ParameterError

    with pytest.raises(ParameterError, match=f"{name} must be an integer >= . and <= "):
        Goat(**{name: value}).resolved_device()


def test_a_run_answers_on_a_device_its_training_path_does_not_run_on():
    """A run trained with backend='fused' (CPU only) was refused on a GPU machine by Goat.load
    (and the app's run upload): the path answering takes there is auto's."""
    import torch

    from goat_core.estimator import answering_backend

    cuda = torch.device("cuda")
    assert answering_backend("fused", "goat", cuda) == "torch"
    assert answering_backend("fused", "mean-pool", cuda) == "module"
    assert answering_backend("fused", "goat", torch.device("cpu")) == "fused"
    assert answering_backend("torch", "goat", cuda) == "torch"
