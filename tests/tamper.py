"""Tampering with saved runs, for the tests that check every tampered run is refused in one line.

A run's parts are read as plain data (config and nodes as JSON, the tensors as a dict), changed by
a callback, and written back. ``reseal=True`` then records the new checksums in config.json, as a
forger would (a format-1 run has none): what is left to refuse the run is the structural checks,
which is what those tests are about. A config changed to format 1 or 2 is written with its tensors
in weights.pt (by torch.save), as those formats held them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import safetensors.torch
import torch

Parts = tuple[dict, dict, dict]  # config, nodes, tensors


def read_parts(run: Path) -> Parts:
    config = json.loads((run / "config.json").read_text())
    nodes = json.loads((run / "nodes.json").read_text())
    if (run / "model.safetensors").exists():
        tensors = safetensors.torch.load((run / "model.safetensors").read_bytes())
    else:
        tensors = torch.load(run / "weights.pt", weights_only=True)
    return config, nodes, tensors


def write_parts(run: Path, config: dict, nodes: dict, tensors: dict, reseal: bool = False) -> None:
    nodes_text = json.dumps(nodes)
    legacy = config.get("format_version") in (1, 2)
    (run / ("model.safetensors" if legacy else "weights.pt")).unlink(missing_ok=True)
    if legacy:
        torch.save(tensors, run / "weights.pt")
    else:
        (run / "model.safetensors").write_bytes(safetensors.torch.save(
            {name: t.contiguous() for name, t in tensors.items()}))
    if reseal and config.get("format_version") == 3:
        config["files"] = {"nodes.json": _sha256(nodes_text.encode()),
                           "model.safetensors": _sha256((run / "model.safetensors").read_bytes())}
        content = {key: value for key, value in config.items() if key != "sha256"}
        config["sha256"] = _sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode())
    (run / "config.json").write_text(json.dumps(config))
    (run / "nodes.json").write_text(nodes_text)


def _sha256(data: bytes) -> str:  # written out here, not taken from the code under test
    return hashlib.sha256(data).hexdigest()


def tampered(run: Path, out: Path, change: Callable[[dict, dict, dict], object],
             reseal: bool = False) -> Path:
    """A copy of ``run`` at ``out`` with ``change(config, nodes, tensors)`` applied."""
    shutil.copytree(run, out)
    config, nodes, tensors = read_parts(out)
    change(config, nodes, tensors)
    write_parts(out, config, nodes, tensors, reseal=reseal)
    return out


def as_format_1(config: dict, nodes: dict | None = None, tensors: dict | None = None) -> None:
    """What a run saved before checksums looks like: format 1, no checksum records, weights.pt."""
    config["format_version"] = 1
    for key in ("arrays", "files", "sha256"):
        config.pop(key, None)
