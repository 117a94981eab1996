"""NumPy and SciPy arrays as scripts and GNN datasets save graphs (``np.save``, ``np.savez``,
``scipy.sparse.save_npz``, the GNN benchmark's CSR parts, PyG's ``edge_index``), made here by those
libraries and read to the graph they came from; arrays of Python objects refused, never unpickled."""

from __future__ import annotations

import gzip
import io
import pickle
import zipfile

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from goat_core.data.formats import ReadOptions
from goat_core.data.readers import read_graph_bytes

from .reading import edges_of, read_error

KARATE = nx.karate_club_graph()  # weights 1..7


def saved(save, *args, **kwargs) -> bytes:
    buffer = io.BytesIO()
    save(buffer, *args, **kwargs)
    return buffer.getvalue()


def karate_edges() -> dict:
    return {frozenset((str(u), str(v))): float(d["weight"]) for u, v, d in KARATE.edges(data=True)}


def test_np_save_of_a_dense_adjacency_matrix_is_the_weighted_graph():
    graph = read_graph_bytes(saved(np.save, nx.to_numpy_array(KARATE)), "karate.npy")
    assert (graph.num_nodes, graph.directed, graph.weighted) == (34, False, True)
    assert graph.names == tuple(map(str, range(34))) and edges_of(graph) == karate_edges()
    assert graph.read.format == "numpy" and graph.read.detected
    assert "34 × 34 dense adjacency matrix, nodes 0..33" in graph.read.notes


@pytest.mark.parametrize("layout", ["csr", "csc", "coo", "bsr", "dia"])
@pytest.mark.parametrize("compressed", [True, False])
def test_scipy_save_npz_of_a_directed_graph_in_any_layout(layout, compressed):
    d = nx.gnp_random_graph(40, 0.1, seed=5, directed=True)
    d.add_node(40)  # a node without ties: its empty row keeps it
    matrix = sp.csr_matrix(nx.to_scipy_sparse_array(d, nodelist=range(41))).asformat(layout)
    graph = read_graph_bytes(saved(sp.save_npz, matrix, compressed=compressed), "<upload>")
    assert graph.directed and not graph.weighted and graph.num_nodes == 41
    assert set(edges_of(graph)) == {(str(u), str(v)) for u, v in d.edges}
    assert graph.read.format == "numpy" and "41 × 41 sparse adjacency matrix, nodes 0..40" in graph.read.notes


def test_a_pyg_edge_index_with_both_directions_and_labels():
    """PyG stores an undirected graph's edges both ways in a (2, m) edge_index; y is a class per node."""
    both = np.array([(u, v) for u, v in KARATE.edges] + [(v, u) for u, v in KARATE.edges]).T
    club = np.array([KARATE.nodes[u]["club"] == "Officer" for u in KARATE], dtype=np.int64)
    graph = read_graph_bytes(saved(np.savez, edge_index=both, y=club, train_mask=club > 0), "karate.npz")
    assert (graph.num_nodes, graph.num_edges, graph.directed, graph.weighted) == (34, 78, False, False)
    assert set(edges_of(graph)) == set(karate_edges())
    assert graph.labels.classes == ("0", "1") and graph.labels.codes.tolist() == club.tolist()
    assert graph.read.labels_from == "'y'" and graph.read.ignored == ("array 'train_mask'",)


@pytest.mark.parametrize("width", [2, 3])
def test_edge_rows_read_as_the_same_rows_written_as_text(width):
    rows = np.array([(u, v, d["weight"]) for u, v, d in KARATE.edges(data=True)])[:, :width]
    text = "\n".join(" ".join(str(int(x)) for x in row) for row in rows).encode()
    graph = read_graph_bytes(saved(np.save, rows.astype(np.int64)), "edges.npy")
    expected = read_graph_bytes(text, "edges.txt")
    assert edges_of(graph) == edges_of(expected) and graph.names == expected.names
    assert graph.weighted == (width == 3) and graph.read.format == "numpy"


def test_the_gnn_benchmark_layout_with_labels_and_pickled_extras():
    """Shchur et al.'s cora.npz: CSR parts adj_*, features attr_*, labels, and dicts (pickled, skipped)."""
    a = sp.csr_matrix(nx.to_scipy_sparse_array(KARATE, weight=None))
    club = np.array([KARATE.nodes[u]["club"] == "Officer" for u in KARATE], dtype=np.int64)
    idx_to_node = np.array({0: "Mr. Hi"}, dtype=object)
    raw = saved(np.savez, adj_data=a.data, adj_indices=a.indices, adj_indptr=a.indptr, adj_shape=a.shape,
                attr_data=np.ones(34), labels=club, idx_to_node=idx_to_node)
    graph = read_graph_bytes(raw, "karate.npz")
    assert (graph.num_nodes, graph.num_edges, graph.directed, graph.weighted) == (34, 78, False, False)
    assert graph.labels.codes.tolist() == club.tolist() and graph.read.ignored == ("array 'attr_data'",)


def test_an_array_of_python_objects_is_refused_and_never_unpickled(tmp_path):
    witness = tmp_path / "unpickled"
    payload = pickle.dumps(Witness(str(witness)))
    raw = saved(np.save, np.array([payload, payload], dtype=object), allow_pickle=True)
    assert "never unpickled" in read_error(raw, "evil.npy")
    assert not witness.exists()


class Witness:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return open, (self.path, "w")


@pytest.mark.parametrize(("array", "said"), [
    (np.zeros((5, 4)), "an array of shape (5, 4): read are a square adjacency matrix"),
    (np.array([[0, -1, 0, 0], [-1, 0, 0, 0], [0] * 4, [0] * 4]), "cell [0, 1] is -1: a weight is positive"),
    (np.zeros((4, 4)), "an adjacency matrix with no ties"),
    (np.eye(4) * 1j, "an array of complex128: a graph's arrays hold numbers"),
])
def test_arrays_that_are_no_graph_are_refused_in_one_line(array, said):
    assert said in read_error(saved(np.save, array), "bad.npy")


def test_several_arrays_name_them_unless_one_is_named_for_the_graph():
    two = {"a": np.eye(3), "b": np.ones((4, 2))}
    assert "arrays a (3, 3), b (4, 2): expected one 2-D array" in read_error(saved(np.savez, **two), "x.npz")
    graph = read_graph_bytes(saved(np.savez, adj=np.ones((3, 3)) - np.eye(3), other=np.eye(2)), "x.npz")
    assert graph.num_edges == 3 and graph.read.ignored == ("array 'other'",)


def test_signed_ties_read_with_weight_none_and_gzip_is_unpacked():
    signed = np.array([[0, -1, 2, 0], [-1, 0, 0, 0], [2, 0, 0, 0], [0] * 4])
    raw = gzip.compress(saved(np.save, signed))
    graph = read_graph_bytes(raw, "signed.npy.gz", ReadOptions(weight="none"))
    assert graph.num_edges == 2 and graph.num_nodes == 4 and not graph.weighted
    assert graph.read.compression == "gzip"


def test_arrays_over_the_cap_are_refused_before_they_are_read():
    raw = saved(np.savez_compressed, adj=np.zeros((1000, 1000)))
    assert "once decompressed" in read_error_capped(raw)


def read_error_capped(raw: bytes) -> str:
    with pytest.raises(Exception) as err:
        read_graph_bytes(raw, "big.npz", max_bytes=1_000_000)
    return str(err.value)


@pytest.mark.parametrize(("shape", "key", "edges"), [
    ((3, 3), "adj", {("0", "1"), ("0", "2"), ("1", "2")}),  # named: a matrix (directed: not symmetric)
    ((3, 3), "edges", {("0", "1"), ("1", "2"), ("3", "4")}),  # named: rows (the third column a weight)
    ((2, 3), "edge_index", {("0", "1"), ("1", "2"), ("3", "4")}),  # named: columns
    ((3, 2), "arr_0", {("0", "1"), ("1", "2"), ("3", "4")}),  # one reading fits: three edge rows
])
def test_a_small_array_is_read_as_its_name_or_its_only_fitting_shape_says(shape, key, edges):
    values = {(3, 3): [[0, 1, 1], [1, 2, 1], [3, 4, 1]], (2, 3): [[0, 1, 3], [1, 2, 4]],
              (3, 2): [[0, 1], [1, 2], [3, 4]]}[shape]
    graph = read_graph_bytes(saved(np.savez, **{key: np.array(values)}), "small.npz")
    assert {tuple(sorted(pair)) for pair in edges_of(graph)} == edges


@pytest.mark.parametrize("shape", [(3, 3), (2, 3), (2, 2), (7,), (2, 2, 2)])
def test_an_array_that_fits_two_readings_or_none_is_refused_saying_how_to_name_it(shape):
    said = read_error(saved(np.save, np.ones(shape, dtype=np.int64)), "small.npy")
    assert f"an array of shape {shape}" in said and "np.savez(f, adj=…), edges=… or edge_index=…" in said


def test_broken_and_odd_numpy_files_are_read_or_refused_in_one_line():
    matrix = np.ones((5, 5)) - np.eye(5)
    good = saved(np.save, matrix)
    for raw in (good[:-7], good[:100], good.replace(b"(5, 5)", b"(5, 5")):  # truncated, a broken header
        assert read_error(raw, "broken.npy").startswith("broken.npy: not a readable NumPy file: ")
    named = good.replace(b"'fortran_order': False", b"'fortran_order': F\xe1lse")  # ast's error shows a node
    assert " object at 0x" not in read_error(named, "broken.npy")  # the same file, the same message
    for dtype in (">f8", np.float16, bool):  # big-endian, half precision and booleans are numbers too
        assert read_graph_bytes(saved(np.save, matrix.astype(dtype)), "odd.npy").num_edges == 10
    fake = io.BytesIO()
    with zipfile.ZipFile(fake, "w") as archive:
        archive.writestr("a.npy", b"not numpy")
        archive.writestr("b.npy", saved(np.save, matrix))
    assert read_graph_bytes(fake.getvalue(), "fake.npz").num_edges == 10  # a.npy skipped


def test_a_matlab_file_is_refused_saying_how_to_export_it():
    """scipy.io.loadmat crashes the process on some damaged .mat files (a segmentation fault): not read."""
    import scipy.io

    said = read_error(saved(scipy.io.savemat, {"A": np.eye(4)}), "graph.mat")
    assert "a MATLAB .mat file: save its edges as text, e.g. [i,j,w] = find(A)" in said


def test_four_edges_of_four_columns_are_no_matrix_and_edge_weights_beside_their_edges_are_read():
    """A square of numbers is a matrix only with a zero diagonal, as in a text table; PyG's edge_weight."""
    rows = np.array([[0, 1, 5, 1700000000], [1, 2, 3, 1700000001], [2, 3, 1, 1700000002],
                     [3, 0, 2, 1700000003]])
    assert "an array of shape (4, 4)" in read_error(saved(np.save, rows), "u_v_w_t.npy")
    loops = np.ones((4, 4))
    assert "its diagonal 0" in read_error(saved(np.save, loops), "loops.npy")
    assert read_graph_bytes(saved(np.savez, adj=loops), "loops.npz").num_edges == 6  # named: loops dropped
    index = np.array([[0, 1, 2], [1, 2, 3]])
    weights = np.array([0.5, 2.0, 4.0])
    graph = read_graph_bytes(saved(np.savez, edge_index=index, edge_weight=weights), "w.npz")
    assert graph.weighted and edges_of(graph) == {frozenset(("0", "1")): 0.5, frozenset(("1", "2")): 2.0,
                                                  frozenset(("2", "3")): 4.0}
    assert graph.read.ignored == () and "weights from 'edge_weight'" in graph.read.notes[0]
