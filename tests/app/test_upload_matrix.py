"""Graph page: an adjacency matrix uploaded as pandas writes it is read as one; a small one, which
reads as an edge list, is read as a matrix once the Format choice says so."""

from __future__ import annotations

import networkx as nx

from .conftest import explorer, texts
from .test_graph_page import metric, upload


def test_upload_a_pandas_adjacency_csv(app):
    raw = nx.to_pandas_adjacency(nx.les_miserables_graph()).to_csv().encode()
    upload(app, raw, name="lesmis_matrix.csv")
    assert not app.error and metric(app, "Nodes") == "77" and metric(app, "Edges") == "254"
    graph = explorer(app).graph
    assert graph.read.format == "matrix" and graph.weighted and "Valjean" in graph.names
    assert "254 edges read as adjacency matrix, weight from the cells" in " ".join(texts(app.markdown))


def test_a_three_node_matrix_is_read_with_the_format_chosen(app):
    upload(app, b"0 1 1\n1 0 1\n1 1 0\n", name="triangle.txt")
    assert len(app.error) == 1 and explorer(app).graph_key == "lesmis"  # an edge list with a weight 0
    app.selectbox(key="upload_format").set_value("matrix").run()
    app.button(key="upload_load").click().run()
    assert not app.exception and not app.error
    assert metric(app, "Nodes") == "3" and metric(app, "Edges") == "3"
    assert explorer(app).graph.read.format == "matrix" and not explorer(app).graph.read.detected
