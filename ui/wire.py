"""The messages between the server and its worker process (:mod:`ui.worker`), without pickle.

A message is plain data: None, bools, numbers, text, lists, tuples, dicts and numpy arrays of
numbers or text. It is written as a JSON description followed by the arrays' raw bytes, and read
back by parsing JSON and copying bytes into arrays of the dtype recorded: nothing in a message can
name code to run (pickle can), so a corrupted or hostile stream is an error, never an execution.
Exceptions cross as their type's name and message and are rebuilt only as GOAT Explorer's own
error types or Python's built-in ones.
"""

from __future__ import annotations

import builtins
import json
import struct
from typing import Any

import numpy as np

from goat_core import errors

_LENGTH = struct.Struct("<Q")  # the JSON description's length, before it
_REFUSED_KINDS = "OV"  # object and void dtypes: pickled Python objects and raw records


class WireError(RuntimeError):
    """A message that is not one this module writes; or, raised in the server, a failure of the
    worker's call whose type is not one of ours or a built-in (its name and message kept)."""


def encode(value: Any) -> bytes:
    """``value`` as bytes: its JSON description, then the raw bytes of its arrays."""
    blobs: list[bytes] = []
    text = json.dumps(_describe(value, blobs)).encode()
    return _LENGTH.pack(len(text)) + text + b"".join(blobs)


def decode(data: bytes) -> Any:
    """What :func:`encode` wrote; anything else is a :class:`WireError`."""
    if len(data) < _LENGTH.size:
        raise WireError("a message shorter than its header")
    size = _LENGTH.unpack_from(data)[0]
    start = _LENGTH.size + size
    try:
        description = json.loads(data[_LENGTH.size:start])
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise WireError(f"a message whose description is not JSON: {err}") from None
    return _rebuild(description, memoryview(data)[start:])


def _describe(value: Any, blobs: list[bytes]) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return _describe(value.item(), blobs)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in _REFUSED_KINDS:
            raise WireError(f"an array of {value.dtype} cannot be sent (numbers and text only)")
        offset = sum(map(len, blobs))
        blobs.append(np.ascontiguousarray(value).tobytes())
        return {"array": [offset, value.dtype.str, list(value.shape)]}
    if isinstance(value, list):
        return [_describe(v, blobs) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_describe(v, blobs) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[_describe(k, blobs), _describe(v, blobs)] for k, v in value.items()]}
    raise WireError(f"a {type(value).__name__} cannot be sent: plain data and numpy arrays only")


def _rebuild(description: Any, blob: memoryview) -> Any:
    if description is None or isinstance(description, (bool, int, float, str)):
        return description
    if isinstance(description, list):
        return [_rebuild(d, blob) for d in description]
    if isinstance(description, dict) and len(description) == 1:
        (kind, body), = description.items()
        if kind == "tuple" and isinstance(body, list):
            return tuple(_rebuild(d, blob) for d in body)
        if kind == "dict" and isinstance(body, list):
            return {_rebuild(k, blob): _rebuild(v, blob) for k, v in body}
        if kind == "array" and isinstance(body, list) and len(body) == 3:
            return _array(*body, blob)
    raise WireError(f"a message holds {str(description)[:60]!r}, which this module never writes")


def _array(offset: int, dtype: str, shape: list[int], blob: memoryview) -> np.ndarray:
    kind = np.dtype(dtype)
    if kind.kind in _REFUSED_KINDS:
        raise WireError(f"a message holds an array of {kind}: refused")
    count = int(np.prod(shape, dtype=np.int64))
    if offset < 0 or offset + count * kind.itemsize > len(blob):
        raise WireError("a message's array runs past its end")
    return np.frombuffer(blob, dtype=kind, count=count, offset=offset).reshape(shape).copy()


def describe_error(err: BaseException) -> dict:
    """An exception as its type's name and its one-line message."""
    return {"type": type(err).__name__, "message": str(err)}


def rebuild_error(described: dict) -> Exception:
    """The exception :func:`describe_error` described: GOAT Explorer's own error types and the
    built-in ones come back as themselves, with the message; any other as a :class:`WireError`."""
    name, message = str(described.get("type")), str(described.get("message"))
    kind = getattr(errors, name, None) or getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        err = kind.__new__(kind)
        Exception.__init__(err, message)  # the message as written, whatever the type's own __init__
        return err
    return WireError(f"{name}: {message}")
