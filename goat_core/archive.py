"""Runs as zip archives: a fitted ``Goat`` packed from its run directory, and an uploaded
archive unpacked without trusting it (only the run's files, no member path ever written,
a cap on the uncompressed size, then the full checks of ``Goat.load``)."""

from __future__ import annotations

import io
import lzma
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from .errors import GraphFormatError
from .estimator import Goat
from .legacy_runs import WEIGHTS
from .persistence import FILES, TENSOR_FILE

MAX_RUN_ARCHIVE_BYTES = 200 * 1024 * 1024  # uncompressed, all members together


def run_to_zip(goat: Goat) -> bytes:
    """A fitted Goat as a zip of its run directory (config.json, nodes.json, model.safetensors)."""
    with tempfile.TemporaryDirectory() as tmp:
        goat.save(tmp)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in FILES:
                zf.write(Path(tmp) / name, arcname=name)
    return buffer.getvalue()


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    path = PurePosixPath(name.replace("\\", "/"))
    if not name:  # ZipInfo.is_dir() fails on it
        return "a member with no name"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return f"member {name!r} has an absolute path"
    if ".." in path.parts:
        return f"member {name!r} points outside the archive"
    if (info.external_attr >> 16) & 0o170000 == 0o120000:
        return f"member {name!r} is a symbolic link"
    if info.flag_bits & 0x1:
        return f"member {name!r} is encrypted: save the run again without a password"
    readable = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)
    if info.compress_type not in readable:
        return f"member {name!r} uses compression method {info.compress_type}, which cannot be read"
    return None


def run_from_zip(raw: bytes, file: str = "<upload>", max_bytes: int = MAX_RUN_ARCHIVE_BYTES) -> Goat:
    """Load a Goat from a zipped run directory without trusting the archive.

    Only ``config.json``, ``nodes.json`` and ``model.safetensors`` (an older run's ``weights.pt``)
    are read (at the top or inside one folder), straight into a fresh temporary directory: no
    member path is ever used to write, links and ``..`` are refused, and the uncompressed total
    is capped at ``max_bytes``. Nothing is unpickled. Every problem is a one-line
    :class:`GraphFormatError` naming ``file``.
    """
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        raise GraphFormatError(file, "not a zip archive: upload the zip of a run directory")
    try:  # the zip's own faults only: the run's checks below report in their own words
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            members = {name: _member_bytes(zf, info, file, max_bytes)
                       for name, info in _pick_members(zf, file, max_bytes).items()}
    except GraphFormatError:  # a ValueError too: already one line
        raise
    except (zipfile.BadZipFile, NotImplementedError, ValueError) as err:  # a version, an offset, damaged
        raise GraphFormatError(file, f"damaged zip archive ({err})") from None
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in members.items():
            (Path(tmp) / name).write_bytes(data)
        return _load(tmp, file)


def _member_bytes(zf: zipfile.ZipFile, info: zipfile.ZipInfo, file: str, max_bytes: int) -> bytes:
    """A member's bytes (at most ``max_bytes`` + 1, whatever its header claims); damaged
    compressed data is one line, whichever decompressor (deflate, bzip2, LZMA) found it."""
    try:
        with zf.open(info) as src:
            return src.read(max_bytes + 1)
    except (zlib.error, lzma.LZMAError, EOFError, OSError):  # bz2 says OSError, a cut stream EOFError
        raise GraphFormatError(file, f"damaged zip archive ({info.filename} cannot be "
                                     "decompressed)") from None


def _pick_members(zf: zipfile.ZipFile, file: str, max_bytes: int) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    if len(infos) > 64:
        raise GraphFormatError(file, f"{len(infos)} members: a run archive holds only {', '.join(FILES)}")
    total = sum(info.file_size for info in infos)
    if total > max_bytes:
        raise GraphFormatError(file, f"unpacks to {total / 2**20:.1f} MB, over the "
                               f"{max_bytes / 2**20:.0f} MB limit for runs")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        problem = _member_problem(info)
        if problem:
            raise GraphFormatError(file, problem)
        if info.is_dir():
            continue
        parts = PurePosixPath(info.filename.replace("\\", "/")).parts
        if parts[-1] in (*FILES, WEIGHTS) and len(parts) <= 2:
            if parts[-1] in members:
                raise GraphFormatError(file, f"two copies of {parts[-1]} in the archive")
            members[parts[-1]] = info
    missing = [name for name in FILES if name not in members and not (name == TENSOR_FILE and
                                                                       WEIGHTS in members)]
    if missing:
        raise GraphFormatError(file, f"not a GOAT run: {', '.join(missing)} missing from the archive")
    return members


def _load(directory: str, file: str) -> Goat:
    """The run unpacked in ``directory``, checked in full by ``Goat.load`` (the same checks as a
    run directory's); its problems are reported against the archive ``file`` and the member."""
    try:
        return Goat.load(directory, device="auto")
    except GraphFormatError as err:
        member = Path(err.file).relative_to(directory).as_posix() if err.file != directory else "."
        raise GraphFormatError(file, err.problem if member == "." else f"{member}: {err.problem}") from None
