"""Runs on disk: what a fitted model learned (:class:`GoatState`) in a run directory, whose format
is declared once here; :func:`write_run` writes it, :func:`read_run` reads it back, every part checked.

    RUN/config.json        :class:`RunConfig`: parameters, graph facts (with its fingerprint), history,
                           early stopping, compute path, the other files' SHA-256, and ``sha256``: that
                           of its own content without it
    RUN/nodes.json         :class:`NodesFile`: node names in index order (and labels if any)
    RUN/model.safetensors  the tensors (:func:`tensor_specs`, :func:`tracked_specs`)

Beyond the declaration, what only this project can check: the names against the graph's fingerprint,
the neighborhood table against the graph, the tracked pairs against the table (and, in
:mod:`.analysis.tracking`, the model). Any mismatch is one :class:`GraphFormatError` naming the file and
the problem. Nothing is unpickled; runs saved before format 3 are read through :mod:`.legacy_runs`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import tempfile
import types
from collections import Counter
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import numpy as np
import safetensors.torch
import torch

from .analysis.attention import AttentionHistory
from .analysis.tracking import saved_histories, tracked_tensors
from .backends.batch import make_batch, real_slots
from .data.graph import Graph, NodeLabels, name_problem, nfc
from .data.sampling import Adjacency, Neighborhoods
from .errors import GoatError, GraphFormatError
from .legacy_runs import WEIGHTS, upgrade
from .parameters import BACKENDS, PARAMETERS, check_params

FORMAT_VERSION = 3
TENSOR_FILE = "model.safetensors"
FILES = ("config.json", "nodes.json", TENSOR_FILE)
PARTIAL = ".partial"  # a file being written: FILE + PARTIAL, replaced into FILE once complete
BACKEND_NAMES = ("", *BACKENDS[1:])  # "": not recorded (runs saved before backends); never "auto"
ROWS_PER_CHECK = 1 << 14  # rows of the neighborhood table checked at a time (N = 100: 13 MB each)
PLAIN_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float32,
                torch.float64)  # node attributes: numbers numpy holds as they are
MAX_DEPTH = 100  # of config.json's and nodes.json's JSON (a run's own is 4 deep; extra, the caller's)
AT_LEAST_1 = {"bounds": (1, math.inf)}  # field metadata: parse() checks the value (each, for a list)
PROBABILITY = {"bounds": (0, 1)}


@dataclass(frozen=True)
class GoatState:
    """What a fitted ``Goat`` learned, as plain data (``Goat.state()``, ``Goat.from_state``)."""

    graph: Graph  # the training graph
    embedding: torch.Tensor  # (n+1, d) global embeddings; row n is the zero pad
    neighborhoods: Neighborhoods  # the fixed inference draw
    history: list  # one row per epoch: loss, elapsed, val_auc
    backend: str = ""  # the compute path training took ("" when unknown, e.g. an older run)
    early_stopping: dict | None = None  # how the epoch count was chosen (Goat.early_stopping_)
    tracked: tuple[AttentionHistory, ...] = ()  # attention of pairs tracked during training, per epoch


# -- config.json and nodes.json, declared: written by write_run, read by parse()
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

    def problem(self) -> str | None:
        """What config.json's types and bounds allow but no run holds: its history is one row per epoch
        trained, all of params' epochs unless early stopping chose fewer: the best of those it tried."""
        params, epochs, stop = self.params, len(self.history), self.early_stopping
        wrong = [k for k, row in enumerate(self.history, start=1) if row.epoch != k]
        if self.backend not in BACKEND_NAMES:
            return f"backend must be one of {', '.join(map(repr, BACKEND_NAMES[1:]))}, got {self.backend!r}"
        if wrong:
            return f"history: row {wrong[0]} must be epoch {wrong[0]}"
        if epochs > params["epochs"] or (stop is None and epochs != params["epochs"]):
            return (f"history has {epochs} epochs but the run trained {params['epochs']} (params' epochs"
                    + (", no early stopping)" if stop is None else ")"))
        if stop is None:
            return None
        if stop.fraction != params["validation_fraction"] or not stop.fraction > 0:
            return (f"early_stopping is recorded for a validation fraction of {stop.fraction}, but params' "
                    f"validation_fraction is {params['validation_fraction']}")
        if stop.epochs_tried != len(stop.val_auc) or stop.best_epoch > len(stop.val_auc):
            return "early_stopping: epochs_tried must count its val_auc list, among which is best_epoch"
        if stop.best_epoch != epochs:
            return f"early_stopping chose {stop.best_epoch} epochs but history has {epochs}"
        return None


@dataclass
class Labels:
    codes: list[int]
    classes: list[str]
    source: str = ""


@dataclass
class NodesFile:
    names: list[str]
    labels: Labels | None = None


_FLOAT_MAX = float(np.finfo(np.float64).max)  # a Python float: an int compares with it exactly
KINDS = {int: "a whole number", float: "a finite number", bool: "true or false", str: "a string",
         list: "a list", dict: "a JSON object", type(None): "null"}


def parse(cls: Any, data: dict, file: Path, where: str = "") -> Any:
    """``data`` (parsed JSON) as the dataclass ``cls``: exactly its fields, each of its declared type
    (nested dataclasses, and lists of them, in turn) and within its bounds; else a GraphFormatError."""
    names = [f.name for f in fields(cls)]
    unknown = [key for key in data if key not in names]
    missing = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING
               and f.name not in data]
    if unknown or missing:
        what = f"unknown key {unknown[0]!r}" if unknown else f"{missing[0]!r} is missing"
        raise GraphFormatError(str(file), f"{where}{what} (it holds exactly {', '.join(names)})")
    hints = get_type_hints(cls)
    return cls(**{f.name: _typed(data[f.name], hints[f.name], file, where + f.name, f.metadata.get("bounds"))
                  for f in fields(cls) if f.name in data})


def _typed(value: Any, hint: object, file: Path, where: str, bounds: tuple[float, float] | None) -> Any:
    kinds = get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    for kind in kinds:
        if is_dataclass(kind) and isinstance(value, dict):
            return parse(kind, value, file, f"{where}: ")
        if get_origin(kind) is list and isinstance(value, list):
            item = get_args(kind)[0]
            return [_typed(one, item, file, f"{where} row {k}", bounds) for k, one in enumerate(value, 1)]
        if kind in KINDS and _is(value, kind):
            if bounds and kind in (int, float) and not bounds[0] <= value <= bounds[1]:
                within = f">= {bounds[0]}" if bounds[1] == math.inf else f"in [{bounds[0]}, {bounds[1]}]"
                raise GraphFormatError(str(file), f"{where} must be {within}, got {value}")
            return value
    wanted = " or ".join(KINDS.get(get_origin(kind) or kind, "a JSON object") for kind in kinds)
    text = json.dumps(value, default=str)
    text = text if len(text) <= 60 else text[:57] + "..."
    raise GraphFormatError(str(file), f"{where} must be {wanted}, got {text}")


def _is(value: object, kind: type) -> bool:
    if kind is float:  # an int past float's range (10**400) is no finite number either
        return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= _FLOAT_MAX
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


# -- model.safetensors, declared: each tensor's dtype, shape and range, checked by RunReader.expect
@dataclass(frozen=True)
class Spec:
    dtype: torch.dtype
    shape: tuple[int, ...]
    low: float = -math.inf  # every value in [low, high] (and finite, in a float tensor)
    high: float = math.inf
    rule: str = ""  # [low, high] in the user's words


def tensor_specs(n: int, m: int, params: dict) -> dict[str, Spec]:
    """The tensors of a run of n nodes, m edges and ``params``. Optional: ``attr_NAME`` (n,) a node
    attribute (:data:`PLAIN_DTYPES`), and the pairs tracked during training (:func:`tracked_specs`)."""
    dim, ids = params["dim"], f"src and dst must hold node ids in 0..{n - 1}, and no self-loop"
    # two rows' dot product (an alignment entry, a score) must stay 16 times below float32's
    # largest number, or every answer is NaN; training never gets near it (its loss would first)
    most = math.sqrt(float(np.finfo(np.float32).max) / (16 * dim))
    too_large = f"the embedding holds values too large to compute with (at most {most:.3g} for d = {dim})"
    return {"embedding": Spec(torch.float32, (n + 1, dim), -most, most, too_large),
            "src": Spec(torch.int64, (m,), 0, n - 1, ids), "dst": Spec(torch.int64, (m,), 0, n - 1, ids),
            "weight": Spec(torch.float64, (m,), math.ulp(0), math.inf, "edge weights must be positive"),
            "hood_table": Spec(torch.int64, (n, params["neighborhood"]), 0, n,
                               f"the neighborhood table holds ids outside 0..{n} ({n}: padding)"),
            "hood_length": Spec(torch.int64, (n,))}


def tracked_specs(rows: int, pairs: list[tuple[str, int, int]]) -> dict[str, Spec]:
    """``fit(track_pairs=...)``'s record (``tracked_pairs`` aside): per epoch, pair k's (``pairs``: names,
    Ls, Lt) attention over the saved draw's neighbors, its padding and scores (r_s·r_t, and uniform's)."""
    specs = {"tracked_epochs": Spec(torch.int64, (rows,))}
    for k, (pair, ls, lt) in enumerate(pairs):
        rule = f"tracked pair {k} ({pair}): {{}} attention must be non-negative and sum to 1 (with padding)"
        specs |= {f"tracked_{k}_{side}_attention": Spec(torch.float32, (rows, width), 0, 1, rule.format(side))
                  for side, width in (("source", ls), ("target", lt))}
        specs |= {f"tracked_{k}_padding": Spec(torch.float32, (rows, 2), 0, 1, rule.format("each side's")),
                  f"tracked_{k}_scores": Spec(torch.float32, (rows, 2))}
    return specs


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def config_sha256(config: dict) -> str:
    """SHA-256 of config.json's content without its ``sha256`` key, written canonically (sorted
    keys, no spaces): the same for any layout of the same JSON data."""
    content = {key: value for key, value in config.items() if key != "sha256"}
    return sha256(json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False).encode())


# -- writing
def write_run(path: str | Path, params: dict, state: GoatState, extra: dict | None = None) -> Path:
    """Write ``params`` and ``state`` to the run directory ``path`` (:func:`check_run_target`), each file
    moved into place once complete, config.json last. ``extra``: JSON metadata kept with the run."""
    path = Path(path)
    check_run_target(path, overwrite=True)
    if _nested_too_deeply({"extra": extra}):  # it would be written, then refused on loading
        raise GraphFormatError(str(path / "config.json"), f"cannot be written: extra metadata is nested over "
                                                           f"{MAX_DEPTH} levels deep")
    graph, hood, labels = state.graph, state.neighborhoods, state.graph.labels
    tensors = {f"attr_{name}": np.asarray(values) for name, values in graph.node_attrs.items()} | {
        "embedding": state.embedding.detach().cpu(), "src": np.asarray(graph.src, dtype=np.int64),
        "dst": np.asarray(graph.dst, dtype=np.int64), "weight": np.asarray(graph.weight, dtype=np.float64),
        "hood_table": hood.table.cpu(), "hood_length": hood.length.cpu(), **tracked_tensors(state.tracked)}
    tensors_raw = safetensors.torch.save({key: torch.as_tensor(t).contiguous() for key, t in tensors.items()})
    kept = None if labels is None else Labels(labels.codes.tolist(), list(labels.classes), labels.source)
    nodes_raw = json.dumps(asdict(NodesFile(list(graph.names), kept))).encode()
    facts = GraphFacts(graph.source, graph.directed, graph.weighted, graph.num_nodes, graph.num_edges,
                       graph.fingerprint())
    files = {"nodes.json": sha256(nodes_raw), TENSOR_FILE: sha256(tensors_raw)}
    try:  # NaN (a validation set of one class) and infinities as null: config.json is strict JSON
        history, stopping = json.loads(json.dumps([state.history, state.early_stopping]),
                                       parse_constant=lambda constant: None)
        config = asdict(RunConfig(FORMAT_VERSION, params, facts, history, files, "", state.backend, stopping,
                                  extra or {}))
        config["sha256"] = config_sha256(config)  # last: it covers everything above
        config_raw = json.dumps(config, indent=2, allow_nan=False).encode()
    except (TypeError, ValueError) as err:
        raise GraphFormatError(str(path / "config.json"), f"cannot be written: extra metadata must be plain "
                                                           f"JSON data ({err})") from None
    try:
        path.mkdir(parents=True, exist_ok=True)
        (path / WEIGHTS).unlink(missing_ok=True)  # an older run's, replaced
        for name, raw in ((TENSOR_FILE, tensors_raw), ("nodes.json", nodes_raw), ("config.json", config_raw)):
            (path / (name + PARTIAL)).write_bytes(raw)
            os.replace(path / (name + PARTIAL), path / name)
    except OSError as err:
        raise GraphFormatError(str(path), f"cannot write the run: {err.strerror or err}") from None
    return path


def check_run_target(path: str | Path, overwrite: bool = False) -> None:
    """A GraphFormatError unless ``path`` can be created, is empty, or (``overwrite``) holds a GOAT run
    and nothing else: never a user's files. Cheap: called before training, for a bad ``--out``."""
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
    there = next(p for p in (path, *path.parents) if p.exists() or p.is_symlink())  # what exists already
    if there != path:
        what = ("is a broken symbolic link" if not there.exists() else "is a file, not a directory"
                if not there.is_dir() else _write_problem(there))
        return what and f"cannot be created: {there} {what}"
    if not path.is_dir():
        what = "not a directory" if path.exists() else "a broken symbolic link"
        return f"exists and is {what}; --out names the run directory to write"
    anywhere = "a run is written only into a new or empty directory, or over a GOAT run"
    run_files = {name + end for name in (*FILES, WEIGHTS) for end in ("", PARTIAL)}
    others = sorted(repr(entry.name) for entry in path.iterdir() if entry.name not in run_files)
    problem = _write_problem(path)
    if problem or not any(path.iterdir()):
        return problem
    if others:
        more = " ..." if len(others) > 3 else ""
        return f"holds other files ({', '.join(others[:3])}{more}): {anywhere}"
    try:
        config = RunReader(path).json_object("config.json")
    except GraphFormatError:
        config = {}
    if not (_is(config.get("format_version"), int) and isinstance(config.get("params"), dict)):
        return f"holds a config.json or nodes.json that is not a GOAT run's: {anywhere}"
    return None if overwrite else ("already holds a GOAT run: pass --overwrite to replace it, or choose "
                                   "another --out")


def _write_problem(directory: Path) -> str | None:
    """Why nothing can be written in ``directory``, found by writing a file: permission bits say nothing
    of a read-only mount, /proc, or a root user."""
    try:
        with tempfile.TemporaryFile(prefix=".goat-write-check-", dir=directory):
            return None
    except OSError as err:
        return f"is not writable ({err.strerror or err})"


# -- reading
@dataclass(frozen=True)
class RunContents:
    """What :func:`read_run` found, every part checked; notes for the user (one line each)."""

    params: dict
    state: GoatState
    extra: dict
    notes: tuple[str, ...] = ()
    tensor_file: str = TENSOR_FILE  # the file the tensors came from


def read_run(path: str | Path) -> RunContents:
    """The checked contents of the run directory ``path``."""
    return RunReader(Path(path)).read()


@dataclass
class RunReader:
    """One reading of a run directory: the files in order, each check raising for its file."""

    path: Path
    tensor_file: str = TENSOR_FILE  # legacy_runs reads weights.pt instead
    defaults = {name: spec.default for name, spec in PARAMETERS.items()}  # a run holds each, no other

    def fail(self, problem: str, member: str | None = None) -> GraphFormatError:
        return GraphFormatError(str(self.path / member) if member else str(self.path), problem)

    def bad(self, problem: str) -> GraphFormatError:
        return self.fail(problem, self.tensor_file)

    def read(self) -> RunContents:
        data = self.json_object("config.json")
        notes: tuple[str, ...] = ()  # for the user: an older format's limits
        if self.version(data) < FORMAT_VERSION:
            data, tensors, notes = upgrade(self, data)  # as format 3 holds it
        else:
            self.check_seal(data)
            parse(RunConfig, data, self.path / "config.json")  # its shape first: files is a JSON object
            raw = {name: self.file_bytes(name) for name in ("nodes.json", TENSOR_FILE)}
            self.check_sums(data["files"], raw)
            try:
                tensors = safetensors.torch.load(raw[TENSOR_FILE])
            except Exception:  # SafetensorError, or a dtype this torch lacks (a KeyError): one line
                raise self.bad("is not a tensors file GOAT Explorer saved (damaged, or not safetensors)") \
                    from None
        config = self.config(data)
        graph, specs = self.graph(config, tensors)
        hood = self.neighborhoods(graph, tensors["hood_table"].numpy(), tensors["hood_length"].numpy())
        tracked, tracked_parts = self.tracked(graph, tensors, hood, config.params, len(config.history))
        unknown = [key for key in tensors if key not in specs | tracked_parts and not key.startswith("attr_")]
        if unknown:
            raise self.bad(f"holds an unknown tensor {unknown[0]!r}")
        state = GoatState(graph, tensors["embedding"], hood, data["history"], config.backend,
                          data.get("early_stopping"), tracked)
        return RunContents(config.params, state, config.extra, notes, self.tensor_file)

    def file_bytes(self, name: str) -> bytes:
        """The bytes of the run's file ``name``: a regular, non-empty file in the run directory."""
        file = self.path / name
        try:
            there = self.path.is_dir() and (file.exists() or file.is_symlink())
        except OSError as err:  # a name too long for the file system, a loop of links
            raise self.fail(f"not a GOAT run directory: {err.strerror or err}") from None
        if not there:
            what = f"{name} is missing" if self.path.is_dir() else "a file, not a run directory" \
                if self.path.exists() else "no such directory"
            raise self.fail(f"not a GOAT run directory: {what}")
        if not stat.S_ISREG(file.lstat().st_mode):  # a link, a directory, a FIFO, a device
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
            why = ("not UTF-8 text" if isinstance(err, UnicodeDecodeError)
                   else "nested too deeply" if isinstance(err, RecursionError)
                   else str(err) if "JSON allows" in str(err) else "a number with too many digits")
            raise self.fail(f"is not valid JSON ({why})", name) from None
        if _nested_too_deeply(data):  # json.loads takes ~1,000 levels, every check after it recurses
            raise self.fail(f"is not valid JSON (nested too deeply: over {MAX_DEPTH} levels)", name)
        if not isinstance(data, dict):
            raise self.fail(f"must hold a JSON object (config.json and nodes.json must each hold a JSON "
                            f"object), got a {type(data).__name__}", name)
        return data

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
        """config.json as :class:`RunConfig`: its params each there, as the estimator's rules allow (the
        device aside: the loader's choice), and what :meth:`RunConfig.problem` asks."""
        config = parse(RunConfig, data, self.path / "config.json")
        missing = [name for name in self.defaults if name not in config.params]
        try:
            check_params(config.params, skip=("device",))  # an unknown parameter, then each value
        except GoatError as err:
            raise self.fail(f"params: {err}", "config.json") from None
        problem = f"params: {missing[0]!r} is missing" if missing else config.problem()
        if problem:
            raise self.fail(problem, "config.json")
        return config

    def graph(self, config: RunConfig, tensors: dict[str, torch.Tensor]) -> tuple[Graph, dict[str, Spec]]:
        """The graph nodes.json and the tensors hold, checked against config.json's facts; and
        :func:`tensor_specs`, which the tensors were checked against."""
        facts = config.graph
        nodes = parse(NodesFile, self.json_object("nodes.json"), self.path / "nodes.json")
        names, labels, n = nodes.names, nodes.labels, len(nodes.names)
        twice = [key for key, count in Counter(map(nfc, names)).items() if count > 1]  # NFC: one name
        first, second = [name for name in names if nfc(name) == twice[0]][:2] if twice else ("", "")
        how = "twice" if first == second else f"as {first!r} and {second!r} (NFC and NFD)"
        problem = (f"holds {n} names but config.json's graph has {facts.nodes} nodes" if n != facts.nodes
                   else next(filter(None, map(name_problem, names)), None)
                   or (f"node names must be distinct: {second!r} is written {how}" if twice else None))
        odd = next((c for c in labels.classes if name_problem(c)), None) if labels and not problem else None
        problem = problem or odd and f"labels: class {odd!r} is not valid Unicode text (a lone surrogate)"
        if labels and not problem and (not labels.classes or len(set(labels.classes)) != len(labels.classes)
                                       or len(labels.codes) != n
                                       or not all(-1 <= c < len(labels.classes) for c in labels.codes)):
            problem = (f"labels: label codes do not match the nodes and classes (one per node, each -1 or a "
                       f"class number 0..{len(labels.classes) - 1}; classes distinct)")
        if problem:
            raise self.fail(problem, "nodes.json")
        specs = tensor_specs(n, facts.edges, config.params)
        self.expect(tensors, specs)
        src, dst, weight = (tensors[key].numpy() for key in ("src", "dst", "weight"))
        if (src == dst).any():
            raise self.bad(specs["src"].rule)
        if not facts.weighted and (weight != 1).any():  # an unweighted graph's weights are 1 (normalise)
            raise self.bad("holds edge weights other than 1, but config.json records an unweighted graph")
        if tensors["embedding"][n].any():
            raise self.bad(f"the embedding's padding row (row {n}, after the {n} nodes) must be zero")
        attrs = {key: tensors[key] for key in sorted(tensors) if key.startswith("attr_")}
        for key, tensor in attrs.items():
            if tuple(tensor.shape) != (n,) or tensor.dtype not in PLAIN_DTYPES:
                raise self.bad(f"{key} must hold one number per node ({n}), got {_dtype(tensor.dtype)} of "
                               f"shape {tuple(tensor.shape)}")
        classes = labels and NodeLabels(np.asarray(labels.codes, dtype=np.int64), tuple(labels.classes),
                                        source=labels.source)
        graph = Graph(names=tuple(names), src=src, dst=dst, weight=weight, directed=facts.directed,
                      weighted=facts.weighted, source=facts.source, labels=classes,
                      node_attrs={key.removeprefix("attr_"): t.numpy() for key, t in attrs.items()})
        if graph.fingerprint() != facts.fingerprint:
            raise self.fail(f"the graph (nodes.json's names and labels, {self.tensor_file}'s edges) does not "
                            "match the fingerprint config.json records: a file was changed after saving")
        return graph, specs

    def expect(self, tensors: dict[str, torch.Tensor], specs: dict[str, Spec]) -> None:
        """Each tensor of ``specs`` there, of its dtype and shape, its values finite and in its range."""
        for name, spec in specs.items():
            if name not in tensors:
                raise self.bad(f"the tensor {name!r} is missing")
            tensor = tensors[name]
            if tensor.dtype != spec.dtype or tuple(tensor.shape) != spec.shape:
                raise self.bad(f"{name} must be {_dtype(spec.dtype)} of shape {spec.shape}, got "
                               f"{_dtype(tensor.dtype)} of shape {tuple(tensor.shape)}")
            if tensor.is_floating_point() and not tensor.isfinite().all():
                raise self.bad(f"the {name} holds NaN or infinite values")
            outside = tensor[(tensor < spec.low) | (tensor > spec.high)]
            if len(outside):
                raise self.bad(f"{spec.rule}, got {outside[0].item():.4g}")

    def neighborhoods(self, graph: Graph, table: np.ndarray, length: np.ndarray) -> Neighborhoods:
        """The inference draw: ``table[u, :length[u]]`` distinct neighbors of u, then the pad id n;
        ``length[u]`` = min(degree, N) with N = params' neighborhood."""
        n, size = table.shape
        adj = Adjacency.from_graph(graph)
        degree = adj.degree.numpy()
        wrong = np.flatnonzero(length != np.minimum(degree, size))
        if len(wrong):
            u = int(wrong[0])
            raise self.bad(f"neighborhood lengths do not match the graph: node {graph.names[u]!r} has "
                           f"{degree[u]} neighbors, so {min(degree[u], size)} sampled, not {length[u]}")
        edges = np.repeat(np.arange(n, dtype=np.int64), degree) * n + adj.indices.numpy()  # sorted u*n+v
        for start in range(0, n, ROWS_PER_CHECK):  # in blocks of rows: the table can be large
            rows = np.arange(start, min(start + ROWS_PER_CHECK, n))
            block, slots = table[rows], np.arange(size) < length[rows, None]  # slots: (rows, N) real
            keys = np.where(slots, rows[:, None] * n + block, -1)  # u*n+v, or -1 for a pad
            ordered = np.sort(keys, axis=1)
            found = edges[np.minimum(np.searchsorted(edges, keys), len(edges) - 1)] == keys
            for bad, problem in ((np.where(slots, block == n, block != n).any(axis=1),
                                  "must hold each node's sampled neighbors first, then the pad id"),
                                 (((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)).any(axis=1),
                                  "samples a neighbor twice in one row"),
                                 ((slots & ~found).any(axis=1), "gives a node a neighbor it does not have")):
                if bad.any():
                    u = int(rows[bad.argmax()])
                    raise self.bad(f"the neighborhood table {problem} (node {graph.names[u]!r})")
        return Neighborhoods(torch.from_numpy(table), torch.from_numpy(length))

    def tracked(self, graph: Graph, tensors: dict, hood: Neighborhoods, params: dict, epochs: int
                ) -> tuple[tuple[AttentionHistory, ...], dict[str, Spec]]:
        """The tracked pairs, if any (distinct pairs of nodes, their tensors as :func:`tracked_specs`
        declares them, each side's attention with its padding summing to 1), and those tensors' specs."""
        if "tracked_pairs" not in tensors:
            return (), {}
        if params["variant"] == "global":
            raise self.bad("holds tracked attention, which a GoatGlobal run never has")
        n, names, ids = graph.num_nodes, graph.names, tensors["tracked_pairs"]
        rule = f"tracked_pairs must hold distinct pairs of two node ids in 0..{n - 1}"
        specs = {"tracked_pairs": Spec(torch.int64, (len(ids) if ids.dim() else 0, 2), 0, n - 1, rule)}
        self.expect(tensors, specs)
        if not len(ids) or (ids[:, 0] == ids[:, 1]).any() or len(set(map(tuple, ids.tolist()))) != len(ids):
            raise self.bad(rule)
        batch = make_batch(ids[:, 0], ids[:, 1], hood, params["exclude_partner"], params["padding"])
        real_s, real_t = real_slots(batch.nbr_s, batch.mask_s, n), real_slots(batch.nbr_t, batch.mask_t, n)
        sides = [(nbr_s[ok_s].numpy(), nbr_t[ok_t].numpy())  # each pair's real neighbors, pads left out
                 for nbr_s, ok_s, nbr_t, ok_t in zip(batch.nbr_s, real_s, batch.nbr_t, real_t, strict=True)]
        specs |= tracked_specs(epochs + 1, [(f"{names[s]!r}, {names[t]!r}", len(side_s), len(side_t))
                                            for (s, t), (side_s, side_t) in zip(ids.tolist(), sides)])
        self.expect(tensors, specs)  # tracked_pairs again: cheap
        if not torch.equal(tensors["tracked_epochs"], torch.arange(epochs + 1)):
            raise self.bad(f"tracked_epochs must be 0..{epochs} (before training, then every epoch trained)")
        out = saved_histories(names, ids.tolist(), sides, tensors)
        for k, h in enumerate(out):
            for side, weights, pad in (("source", h.source_attention, h.source_padding),
                                       ("target", h.target_attention, h.target_padding)):
                if (abs(weights.sum(axis=1) + pad - 1) > 1e-3).any():
                    raise self.bad(specs[f"tracked_{k}_{side}_attention"].rule + " in every row")
        return out, specs


def _nested_too_deeply(data: object) -> bool:
    level = [data]
    for _ in range(MAX_DEPTH):  # then level holds what lies deeper than MAX_DEPTH levels
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
    return bool(level)


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")
