"""NumPy and SciPy arrays (``.npy``, ``.npz``), as GNN datasets and scripts save graphs: an
adjacency matrix (dense, or ``scipy.sparse.save_npz``'s, or the CSR parts of the GNN benchmark's
``adj_data``/``adj_indices``/``adj_indptr``/``adj_shape``), edge rows ``(m, 2|3)``, or a PyG-style
``edge_index`` ``(2, m)``. numpy loads them with ``allow_pickle=False``: an array of Python objects
is refused, never unpickled. What each shape means is in docs/formats.md. (MATLAB's ``.mat`` is not
read: ``scipy.io.loadmat`` crashes the process on some damaged files, found by fuzzing.)"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import GraphFormatError
from .formats import ReadOptions, ReadReport
from .frames import read_frame
from .graph import Graph, NodeLabels, declared_nodes, first_line, refuse_size, zip_names
from .matrix import read_ties

NPY_MAGIC = b"\x93NUMPY"
SCIPY_KEYS = {"format", "shape"}  # scipy.sparse.save_npz's, beside its data arrays
GNN_BENCHMARK_KEYS = ("adj_data", "adj_indices", "adj_indptr", "adj_shape")
GRAPH_KEYS = ("edge_index", "adjacency", "adj", "A", "edges")  # the array that is the graph, when several
LABEL_KEYS = ("labels", "y")  # a class per node, kept as the graph's labels
WEIGHT_KEYS = ("edge_weight", "weight", "weights", "edge_attr")  # one number per edge, beside its edges


def looks_npz(raw: bytes) -> bool:
    """A zip of ``.npy`` files only: ``np.savez``, ``np.savez_compressed``, ``scipy.sparse.save_npz``."""
    names = zip_names(raw)
    return bool(names) and all(name.endswith(".npy") for name in names)


def read_arrays(raw: bytes, file: str, options: ReadOptions, max_bytes: int) -> tuple[Graph, ReadReport]:
    arrays = _load(raw, file, max_bytes)
    keys = set(arrays)
    if SCIPY_KEYS <= keys or set(GNN_BENCHMARK_KEYS) <= keys:
        return _sparse_graph(raw, arrays, file, options)
    wide = [key for key in arrays if arrays[key].ndim == 2 or len(arrays) == 1]
    key = next((key for key in GRAPH_KEYS if key in wide), wide[0] if len(wide) == 1 else None)
    if key is None:
        shapes = ", ".join(f"{k} {arrays[k].shape}" for k in arrays)
        raise GraphFormatError(file, f"arrays {shapes}: expected one 2-D array (the adjacency matrix, edge "
                                     f"rows or edge_index), or one named {', '.join(GRAPH_KEYS)}")
    graph, report, used = _dense_graph(arrays, key, len(raw), file, options)
    if len(arrays) > 1:
        report = replace(report, notes=(f"array {key!r}: {report.notes[0]}",) + report.notes[1:])
    return _labelled(graph, report, arrays, used, file)


def _load(raw: bytes, file: str, max_bytes: int) -> dict[str, np.ndarray]:
    """Every array of a ``.npy`` (named ``array``) or ``.npz``, its content capped at ``max_bytes``."""
    try:
        if raw.startswith(NPY_MAGIC):
            return {"array": np.load(io.BytesIO(raw), allow_pickle=False)}
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            refuse_size(sum(info.file_size for info in archive.infolist()), max_bytes, "NumPy .npz", file)
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            return {key: array for key in npz.files if (array := _numbers(npz, key)) is not None}
    except GraphFormatError:
        raise
    except Exception as err:  # numpy's header parser raises many types (SyntaxError, TokenError, ...)
        if "allow_pickle" in str(err):
            raise GraphFormatError(file, "holds an array of Python objects (pickled): never unpickled here; "
                                         "save numbers (np.save of an int or float array)") from None
        said = re.sub(r" object at 0x[0-9a-f]+", "", first_line(err))  # ast's repr: one file, one message
        raise GraphFormatError(file, f"not a readable NumPy file: {said}") from None


def _numbers(npz: np.lib.npyio.NpzFile, key: str) -> np.ndarray | None:
    """An .npz's array, None for one of Python objects (the GNN benchmark's ``idx_to_node`` dicts):
    those are pickled, never unpickled here."""
    try:
        array = npz[key]
    except ValueError as err:
        if "allow_pickle" in str(err):
            return None
        raise
    return array if isinstance(array, np.ndarray) else None  # a member that is no .npy: its bytes


def _dense_graph(arrays: dict[str, np.ndarray], key: str, size: int, file: str, options: ReadOptions
                 ) -> tuple[Graph, ReadReport, tuple[str, ...]]:
    """The graph of the array ``key``, laid out as :func:`_layout` finds, and the arrays it read: edges
    take their weights from a 1-D array of one number per edge beside them (PyG's ``edge_weight``)."""
    array = arrays[key]
    if array.dtype.kind not in "biuf":
        raise GraphFormatError(file, f"an array of {array.dtype}: a graph's arrays hold numbers")
    layout = _layout(array, key)
    if layout == "matrix":
        return (*_matrix_graph(array, size, file, options), (key,))
    if layout is None:
        raise GraphFormatError(file, f"an array of shape {array.shape}: read are a square adjacency matrix "
                                     "(n ≥ 4, its diagonal 0), edge rows (m, 2) or (m, 3) and an edge_index "
                                     "(2, m); to say which it is, name it: np.savez(f, adj=…), edges=… or "
                                     "edge_index=…")
    edges = pd.DataFrame(array if layout == "rows" else array.T)
    found = next((k for k in WEIGHT_KEYS if k in arrays and arrays[k].shape == (len(edges),)), None)
    weights = found if edges.shape[1] == 2 else None  # (m, 3): the third column is the weight
    if weights:
        edges[2] = arrays[weights]
    graph, report = read_frame(edges, file, options, "numpy")
    how = "edge_index (2, m): its columns are the edges" if layout == "columns" else \
        "edge rows (source, target, weight)" if array.shape[1] == 3 else "edge rows (source, target)"
    how += f", weights from {weights!r}" if weights else ""
    report = replace(report, notes=(f"{how}, {len(edges):,} of them",) + report.notes[1:])
    return graph, report, (key, weights) if weights else (key,)


def _layout(array: np.ndarray, key: str) -> str | None:
    """"matrix" (square), "rows" ((m, 2|3): an edge a row) or "columns" ((2, m): PyG's edge_index), as the
    array's name says, else as its shape does when only one reading fits it; a square as a table of
    numbers is told from edges: n ≥ 4, its diagonal 0 (four edges "u v w t" are not a matrix)."""
    if array.ndim != 2:
        return None
    rows, cols = array.shape
    fits = {"matrix": rows == cols, "rows": cols in (2, 3), "columns": rows == 2}
    named = {"edge_index": "columns", "edges": "rows"}.get(key, "matrix" if key in GRAPH_KEYS else None)
    if named:
        return named if fits[named] else None
    found = [layout for layout, fit in fits.items() if fit]
    if found == ["matrix"] and (rows < 4 or np.diagonal(array).any()):
        return None
    return found[0] if len(found) == 1 else None


def _matrix_graph(matrix: Any, size: int, file: str, options: ReadOptions) -> tuple[Graph, ReadReport]:
    """The graph of a square array or scipy sparse matrix: its non-zero cells are the ties."""
    from scipy import sparse

    if matrix.shape[0] != matrix.shape[1]:
        raise GraphFormatError(file, f"a rectangular {matrix.shape[0]:,} × {matrix.shape[1]:,} matrix (a "
                               "bipartite graph?): an adjacency matrix is square")
    side = matrix.shape[0]
    n = declared_nodes(side, size, file, None, f"a {side:,} × {side:,} matrix")
    try:  # a broken file's indices would crash scipy's conversion (a segmentation fault): checked first
        if sparse.issparse(matrix) and matrix.format in ("csr", "csc", "bsr"):
            matrix.check_format(full_check=True)
        ties = sparse.coo_array(matrix if sparse.issparse(matrix) else matrix.astype(np.float64))
    except ValueError as err:
        raise GraphFormatError(file, f"not a readable sparse matrix: {first_line(err)}") from None
    ties.sum_duplicates()  # sorted by row, then column: one order whatever the file's
    ties.eliminate_zeros()
    src, dst, values = ties.row.astype(np.int64), ties.col.astype(np.int64), ties.data.astype(np.float64)
    graph, report = read_ties([str(i) for i in range(n)], src, dst, values, options, file,
                              lambda r, c: (f"[{r}, {c}]", None))
    kind = "sparse" if sparse.issparse(matrix) else "dense"
    what = f"{n:,} × {n:,} {kind} adjacency matrix, nodes 0..{n - 1}"
    return graph, replace(report, format="numpy", notes=(what,))


def _sparse_graph(raw: bytes, arrays: dict[str, np.ndarray], file: str, options: ReadOptions
                  ) -> tuple[Graph, ReadReport]:
    """scipy.sparse.save_npz's matrix (any of its formats), or the GNN benchmark's CSR parts."""
    from scipy import sparse

    try:
        if SCIPY_KEYS <= set(arrays):
            matrix, used = sparse.load_npz(io.BytesIO(raw)), tuple(arrays)  # without pickle, as np.load
        else:
            data, indices, indptr, shape = (arrays[k] for k in GNN_BENCHMARK_KEYS)
            matrix, used = sparse.csr_array((data, indices, indptr), shape=tuple(shape)), GNN_BENCHMARK_KEYS
    except (ValueError, TypeError, IndexError, KeyError) as err:
        raise GraphFormatError(file, f"not a readable sparse matrix: {first_line(err)}") from None
    graph, report = _matrix_graph(matrix, len(raw), file, options)
    return _labelled(graph, report, arrays, used, file)


def _labelled(graph: Graph, report: ReadReport, arrays: dict[str, np.ndarray], used: tuple[str, ...],
              file: str) -> tuple[Graph, ReadReport]:
    """The graph with a ``labels`` (or ``y``) array of one whole number per node 0..n-1 as its classes; the
    arrays neither read nor taken as labels named in the account."""
    key = next((k for k in LABEL_KEYS if k in arrays), None)
    values = arrays[key] if key else np.empty(0)
    if key and values.shape == (graph.num_nodes,) and values.dtype.kind in "iu" \
            and graph.names == tuple(map(str, range(graph.num_nodes))):
        classes, codes = np.unique(values[values >= 0], return_inverse=True)
        full = np.full(graph.num_nodes, -1, dtype=np.int64)
        full[values >= 0] = codes
        graph = replace(graph, labels=NodeLabels(full, tuple(map(str, classes.tolist())),
                                                 source=f"{file} (array {key!r})"))
        used += (key,)
    ignored = tuple(f"array {k!r}" for k in arrays if k not in used)
    return graph, replace(report, format="numpy", ignored=report.ignored + ignored,
                          labels_from=repr(key) if key in used else None)
