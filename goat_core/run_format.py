"""The run directory's format, declared once, and the one reader that checks all of it.

    RUN/config.json        :class:`RunConfig`: parameters, graph facts (with its fingerprint), history,
                           early stopping, compute path, the SHA-256 of the two other files, and
                           ``sha256``: the SHA-256 of config.json's own content without it
    RUN/nodes.json         :class:`NodesFile`: node names in index order (and labels if any)
    RUN/model.safetensors  the tensors (:func:`tensor_specs`) in safetensors: a header of dtypes, shapes
                           and offsets that the safetensors library checks, then raw bytes

:func:`read_run` checks a run against that declaration (:func:`parse` follows the dataclasses), then
what only this project can check: the names against the graph's fingerprint, the neighborhood
table against the graph, the tracked pairs against the table. Any mismatch is one
:class:`GraphFormatError` naming the file and the problem. Nothing in a run is unpickled.

Runs saved before format 3 (formats 1 and 2: tensors in ``weights.pt``, by torch.save) still load
with every check: ``torch.load(weights_only=True)`` rebuilds their tensors and nothing else, and
format 2's per-array SHA-256 are checked (format 1 has none: the load's ``notes`` say so). Saving
one again (``goat convert OLD NEW``) writes format 3.
"""

from __future__ import annotations

import hashlib
import json
import math
import stat
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import get_args, get_origin, get_type_hints

import numpy as np
import safetensors.torch
import torch

from .analysis.attention import AttentionHistory
from .backends.batch import make_batch
from .data.graph import Graph, NodeLabels, name_problem, nfc
from .data.sampling import Adjacency, Neighborhoods
from .errors import GoatError, GraphFormatError
from .state import GoatState

FORMAT_VERSION = 3
TENSOR_FILE, LEGACY_TENSOR_FILE = "model.safetensors", "weights.pt"  # weights.pt: formats 1 and 2
FILES = ("config.json", "nodes.json", TENSOR_FILE)
BACKEND_NAMES = ("", "fused", "torch", "module")  # "": not recorded (runs saved before backends)
# Parameters added after format 1 began, and what the runs saved before them did.
LEGACY_PARAMS = {"padding": "mask", "validation_fraction": 0.0, "patience": 10, "optimizer": "adam"}
TRACKED_PARTS = ("source_attention", "target_attention", "padding", "scores")
ROWS_PER_CHECK = 1 << 14  # rows of the neighborhood table checked at a time (N = 100: 13 MB each)


# -- the schema of config.json and nodes.json: read by parse(), written by persistence.write_run
@dataclass
class GraphFacts:
    source: str
    directed: bool
    weighted: bool
    nodes: int
    edges: int
    fingerprint: str  # Graph.fingerprint(): names, edges, weights, labels and node attributes


@dataclass
class HistoryRow:  # one per epoch trained
    epoch: int
    loss: float
    elapsed: float | None = None
    val_auc: float | None = None


@dataclass
class Stopping:  # Goat.early_stopping_: how early stopping chose the epochs
    best_epoch: int
    epochs_tried: int
    val_auc: list
    validation_edges: int
    fraction: float


@dataclass
class RunConfig:
    format_version: int
    params: dict  # every parameter of Goat, checked by the estimator's own rules
    graph: GraphFacts
    history: list[HistoryRow]
    backend: str = ""
    early_stopping: Stopping | None = None
    extra: dict = field(default_factory=dict)  # the caller's metadata (e.g. how a split was made)
    files: dict | None = None  # formats 2, 3: {file: its SHA-256}
    arrays: dict | None = None  # format 2 only: {tensor: {dtype, shape, sha256}}
    sha256: str | None = None  # formats 2, 3: config_sha256 of the rest


@dataclass
class Labels:
    codes: list
    classes: list
    source: str = ""


@dataclass
class NodesFile:
    names: list
    labels: Labels | None = None


class SchemaError(ValueError):
    """JSON data that is not what its dataclass declares (the reader names the file)."""


KINDS = {int: "a whole number", float: "a finite number", bool: "true or false", str: "a string",
         list: "a list", dict: "a JSON object", type(None): "null"}


def parse(cls: type, data: object, where: str):
    """``data`` (parsed JSON) as the dataclass ``cls``: exactly its fields, each of its declared type
    (nested dataclasses, and lists of them, in turn); else a :class:`SchemaError` whose text starts
    with ``where`` (the path to ``data``: "" or "graph: ")."""
    if not isinstance(data, dict):
        raise SchemaError(f"{where} must be a JSON object")
    names = [f.name for f in fields(cls)]
    unknown = [key for key in data if key not in names]
    missing = [f.name for f in fields(cls) if f.name not in data and f.default is f.default_factory is MISSING]
    if unknown or missing:
        what = f"unknown key {unknown[0]!r}" if unknown else f"{missing[0]!r} is missing"
        raise SchemaError(f"{where}{what} (it holds exactly {', '.join(names)})")
    hints = get_type_hints(cls)
    return cls(**{key: _typed(value, hints[key], f"{where}{key}") for key, value in data.items()})


def _typed(value: object, hint: object, where: str):
    kinds = get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for kind in kinds:
        if is_dataclass(kind) and isinstance(value, dict):
            return parse(kind, value, f"{where}: ")
        if get_origin(kind) is list and isinstance(value, list):
            return [_typed(item, get_args(kind)[0], f"{where} row {k}") for k, item in enumerate(value, 1)]
        if kind in KINDS and _is(value, kind):
            return value
    wanted = " or ".join(KINDS.get(get_origin(kind) or kind, "a JSON object") for kind in kinds)
    raise SchemaError(f"{where} must be {wanted}, got {_short(value)}")


def _is(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def tensor_specs(n: int, m: int, params: dict) -> dict[str, tuple[torch.dtype, tuple]]:
    """The tensors every run holds: (dtype, shape) for n nodes, m edges and the parameters. Others
    are optional: ``attr_NAME`` (n,) a node attribute, and the pairs tracked during training
    (:func:`tracked_specs`)."""
    return {"embedding": (torch.float32, (n + 1, params["dim"])), "src": (torch.int64, (m,)),
            "dst": (torch.int64, (m,)), "weight": (torch.float64, (m,)),
            "hood_table": (torch.int64, (n, params["neighborhood"])), "hood_length": (torch.int64, (n,))}


def tracked_specs(rows: int, widths: list[tuple[int, int]]) -> dict[str, tuple[torch.dtype, tuple]]:
    """Pair k of ``fit(..., track_pairs=...)`` after each of ``rows`` epochs (0: before training),
    with (Ls, Lt) real neighbors in the saved draw; ``tracked_pairs`` (K, 2) holds the node ids.
    scores: r_s·r_t and its uniform-attention counterpart."""
    specs = {"tracked_epochs": (torch.int64, (rows,))}
    for k, (ls, lt) in enumerate(widths):
        specs |= {f"tracked_{k}_source_attention": (torch.float32, (rows, ls)),
                  f"tracked_{k}_target_attention": (torch.float32, (rows, lt)),
                  f"tracked_{k}_padding": (torch.float32, (rows, 2)), f"tracked_{k}_scores": (torch.float32, (rows, 2))}
    return specs


@dataclass(frozen=True)
class RunContents:
    """What :func:`read_run` found, every part checked: the parameters (legacy ones filled in), the
    learned state, the ``extra`` metadata, and notes for the user (one line each)."""

    params: dict
    state: GoatState
    extra: dict
    notes: tuple[str, ...] = ()
    tensor_file: str = TENSOR_FILE  # the file the tensors came from (weights.pt before format 3)


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
    """Whether ``path`` holds a GOAT run's config.json (a JSON object with a known format version and
    parameters), whatever the state of its other files."""
    config = path / "config.json"
    if not regular_file(config) or config.stat().st_size > 64 * 2**20:
        return False
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (ValueError, OSError, RecursionError):
        return False
    return isinstance(data, dict) and _is(data.get("format_version"), int) \
        and 1 <= data["format_version"] <= FORMAT_VERSION and isinstance(data.get("params"), dict)


def read_run(path: str | Path, defaults: Mapping[str, object], check_params: Callable[[dict], None]
             ) -> RunContents:
    """The checked contents of the run directory ``path``, or one :class:`GraphFormatError` naming
    the file (``RUN/model.safetensors: ...``) and the problem.

    ``defaults``: the estimator's parameters and their defaults; a run holds every one and no other
    (format 1 may lack those added since: they take :data:`LEGACY_PARAMS` or the default).
    ``check_params(params)`` raises a GoatError for a value the estimator refuses.
    """
    return _RunReader(Path(path), defaults, check_params).read()


class _RunReader:
    """One reading of a run directory: the files in order, each check raising for its file."""

    def __init__(self, path: Path, defaults: Mapping[str, object], check_params: Callable[[dict], None]):
        self.path, self.defaults, self.check_params = path, defaults, check_params
        self.tensor_file = TENSOR_FILE

    def fail(self, problem: str, member: str | None = None) -> GraphFormatError:
        return GraphFormatError(str(self.path / member) if member else str(self.path), problem)

    def bad(self, problem: str) -> GraphFormatError:
        return self.fail(problem, self.tensor_file)

    def read(self) -> RunContents:
        data = self.json_object("config.json")
        config = self.config(data)
        self.tensor_file = TENSOR_FILE if config.format_version == 3 else LEGACY_TENSOR_FILE
        raw = {name: self.file_bytes(name) for name in ("nodes.json", self.tensor_file)}
        if config.files is not None:  # format 2 recorded nodes.json's SHA-256, format 3 both files'
            self.check_sums(config.files, raw if config.arrays is None else {"nodes.json": raw["nodes.json"]})
        names, labels = self.nodes(config.graph)
        tensors = self.tensors(raw[TENSOR_FILE]) if config.format_version == 3 else self.legacy(config.arrays)
        params, n = config.params, len(names)
        self.expect(tensors, tensor_specs(n, config.graph.edges, params))
        unknown = [key for key in tensors if key not in tensor_specs(0, 0, params)
                   and not key.startswith(("attr_", "tracked_"))]
        if unknown:
            raise self.bad(f"holds an unknown tensor {unknown[0]!r}")
        graph = self.graph(names, labels, config.graph, tensors)
        embedding = self.embedding(tensors["embedding"].numpy(), n)
        hood = self.neighborhoods(graph, tensors["hood_table"].numpy(), tensors["hood_length"].numpy())
        tracked = self.tracked(graph, tensors, hood, params, len(config.history))
        state = GoatState(graph=graph, embedding=embedding, neighborhoods=hood, history=data["history"],
                          backend=config.backend, early_stopping=data.get("early_stopping"), tracked=tracked)
        notes = () if config.files else ("saved in run format 1, before checksums: checked for consistency, "
                                         "but an edited embedding cannot be detected; save it again to add "
                                         "checksums",)
        return RunContents(params, state, config.extra, notes, self.tensor_file)

    # -- the files
    def file_bytes(self, name: str) -> bytes:
        """The bytes of the run's file ``name``: a regular, non-empty file in the run directory."""
        file = self.path / name
        if not self.path.is_dir():
            raise self.fail("not a GOAT run directory: " + ("a file, not a run directory" if self.path.exists()
                                                            else "no such directory"))
        if file.is_symlink():
            raise self.fail("is a symbolic link: a run's files must be regular files in its directory", name)
        if not file.exists():
            raise self.fail(f"not a GOAT run directory: {name} is missing")
        if not regular_file(file):
            raise self.fail("is not a regular file", name)
        try:
            raw = file.read_bytes()
        except OSError as err:
            raise self.fail(f"cannot be read ({err.strerror or type(err).__name__})", name) from None
        if not raw:
            raise self.fail("is empty: the run was not saved completely", name)
        return raw

    def json_object(self, name: str) -> dict:
        raw = self.file_bytes(name)
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except UnicodeDecodeError:
            raise self.fail("is not UTF-8 text: not a file GOAT Explorer wrote", name) from None
        except json.JSONDecodeError as err:
            raise self.fail(f"is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})", name) \
                from None
        except ValueError as err:  # a NaN or an infinity (our words), or a number too long to read
            why = str(err) if "JSON allows" in str(err) else "a number with too many digits"
            raise self.fail(f"is not valid JSON ({why})", name) from None
        except RecursionError:
            raise self.fail("is not valid JSON (nested too deeply)", name) from None
        if not isinstance(data, dict):
            raise self.fail(f"must hold a JSON object (config.json and nodes.json must each hold a JSON "
                            f"object), got a {type(data).__name__}", name)
        return data

    def parse(self, name: str, cls: type, data: dict):
        try:
            return parse(cls, data, "")
        except SchemaError as err:
            raise self.fail(str(err), name) from None

    def check_sums(self, files: dict, raw: dict[str, bytes]) -> None:
        if set(files) != set(raw):
            raise self.fail(f"files must record the SHA-256 of {' and '.join(raw)}", "config.json")
        for name, sha in files.items():  # format 2 wrote {"sha256": ...}
            if sha256(raw[name]) != (sha.get("sha256") if isinstance(sha, dict) else sha):
                raise self.fail("was changed after the run was saved (its SHA-256 is not the one config.json "
                                "records)", name)

    # -- config.json
    def config(self, data: dict) -> RunConfig:
        def fail(problem: str) -> GraphFormatError:
            return self.fail(problem, "config.json")

        if "format_version" not in data:
            raise fail("has no format_version: not a GOAT run's config")
        version = data["format_version"]
        if not _is(version, int):
            raise fail(f"format_version must be a whole number, got {version!r}")
        if not 1 <= version <= FORMAT_VERSION:
            why = "newer than this version of GOAT Explorer reads: update it" if version > FORMAT_VERSION \
                else "which GOAT Explorer never wrote"
            raise fail(f"the run is in format {version}, {why} (it reads formats 1 to {FORMAT_VERSION})")
        if version > 1 and "sha256" in data and data["sha256"] != config_sha256(data):
            raise fail("was changed after the run was saved (its SHA-256 is not the one it records)")
        config = self.parse("config.json", RunConfig, data)
        sealed = {1: (), 2: ("files", "arrays", "sha256"), 3: ("files", "sha256")}[version]
        if any((getattr(config, key) is not None) != (key in sealed) for key in ("files", "arrays", "sha256")):
            raise fail(f"a format-{version} run's config records exactly {', '.join(sealed) or 'no checksum'}")
        if config.backend not in BACKEND_NAMES:
            raise fail(f"backend must be one of {', '.join(map(repr, BACKEND_NAMES[1:]))}, got {config.backend!r}")
        if min(config.graph.nodes, config.graph.edges) < 1:
            raise fail("graph: nodes and edges must be whole numbers >= 1")
        config.params = params = self.params(config.params, version)
        for k, row in enumerate(config.history, start=1):
            if row.epoch != k or not (row.val_auc is None or 0 <= row.val_auc <= 1):
                raise fail(f"history: row {k} must be epoch {k} (with a validation AUC in [0, 1], if any)")
        epochs, stopping = len(config.history), config.early_stopping
        if epochs > params["epochs"] or (stopping is None and epochs != params["epochs"]):
            raise fail(f"history has {epochs} epochs but the run trained {params['epochs']} (params' epochs"
                       + (", no early stopping)" if stopping is None else ")"))
        if stopping is not None:
            self.stopping(stopping, epochs, params["validation_fraction"])
        return config

    def params(self, params: dict, version: int) -> dict:
        unknown = [name for name in params if name not in self.defaults]
        if unknown:
            raise self.fail(f"params: unknown parameter {unknown[0]!r}; known: {', '.join(self.defaults)}",
                            "config.json")
        missing = [name for name in self.defaults if name not in params]
        if missing and version >= 2:
            raise self.fail(f"params: {missing[0]!r} is missing (a format-{version} run holds every parameter)",
                            "config.json")
        params = {**self.defaults, **LEGACY_PARAMS, **params}  # format 1: what those runs did
        try:
            self.check_params(params)
        except GoatError as err:
            raise self.fail(f"params: {err}", "config.json") from None
        return params

    def stopping(self, stopping: Stopping, epochs: int, fraction: float) -> None:
        """The best epoch among the validation AUCs of the epochs tried: the epochs the model trained."""
        aucs, best = stopping.val_auc, stopping.best_epoch
        problem = (
            f"is recorded for a validation fraction of {stopping.fraction}, but params' validation_fraction "
            f"is {fraction}" if stopping.fraction != fraction or not fraction > 0 else
            "must hold best_epoch among its val_auc list (validation AUCs in [0, 1] or null)"
            if not (all(a is None or (_is(a, float) and 0 <= a <= 1) for a in aucs) and 1 <= best <= len(aucs))
            else "epochs_tried must count its val_auc list and validation_edges be a whole number >= 1"
            if stopping.epochs_tried != len(aucs) or stopping.validation_edges < 1 else
            f"chose {best} epochs but history has {epochs}" if best != epochs else None)
        if problem:
            raise self.fail(f"early_stopping {problem}", "config.json")

    # -- nodes.json
    def nodes(self, facts: GraphFacts) -> tuple[tuple[str, ...], NodeLabels | None]:
        nodes = self.parse("nodes.json", NodesFile, self.json_object("nodes.json"))
        names = nodes.names
        if not all(isinstance(name, str) for name in names):
            raise self.fail("names must be a list of strings (node names must be strings)", "nodes.json")
        if len(names) != facts.nodes:
            raise self.fail(f"holds {len(names)} names but config.json's graph has {facts.nodes} nodes",
                            "nodes.json")
        problem = next(filter(None, map(name_problem, names)), None)
        seen: dict[str, int] = {}
        for i, name in enumerate(names if problem is None else ()):
            first = seen.setdefault(nfc(name), i)
            if first != i:
                how = "twice" if names[first] == name else f"as {names[first]!r} and {name!r} (NFC and NFD)"
                problem = f"node names must be distinct: {name!r} is written {how}"
                break
        if problem:
            raise self.fail(problem, "nodes.json")
        return tuple(names), self.labels(nodes.labels, len(names))

    def labels(self, labels: Labels | None, n: int) -> NodeLabels | None:
        if labels is None:
            return None
        codes, classes = labels.codes, labels.classes
        problem = (
            "classes must be a list of distinct strings" if not classes or len(set(map(str, classes))) !=
            len(classes) or not all(isinstance(c, str) for c in classes) else
            f"codes must be {n} whole numbers, one per node" if len(codes) != n or not all(_is(c, int)
                                                                                          for c in codes) else
            f"label codes do not match the nodes and classes (each must be -1 or a class number "
            f"0..{len(classes) - 1})" if not all(-1 <= c < len(classes) for c in codes) else None)
        if problem:
            raise self.fail(f"labels: {problem}", "nodes.json")
        return NodeLabels(np.asarray(codes, dtype=np.int64), tuple(classes), source=labels.source)

    # -- the tensors
    def tensors(self, raw: bytes) -> dict[str, torch.Tensor]:
        try:
            return safetensors.torch.load(raw)
        except safetensors.SafetensorError:
            raise self.bad("is not a tensors file GOAT Explorer saved (not safetensors: damaged, or another "
                           "kind of file)") from None

    def legacy(self, arrays: dict | None) -> dict[str, torch.Tensor]:
        """Formats 1, 2: weights.pt by torch's tensors-only loader; format 2's per-array SHA-256 checked.
        The tracked pairs' neighbors it holds are the saved draw's, which format 3 derives."""
        try:
            loaded = torch.load(self.path / LEGACY_TENSOR_FILE, map_location="cpu", weights_only=True)
        except Exception:  # its errors are many, and their text can invite unpickling: one line
            raise self.bad("is not a weights file GOAT Explorer saved (damaged, or more than named tensors)") \
                from None
        if not (isinstance(loaded, dict) and all(isinstance(key, str) and isinstance(t, torch.Tensor)
                                                 and t.layout == torch.strided for key, t in loaded.items())):
            raise self.bad("holds something other than a run's named tensors")
        for name in (set(arrays) | set(loaded)) if arrays is not None else ():
            record = arrays.get(name)
            if name not in loaded or not isinstance(record, dict) or record.get("sha256") != sha256(
                    _bytes(loaded[name])):
                raise self.bad(f"{name} was changed after the run was saved (its SHA-256 is not the one "
                               "config.json records)")
        return {key: t.contiguous() for key, t in loaded.items()
                if not (key.startswith("tracked_") and key.endswith("_neighbors"))}

    def expect(self, tensors: dict[str, torch.Tensor], specs: dict[str, tuple[torch.dtype, tuple]]) -> None:
        for name, (dtype, shape) in specs.items():
            if name not in tensors:
                raise self.bad(f"the tensor {name!r} is missing")
            tensor = tensors[name]
            if tensor.dtype != dtype or tuple(tensor.shape) != shape:
                raise self.bad(f"{name} must be {_dtype(dtype)} of shape {shape}, got {_dtype(tensor.dtype)} "
                               f"of shape {tuple(tensor.shape)}")

    def graph(self, names: tuple, labels: NodeLabels | None, facts: GraphFacts, tensors: dict) -> Graph:
        n, src, dst, weight = len(names), *(tensors[key].numpy() for key in ("src", "dst", "weight"))
        if min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n or (src == dst).any():
            raise self.bad(f"src and dst must hold node ids in 0..{n - 1}, and no self-loop")
        if not (np.isfinite(weight).all() and (weight > 0).all()):
            raise self.bad("edge weights must be positive finite numbers")
        attrs = {key: tensors[key] for key in sorted(tensors) if key.startswith("attr_")}
        for key, tensor in attrs.items():
            if tuple(tensor.shape) != (n,) or tensor.dtype not in PLAIN_DTYPES:
                raise self.bad(f"{key} must hold one number per node ({n}), got {_dtype(tensor.dtype)} of "
                               f"shape {tuple(tensor.shape)}")
        graph = Graph(names=names, src=src, dst=dst, weight=weight, directed=facts.directed,
                      weighted=facts.weighted, source=facts.source, labels=labels,
                      node_attrs={key.removeprefix("attr_"): t.numpy() for key, t in attrs.items()})
        if graph.fingerprint() != facts.fingerprint:
            raise self.fail(f"the graph (nodes.json's names and labels, {self.tensor_file}'s edges) does not "
                            "match the fingerprint config.json records: a file was changed after saving")
        return graph

    def embedding(self, values: np.ndarray, n: int) -> torch.Tensor:
        if not np.isfinite(values).all():
            raise self.bad("the embedding holds NaN or infinite values")
        largest, bound = float(np.abs(values).max()), largest_value(values.shape[1])
        if largest > bound:  # a dot product of two rows would overflow float32: every answer NaN
            raise self.bad(f"the embedding holds values too large to compute with (|x| up to {largest:.3g}; "
                           f"at most {bound:.3g} for d = {values.shape[1]})")
        if values[n].any():
            raise self.bad(f"the embedding's padding row (row {n}, after the {n} nodes) must be zero")
        return torch.from_numpy(values)

    def neighborhoods(self, graph: Graph, table: np.ndarray, length: np.ndarray) -> Neighborhoods:
        """The inference draw: ``table[u, :length[u]]`` distinct neighbors of u, the pad id n after
        them, ``length[u]`` = min(degree, N) with N = params' neighborhood."""
        n, size = table.shape
        if table.size and (table.min() < 0 or table.max() > n):
            raise self.bad(f"the neighborhood table holds ids outside 0..{n} ({n}: padding)")
        adj = Adjacency.from_graph(graph)
        degree = adj.degree.numpy()
        wrong = np.flatnonzero(length != np.minimum(degree, size))
        if len(wrong):
            u = int(wrong[0])
            raise self.bad(f"neighborhood lengths do not match the graph: node {graph.names[u]!r} has "
                           f"{degree[u]} neighbors, so {min(degree[u], size)} sampled, not {length[u]}")
        edges = np.repeat(np.arange(n, dtype=np.int64), degree) * n + adj.indices.numpy()  # sorted u*n+v
        for start in range(0, n, ROWS_PER_CHECK):  # in blocks of rows: the table can be large
            rows = slice(start, start + ROWS_PER_CHECK)
            problem = _hood_rows_problem(table[rows], length[rows], start, n, edges)
            if problem is not None:
                raise self.bad(f"the neighborhood table {problem[1]} (node {graph.names[problem[0]]!r})")
        return Neighborhoods(torch.from_numpy(table), torch.from_numpy(length))

    def tracked(self, graph: Graph, tensors: dict, hood: Neighborhoods, params: dict, epochs: int
                ) -> tuple[AttentionHistory, ...]:
        """The tracked pairs: distinct pairs of nodes, with their attention (over the neighbors the
        saved draw gives each side), padding and scores before training and after each epoch, each
        side's attention (with its padding) a distribution."""
        if "tracked_pairs" not in tensors:
            if any(key.startswith("tracked_") for key in tensors):
                raise self.bad("holds tracked attention without tracked_pairs")
            return ()
        if params["variant"] == "global":
            raise self.bad("holds tracked attention, which a GoatGlobal run never has")
        n, names, ids = graph.num_nodes, graph.names, tensors["tracked_pairs"]
        self.expect(tensors, {"tracked_pairs": (torch.int64, (len(ids) if ids.dim() else 0, 2))})
        if not len(ids) or ids.min() < 0 or ids.max() >= n or (ids[:, 0] == ids[:, 1]).any() \
                or len(set(map(tuple, ids.tolist()))) != len(ids):
            raise self.bad(f"tracked_pairs must hold distinct pairs of two node ids in 0..{n - 1}")
        batch = make_batch(ids[:, 0], ids[:, 1], hood, bool(params["exclude_partner"]), str(params["padding"]))
        real = [(batch.nbr_s[k][batch.mask_s[k] & (batch.nbr_s[k] != n)].numpy(),
                 batch.nbr_t[k][batch.mask_t[k] & (batch.nbr_t[k] != n)].numpy()) for k in range(len(ids))]
        specs = tracked_specs(epochs + 1, [(len(s), len(t)) for s, t in real])
        unknown = [key for key in tensors if key.startswith("tracked_") and key not in {*specs, "tracked_pairs"}]
        if unknown:
            raise self.bad(f"holds an unknown tensor {unknown[0]!r} ({len(ids)} pairs were tracked)")
        self.expect(tensors, specs)
        if not torch.equal(tensors["tracked_epochs"], torch.arange(epochs + 1)):
            raise self.bad(f"tracked_epochs must be 0..{epochs} (before training, then every epoch trained)")
        out = []
        for k, ((s, t), (nbr_s, nbr_t)) in enumerate(zip(ids.tolist(), real, strict=True)):
            parts = {part: tensors[f"tracked_{k}_{part}"].numpy() for part in TRACKED_PARTS}
            for column, side in enumerate(("source", "target")):
                weights, pad = parts[f"{side}_attention"], parts["padding"][:, column]
                if not (np.isfinite(weights).all() and np.isfinite(parts["scores"]).all() and (weights >= 0).all()
                        and (pad >= 0).all() and (np.abs(weights.sum(axis=1) + pad - 1.0) <= 1e-3).all()):
                    raise self.bad(f"tracked pair {k} ({names[s]!r}, {names[t]!r}): {side} attention must be "
                                   "non-negative and sum to 1 (with its padding) in every row, scores finite")
            out.append(AttentionHistory(
                source=names[s], target=names[t], source_id=s, target_id=t, source_neighbors=nbr_s,
                target_neighbors=nbr_t, source_names=[names[i] for i in nbr_s], target_names=[names[i] for i in nbr_t],
                epochs=tensors["tracked_epochs"].numpy(), source_attention=parts["source_attention"],
                target_attention=parts["target_attention"], source_padding=parts["padding"][:, 0],
                target_padding=parts["padding"][:, 1], score=parts["scores"][:, 0], uniform_score=parts["scores"][:, 1]))
        return tuple(out)


PLAIN_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float32,
                torch.float64)  # numbers numpy holds as they are (no complex, no half precision)


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


def _bytes(tensor: torch.Tensor) -> bytes:
    """The tensor's bytes in C order, whatever its dtype (format 2 recorded their SHA-256)."""
    return tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _short(value: object) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
