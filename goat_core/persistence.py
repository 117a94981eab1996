"""Runs as self-describing directories, loaded back without unpickling anything.

    RUN_DIR/config.json   parameters, graph facts, history, format version
    RUN_DIR/nodes.json    node names in index order (and labels if the graph had them)
    RUN_DIR/weights.pt    tensors only: embeddings, training edges, inference neighborhoods
                          (read with torch.load(weights_only=True))
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

FORMAT_VERSION = 1
FILES = ("config.json", "nodes.json", "weights.pt")


def save_run(goat, path, extra: dict | None = None) -> Path:
    """Write a fitted Goat to ``path`` (created if needed).

    ``extra`` is JSON metadata kept with the run (e.g. how a link-prediction split was made:
    ``{"split": {"train_ratio": 0.85, "seed": 0, "full_graph_fingerprint": ...}}``); it comes
    back as ``run_info_`` after loading.
    """
    goat._check_fitted()
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    graph = goat.graph_
    config = {
        "format_version": FORMAT_VERSION,
        "params": goat.get_params(),
        "graph": {"source": graph.source, "directed": graph.directed, "weighted": graph.weighted,
                  "nodes": graph.num_nodes, "edges": graph.num_edges,
                  "fingerprint": graph.fingerprint()},
        "history": goat.history_,
        "extra": extra or {},
    }
    nodes = {"names": list(graph.names)}
    if graph.labels is not None:
        nodes["labels"] = {"codes": graph.labels.codes.tolist(), "classes": list(graph.labels.classes),
                           "source": graph.labels.source}
    tensors = {
        **{f"attr_{name}": torch.as_tensor(np.asarray(values)) for name, values in graph.node_attrs.items()},
        "embedding": goat.model_.embedding.weight.detach().cpu(),
        "src": torch.from_numpy(graph.src), "dst": torch.from_numpy(graph.dst),
        "weight": torch.from_numpy(graph.weight),
        "hood_table": goat.neighborhoods_.table.cpu(), "hood_length": goat.neighborhoods_.length.cpu(),
    }
    (path / "config.json").write_text(json.dumps(config, indent=2))
    (path / "nodes.json").write_text(json.dumps(nodes))
    torch.save(tensors, path / "weights.pt")
    return path


def load_run(path, device: str = "auto"):
    """Rebuild a fitted Goat from a run directory; bad or partial runs raise GraphFormatError."""
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
    if config.get("format_version") != FORMAT_VERSION:
        raise GraphFormatError(str(path / "config.json"),
                               f"run format {config.get('format_version')} is not {FORMAT_VERSION}")
    try:
        return _rebuild(config, nodes, tensors, device)
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise GraphFormatError(str(path), f"inconsistent run: {type(err).__name__}: {err}") from None


def _rebuild(config: dict, nodes: dict, tensors: dict, device: str):
    from .estimator import Goat

    goat = Goat(**dict(config["params"], device=device))
    goat._validate_params()
    names = tuple(nodes["names"])
    expected = (len(names) + 1, goat.dim)
    if tuple(tensors["embedding"].shape) != expected:
        raise ValueError(f"embedding has shape {tuple(tensors['embedding'].shape)}, expected {expected} "
                         f"for {len(names)} nodes and dim {goat.dim}")
    labels = None
    if "labels" in nodes:
        info = nodes["labels"]
        labels = NodeLabels(np.asarray(info["codes"], dtype=np.int64), tuple(info["classes"]),
                            source=info.get("source", ""))
    meta = config["graph"]
    graph = Graph(
        names=names, src=tensors["src"].numpy(), dst=tensors["dst"].numpy(),
        weight=tensors["weight"].numpy(), directed=meta["directed"], weighted=meta["weighted"],
        source=meta["source"], labels=labels,
        node_attrs={key[5:]: t.numpy() for key, t in tensors.items() if key.startswith("attr_")},
    )
    if graph.num_edges and int(max(graph.src.max(), graph.dst.max())) >= len(names):
        raise ValueError("an edge names a node index outside the node list")
    resolved = goat._resolve_device()
    model = goat._build_module(graph.num_nodes, None)
    model.embedding.weight.data.copy_(tensors["embedding"])
    hood = Neighborhoods(tensors["hood_table"], tensors["hood_length"])
    goat._set_learned(graph, model.to(resolved), hood, config["history"], resolved)
    goat.run_info_ = config.get("extra", {})
    return goat
