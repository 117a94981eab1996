"""The worker's messages (ui.wire): plain data and arrays go through unchanged; nothing can make
the reader run code, and what it does not write is refused."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import goat_core
from ui import wire, worker


def test_plain_data_and_arrays_round_trip():
    message = ("result", {
        "auc": 0.91, "nan": float("nan"), "n": 3, "ok": True, "none": None, "name": "Zoë",
        ("a", 1): [np.arange(6, dtype=np.int64).reshape(2, 3), np.float32(0.5)],
        "curves": (np.linspace(0, 1, 5), np.array(["x", "yz"])), "empty": np.zeros((0, 2)),
    })
    back = wire.decode(wire.encode(message))
    assert back[0] == "result" and isinstance(back, tuple)
    got = back[1]
    assert got["auc"] == 0.91 and math.isnan(got["nan"]) and got["n"] == 3 and got["ok"] is True
    assert got["none"] is None and got["name"] == "Zoë" and got[("a", 1)][1] == 0.5
    np.testing.assert_array_equal(got[("a", 1)][0], message[1][("a", 1)][0])
    assert got[("a", 1)][0].dtype == np.int64 and got[("a", 1)][0].flags.writeable
    assert isinstance(got["curves"], tuple) and got["curves"][1].tolist() == ["x", "yz"]
    assert got["empty"].shape == (0, 2)


def test_objects_are_not_sent():
    with pytest.raises(wire.WireError, match="Graph cannot be sent"):
        wire.encode(goat_core.load_graph("lesmis"))
    with pytest.raises(wire.WireError, match="object"):
        wire.encode(np.array([{"a": 1}], dtype=object))


class Trap:
    ran = False

    def __reduce__(self):
        return (Trap._spring, ())

    @staticmethod
    def _spring():
        Trap.ran = True


def test_a_pickle_is_refused_and_never_run():
    with pytest.raises(wire.WireError):
        wire.decode(pickle.dumps(Trap()))
    with pytest.raises(wire.WireError):
        wire.decode(len(b"x").to_bytes(8, "little") + pickle.dumps(Trap()))
    assert not Trap.ran


@pytest.mark.parametrize("description", [
    b'{"array": [0, "|O", [1]]}',  # an object array would be pickled Python objects
    b'{"array": [0, "<f8", [1000]]}',  # more bytes than the message holds
    b'{"code": "os.system"}',
    b'{"tuple": [1], "dict": []}',
])
def test_descriptions_it_never_writes_are_refused(description):
    with pytest.raises(wire.WireError):
        wire.decode(len(description).to_bytes(8, "little") + description + bytes(8))


def test_errors_come_back_as_our_types_or_builtins_only():
    err = wire.rebuild_error(wire.describe_error(goat_core.ParameterError("dim must be >= 1")))
    assert isinstance(err, goat_core.ParameterError) and str(err) == "dim must be >= 1"
    err = wire.rebuild_error(wire.describe_error(goat_core.GraphFormatError("g.txt", "bad", 3)))
    assert isinstance(err, goat_core.GraphFormatError) and str(err) == "g.txt:3: bad"
    assert isinstance(wire.rebuild_error({"type": "ImportError", "message": "no gensim"}), ImportError)
    other = wire.rebuild_error({"type": "SystemExit", "message": "x"})  # not an Exception: refused
    assert isinstance(other, wire.WireError) and "SystemExit: x" in str(other)
    assert isinstance(wire.rebuild_error({"type": "Popen", "message": "x"}), wire.WireError)


def test_a_split_crosses_as_plain_data():
    graph = goat_core.load_graph("lesmis")
    split = goat_core.split_edges(graph, 0.5, seed=3)
    back = worker._split(wire.decode(wire.encode(worker.split_parts(split))))
    assert back.train.names == split.train.names and back.seed == 3 and back.train_ratio == 0.5
    for a, b in ((back.train.src, split.train.src), (back.train.weight, split.train.weight),
                 (back.test_pos, split.test_pos), (back.test_neg, split.test_neg)):
        np.testing.assert_array_equal(a, b)
