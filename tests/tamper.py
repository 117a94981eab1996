"""Tampering with saved runs, for the tests that check every tampered run is refused in one line.

A run's parts are read as plain data (config and nodes as JSON, weights as a dict of tensors),
changed by a callback, and written back. ``reseal=True`` then records the new checksums in
config.json, as a forger (or a format-1 run, which has none) would: what is left to refuse the
run is the structural checks, which is what those tests are about.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

Parts = tuple[dict, dict, dict]  # config, nodes, tensors


def read_parts(run: Path) -> Parts:
    config = json.loads((run / "config.json").read_text())
    nodes = json.loads((run / "nodes.json").read_text())
    tensors = torch.load(run / "weights.pt", weights_only=True)
    return config, nodes, tensors


def write_parts(run: Path, config: dict, nodes: dict, tensors: dict, reseal: bool = False) -> None:
    nodes_text = json.dumps(nodes)
    if reseal and config.get("format_version") == 2:
        config["files"] = {"nodes.json": {"sha256": hashlib.sha256(nodes_text.encode()).hexdigest()}}
        config["arrays"] = {name: {"dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
                                   "sha256": _sha256(t)}
                            for name, t in tensors.items() if isinstance(t, torch.Tensor)}
        content = {key: value for key, value in config.items() if key != "sha256"}
        config["sha256"] = hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":"))
                                          .encode()).hexdigest()
    (run / "config.json").write_text(json.dumps(config))
    (run / "nodes.json").write_text(nodes_text)
    torch.save(tensors, run / "weights.pt")


def _sha256(tensor: torch.Tensor) -> str:  # written out here, not taken from the code under test
    return hashlib.sha256(np.ascontiguousarray(tensor.numpy()).tobytes()).hexdigest()


def tampered(run: Path, out: Path, change: Callable[[dict, dict, dict], object],
             reseal: bool = False) -> Path:
    """A copy of ``run`` at ``out`` with ``change(config, nodes, tensors)`` applied."""
    shutil.copytree(run, out)
    config, nodes, tensors = read_parts(out)
    change(config, nodes, tensors)
    write_parts(out, config, nodes, tensors, reseal=reseal)
    return out


def as_format_1(config: dict, nodes: dict | None = None, tensors: dict | None = None) -> None:
    """What a run saved before checksums looks like: format 1, no checksum records."""
    config["format_version"] = 1
    for key in ("arrays", "files", "sha256"):
        config.pop(key, None)
