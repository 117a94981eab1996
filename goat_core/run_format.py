"""The run directory's format, declared once, and the one reader that checks all of it.

    RUN/config.json        :class:`RunConfig`: parameters, graph facts (with its fingerprint), history,
                           early stopping, compute path, the SHA-256 of the two other files, and
                           ``sha256``, that of config.json's own content without it
    RUN/nodes.json         :class:`NodesFile`: node names in index order (and labels if any)
    RUN/model.safetensors  the tensors (:func:`tensor_specs`, :func:`tracked_specs`)

:func:`read_run` checks a run against that declaration, then what only this project can check: the
names against the graph's fingerprint, the neighborhood table against the graph, the tracked pairs
against the table. Any mismatch is one :class:`GraphFormatError` naming the file and the problem.
Nothing is unpickled. Runs saved before format 3 (``weights.pt``) are read through :mod:`.legacy_runs`.
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
from typing import Any, get_args, get_origin, get_type_hints

import numpy as np
import safetensors.torch
import torch

from .analysis.attention import AttentionHistory
from .backends.batch import make_batch
from .data.graph import Graph, NodeLabels, name_problem, nfc
from .data.sampling import Adjacency, Neighborhoods
from .errors import GoatError, GraphFormatError
from .legacy_runs import upgrade
from .state import GoatState

FORMAT_VERSION = 3
TENSOR_FILE = "model.safetensors"
FILES = ("config.json", "nodes.json", TENSOR_FILE)
BACKEND_NAMES = ("", "fused", "torch", "module")  # "": not recorded (runs saved before backends)
ROWS_PER_CHECK = 1 << 14  # rows of the neighborhood table checked at a time (N = 100: 13 MB each)
PLAIN_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float32,
                torch.float64)  # node attributes: numbers numpy holds as they are
Specs = dict[str, tuple[torch.dtype, tuple]]  # tensor name: (dtype, shape)


# -- config.json and nodes.json, declared: read by parse(), written by persistence.write_run
AT_LEAST_1 = {"bounds": (1, math.inf)}  # field metadata: parse() checks the value (each, for a list)
PROBABILITY = {"bounds": (0, 1)}


@dataclass
class GraphFacts:
    source: str
    directed: bool
    weighted: bool
    nodes: int = field(metadata=AT_LEAST_1)
    edges: int = field(metadata=AT_LEAST_1)
    fingerprint: str  # Graph.fingerprint(): names, edges, weights, labels and node attributes


@dataclass
class HistoryRow:  # one per epoch trained
    epoch: int
    loss: float
    elapsed: float | None = None
    val_auc: float | None = field(default=None, metadata=PROBABILITY)


@dataclass
class Stopping:  # Goat.early_stopping_: how early stopping chose the number of epochs
    best_epoch: int = field(metadata=AT_LEAST_1)
    epochs_tried: int = field(metadata=AT_LEAST_1)
    val_auc: list[float | None] = field(metadata=PROBABILITY)
    validation_edges: int = field(metadata=AT_LEAST_1)
    fraction: float = field(metadata=PROBABILITY)


@dataclass
class RunConfig:
    format_version: int
    params: dict  # every parameter of Goat, checked by the estimator's own rules
    graph: GraphFacts
    history: list[HistoryRow]
    files: dict  # {"nodes.json": its SHA-256, "model.safetensors": its SHA-256}
    sha256: str  # config_sha256 of the rest
    backend: str = ""
    early_stopping: Stopping | None = None
    extra: dict = field(default_factory=dict)  # the caller's metadata (e.g. how a split was made)


@dataclass
class Labels:
    codes: list[int]
    classes: list[str]
    source: str = ""


@dataclass
class NodesFile:
    names: list[str]
    labels: Labels | None = None


class SchemaError(ValueError):
    """JSON data that is not what its dataclass declares (the reader names the file)."""


KINDS = {int: "a whole number", float: "a finite number", bool: "true or false", str: "a string",
         list: "a list", dict: "a JSON object", type(None): "null"}


def parse(cls: Any, data: object, where: str = "") -> Any:
    """``data`` (parsed JSON) as the dataclass ``cls``: exactly its fields, each of its declared type
    (nested dataclasses, and lists of them, in turn) and within its bounds; else a :class:`SchemaError`."""
    if not isinstance(data, dict):
        raise SchemaError(f"{where}must be a JSON object")
    names = [f.name for f in fields(cls)]
    unknown = [key for key in data if key not in names]
    missing = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING
               and f.name not in data]
    if unknown or missing:
        what = f"unknown key {unknown[0]!r}" if unknown else f"{missing[0]!r} is missing"
        raise SchemaError(f"{where}{what} (it holds exactly {', '.join(names)})")
    hints = get_type_hints(cls)
    return cls(**{f.name: _typed(data[f.name], hints[f.name], f"{where}{f.name}", f.metadata.get("bounds"))
                  for f in fields(cls) if f.name in data})


def _typed(value: Any, hint: object, where: str, bounds: tuple[float, float] | None = None) -> Any:
    kinds = get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for kind in kinds:
        if is_dataclass(kind) and isinstance(value, dict):
            return parse(kind, value, f"{where}: ")
        if get_origin(kind) is list and isinstance(value, list):
            item_hint = get_args(kind)[0]
            return [_typed(item, item_hint, f"{where} row {k}", bounds) for k, item in enumerate(value, 1)]
        if kind in KINDS and _is(value, kind):
            if bounds and kind in (int, float) and not bounds[0] <= value <= bounds[1]:
                low, high = bounds
                within = f">= {low}" if high == math.inf else f"in [{low}, {high}]"
                raise SchemaError(f"{where} must be {within}, got {value}")
            return value
    wanted = " or ".join(KINDS.get(get_origin(kind) or kind, "a JSON object") for kind in kinds)
    text = json.dumps(value, default=str)
    raise SchemaError(f"{where} must be {wanted}, got {text if len(text) <= 60 else text[:57] + '...'}")


def _is(value: object, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def tensor_specs(n: int, m: int, params: dict) -> Specs:
    """The tensors of a run of n nodes, m edges and ``params``. Optional: ``attr_NAME`` (n,) a node
    attribute, and the pairs tracked during training (:func:`tracked_specs`)."""
    return {"embedding": (torch.float32, (n + 1, params["dim"])), "src": (torch.int64, (m,)),
            "dst": (torch.int64, (m,)), "weight": (torch.float64, (m,)),
            "hood_table": (torch.int64, (n, params["neighborhood"])), "hood_length": (torch.int64, (n,))}


def tracked_specs(rows: int, widths: list[tuple[int, int]]) -> Specs:
    """``fit(track_pairs=...)``'s record: ``tracked_pairs`` (K, 2) node ids, ``tracked_epochs``, then
    pair k's attention over the (Ls, Lt) neighbors the saved draw gives it, its padding, and its
    scores (r_s·r_t, and with uniform attention), before training and after each epoch (rows)."""
    specs = {"tracked_pairs": (torch.int64, (len(widths), 2)), "tracked_epochs": (torch.int64, (rows,))}
    for k, (ls, lt) in enumerate(widths):
        specs |= {f"tracked_{k}_source_attention": (torch.float32, (rows, ls)),
                  f"tracked_{k}_target_attention": (torch.float32, (rows, lt)),
                  f"tracked_{k}_padding": (torch.float32, (rows, 2)),
                  f"tracked_{k}_scores": (torch.float32, (rows, 2))}
    return specs


@dataclass(frozen=True)
class RunContents:
    """What :func:`read_run` found, every part checked, notes for the user (one line each) and the
    file the tensors came from."""

    params: dict
    state: GoatState
    extra: dict
    notes: tuple[str, ...] = ()
    tensor_file: str = TENSOR_FILE


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
    """Whether ``path`` holds a GOAT run's config.json (a JSON object with a format version and
    parameters), whatever the state of its other files."""
    try:
        data = RunReader(path, {}, lambda params: None).json_object("config.json")
    except GraphFormatError:
        return False
    return _is(data.get("format_version"), int) and isinstance(data.get("params"), dict)


def read_run(path: str | Path, defaults: Mapping[str, object], check_params: Callable[[dict], None]
             ) -> RunContents:
    """The checked contents of the run directory ``path``, or one :class:`GraphFormatError` naming
    the file and the problem (see :class:`RunReader` for the arguments)."""
    return RunReader(Path(path), defaults, check_params).read()


@dataclass
class RunReader:
    """One reading of a run directory: the files in order, each check raising for its file."""

    path: Path
    defaults: Mapping[str, object]  # the estimator's parameters and defaults: a run holds each, no other
    check_params: Callable[[dict], None]  # raises a GoatError for a value the estimator refuses
    tensor_file: str = TENSOR_FILE  # legacy_runs reads weights.pt instead

    def fail(self, problem: str, member: str | None = None) -> GraphFormatError:
        return GraphFormatError(str(self.path / member) if member else str(self.path), problem)

    def bad(self, problem: str) -> GraphFormatError:
        return self.fail(problem, self.tensor_file)

    def read(self) -> RunContents:
        data = self.json_object("config.json")
        notes: tuple[str, ...] = ()  # for the user: an older format's limits
        if self.version(data) < FORMAT_VERSION:
            data, tensors, notes = upgrade(self, data)
            data["format_version"] = FORMAT_VERSION
        else:
            self.check_seal(data)
            self.parse("config.json", RunConfig, data)  # its shape first: files is a JSON object
            raw = {name: self.file_bytes(name) for name in ("nodes.json", TENSOR_FILE)}
            self.check_sums(data["files"], raw)
            try:
                tensors = safetensors.torch.load(raw[TENSOR_FILE])
            except Exception:  # SafetensorError, or a dtype this torch lacks (a KeyError): one line
                raise self.bad("is not a tensors file GOAT Explorer saved (damaged, or not safetensors)") \
                    from None
        config = self.config(data)
        names, labels = self.nodes(config.graph)
        params, specs = config.params, tensor_specs(len(names), config.graph.edges, config.params)
        self.expect(tensors, specs)
        graph = self.graph(names, labels, config.graph, tensors)
        embedding = self.embedding(tensors["embedding"].numpy())
        hood = self.neighborhoods(graph, tensors["hood_table"].numpy(), tensors["hood_length"].numpy())
        tracked, specs = self.tracked(graph, tensors, hood, params, len(config.history), specs)
        unknown = [key for key in tensors if key not in specs and not key.startswith("attr_")]
        if unknown:
            raise self.bad(f"holds an unknown tensor {unknown[0]!r}")
        state = GoatState(graph=graph, embedding=embedding, neighborhoods=hood, history=data["history"],
                          backend=config.backend, early_stopping=data.get("early_stopping"), tracked=tracked)
        return RunContents(params, state, config.extra, notes, self.tensor_file)

    # -- the files
    def file_bytes(self, name: str) -> bytes:
        """The bytes of the run's file ``name``: a regular, non-empty file in the run directory."""
        file = self.path / name
        if not self.path.is_dir() or not (file.exists() or file.is_symlink()):
            what = f"{name} is missing" if self.path.is_dir() else "a file, not a run directory" \
                if self.path.exists() else "no such directory"
            raise self.fail(f"not a GOAT run directory: {what}")
        if not regular_file(file):
            raise self.fail("is a symbolic link: a run's files must be regular files in its directory"
                            if file.is_symlink() else "is not a regular file", name)
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
        except json.JSONDecodeError as err:
            raise self.fail(f"is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})", name) \
                from None
        except (ValueError, RecursionError) as err:  # not UTF-8, a NaN (our words), a number too long
            why = ("not UTF-8 text" if isinstance(err, UnicodeDecodeError) else "nested too deeply"
                   if isinstance(err, RecursionError) else str(err) if "JSON allows" in str(err)
                   else "a number with too many digits")
            raise self.fail(f"is not valid JSON ({why})", name) from None
        if not isinstance(data, dict):
            raise self.fail(f"must hold a JSON object (config.json and nodes.json must each hold a JSON "
                            f"object), got a {type(data).__name__}", name)
        return data

    def parse(self, name: str, cls: type, data: dict) -> Any:
        try:
            return parse(cls, data)
        except SchemaError as err:
            raise self.fail(str(err), name) from None

    def check_seal(self, data: dict) -> None:
        """config.json's content as its ``sha256`` records it (when it has one: parse() requires it)."""
        if "sha256" in data and data["sha256"] != config_sha256(data):
            raise self.fail("was changed after the run was saved (its SHA-256 is not the one it records)",
                            "config.json")

    def check_sums(self, files: object, raw: dict[str, bytes]) -> None:
        """Each file's bytes as config.json recorded them (format 2 wrote {"sha256": ...})."""
        if not isinstance(files, dict) or set(files) != set(raw):
            raise self.fail(f"files must record the SHA-256 of {' and '.join(raw)}", "config.json")
        for name, sha in files.items():
            if sha256(raw[name]) != (sha.get("sha256") if isinstance(sha, dict) else sha):
                raise self.fail("was changed after the run was saved (its SHA-256 is not the one config.json "
                                "records)", name)

    # -- config.json
    def version(self, data: dict) -> int:
        version: Any = data.get("format_version")
        problem = ("has no format_version: not a GOAT run's config" if "format_version" not in data else
                   f"format_version must be a whole number, got {version!r}" if not _is(version, int) else
                   f"the run is in format {version}, newer than this version of GOAT Explorer reads: "
                   "update it" if version > FORMAT_VERSION else
                   f"the run is in format {version}, which GOAT Explorer never wrote" if version < 1
                   else None)
        if problem:
            raise self.fail(problem, "config.json")
        return version

    def config(self, data: dict) -> RunConfig:
        config = self.parse("config.json", RunConfig, data)
        problem = self.params_problem(config.params) or _config_problem(config)
        if problem:
            raise self.fail(problem, "config.json")
        return config

    def params_problem(self, params: dict) -> str | None:
        unknown = [name for name in params if name not in self.defaults]
        missing = [name for name in self.defaults if name not in params]
        if unknown or missing:
            return (f"params: unknown parameter {unknown[0]!r}; known: {', '.join(self.defaults)}" if unknown
                    else f"params: {missing[0]!r} is missing")
        try:
            self.check_params(params)
        except GoatError as err:
            return f"params: {err}"
        return None

    # -- nodes.json
    def nodes(self, facts: GraphFacts) -> tuple[tuple[str, ...], NodeLabels | None]:
        nodes = self.parse("nodes.json", NodesFile, self.json_object("nodes.json"))
        names, labels = nodes.names, nodes.labels
        seen: dict[str, int] = {}  # each name in NFC: where it came first
        problem = (f"holds {len(names)} names but config.json's graph has {facts.nodes} nodes"
                   if len(names) != facts.nodes else next(filter(None, map(name_problem, names)), None))
        for i, name in enumerate(names if problem is None else ()):
            first = seen.setdefault(nfc(name), i)
            if first != i:
                how = "twice" if names[first] == name else f"as {names[first]!r} and {name!r} (NFC and NFD)"
                problem = f"node names must be distinct: {name!r} is written {how}"
                break
        if labels and not problem and (not labels.classes or len(set(labels.classes)) != len(labels.classes)
                                       or len(labels.codes) != len(names)
                                       or not all(-1 <= c < len(labels.classes) for c in labels.codes)):
            problem = (f"labels: label codes do not match the nodes and classes (one per node, each -1 or a "
                       f"class number 0..{len(labels.classes) - 1}; classes distinct)")
        if problem:
            raise self.fail(problem, "nodes.json")
        return tuple(names), labels and NodeLabels(np.asarray(labels.codes, dtype=np.int64),
                                                   tuple(labels.classes), source=labels.source)

    # -- the tensors
    def expect(self, tensors: dict[str, torch.Tensor], specs: Specs) -> None:
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

    def embedding(self, values: np.ndarray) -> torch.Tensor:
        n, dim = values.shape[0] - 1, values.shape[1]
        # two rows' dot product (an alignment entry, a score) must stay 16 times below float32's
        # largest number, or every answer is NaN; training never gets near it (its loss would first)
        largest, bound = float(np.abs(values).max()), math.sqrt(float(np.finfo(np.float32).max) / (16 * dim))
        if not np.isfinite(values).all():
            raise self.bad("the embedding holds NaN or infinite values")
        if largest > bound:
            raise self.bad(f"the embedding holds values too large to compute with (|x| up to {largest:.3g}; "
                           f"at most {bound:.3g} for d = {dim})")
        if values[n].any():
            raise self.bad(f"the embedding's padding row (row {n}, after the {n} nodes) must be zero")
        return torch.from_numpy(values)

    def neighborhoods(self, graph: Graph, table: np.ndarray, length: np.ndarray) -> Neighborhoods:
        """The inference draw: ``table[u, :length[u]]`` distinct neighbors of u, then the pad id n;
        ``length[u]`` = min(degree, N) with N = params' neighborhood."""
        n, size = table.shape
        if table.min() < 0 or table.max() > n:
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

    def tracked(self, graph: Graph, tensors: dict, hood: Neighborhoods, params: dict, epochs: int,
                specs: Specs) -> tuple[tuple[AttentionHistory, ...], Specs]:
        """The tracked pairs (:func:`tracked_specs`), if any: distinct pairs of nodes, each side's
        attention (with its padding) a distribution in every row, scores finite; and ``specs`` with
        their tensors added."""
        if "tracked_pairs" not in tensors:
            return (), specs
        if params["variant"] == "global":
            raise self.bad("holds tracked attention, which a GoatGlobal run never has")
        n, names, ids = graph.num_nodes, graph.names, tensors["tracked_pairs"]
        self.expect(tensors, {"tracked_pairs": (torch.int64, (len(ids) if ids.dim() else 0, 2))})
        if not len(ids) or ids.min() < 0 or ids.max() >= n or (ids[:, 0] == ids[:, 1]).any() \
                or len(set(map(tuple, ids.tolist()))) != len(ids):
            raise self.bad(f"tracked_pairs must hold distinct pairs of two node ids in 0..{n - 1}")
        batch = make_batch(ids[:, 0], ids[:, 1], hood, params["exclude_partner"], params["padding"])
        real = [(batch.nbr_s[k][batch.mask_s[k] & (batch.nbr_s[k] != n)].numpy(),
                 batch.nbr_t[k][batch.mask_t[k] & (batch.nbr_t[k] != n)].numpy()) for k in range(len(ids))]
        specs = specs | tracked_specs(epochs + 1, [(len(s), len(t)) for s, t in real])
        self.expect(tensors, specs)
        if not torch.equal(tensors["tracked_epochs"], torch.arange(epochs + 1)):
            raise self.bad(f"tracked_epochs must be 0..{epochs} (before training, then every epoch trained)")
        out = []
        for k, ((s, t), (nbr_s, nbr_t)) in enumerate(zip(ids.tolist(), real, strict=True)):
            att_s, att_t, pad, scores = (tensors[f"tracked_{k}_{part}"].numpy() for part in
                                         ("source_attention", "target_attention", "padding", "scores"))
            for side, weights, side_pad in (("source", att_s, pad[:, 0]), ("target", att_t, pad[:, 1])):
                total = weights.sum(axis=1) + side_pad
                if not (np.isfinite(weights).all() and np.isfinite(scores).all() and (weights >= 0).all()
                        and (side_pad >= 0).all() and (abs(total - 1) <= 1e-3).all()):
                    raise self.bad(f"tracked pair {k} ({names[s]!r}, {names[t]!r}): {side} attention must be "
                                   "non-negative and sum to 1 (with its padding) in every row, scores finite")
            out.append(AttentionHistory(
                source=names[s], target=names[t], source_id=s, target_id=t, source_neighbors=nbr_s,
                target_neighbors=nbr_t, source_names=[names[i] for i in nbr_s],
                target_names=[names[i] for i in nbr_t], epochs=tensors["tracked_epochs"].numpy(),
                source_attention=att_s, target_attention=att_t, source_padding=pad[:, 0],
                target_padding=pad[:, 1], score=scores[:, 0], uniform_score=scores[:, 1]))
        return tuple(out), specs


def _config_problem(config: RunConfig) -> str | None:
    """What config.json's types and bounds allow but no run holds: its history is one row per epoch
    trained, all of params' epochs unless early stopping chose fewer: the best of those it tried."""
    params, epochs, stop = config.params, len(config.history), config.early_stopping
    if config.backend not in BACKEND_NAMES:
        return f"backend must be one of {', '.join(map(repr, BACKEND_NAMES[1:]))}, got {config.backend!r}"
    wrong = [k for k, row in enumerate(config.history, start=1) if row.epoch != k]
    if wrong:
        return f"history: row {wrong[0]} must be epoch {wrong[0]}"
    if epochs > params["epochs"] or (stop is None and epochs != params["epochs"]):
        return (f"history has {epochs} epochs but the run trained {params['epochs']} (params' epochs"
                + (", no early stopping)" if stop is None else ")"))
    if stop is None:
        return None
    fraction = params["validation_fraction"]
    if stop.fraction != fraction or not fraction > 0:
        return (f"early_stopping is recorded for a validation fraction of {stop.fraction}, but params' "
                f"validation_fraction is {fraction}")
    if stop.epochs_tried != len(stop.val_auc) or stop.best_epoch > len(stop.val_auc):
        return "early_stopping: epochs_tried must count its val_auc list, among which is best_epoch"
    if stop.best_epoch != epochs:
        return f"early_stopping chose {stop.best_epoch} epochs but history has {epochs}"
    return None


def _hood_rows_problem(table: np.ndarray, length: np.ndarray, first: int, n: int,
                       edges: np.ndarray) -> tuple[int, str] | None:
    """(node, problem) of the first bad row of a block of the neighborhood table: each row holds
    ``length`` distinct neighbors of its node (keys ``u * n + v`` in the sorted ``edges``), then
    only the pad id n; None when every row is right."""
    slots = np.arange(table.shape[1])[None, :] < length[:, None]  # (rows, N) real slots
    ordered = np.sort(table, axis=1)
    rows, cols = np.nonzero(slots)
    wanted = (rows + first) * n + table[rows, cols]
    found = edges[np.minimum(np.searchsorted(edges, wanted), len(edges) - 1)] == wanted
    for bad, problem in ((np.where(slots, table == n, table != n).any(axis=1),
                          "must hold each node's sampled neighbors first, then the pad id"),
                         (((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != n)).any(axis=1),
                          "samples a neighbor twice in one row"),
                         (np.isin(np.arange(len(table)), rows[~found]),
                          "gives a node a neighbor it does not have")):
        if bad.any():
            return first + int(np.flatnonzero(bad)[0]), problem
    return None


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")
