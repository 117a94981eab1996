"""Runs as zip archives, unpacked without trusting them (``goat_core.archive``)."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from goat_core import Goat, GraphFormatError, archive

from .conftest import FAST


@pytest.fixture(scope="module")
def goat(lesmis):
    return Goat(**FAST, seed=2).fit(lesmis)


def _members(goat) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(archive.run_to_zip(goat))) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _zip(members: dict[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name or zipfile.ZipInfo(name), data)  # writestr("") itself fails
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_run_archive_round_trip_and_folder(goat):
    again = archive.run_from_zip(archive.run_to_zip(goat))
    pair = ("Marius", "Thenardier")
    assert again.attention(*pair).to_dict() == goat.attention(*pair).to_dict()
    nested = _zip({f"run/{k}": v for k, v in _members(goat).items()})
    assert archive.run_from_zip(nested).graph_.names == goat.graph_.names


@pytest.mark.parametrize("case, problem", [
    ("junk", "not a zip archive"),
    ("traversal", "points outside the archive"),
    ("absolute", "absolute path"),
    ("symlink", "symbolic link"),
    ("missing", "model.safetensors missing"),
    ("huge", "over the"),
    ("bad config", "config.json: 'params' is missing"),
    ("no name", "a member with no name"),  # was ZipInfo.is_dir()'s IndexError
])
def test_run_archive_refuses_bad_archives(goat, case, problem):
    members = _members(goat)
    raw = {
        "junk": b"PK not really",
        "traversal": _zip({**members, "../../evil.txt": b"x"}),
        "absolute": _zip({**members, "/tmp/evil.txt": b"x"}),
        "symlink": _zip(members, symlink="config.json.lnk"),
        "missing": _zip({k: v for k, v in members.items() if k != "model.safetensors"}),
        "huge": _zip(members),
        "bad config": _zip({**members, "config.json": b'{"format_version": 3}'}),
        "no name": _zip({**members, "": b"x"}),
    }[case]
    limit = 1000 if case == "huge" else archive.MAX_RUN_ARCHIVE_BYTES
    with pytest.raises(GraphFormatError) as err:
        archive.run_from_zip(raw, file="up.zip", max_bytes=limit)
    assert str(err.value).startswith("up.zip: ") and problem in str(err.value) and "\n" not in str(err.value)


def _tampered(goat, config=None, nodes=None, tensors=None) -> bytes:
    """The goat's run zip with config.json / nodes.json / model.safetensors changed by the callbacks."""
    import json

    import safetensors.torch

    members = _members(goat)
    for name, change in (("config.json", config), ("nodes.json", nodes)):
        if change is not None:
            data = json.loads(members[name])
            change(data)
            members[name] = json.dumps(data).encode()
    if tensors is not None:
        data = safetensors.torch.load(members["model.safetensors"])
        tensors(data)
        members["model.safetensors"] = safetensors.torch.save(data)
    return _zip(members)


def _set(data, key, value):
    data[key] = value


def _patch_header(raw: bytes, member: str, local: int, central: int, value: int, bits: bool = False) -> bytes:
    """Rewrite a 2-byte field of a member's local and central headers (set ``value``'s bits with
    ``bits``): zipfile itself would not write an encrypted flag or an unknown method."""
    out = bytearray(raw)
    name = member.encode()
    for signature, field, name_at in ((b"PK\x03\x04", local, 30), (b"PK\x01\x02", central, 46)):
        start = 0
        while (start := out.find(signature, start)) != -1:
            if out[start + name_at:start + name_at + len(name)] == name:
                old = int.from_bytes(out[start + field:start + field + 2], "little")
                new = (old | value) if bits else value
                out[start + field:start + field + 2] = new.to_bytes(2, "little")
            start += 4
    return bytes(out)


@pytest.mark.parametrize("case, problem", [
    ("names as ints", "nodes.json: was changed after the run was saved"),
    ("negative src", "model.safetensors: was changed after the run was saved"),
    ("neighborhood ids", "model.safetensors: was changed after the run was saved"),
    ("NaN embedding", "model.safetensors: was changed after the run was saved"),
    ("malformed history", "config.json: was changed after the run was saved"),
    ("encrypted", "is encrypted"),
    ("compression", "compression method 99"),
])
def test_tampered_runs_are_one_line_errors(goat, case, problem):
    """Each of these once loaded and then crashed a page (or escaped the error handling)."""
    n = goat.graph_.num_nodes
    if case == "encrypted":  # general-purpose flag bit 0
        raw = _patch_header(_zip(_members(goat)), "model.safetensors", 6, 8, 0x1, bits=True)
    elif case == "compression":
        raw = _patch_header(_zip(_members(goat)), "nodes.json", 8, 10, 99)
    else:
        raw = {
            "names as ints": lambda: _tampered(goat, nodes=lambda d: _set(d, "names", list(range(n)))),
            "negative src": lambda: _tampered(goat, tensors=lambda t: t["src"].__setitem__(0, -5)),
            "neighborhood ids": lambda: _tampered(goat, tensors=lambda t: t["hood_table"].__setitem__(
                (0, 0), n + 7)),
            "NaN embedding": lambda: _tampered(goat, tensors=lambda t: t["embedding"].__setitem__(
                (0, 0), float("nan"))),
            "malformed history": lambda: _tampered(goat, config=lambda d: _set(d, "history",
                                                                                 [{"loss": "x"}])),
        }[case]()
    with pytest.raises(GraphFormatError) as err:
        archive.run_from_zip(raw, file="up.zip")
    assert str(err.value).startswith("up.zip: ") and problem in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA],
                         ids=["deflate", "bzip2", "lzma"])
def test_a_run_archive_with_damaged_compressed_data_is_one_line(goat, method):
    """Issue 24's second sweep: damaged bzip2 or LZMA data escaped as OSError / LZMAError (in the
    app, a page's traceback), where damaged deflate data was a one-line error."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, data in _members(goat).items():
            zf.writestr(name, data)
    raw = buffer.getvalue()
    start = raw.index(b"model.safetensors") + 200  # inside the compressed tensors
    damaged = raw[:start] + bytes(300) + raw[start + 300:]
    with pytest.raises(GraphFormatError) as err:
        archive.run_from_zip(damaged, file="up.zip")
    assert str(err.value).startswith("up.zip: damaged zip archive") and "\n" not in str(err.value)


def test_the_zip_of_a_run_saved_before_safetensors_still_loads():
    from .test_persistence import FORMAT_2_RUN

    members = {path.name: path.read_bytes() for path in FORMAT_2_RUN.iterdir()}
    assert set(members) == {"config.json", "nodes.json", "weights.pt"}
    old = archive.run_from_zip(_zip(members), file="old.zip")
    assert old.get_params() == Goat.load(FORMAT_2_RUN).get_params()
    with zipfile.ZipFile(io.BytesIO(archive.run_to_zip(old))) as zf:
        assert sorted(zf.namelist()) == ["config.json", "model.safetensors", "nodes.json"]


@pytest.mark.parametrize("damage", ["version needed 22.9", "central directory offset"])
def test_a_run_archive_with_a_damaged_directory_is_one_line(goat, damage):
    """A run fuzzer's finds: zipfile raised NotImplementedError ("zip file version 22.9") and
    ValueError ("negative seek value"), not BadZipFile."""
    raw = bytearray(archive.run_to_zip(goat))
    if damage == "version needed 22.9":
        raw[raw.find(b"PK\x01\x02") + 6] = 229
    else:
        raw[raw.rfind(b"PK\x05\x06") + 19] = 20
    with pytest.raises(GraphFormatError) as err:
        archive.run_from_zip(bytes(raw), file="up.zip")
    assert str(err.value).startswith("up.zip: damaged zip archive") and "\n" not in str(err.value)
