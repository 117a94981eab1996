"""Runs as self-describing directories, loaded back without unpickling anything.

    RUN_DIR/config.json   parameters, graph facts, history, compute backend, format version
    RUN_DIR/nodes.json    node names in index order (and labels if the graph had them)
    RUN_DIR/weights.pt    tensors only: embeddings, training edges, inference neighborhoods,
                          attention of the pairs tracked during training (``tracked_*``, optional)
                          (read with torch.load(weights_only=True))

This module reads and writes plain data (parameters and a :class:`~.state.GoatState`);
``Goat.save`` / ``Goat.load`` turn a model into that data and back.
"""

from __future__ import annotations

import json
import pickle  # only for its error type: nothing here unpickles
from pathlib import Path

import numpy as np
import torch

from .errors import GraphFormatError
from .graph import Graph, NodeLabels
from .sampling import Neighborhoods
from .state import GoatState
from .tracking import AttentionHistory

FORMAT_VERSION = 1
FILES = ("config.json", "nodes.json", "weights.pt")


def write_run(path: str | Path, params: dict, state: GoatState, extra: dict | None = None) -> Path:
    """Write ``params`` and ``state`` to the run directory ``path`` (created if needed).

    ``extra`` is JSON metadata kept with the run (e.g. how a link-prediction split was made:
    ``{"split": {"train_ratio": 0.85, "seed": 0, "full_graph_fingerprint": ...}}``).
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    graph = state.graph
    config = {
        "format_version": FORMAT_VERSION,
        "params": params,
        "backend": state.backend,
        "graph": {"source": graph.source, "directed": graph.directed, "weighted": graph.weighted,
                  "nodes": graph.num_nodes, "edges": graph.num_edges,
                  "fingerprint": graph.fingerprint()},
        "history": state.history,
        "early_stopping": state.early_stopping,
        "extra": extra or {},
    }
    nodes: dict = {"names": list(graph.names)}
    if graph.labels is not None:
        nodes["labels"] = {"codes": graph.labels.codes.tolist(), "classes": list(graph.labels.classes),
                           "source": graph.labels.source}
    tensors = {
        **{f"attr_{name}": torch.as_tensor(np.asarray(values)) for name, values in graph.node_attrs.items()},
        "embedding": state.embedding.detach().cpu(),
        "src": torch.from_numpy(graph.src), "dst": torch.from_numpy(graph.dst),
        "weight": torch.from_numpy(graph.weight),
        "hood_table": state.neighborhoods.table.cpu(), "hood_length": state.neighborhoods.length.cpu(),
        **_tracked_tensors(state.tracked),
    }
    (path / "config.json").write_text(json.dumps(config, indent=2))
    (path / "nodes.json").write_text(json.dumps(nodes))
    torch.save(tensors, path / "weights.pt")
    return path


def read_run(path: str | Path) -> tuple[dict, GoatState, dict]:
    """(params, state, extra) of a run directory; bad or partial runs raise GraphFormatError."""
    path = Path(path)
    for name in FILES:
        if not (path / name).is_file():
            raise GraphFormatError(str(path), f"not a GOAT run directory: {name} is missing")
    try:
        config = json.loads((path / "config.json").read_text())
        nodes = json.loads((path / "nodes.json").read_text())
        tensors = torch.load(path / "weights.pt", map_location="cpu", weights_only=True)
    except (ValueError, RuntimeError, OSError, pickle.UnpicklingError) as err:
        raise GraphFormatError(str(path), f"unreadable run: {str(err).splitlines()[0]}") from None
    if not isinstance(config, dict) or not isinstance(nodes, dict):
        raise GraphFormatError(str(path), "inconsistent run: config.json and nodes.json must each hold "
                                          "a JSON object")
    if config.get("format_version") != FORMAT_VERSION:
        raise GraphFormatError(str(path / "config.json"),
                               f"run format {config.get('format_version')} is not {FORMAT_VERSION}")
    try:
        return _unpack(config, nodes, tensors)
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as err:
        raise GraphFormatError(str(path), f"inconsistent run: {type(err).__name__}: {err}") from None


def _unpack(config: dict, nodes: dict, tensors: dict) -> tuple[dict, GoatState, dict]:
    names = tuple(nodes["names"])
    _check_names(names)
    _check_history(config["history"])
    if not isinstance(config["params"], dict):
        raise ValueError("params must be a JSON object")
    labels = None
    if "labels" in nodes:
        info = nodes["labels"]
        labels = NodeLabels(np.asarray(info["codes"], dtype=np.int64), tuple(info["classes"]),
                            source=info.get("source", ""))
    rows = tensors["embedding"].shape[0]
    if rows != len(names) + 1:
        raise ValueError(f"the embedding has {rows} rows, expected {len(names) + 1} for {len(names)} nodes")
    meta = config["graph"]
    graph = Graph(
        names=names, src=tensors["src"].numpy(), dst=tensors["dst"].numpy(),
        weight=tensors["weight"].numpy(), directed=meta["directed"], weighted=meta["weighted"],
        source=meta["source"], labels=labels,
        node_attrs={key[5:]: t.numpy() for key, t in tensors.items() if key.startswith("attr_")},
    )
    _check_tensors(graph, tensors)
    state = GoatState(graph=graph, embedding=tensors["embedding"],
                      neighborhoods=Neighborhoods(tensors["hood_table"], tensors["hood_length"]),
                      history=config["history"], backend=config.get("backend", ""),
                      early_stopping=_checked_stopping(config.get("early_stopping")),
                      tracked=_read_tracked(graph, tensors))
    params = dict(config["params"])
    params.setdefault("padding", "mask")  # runs saved before padding was a parameter were masked
    params.setdefault("validation_fraction", 0.0)  # and before early stopping, trained `epochs` epochs
    params.setdefault("patience", 10)
    params.setdefault("optimizer", "adam")  # and before lazy Adam, trained with dense Adam
    return params, state, config.get("extra", {})


def _check_names(names: tuple) -> None:
    if not all(isinstance(name, str) for name in names):
        raise ValueError("node names must be strings")
    if len(set(names)) != len(names):
        raise ValueError("node names must be distinct")


def _check_history(history: object) -> None:
    """One row per epoch, each with a numeric epoch and loss (the app draws them)."""
    rows = history if isinstance(history, list) else None
    if rows is None or not all(isinstance(r, dict) and _number(r.get("epoch")) and _number(r.get("loss"))
                               for r in rows):
        raise ValueError("history must be a list of {epoch, loss, ...} rows")


def _checked_stopping(stopping: object) -> dict | None:
    """Early stopping's record: None, or a best epoch among the validation AUCs of the epochs tried."""
    if stopping is None:
        return None
    if not isinstance(stopping, dict):
        raise ValueError("early_stopping must be a JSON object")
    aucs, best = stopping.get("val_auc"), stopping.get("best_epoch")
    if not (isinstance(aucs, list) and all(_number(a) for a in aucs) and isinstance(best, int)
            and 1 <= best <= max(len(aucs), 1)):
        raise ValueError("early_stopping must hold best_epoch among its val_auc list")
    return stopping


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_tensors(graph: Graph, tensors: dict) -> None:
    """Ids inside the node list, finite numbers: a loaded run must not crash a page later."""
    n = graph.num_nodes
    for name in ("src", "dst"):
        ids = graph.src if name == "src" else graph.dst
        if ids.dtype.kind not in "iu" or (len(ids) and (ids.min() < 0 or ids.max() >= n)):
            raise ValueError(f"{name} holds node ids outside 0..{n - 1}")
    if len(graph.weight) != len(graph.src) or len(graph.dst) != len(graph.src):
        raise ValueError("src, dst and weight differ in length")
    if len(graph.weight) and not (np.isfinite(graph.weight).all() and (graph.weight > 0).all()):
        raise ValueError("edge weights must be positive finite numbers")
    if not bool(torch.isfinite(tensors["embedding"]).all()):
        raise ValueError("the embedding holds NaN or infinite values")
    table, length = tensors["hood_table"], tensors["hood_length"]
    if table.dim() != 2 or table.shape[0] != n or tuple(length.shape) != (n,):
        raise ValueError(f"the neighborhood table has shape {tuple(table.shape)}, expected ({n}, N)")
    if table.numel() and (int(table.min()) < 0 or int(table.max()) > n):  # n: the pad id
        raise ValueError(f"the neighborhood table holds ids outside 0..{n}")
    if length.numel() and (int(length.min()) < 0 or int(length.max()) > table.shape[1]):
        raise ValueError("neighborhood lengths are outside 0..N")
    if graph.labels is not None:
        codes = graph.labels.codes
        if len(codes) != n or (len(codes) and (codes.min() < -1 or codes.max() >= len(graph.labels.classes))):
            raise ValueError("label codes do not match the nodes and classes")


# ------------------------------------------------------------------ tracked attention
# Pair k of ``fit(..., track_pairs=...)``: ``tracked_pairs`` (K, 2) node ids and ``tracked_epochs``
# (E,) for all, then per pair ``tracked_{k}_source_neighbors`` (Ls,), ``_target_neighbors`` (Lt,),
# ``_source_attention`` (E, Ls), ``_target_attention`` (E, Lt), ``_padding`` (E, 2) and
# ``_scores`` (E, 2): r_s·r_t and its uniform-attention counterpart. Runs without them (every run
# saved before tracking existed) load with no tracked pair.
TRACKED_PARTS = ("source_neighbors", "target_neighbors", "source_attention", "target_attention", "padding",
                 "scores")


def _tracked_tensors(tracked: tuple[AttentionHistory, ...]) -> dict[str, torch.Tensor]:
    if not tracked:
        return {}
    out = {"tracked_pairs": torch.tensor([[h.source_id, h.target_id] for h in tracked], dtype=torch.int64),
           "tracked_epochs": torch.as_tensor(np.asarray(tracked[0].epochs, dtype=np.int64))}
    for k, h in enumerate(tracked):
        arrays = {
            "source_neighbors": np.asarray(h.source_neighbors, dtype=np.int64),
            "target_neighbors": np.asarray(h.target_neighbors, dtype=np.int64),
            "source_attention": np.asarray(h.source_attention, dtype=np.float32),
            "target_attention": np.asarray(h.target_attention, dtype=np.float32),
            "padding": np.stack([h.source_padding, h.target_padding], axis=1).astype(np.float32),
            "scores": np.stack([h.score, h.uniform_score], axis=1).astype(np.float32),
        }
        out.update({f"tracked_{k}_{part}": torch.from_numpy(np.ascontiguousarray(a))
                    for part, a in arrays.items()})
    return out


def _read_tracked(graph: Graph, tensors: dict) -> tuple[AttentionHistory, ...]:
    """The tracked pairs' histories, checked: ids inside the node list, one row per epoch, each
    side's attention (with its padding) a distribution, finite scores."""
    if "tracked_pairs" not in tensors:
        if any(key.startswith("tracked_") for key in tensors):
            raise ValueError("tracked attention without tracked_pairs")
        return ()
    n, names = graph.num_nodes, graph.names
    pairs, epochs = tensors["tracked_pairs"], tensors["tracked_epochs"]
    if pairs.dim() != 2 or pairs.shape[1] != 2 or pairs.dtype != torch.int64:
        raise ValueError(f"tracked_pairs has shape {tuple(pairs.shape)} ({pairs.dtype}), expected (K, 2) "
                         "int64")
    ids = pairs.numpy()
    if ids.size and (ids.min() < 0 or ids.max() >= n or (ids[:, 0] == ids[:, 1]).any()):
        raise ValueError(f"tracked_pairs holds ids outside 0..{n - 1} or a node paired with itself")
    epoch_list = epochs.numpy() if epochs.dim() == 1 and epochs.dtype == torch.int64 else None
    if epoch_list is None or len(epoch_list) == 0 or epoch_list.min() < 0 or (np.diff(epoch_list) <= 0).any():
        raise ValueError("tracked_epochs must be increasing epoch numbers >= 0, one per recorded row")
    rows = len(epoch_list)
    out = []
    for k, (s, t) in enumerate(ids.tolist()):
        parts = {part: tensors[f"tracked_{k}_{part}"] for part in TRACKED_PARTS}
        nbr_s, nbr_t = (parts[f"{side}_neighbors"].numpy() for side in ("source", "target"))
        for side, nbr in (("source", nbr_s), ("target", nbr_t)):
            if nbr.ndim != 1 or nbr.dtype != np.int64 or (nbr.size and (nbr.min() < 0 or nbr.max() >= n)):
                raise ValueError(f"tracked pair {k}: {side}_neighbors must hold node ids in 0..{n - 1}")
        p_s, p_t = parts["source_attention"].numpy(), parts["target_attention"].numpy()
        padding, scores = parts["padding"].numpy(), parts["scores"].numpy()
        for name, array, shape in (("source_attention", p_s, (rows, len(nbr_s))),
                                   ("target_attention", p_t, (rows, len(nbr_t))),
                                   ("padding", padding, (rows, 2)), ("scores", scores, (rows, 2))):
            if array.shape != shape or array.dtype.kind != "f" or not np.isfinite(array).all():
                raise ValueError(f"tracked pair {k}: {name} must be finite numbers of shape {shape} "
                                 f"(one row per tracked epoch), got {array.shape}")
        for name, weights, pad in (("source", p_s, padding[:, 0]), ("target", p_t, padding[:, 1])):
            total = weights.sum(axis=1) + pad
            if (weights < 0).any() or (pad < 0).any() or (np.abs(total - 1.0) > 1e-3).any():
                raise ValueError(f"tracked pair {k}: {name} attention must be non-negative and sum to 1 "
                                 "(with its padding) in every row")
        out.append(AttentionHistory(
            source=names[s], target=names[t], source_id=s, target_id=t, source_neighbors=nbr_s,
            target_neighbors=nbr_t, source_names=[names[i] for i in nbr_s],
            target_names=[names[i] for i in nbr_t],
            epochs=epoch_list, source_attention=p_s, target_attention=p_t, source_padding=padding[:, 0],
            target_padding=padding[:, 1], score=scores[:, 0], uniform_score=scores[:, 1]))
    return tuple(out)
