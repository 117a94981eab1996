"""The run directory's format, and the one reader that checks all of it.

    RUN_DIR/config.json   parameters, graph facts (with the graph's fingerprint), history,
                          compute backend, format version, and (format 2) the dtype, shape and
                          SHA-256 of every array in weights.pt, the SHA-256 of nodes.json, and
                          ``sha256``: the SHA-256 of config.json's own content without it
    RUN_DIR/nodes.json    node names in index order (and labels if the graph had them)
    RUN_DIR/weights.pt    tensors only: embeddings, training edges, inference neighborhoods,
                          attention of the pairs tracked during training (``tracked_*``, optional)
                          (read with torch.load(weights_only=True))

:func:`read_run` is the one place a run is validated, for a directory and for the app's zip
import alike: every file, every key, every array's dtype, shape and values, the names against
the graph's fingerprint, the neighborhood table against the graph and the parameters, the
tracked pairs against the table, and (format 2) every checksum. Any mismatch is one
:class:`GraphFormatError` naming the file and the problem in the user's terms (never torch's
own text); nothing half-checked is returned.

Runs saved in format 1 (before checksums) still load, with every structural check: their
config.json already holds the graph's fingerprint, which covers names, edges and labels. What
only a checksum could catch (an embedding edited by hand) is said in the load's ``notes``;
saving such a run again writes format 2. Refusing them instead would leave their owners no way
to re-save them.
"""

from __future__ import annotations

import hashlib
import json
import math
import pickle  # only for its error type: nothing here unpickles
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .analysis.attention import AttentionHistory
from .backends.batch import make_batch
from .data.graph import Graph, NodeLabels, name_problem, nfc
from .data.sampling import Adjacency, Neighborhoods
from .errors import GoatError, GraphFormatError
from .state import GoatState

FORMAT_VERSION = 2
READABLE_FORMATS = (1, 2)  # 1: before checksums (still read, with every structural check)
FILES = ("config.json", "nodes.json", "weights.pt")
CONFIG_KEYS = ("format_version", "params", "backend", "graph", "history", "early_stopping", "extra")
CHECKSUM_KEYS = ("arrays", "files", "sha256")  # format 2
GRAPH_KEYS = ("source", "directed", "weighted", "nodes", "edges", "fingerprint")
HISTORY_KEYS = ("epoch", "loss", "elapsed", "val_auc")
STOPPING_KEYS = ("best_epoch", "epochs_tried", "val_auc", "validation_edges", "fraction")
BACKEND_NAMES = ("", "fused", "torch", "module")  # "": not recorded (runs saved before backends)
LABEL_KEYS = ("codes", "classes", "source")
REQUIRED_TENSORS = ("embedding", "src", "dst", "weight", "hood_table", "hood_length")
# Parameters added after format 1 began, and what the runs saved before them did.
LEGACY_PARAMS = {"padding": "mask", "validation_fraction": 0.0, "patience": 10, "optimizer": "adam"}
# Pair k of ``fit(..., track_pairs=...)``: ``tracked_pairs`` (K, 2) node ids and ``tracked_epochs``
# (E,) for all, then per pair ``tracked_{k}_source_neighbors`` (Ls,), ``_target_neighbors`` (Lt,),
# ``_source_attention`` (E, Ls), ``_target_attention`` (E, Lt), ``_padding`` (E, 2) and
# ``_scores`` (E, 2): r_s·r_t and its uniform-attention counterpart. Runs without them (every run
# saved before tracking existed) load with no tracked pair.
TRACKED_PARTS = ("source_neighbors", "target_neighbors", "source_attention", "target_attention", "padding",
                 "scores")
ROWS_PER_CHECK = 1 << 14  # rows of the neighborhood table checked at a time (N = 100: 13 MB each)
TORCH_MAGIC = (b"PK\x03\x04", b"\x80")  # torch.save's zip format, and its older pickle format


@dataclass(frozen=True)
class RunContents:
    """What :func:`read_run` found, every part checked: the parameters (legacy ones filled in),
    the learned state, the ``extra`` metadata, and notes for the user (e.g. an older format; one
    line each, without the run's path, which the caller names)."""

    params: dict
    state: GoatState
    extra: dict
    notes: tuple[str, ...] = ()


def describe(tensor: torch.Tensor) -> dict:
    """What config.json records of an array: its dtype, shape and SHA-256."""
    return {"dtype": _dtype(tensor), "shape": list(tensor.shape), "sha256": tensor_sha256(tensor)}


def tensor_sha256(tensor: torch.Tensor) -> str:
    """SHA-256 of the tensor's bytes in C order, whatever its dtype (its dtype and shape are
    recorded beside it)."""
    raw = tensor.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
    return sha256(raw.numpy().tobytes())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def config_sha256(config: dict) -> str:
    """SHA-256 of config.json's content without its ``sha256`` key, written canonically (sorted
    keys, no spaces): the same for any layout of the same JSON data."""
    content = {key: value for key, value in config.items() if key != "sha256"}
    return sha256(json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False).encode())


def regular_file(path: Path) -> bool:
    """A regular file itself (not a symbolic link, a directory, a FIFO or a device)."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def is_run(path: Path) -> bool:
    """Whether ``path`` holds a GOAT run's config.json (a JSON object with a known format version
    and parameters), whatever the state of its other files."""
    config = path / "config.json"
    if not regular_file(config) or config.stat().st_size > 64 * 2**20:
        return False
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError):
        return False
    return (isinstance(data, dict) and _int(data.get("format_version"))
            and data["format_version"] in READABLE_FORMATS and isinstance(data.get("params"), dict))


def read_run(path: str | Path, defaults: Mapping[str, object], check_params: Callable[[dict], None]
             ) -> RunContents:
    """The checked contents of the run directory ``path``; any problem is one
    :class:`GraphFormatError` naming the file (``RUN/weights.pt: ...``) and the problem.

    ``defaults`` are the estimator's parameters and their defaults: a format-2 run holds every
    one of them and no other; a format-1 run may lack those added after it was saved, which take
    what those runs did (:data:`LEGACY_PARAMS`) or the default. ``check_params(params)`` raises a
    GoatError for a value the estimator does not accept; its message is reported as
    config.json's problem.
    """
    return _RunReader(Path(path), defaults, check_params).read()


@dataclass(frozen=True)
class _Config:
    """config.json's parts, each checked."""

    version: int
    params: dict
    graph: dict
    history: list
    early_stopping: dict | None
    backend: str
    extra: dict
    sums: tuple[dict, dict] | None  # format 2: the arrays' and the files' records


class _RunReader:
    """One reading of a run directory: the files in order, each check raising for its file."""

    def __init__(self, path: Path, defaults: Mapping[str, object], check_params: Callable[[dict], None]):
        self.path = path
        self.defaults = defaults
        self.check_params = check_params

    def fail(self, member: str | None, problem: str) -> GraphFormatError:
        return GraphFormatError(str(self.path / member) if member else str(self.path), problem)

    def read(self) -> RunContents:
        self.check_files()
        config = self.config(self.json_object("config.json", self.read_bytes("config.json")))
        nodes_raw = self.read_bytes("nodes.json")
        nodes = self.json_object("nodes.json", nodes_raw)
        names = self.names(nodes, config.graph)
        labels = self.labels(nodes, len(names))
        tensors = self.tensors()
        notes: tuple[str, ...] = ()
        if config.sums is not None:
            self.check_sums(config.sums, nodes_raw, tensors)
        else:
            notes = ("saved in run format 1, before checksums: checked for consistency, but an edited "
                     "embedding cannot be detected; save it again to add checksums",)
        graph = self.graph(names, labels, config.graph, tensors)
        embedding = self.embedding(tensors["embedding"], graph.num_nodes, config.params["dim"])
        hood = self.neighborhoods(graph, tensors, config.params["neighborhood"])
        tracked = _read_tracked(self, graph, tensors, hood, config.params, len(config.history))
        state = GoatState(graph=graph, embedding=embedding, neighborhoods=hood, history=config.history,
                          backend=config.backend, early_stopping=config.early_stopping, tracked=tracked)
        return RunContents(config.params, state, config.extra, notes)

    # -- the files
    def check_files(self) -> None:
        if not self.path.is_dir():
            what = "no such directory" if not self.path.exists() else "a file, not a run directory"
            raise self.fail(None, f"not a GOAT run directory: {what}")
        for name in FILES:
            file = self.path / name
            if file.is_symlink():
                raise self.fail(name, "is a symbolic link: a run's files must be regular files in its "
                                      "directory (copy the file in)")
            if not file.exists():
                raise self.fail(None, f"not a GOAT run directory: {name} is missing")
            if not regular_file(file):
                raise self.fail(name, "is not a regular file")
            if file.stat().st_size == 0:
                raise self.fail(name, "is empty: the run was not saved completely")

    def read_bytes(self, name: str, size: int = -1) -> bytes:
        try:
            with open(self.path / name, "rb") as file:
                return file.read(size)
        except OSError as err:
            raise self.fail(name, f"cannot be read ({err.strerror or type(err).__name__})") from None

    def json_object(self, name: str, raw: bytes) -> dict:
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise self.fail(name, "is not UTF-8 text: not a file GOAT Explorer wrote") from None
        except json.JSONDecodeError as err:
            raise self.fail(name, f"is not valid JSON ({err.msg} at line {err.lineno}, column "
                                  f"{err.colno})") from None
        except ValueError as err:  # a NaN or an infinity (our words), or a number too long to read
            why = str(err) if "JSON allows" in str(err) else "a number with too many digits"
            raise self.fail(name, f"is not valid JSON ({why})") from None
        except RecursionError:
            raise self.fail(name, "is not valid JSON (nested too deeply)") from None
        if not isinstance(data, dict):
            raise self.fail(name, f"must hold a JSON object (config.json and nodes.json must each hold a "
                                  f"JSON object), got a {type(data).__name__}")
        return data

    # -- config.json
    def config(self, config: dict) -> _Config:
        version = self.check_format(config)
        if version >= 2 and config["sha256"] != config_sha256(config):
            raise self.fail("config.json", "was changed after the run was saved (its SHA-256 is not the one "
                                           "it records)")
        params = self.params(config["params"], version)
        meta = self.graph_meta(config["graph"])
        history = self.history(config["history"], params)
        stopping = self.stopping(config.get("early_stopping"), history, params)
        backend = config.get("backend", "")
        if not isinstance(backend, str) or backend not in BACKEND_NAMES:
            known = ", ".join(map(repr, BACKEND_NAMES[1:]))
            raise self.fail("config.json", f"backend must be one of {known}, got {backend!r}")
        extra = config.get("extra", {})
        if not isinstance(extra, dict):
            raise self.fail("config.json", "extra must be a JSON object")
        sums = self.recorded_sums(config) if version >= 2 else None
        return _Config(version, params, meta, history, stopping, backend, extra, sums)

    def check_format(self, config: dict) -> int:
        if "format_version" not in config:
            raise self.fail("config.json", "has no format_version: not a GOAT run's config")
        version = config["format_version"]
        if not _int(version):
            raise self.fail("config.json", f"format_version must be a whole number, got {version!r}")
        if version not in READABLE_FORMATS:
            why = ("newer than this version of GOAT Explorer reads (formats 1 and 2): update GOAT Explorer"
                   if version > FORMAT_VERSION else "which GOAT Explorer never wrote (it reads 1 and 2)")
            raise self.fail("config.json", f"the run is in format {version}, {why}")
        allowed = CONFIG_KEYS + (CHECKSUM_KEYS if version >= 2 else ())
        unknown = [key for key in config if key not in allowed]
        if unknown:
            raise self.fail("config.json", f"unknown key {unknown[0]!r} (a format-{version} run's config "
                                           f"holds only {', '.join(allowed)})")
        required = ("params", "graph", "history") + (CHECKSUM_KEYS if version >= 2 else ())
        missing = [key for key in required if key not in config]
        if missing:
            raise self.fail("config.json", f"{missing[0]!r} is missing")
        return version

    def params(self, params: object, version: int) -> dict:
        if not isinstance(params, dict):
            raise self.fail("config.json", "params must be a JSON object")
        unknown = [name for name in params if name not in self.defaults]
        if unknown:
            raise self.fail("config.json", f"params: unknown parameter {unknown[0]!r}; known: "
                                           f"{', '.join(self.defaults)}")
        missing = [name for name in self.defaults if name not in params]
        if missing and version >= 2:
            raise self.fail("config.json", f"params: {missing[0]!r} is missing (a format-{version} run holds "
                                           "every parameter)")
        params = {**self.defaults, **LEGACY_PARAMS, **params}  # format 1: what those runs did
        try:
            self.check_params(params)
        except GoatError as err:
            raise self.fail("config.json", f"params: {err}") from None
        return params

    def graph_meta(self, meta: object) -> dict:
        if not isinstance(meta, dict):
            raise self.fail("config.json", "graph must be a JSON object")
        unknown = [key for key in meta if key not in GRAPH_KEYS]
        missing = [key for key in GRAPH_KEYS if key not in meta]
        if unknown or missing:
            problem = f"unknown key {unknown[0]!r}" if unknown else f"{missing[0]!r} is missing"
            raise self.fail("config.json", f"graph: {problem} (it holds {', '.join(GRAPH_KEYS)})")
        for key, kind in (("source", str), ("directed", bool), ("weighted", bool), ("fingerprint", str)):
            if not isinstance(meta[key], kind):
                raise self.fail("config.json", f"graph: {key} must be a {kind.__name__}, got {meta[key]!r}")
        for key in ("nodes", "edges"):
            if not (_int(meta[key]) and meta[key] >= 1):
                raise self.fail("config.json", f"graph: {key} must be a whole number >= 1, got {meta[key]!r}")
        return meta

    def history(self, rows: object, params: dict) -> list:
        """One row per epoch trained (1, 2, ...), each with a finite loss; the app draws them."""
        if not isinstance(rows, list):
            raise self.fail("config.json", "history must be a list of {epoch, loss, ...} rows")
        for k, row in enumerate(rows, start=1):
            if not _history_row(row, k):
                raise self.fail("config.json", f"history must be a list of {{epoch, loss, ...}} rows: row "
                                               f"{k} is not epoch {k} with a finite loss (got {_short(row)})")
        if len(rows) > params["epochs"]:
            raise self.fail("config.json", f"history has {len(rows)} epochs, more than params' epochs "
                                           f"({params['epochs']})")
        return rows

    def stopping(self, stopping: object, history: list, params: dict) -> dict | None:
        """Early stopping's record: None, or the best epoch among the validation AUCs of the epochs
        tried, which is how many epochs the kept model trained."""
        if stopping is None:
            if len(history) != params["epochs"]:
                raise self.fail("config.json", f"history has {len(history)} epochs but the run trained "
                                               f"{params['epochs']} (params' epochs, no early stopping)")
            return None
        if not isinstance(stopping, dict):
            raise self.fail("config.json", "early_stopping must be a JSON object or null")
        if set(stopping) != set(STOPPING_KEYS):
            raise self.fail("config.json", f"early_stopping must hold exactly {', '.join(STOPPING_KEYS)}")
        if stopping["fraction"] != params["validation_fraction"] or not params["validation_fraction"] > 0:
            raise self.fail("config.json", f"early_stopping is recorded for a validation fraction of "
                                           f"{_short(stopping['fraction'])}, but params' validation_fraction "
                                           f"is {params['validation_fraction']}")
        aucs, best = stopping["val_auc"], stopping["best_epoch"]
        tried = aucs if isinstance(aucs, list) and all(a is None or (_finite(a) and 0 <= a <= 1)
                                                       for a in aucs) else None
        if tried is None or not (_int(best) and 1 <= best <= max(len(tried), 1)):
            raise self.fail("config.json", "early_stopping must hold best_epoch among its val_auc list "
                                           "(validation AUCs in [0, 1] or null)")
        if stopping["epochs_tried"] != len(tried) or not (_int(stopping["validation_edges"])
                                                           and stopping["validation_edges"] >= 1):
            raise self.fail("config.json", "early_stopping: epochs_tried must count its val_auc list and "
                                           "validation_edges be a whole number >= 1")
        if best != len(history):
            raise self.fail("config.json", f"early_stopping chose {best} epochs but history has "
                                           f"{len(history)}")
        return stopping

    # -- nodes.json
    def names(self, nodes: dict, meta: dict) -> tuple[str, ...]:
        unknown = [key for key in nodes if key not in ("names", "labels")]
        if unknown:
            raise self.fail("nodes.json", f"unknown key {unknown[0]!r} (it holds names and, optionally, "
                                          "labels)")
        names = nodes.get("names")
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise self.fail("nodes.json", "names must be a list of strings (node names must be strings)")
        if len(names) != meta["nodes"]:
            raise self.fail("nodes.json", f"holds {len(names)} names but config.json's graph has "
                                          f"{meta['nodes']} nodes")
        problem = next(filter(None, map(name_problem, names)), None)
        if problem:
            raise self.fail("nodes.json", problem)
        seen: dict[str, int] = {}
        for i, name in enumerate(names):
            first = seen.setdefault(nfc(name), i)
            if first != i:
                how = "twice" if names[first] == name else f"as {names[first]!r} and {name!r} (NFC and NFD)"
                raise self.fail("nodes.json", f"node names must be distinct: {name!r} is written {how}")
        return tuple(names)

    def labels(self, nodes: dict, n: int) -> NodeLabels | None:
        info = nodes.get("labels")
        if info is None:
            return None
        if not isinstance(info, dict) or set(info) - set(LABEL_KEYS) or not {"codes", "classes"} <= set(info):
            raise self.fail("nodes.json", "labels must be a JSON object with codes, classes and source")
        codes, classes, source = info["codes"], info["classes"], info.get("source", "")
        if not (isinstance(classes, list) and classes and all(isinstance(c, str) for c in classes)
                and len(set(classes)) == len(classes)):
            raise self.fail("nodes.json", "labels: classes must be a list of distinct strings")
        if not isinstance(codes, list) or len(codes) != n or not all(_int(c) for c in codes):
            raise self.fail("nodes.json", f"labels: codes must be {n} whole numbers, one per node")
        if not all(-1 <= c < len(classes) for c in codes):
            raise self.fail("nodes.json", f"labels: label codes do not match the nodes and classes (each "
                                          f"must be -1 or a class number 0..{len(classes) - 1})")
        if not isinstance(source, str):
            raise self.fail("nodes.json", "labels: source must be a string")
        return NodeLabels(np.asarray(codes, dtype=np.int64), tuple(classes), source=source)

    # -- weights.pt
    def tensors(self) -> dict[str, torch.Tensor]:
        loaded = self.load_weights()
        if isinstance(loaded, torch.Tensor):
            raise self.fail("weights.pt", "holds a single tensor, not a run's named tensors (embedding, "
                                          "src, ...)")
        if not isinstance(loaded, dict):
            raise self.fail("weights.pt", f"holds a {type(loaded).__name__}, not a run's named tensors")
        for key, value in loaded.items():
            if not isinstance(key, str):
                raise self.fail("weights.pt", f"holds a tensor under the key {key!r}, which is not a name")
            if not isinstance(value, torch.Tensor) or value.layout != torch.strided or value.is_quantized \
                    or value.device.type != "cpu":
                raise self.fail("weights.pt", f"{key} is not a plain tensor (got {type(value).__name__})")
        missing = [key for key in REQUIRED_TENSORS if key not in loaded]
        if missing:
            raise self.fail("weights.pt", f"the tensor {missing[0]!r} is missing")
        optional = ("attr_", "tracked_")
        unknown = [key for key in loaded if key not in REQUIRED_TENSORS and not key.startswith(optional)]
        if unknown:
            raise self.fail("weights.pt", f"holds an unknown tensor {unknown[0]!r}")
        return {key: value.detach() for key, value in loaded.items()}

    def load_weights(self) -> object:
        """torch.load with weights_only=True; its errors (whose text can invite unpickling the
        file) become this file's problem in our words."""
        if not self.read_bytes("weights.pt", 4).startswith(TORCH_MAGIC):
            raise self.fail("weights.pt", "is not a weights file GOAT Explorer saved (not a torch file: "
                                          "text, or another kind of file)")
        try:
            return torch.load(self.path / "weights.pt", map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as err:
            if "weights only" in str(err).lower():
                raise self.fail("weights.pt", "holds Python objects besides tensors, which GOAT Explorer "
                                              "never loads") from None
            raise self.fail("weights.pt", "is not a weights file GOAT Explorer saved (unreadable)") from None
        except Exception:  # torch.load's errors are many (a damaged zip, an old format): one line
            raise self.fail("weights.pt", "is not a weights file GOAT Explorer saved (damaged, or "
                                          "unreadable as named tensors)") from None

    def check_sums(self, sums: tuple[dict, dict], nodes_raw: bytes, tensors: dict[str, torch.Tensor]
                   ) -> None:
        """Format 2: nodes.json's bytes and each array as config.json recorded them when saved."""
        arrays, files = sums
        if sha256(nodes_raw) != files["nodes.json"]["sha256"]:
            raise self.fail("nodes.json", "was changed after the run was saved (its SHA-256 is not the one "
                                          "config.json records)")
        for name in arrays:
            if name not in tensors:
                raise self.fail("weights.pt", f"the tensor {name!r} that config.json records is missing")
        for name, tensor in tensors.items():
            saved = arrays.get(name)
            if not isinstance(saved, dict) or set(saved) != {"dtype", "shape", "sha256"}:
                raise self.fail("weights.pt", f"holds the tensor {name!r}, which config.json does not "
                                              "record")
            if (saved["dtype"], saved["shape"]) != (_dtype(tensor), list(tensor.shape)):
                raise self.fail("weights.pt", f"{name} is {_dtype(tensor)} of shape {tuple(tensor.shape)}, "
                                              f"but config.json records {saved['dtype']} of shape "
                                              f"{_shape(saved['shape'])}")
            if tensor_sha256(tensor) != saved["sha256"]:
                raise self.fail("weights.pt", f"{name} was changed after the run was saved (its SHA-256 is "
                                              "not the one config.json records)")

    def recorded_sums(self, config: dict) -> tuple[dict, dict]:
        arrays, files = config["arrays"], config["files"]
        record = files.get("nodes.json") if isinstance(files, dict) else None
        if not (isinstance(record, dict) and isinstance(record.get("sha256"), str) and len(files) == 1):
            raise self.fail("config.json", "files must record nodes.json's sha256")
        if not isinstance(arrays, dict):
            raise self.fail("config.json", "arrays must be a JSON object")
        return arrays, files

    def array(self, tensors: dict, name: str, dtype: torch.dtype, shape: tuple) -> np.ndarray:
        """``tensors[name]`` as numpy, after checking its dtype and shape (-1: any length)."""
        tensor = tensors[name]
        if tensor.dtype != dtype or tensor.dim() != len(shape) or \
                any(s != -1 and s != got for s, got in zip(shape, tensor.shape, strict=True)):
            want = ", ".join("K" if s == -1 else str(s) for s in shape) + ("," if len(shape) == 1 else "")
            raise self.fail("weights.pt", f"{name} must be {str(dtype).removeprefix('torch.')} of shape "
                                          f"({want}), got {_dtype(tensor)} of shape {tuple(tensor.shape)}")
        return tensor.numpy()

    def graph(self, names: tuple[str, ...], labels: NodeLabels | None, meta: dict,
              tensors: dict[str, torch.Tensor]) -> Graph:
        n, m = len(names), meta["edges"]
        src, dst = (self.array(tensors, key, torch.int64, (m,)) for key in ("src", "dst"))
        weight = self.array(tensors, "weight", torch.float64, (m,))
        for key, ids in (("src", src), ("dst", dst)):
            if ids.min() < 0 or ids.max() >= n:
                raise self.fail("weights.pt", f"{key} holds node ids outside 0..{n - 1}")
        if (src == dst).any():
            raise self.fail("weights.pt", "src and dst hold a self-loop, which a graph never keeps")
        if not (np.isfinite(weight).all() and (weight > 0).all()):
            raise self.fail("weights.pt", "edge weights must be positive finite numbers")
        graph = Graph(names=names, src=src, dst=dst, weight=weight, directed=meta["directed"],
                      weighted=meta["weighted"], source=meta["source"], labels=labels,
                      node_attrs=self.node_attrs(tensors, n))
        if graph.fingerprint() != meta["fingerprint"]:
            raise self.fail(None, "the graph (nodes.json's names and labels, weights.pt's edges) does not "
                                  "match the fingerprint config.json records: a file was changed after the "
                                  "run was saved")
        return graph

    def node_attrs(self, tensors: dict[str, torch.Tensor], n: int) -> dict[str, np.ndarray]:
        attrs = {}
        for key in sorted(k for k in tensors if k.startswith("attr_")):
            tensor = tensors[key]
            if tuple(tensor.shape) != (n,) or not _plain_numbers(tensor):
                raise self.fail("weights.pt", f"{key} must hold one number per node ({n}), got "
                                              f"{_dtype(tensor)} of shape {tuple(tensor.shape)}")
            attrs[key.removeprefix("attr_")] = tensor.numpy()
        return attrs

    def embedding(self, tensor: torch.Tensor, n: int, dim: int) -> torch.Tensor:
        values = self.array({"embedding": tensor}, "embedding", torch.float32, (n + 1, dim))
        if not np.isfinite(values).all():
            raise self.fail("weights.pt", "the embedding holds NaN or infinite values")
        largest, bound = float(np.abs(values).max()), largest_value(dim)
        if largest > bound:  # a dot product of two rows would overflow float32: every answer NaN
            raise self.fail("weights.pt", f"the embedding holds values too large to compute with (|x| up to "
                                          f"{largest:.3g}; at most {bound:.3g} for d = {dim})")
        if values[n].any():
            raise self.fail("weights.pt", f"the embedding's padding row (row {n}, after the {n} nodes) must "
                                          "be zero")
        return tensor

    def neighborhoods(self, graph: Graph, tensors: dict, size: int) -> Neighborhoods:
        """The inference draw: ``table[u, :length[u]]`` distinct neighbors of u, the pad id n after
        them, ``length[u]`` = min(degree, N) with N = params' neighborhood."""
        n = graph.num_nodes
        table = self.array(tensors, "hood_table", torch.int64, (n, size))
        length = self.array(tensors, "hood_length", torch.int64, (n,))
        if table.min() < 0 or table.max() > n:
            raise self.fail("weights.pt", f"the neighborhood table holds ids outside 0..{n} ({n}: padding)")
        adj = Adjacency.from_graph(graph)
        degree = adj.degree.numpy()
        wrong = np.flatnonzero(length != np.minimum(degree, size))
        if len(wrong):
            u = int(wrong[0])
            raise self.fail("weights.pt", f"neighborhood lengths do not match the graph: node "
                                          f"{graph.names[u]!r} has {degree[u]} neighbors, so "
                                          f"{min(degree[u], size)} sampled, not {length[u]}")
        edges = np.repeat(np.arange(n, dtype=np.int64), degree) * n + adj.indices.numpy()  # sorted u*n+v
        for start in range(0, n, ROWS_PER_CHECK):  # in blocks of rows: the table can be large
            rows = slice(start, start + ROWS_PER_CHECK)
            problem = _hood_rows_problem(table[rows], length[rows], start, n, edges)
            if problem is not None:
                u, what = problem
                raise self.fail("weights.pt", f"the neighborhood table {what} (node {graph.names[u]!r})")
        return Neighborhoods(tensors["hood_table"], tensors["hood_length"])


def largest_value(dim: int) -> float:
    """The largest |x| an embedding of dimension ``dim`` may hold: two rows' dot product (an
    alignment entry, a score) stays 16 times below float32's largest number. Training never gets
    near it (its loss would stop being finite first)."""
    return math.sqrt(float(np.finfo(np.float32).max) / (16 * dim))


def _hood_rows_problem(table: np.ndarray, length: np.ndarray, first: int, n: int,
                       edges: np.ndarray) -> tuple[int, str] | None:
    """(node, problem) of the first bad row of a block of the neighborhood table: each row holds
    ``length`` distinct neighbors of its node (keys ``u * n + v`` in the sorted ``edges``), then
    only the pad id n; None when every row is right."""
    slots = np.arange(table.shape[1])[None, :] < length[:, None]  # (rows, N) real slots
    bad = np.flatnonzero(np.where(slots, table == n, table != n).any(axis=1))
    if len(bad):
        return first + int(bad[0]), "must hold each node's sampled neighbors first, then the pad id"
    ordered = np.sort(table, axis=1)
    twice = np.flatnonzero(((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != n)).any(axis=1))
    if len(twice):
        return first + int(twice[0]), "samples a neighbor twice in one row"
    rows, cols = np.nonzero(slots)
    wanted = (rows + first) * n + table[rows, cols]
    at = np.minimum(np.searchsorted(edges, wanted), max(len(edges) - 1, 0))
    missing = np.flatnonzero(edges[at] != wanted) if len(edges) else np.arange(len(wanted))
    if len(missing):
        return first + int(rows[missing[0]]), "gives a node a neighbor it does not have"
    return None


def _history_row(row: object, epoch: int) -> bool:
    """A history row of epoch ``epoch``: a finite loss, a finite elapsed time, a validation AUC
    in [0, 1] or none."""
    return (isinstance(row, dict) and _int(row.get("epoch")) and row["epoch"] == epoch
            and all(key in HISTORY_KEYS for key in row) and _finite(row.get("loss"))
            and (row.get("elapsed") is None or _finite(row["elapsed"]))
            and (row.get("val_auc") is None or (_finite(row["val_auc"]) and 0 <= row["val_auc"] <= 1)))


def _read_tracked(reader: _RunReader, graph: Graph, tensors: dict, hood: Neighborhoods, params: dict,
                  epochs_trained: int) -> tuple[AttentionHistory, ...]:
    """The tracked pairs' histories, checked: ids inside the node list, each pair's neighbors the
    ones the saved draw gives it, one row per epoch (0, 1, ..., the epochs trained), each side's
    attention (with its padding) a distribution, finite scores."""
    ids = _tracked_ids(reader, graph, tensors, str(params["variant"]))
    if ids is None:
        return ()
    epochs = reader.array(tensors, "tracked_epochs", torch.int64, (-1,))
    if not np.array_equal(epochs, np.arange(epochs_trained + 1)):
        raise reader.fail("weights.pt", f"tracked_epochs must be 0..{epochs_trained} (before training, then "
                                        f"every epoch trained), one per recorded row; got "
                                        f"{epochs.tolist()[:8]}")
    n, names = graph.num_nodes, graph.names
    batch = make_batch(torch.as_tensor(ids[:, 0]), torch.as_tensor(ids[:, 1]), hood,
                       bool(params["exclude_partner"]), str(params["padding"]))
    real_s, real_t = batch.mask_s & (batch.nbr_s != n), batch.mask_t & (batch.nbr_t != n)
    out = []
    for k, (s, t) in enumerate(ids.tolist()):
        pair = f"tracked pair {k} ({names[s]!r}, {names[t]!r})"
        sides = {}
        for side, nbr, real in (("source", batch.nbr_s[k], real_s[k]), ("target", batch.nbr_t[k], real_t[k])):
            sides[side] = reader.array(tensors, f"tracked_{k}_{side}_neighbors", torch.int64, (-1,))
            if not np.array_equal(sides[side], nbr[real].numpy()):
                raise reader.fail("weights.pt", f"{pair}: its {side}_neighbors are not the ones the saved "
                                                "neighborhood table gives that pair")
        widths = len(sides["source"]), len(sides["target"])
        parts = _tracked_rows(reader, tensors, k, pair, len(epochs), *widths)
        out.append(AttentionHistory(
            source=names[s], target=names[t], source_id=s, target_id=t, source_neighbors=sides["source"],
            target_neighbors=sides["target"], source_names=[names[i] for i in sides["source"]],
            target_names=[names[i] for i in sides["target"]], epochs=epochs,
            source_attention=parts["source_attention"], target_attention=parts["target_attention"],
            source_padding=parts["padding"][:, 0], target_padding=parts["padding"][:, 1],
            score=parts["scores"][:, 0], uniform_score=parts["scores"][:, 1]))
    return tuple(out)


def _tracked_ids(reader: _RunReader, graph: Graph, tensors: dict, variant: str) -> np.ndarray | None:
    """The (K, 2) tracked pairs, checked, with exactly their K pairs' tensors; None when the run
    tracked none."""
    keys = [key for key in tensors if key.startswith("tracked_")]
    if "tracked_pairs" not in tensors:
        if keys:
            raise reader.fail("weights.pt", "holds tracked attention without tracked_pairs")
        return None
    if variant == "global":
        raise reader.fail("weights.pt", "holds tracked attention, which a GoatGlobal run never has")
    n = graph.num_nodes
    ids = reader.array(tensors, "tracked_pairs", torch.int64, (-1, 2))
    if not len(ids):
        raise reader.fail("weights.pt", "tracked_pairs holds no pair (a run that tracked none has no "
                                        "tracked_pairs)")
    if ids.min() < 0 or ids.max() >= n or (ids[:, 0] == ids[:, 1]).any():
        raise reader.fail("weights.pt", f"tracked_pairs holds ids outside 0..{n - 1} or a node paired with "
                                        "itself")
    if len({tuple(pair) for pair in ids.tolist()}) != len(ids):
        raise reader.fail("weights.pt", "tracked_pairs holds a pair twice")
    expected = {"tracked_pairs", "tracked_epochs"} | {f"tracked_{k}_{part}" for k in range(len(ids))
                                                      for part in TRACKED_PARTS}
    unknown = [key for key in keys if key not in expected]
    if unknown:
        raise reader.fail("weights.pt", f"holds an unknown tensor {unknown[0]!r} ({len(ids)} pairs were "
                                        "tracked)")
    missing = sorted(expected - set(keys))
    if missing:
        raise reader.fail("weights.pt", f"the tensor {missing[0]!r} is missing")
    return ids


def _tracked_rows(reader: _RunReader, tensors: dict, k: int, pair: str, rows: int, width_s: int,
                  width_t: int) -> dict[str, np.ndarray]:
    """Tracked pair k's attention, padding and scores: finite, one row per epoch, each side's
    attention with its padding a distribution."""
    parts = {}
    for part, shape in (("source_attention", (rows, width_s)), ("target_attention", (rows, width_t)),
                        ("padding", (rows, 2)), ("scores", (rows, 2))):
        parts[part] = reader.array(tensors, f"tracked_{k}_{part}", torch.float32, shape)
        if not np.isfinite(parts[part]).all():
            raise reader.fail("weights.pt", f"{pair}: {part} must be finite numbers")
    for column, side in enumerate(("source", "target")):
        weights, pad = parts[f"{side}_attention"], parts["padding"][:, column]
        if (weights < 0).any() or (pad < 0).any() or (np.abs(weights.sum(axis=1) + pad - 1.0) > 1e-3).any():
            raise reader.fail("weights.pt", f"{pair}: {side} attention must be non-negative and sum to 1 "
                                            "(with its padding) in every row")
    return parts


def _dtype(tensor: torch.Tensor) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _plain_numbers(tensor: torch.Tensor) -> bool:
    """Real numbers numpy holds as they are (no complex, no half precision)."""
    return tensor.dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                            torch.float32, torch.float64)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _shape(value: object) -> str:
    return str(tuple(value)) if isinstance(value, list) else repr(value)
