"""Runs written as self-describing directories (:mod:`.run_format` declares what each file holds
and reads them back, every part checked, without unpickling anything). ``Goat.save`` / ``Goat.load``
turn a model into plain data (parameters and a :class:`~.state.GoatState`) and back.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import safetensors.torch
import torch

from . import run_format as fmt
from .analysis.attention import AttentionHistory, PairAttention
from .data.graph import NodeIndex
from .errors import GraphFormatError
from .legacy_runs import WEIGHTS
from .run_format import FILES, FORMAT_VERSION, TENSOR_FILE, config_sha256, is_run, read_run, sha256
from .state import GoatState

__all__ = ["check_run_target", "check_tracked_last_rows", "read_run", "write_run"]
PARTIAL = ".partial"  # a file being written: FILE + PARTIAL, replaced into FILE once complete


def write_run(path: str | Path, params: dict, state: GoatState, extra: dict | None = None) -> Path:
    """Write ``params`` and ``state`` to the run directory ``path`` (created if needed).

    ``path`` must be absent, empty, or a GOAT run (which is replaced): never a directory holding
    anything else (:func:`check_run_target`). Each file is written beside its final name and
    moved into place once complete, config.json last. ``extra`` is JSON metadata kept with the
    run (e.g. how a link-prediction split was made: ``{"split": {"train_ratio": 0.85, ...}}``).
    """
    path = Path(path)
    check_run_target(path, overwrite=True)
    graph = state.graph
    labels = None if graph.labels is None else fmt.Labels(graph.labels.codes.tolist(),
                                                          list(graph.labels.classes), graph.labels.source)
    tensors = {
        **{f"attr_{name}": torch.as_tensor(np.asarray(values)) for name, values in graph.node_attrs.items()},
        "embedding": state.embedding.detach().cpu(),
        "src": torch.from_numpy(np.asarray(graph.src, dtype=np.int64)),
        "dst": torch.from_numpy(np.asarray(graph.dst, dtype=np.int64)),
        "weight": torch.from_numpy(np.asarray(graph.weight, dtype=np.float64)),
        "hood_table": state.neighborhoods.table.cpu(), "hood_length": state.neighborhoods.length.cpu(),
        **_tracked_tensors(state.tracked),
    }
    nodes_raw = json.dumps(asdict(fmt.NodesFile(list(graph.names), labels))).encode()
    tensors_raw = safetensors.torch.save({name: t.contiguous() for name, t in tensors.items()})
    facts = fmt.GraphFacts(graph.source, graph.directed, graph.weighted, graph.num_nodes, graph.num_edges,
                           graph.fingerprint())
    config = asdict(fmt.RunConfig(
        FORMAT_VERSION, params, facts, _finite_or_none(state.history),
        files={"nodes.json": sha256(nodes_raw), TENSOR_FILE: sha256(tensors_raw)}, sha256="",
        backend=state.backend, early_stopping=_finite_or_none(state.early_stopping), extra=extra or {}))
    try:
        config["sha256"] = config_sha256(config)  # last: it covers everything above
        config_text = json.dumps(config, indent=2, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise GraphFormatError(str(path / "config.json"), f"cannot be written: extra metadata must be plain "
                                                           f"JSON data ({err})") from None
    try:
        path.mkdir(parents=True, exist_ok=True)
        (path / WEIGHTS).unlink(missing_ok=True)  # an older run's, replaced
        for name, text in ((TENSOR_FILE, tensors_raw), ("nodes.json", nodes_raw),
                           ("config.json", config_text.encode())):  # config.json last: the run is whole
            partial = path / (name + PARTIAL)
            partial.write_bytes(text)
            os.replace(partial, path / name)
    except OSError as err:
        raise GraphFormatError(str(path), f"cannot write the run: {err.strerror or err}") from None
    return path


def _finite_or_none(value):
    """``value`` (JSON data) with NaN and infinities as None: config.json stays strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(item) for item in value]
    return value


def check_run_target(path: str | Path, overwrite: bool = False) -> None:
    """Raise :class:`GraphFormatError` unless a run can be written to ``path``: a directory that
    does not exist yet (and can be created), an empty one, or, with ``overwrite``, one holding a
    GOAT run and nothing else. A user's other files are never written over. Cheap: called
    before training, so that a bad ``--out`` costs nothing."""
    text = str(path)
    if not text.strip():
        raise GraphFormatError("--out", "names no directory: give the run directory to write")
    if "\x00" in text:
        raise GraphFormatError(repr(text), "holds a NUL character, which no file name may hold")
    try:
        problem = _target_problem(Path(path), overwrite)
    except OSError as err:  # a name too long, a loop of links, no permission to look
        problem = f"cannot be used as a run directory ({err.strerror or err})"
    if problem:
        raise GraphFormatError(text, problem)


def _target_problem(path: Path, overwrite: bool) -> str | None:
    if not (path.exists() or path.is_symlink()):
        ancestor = path.parent
        while not ancestor.exists() and not ancestor.is_symlink():
            ancestor = ancestor.parent
        what = ("is a broken symbolic link" if not ancestor.exists() else "is a file, not a directory"
                if not ancestor.is_dir() else _write_problem(ancestor))
        return what and f"cannot be created: {ancestor} {what}"
    if not path.is_dir():
        what = "not a directory" if path.exists() else "a broken symbolic link"
        return f"exists and is {what}; --out names the run directory to write"
    entries = sorted(entry.name for entry in path.iterdir())
    ours = {name + end for name in (*FILES, WEIGHTS) for end in ("", PARTIAL)}
    others = [repr(name) for name in entries if name not in ours]
    anywhere = "a run is written only into a new or empty directory, or over a GOAT run"
    problem = _write_problem(path)
    if problem or not entries:
        return problem
    if others:
        return f"holds other files ({', '.join(others[:3])}{' ...' if len(others) > 3 else ''}): {anywhere}"
    if not is_run(path):
        return f"holds a config.json or nodes.json that is not a GOAT run's: {anywhere}"
    return None if overwrite else ("already holds a GOAT run: pass --overwrite to replace it, or choose "
                                   "another --out")


def _write_problem(directory: Path) -> str | None:
    """Why nothing can be written in ``directory``, found by writing (and removing) a small file
    there: permission bits alone say nothing of a read-only mount, /proc, or a root user."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".goat-write-check-", dir=directory)
    except OSError as err:
        return f"is not writable ({err.strerror or err})"
    os.close(fd)
    os.unlink(probe)
    return None


def _tracked_tensors(tracked: tuple[AttentionHistory, ...]) -> dict[str, torch.Tensor]:
    """The tracked pairs as :func:`.run_format.tracked_specs` declares them."""
    if not tracked:
        return {}
    out = {"tracked_pairs": torch.tensor([[h.source_id, h.target_id] for h in tracked], dtype=torch.int64),
           "tracked_epochs": torch.as_tensor(np.asarray(tracked[0].epochs, dtype=np.int64))}
    for k, h in enumerate(tracked):
        parts = {"source_attention": h.source_attention, "target_attention": h.target_attention,
                 "padding": np.stack([h.source_padding, h.target_padding], axis=1),
                 "scores": np.stack([h.score, h.uniform_score], axis=1)}
        out |= {f"tracked_{k}_{part}": torch.from_numpy(np.asarray(a, dtype=np.float32))
                for part, a in parts.items()}
    return out


def check_tracked_last_rows(tracked: Sequence[AttentionHistory], attention: Callable[..., PairAttention],
                            tensors: Path) -> None:
    """Each tracked pair's last row is the loaded model's own attention and scores (``attention``:
    its ``Goat.attention``; the tracker's last record is the final model): a history changed after
    saving is refused, in one line naming the ``tensors`` file."""
    for k, h in enumerate(tracked):
        pair = NodeIndex(h.source_id), NodeIndex(h.target_id)
        att, flat = attention(*pair), attention(*pair, uniform=True)
        mine: tuple[Any, ...] = (att.source_attention, att.target_attention, att.source_padding,
                                 att.target_padding, att.score, flat.score)
        saved = (h.source_attention[-1], h.target_attention[-1], h.source_padding[-1], h.target_padding[-1],
                 h.score[-1], h.uniform_score[-1])
        if not all(np.allclose(a, b, rtol=1e-4, atol=1e-4) for a, b in zip(mine, saved, strict=True)):
            problem = f"tracked pair {k} ({h.source!r}, {h.target!r}): its last row is not the final model's"
            raise GraphFormatError(str(tensors), f"{problem} attention (changed after saving)")
