"""Runs saved before format 3 (formats 1 and 2: tensors in ``weights.pt`` by torch.save), read as a
format-3 run so that every check of :mod:`.persistence` applies to them.

``torch.load(weights_only=True)`` rebuilds their tensors and refuses any other object. Format 2's
SHA-256 of config.json, nodes.json and every array are checked. Format 1 recorded none (the load's
notes say so) and may lack parameters added since, which take what those runs did. ``goat convert
OLD --out NEW`` (``Goat.load(old).save(new)``) writes such a run in format 3.
"""

from __future__ import annotations

import hashlib
from typing import Any

import torch

WEIGHTS = "weights.pt"
LEGACY_PARAMS = {"padding": "mask", "validation_fraction": 0.0, "patience": 10, "optimizer": "adam"}
FORMAT_1_NOTE = ("saved in run format 1, before checksums: checked for consistency, but an edited embedding "
                 "cannot be detected; save it again to add checksums")


def upgrade(reader: Any, config: dict) -> tuple[dict, dict[str, torch.Tensor], tuple[str, ...]]:
    """(config.json's data as format 3 holds it, the tensors, notes) of the format-1 or format-2 run
    ``reader`` (a :class:`.persistence.RunReader`) reads, its checksums checked; every other check
    is then format 3's."""
    reader.tensor_file = WEIGHTS
    version, sealed = config["format_version"], ("arrays", "files", "sha256")
    nodes = reader.file_bytes("nodes.json")
    if version == 2:
        if not all(key in config for key in sealed) or not isinstance(config["arrays"], dict):
            raise reader.fail("a format-2 run's config records arrays, files and sha256 (arrays: each "
                              "array's sha256)", "config.json")
        reader.check_seal(config)
        reader.check_sums(config["files"], {"nodes.json": nodes})
    reader.file_bytes(WEIGHTS)
    try:
        tensors = torch.load(reader.path / WEIGHTS, map_location="cpu", weights_only=True)
    except Exception:  # its errors are many, and their text can invite unpickling: one line
        raise reader.bad("is not a weights file GOAT Explorer saved (damaged, or more than named tensors)") \
            from None
    if not (isinstance(tensors, dict) and all(isinstance(key, str) and isinstance(t, torch.Tensor)
                                              and t.layout == torch.strided and t.device.type == "cpu"
                                              for key, t in tensors.items())):  # meta stays meta
        raise reader.bad("holds something other than a run's named tensors")
    tensors = {key: t.detach() for key, t in tensors.items()}  # torch.load keeps requires_grad
    for name in sorted(set(config["arrays"]) | set(tensors)) if version == 2 else ():  # one message each time
        record = config["arrays"].get(name)
        if name not in tensors or not isinstance(record, dict) or record.get("sha256") != hashlib.sha256(
                tensors[name].contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()).hexdigest():
            raise reader.bad(f"{name} was changed after the run was saved (its SHA-256 is not the one "
                             "config.json records)")
    params = config.get("params")
    if version == 1 and isinstance(params, dict):
        params = {**reader.defaults, **LEGACY_PARAMS, **params}
    upgraded = {**{key: value for key, value in config.items() if key not in sealed},
                "format_version": 3, "params": params, "files": {}, "sha256": ""}
    tensors = {key: t.contiguous() for key, t in tensors.items()  # format 3 derives the neighbors
               if not (key.startswith("tracked_") and key.endswith("_neighbors"))}
    return upgraded, tensors, (FORMAT_1_NOTE,) if version == 1 else ()
