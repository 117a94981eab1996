"""Graph page: bundled graphs, uploads (good, bad, too big), the two network views."""

from __future__ import annotations

import html
import json
import re

import pytest

from ui.upload import APP_FLAGS

from .conftest import explorer, goto, open_tab, plain, texts

GOOD_EDGES = b"source,target,weight\nann,bob,2\nbob,cat,1\ncat,ann,1\ncat,dan,3\ndan,eve,1\n"
GOOD_LABELS = b"ann red\nbob red\ncat red\ndan blue\neve blue\n"
EVIL = "<img/src=x/onerror=alert(1)>"  # no spaces: one edge-list token


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def upload(at, edges: bytes, name: str = "edges.csv", labels: bytes | None = None,
           labels_name: str = "labels.txt"):
    at.radio(key="graph_source").set_value("upload").run()
    at.file_uploader(key="upload_edges").upload(name, edges, "text/csv")
    if labels is not None:
        at.file_uploader(key="upload_labels").upload(labels_name, labels, "text/plain")
    at.button(key="upload_load").click().run()
    assert not at.exception, at.exception
    return at


def pyvis_nodes(at) -> list[dict]:
    page = at.get("iframe")[0].proto.srcdoc
    data = re.search(r"nodes = new vis\.DataSet\((\[.*?\])\);", page, re.S).group(1)
    return json.loads(data)


def test_opens_on_les_miserables_with_both_views(app, downloads):
    assert metric(app, "Nodes") == "77" and metric(app, "Edges") == "254"
    assert explorer(app).graph_key == "lesmis"
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    ids = [c[0] for trace in spec["data"] if "customdata" in trace for c in trace["customdata"]]
    assert sorted(ids) == list(range(77))  # every node clickable, id in customdata
    assert not app.get("iframe")  # the physics view is drawn only when its tab is open
    open_tab(app, "graph_tabs", "Physics view (pyvis)")
    page = app.get("iframe")[0].proto.srcdoc
    assert "vis.Network" in page  # vis-network inlined, and nothing fetched from the network:
    assert not re.search(r"""(src|href)\s*=\s*["']https?://""", page)
    assert {n["label"] for n in pyvis_nodes(app)} >= {"Marius", "Thenardier", "Gavroche"}
    assert downloads["goat-physics-view.html"].decode() == page  # the same offline page, to keep


def test_switch_to_email(app):
    app.radio(key="graph_source").set_value("email").run()
    assert not app.exception
    assert metric(app, "Nodes") == "1,005"
    assert explorer(app).graph_key == "email"
    open_tab(app, "graph_tabs", "Physics view (pyvis)")
    assert any("too many for a physics view" in c for c in texts(app.caption))


def test_upload_edge_list_with_labels(app):
    upload(app, GOOD_EDGES, labels=GOOD_LABELS)
    assert not app.error
    assert metric(app, "Nodes") == "5" and metric(app, "Edges") == "5"
    ex = explorer(app)
    assert ex.graph_key == "upload:edges.csv" and ex.graph.weighted
    assert ex.graph.labels.classes == ("red", "blue")
    assert any("Loaded edges.csv" in s for s in texts(app.success))


def test_bad_upload_shows_one_line_and_keeps_graph(app):
    upload(app, b"a b\nb c\nc d 1 2 3\n", name="bad.txt")
    assert texts(app.error) == ["bad.txt:3: 5 columns; expected 'source target [weight]'"]
    assert explorer(app).graph_key == "lesmis" and metric(app, "Nodes") == "77"


def test_bad_labels_keep_graph(app):
    upload(app, GOOD_EDGES, labels=b"ann red extra\n", labels_name="lab.txt")
    assert texts(app.error) == ["lab.txt:1: 3 columns; expected 'node label'"]
    assert explorer(app).graph_key == "lesmis"


def test_an_excel_csv_of_windows_is_read_once_its_encoding_is_chosen(app):
    """Excel's "CSV (Comma delimited)" on Windows is cp1252: refused in one line that names the Text
    encoding choice, the graph kept; read with the choice, names as written, labels file too."""
    edges = "source;target\nZoë;Müller\nMüller;René\nRené;Zoë\n".encode("cp1252")
    upload(app, edges, name="excel.csv", labels="Zoë a\nMüller a\nRené b\n".encode("cp1252"))
    (message,) = texts(app.error)
    assert message.startswith("excel.csv:2: not UTF-8 text")
    assert "--encoding the Text encoding choice" in message
    assert explorer(app).graph_key == "lesmis"
    app.selectbox(key="upload_encoding").set_value("cp1252").run()
    app.button(key="upload_load").click().run()
    assert not app.error
    graph = explorer(app).graph
    assert set(graph.names) == {"Zoë", "Müller", "René"} and graph.labels.classes == ("a", "b")


def test_binary_upload_is_refused(app):
    upload(app, b"\x00\x01\x02binary", name="x.csv")
    assert len(app.error) == 1 and "\n" not in app.error[0].value
    assert texts(app.error)[0].startswith("x.csv: ")
    assert explorer(app).graph_key == "lesmis"


def test_oversized_upload_is_refused_with_the_limit(app):
    upload(app, b"a b\n" * (21 * 2**20 // 4 + 1), name="big.txt")
    assert len(app.error) == 1 and "over the 20 MB limit" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"


def test_user_labels_are_escaped_in_both_views(app):
    upload(app, f"{EVIL} bob\nbob cat\n".encode(), name="evil.txt")
    assert not app.error
    spec = app.get("plotly_chart")[0].proto.spec
    assert EVIL not in spec and html.escape(EVIL, quote=False) in json.loads(spec)["data"][1]["hovertext"][0]
    open_tab(app, "graph_tabs", "Physics view (pyvis)")
    labels = {n["label"] for n in pyvis_nodes(app)}
    assert EVIL in labels  # vis-network draws a label as text: the name itself, not "&lt;…"
    assert EVIL not in app.get("iframe")[0].proto.srcdoc  # in the page, only as JSON escapes
    titles = [n["title"] for n in pyvis_nodes(app)]
    assert any(t.startswith(f"{EVIL} | ") for t in titles)  # tooltips too (vis-network writes them as text)


def test_search_highlights_a_node(app):
    app.selectbox(key="graph_search").set_value(55).run()  # options are node ids, shown by name
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert any(t.get("name") == "search" and t["text"] == ["Marius"] for t in spec["data"])
    assert any("**Marius**: degree 19" in m for m in texts(app.markdown))


def test_colour_by_degree_and_communities(app):
    for mode in ("communities", "degree"):
        app.selectbox(key="graph_colour").set_value(mode).run()
        assert not app.exception
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert spec["data"][1]["marker"]["showscale"] is True  # degree is a continuous colour
    open_tab(app, "graph_tabs", "Degree distribution")
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["title"]["text"] == "Degree distribution" and spec["data"][0]["type"] == "bar"


def karate_file(write) -> bytes:
    import io

    import networkx as nx

    buffer = io.BytesIO()
    write(nx.karate_club_graph(), buffer)
    return buffer.getvalue()


def test_upload_gexf_offers_its_node_attribute_as_labels(app):
    import networkx as nx

    upload(app, karate_file(nx.write_gexf), name="karate.gexf")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    ex = explorer(app)
    assert ex.graph.read.format == "gexf" and ex.graph.labels.classes == ("Mr. Hi", "Officer")
    account = " ".join(texts(app.markdown))
    assert "78 edges read as GEXF" in account and "labels from node attribute 'club'" in account
    assert app.selectbox(key="upload_label_attr").value == "club"
    assert "attribute: club" in app.selectbox(key="graph_colour").options
    app.selectbox(key="graph_colour").set_value("attribute: club").run()
    assert not app.exception
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    assert {t.get("name") for t in spec["data"]} >= {"Mr. Hi", "Officer"}  # one trace per club


GEPHI = (b"Source,Target,Type,Id,Label,Weight\nann,bob,Undirected,0,,2\nbob,cat,Undirected,1,,1\n"
         b"cat,ann,Undirected,2,,1\ncat,dan,Undirected,3,,3\n")


def test_upload_gephi_csv_shows_what_was_read_and_rereads_other_columns(app):
    upload(app, GEPHI, name="gephi.csv")
    assert not app.error and metric(app, "Nodes") == "4" and explorer(app).graph.weighted
    account = " ".join(texts(app.markdown))
    assert ("from 'Source' → 'Target', weight from 'Weight'; ignored 'Type', 'Id', 'Label'; "
            "undirected") in account
    rows = app.dataframe[0].value
    assert rows.values.tolist() == [["ann", "bob", "2"], ["bob", "cat", "1"], ["cat", "ann", "1"],
                                    ["cat", "dan", "3"]]
    assert [app.selectbox(key=k).value for k in ("upload_col_source", "upload_col_target",
                                                   "upload_col_weight")] == [0, 1, 5]
    fingerprint = explorer(app).graph_fp
    app.selectbox(key="upload_col_weight").set_value(-1)  # unweighted: the same bytes read again
    app.button(key="upload_reread").click().run()
    assert not app.error and not explorer(app).graph.weighted and explorer(app).graph_fp != fingerprint
    app.selectbox(key="upload_col_weight").set_value(4)  # Label: empty, not a weight
    app.button(key="upload_reread").click().run()
    assert texts(app.error) == ["gephi.csv:2: weight '' is not a number (--weight none reads every edge with "
                                "weight 1; library: weight='none')" + APP_FLAGS]
    assert not explorer(app).graph.weighted and metric(app, "Nodes") == "4"  # the graph read before stays


def test_the_column_picker_shows_the_columns_read_after_another_page(app):
    """Streamlit forgets a widget's value on a run that does not draw it: back from the Train page,
    the picker still names the columns the graph was read from (not source = target)."""
    upload(app, GEPHI, name="gephi.csv")
    pickers = ("upload_col_source", "upload_col_target", "upload_col_weight")
    goto(app, "train")
    goto(app, "graph")
    assert [app.selectbox(key=k).value for k in pickers] == [0, 1, 5]


def test_upload_gzipped_edge_list(app):
    import gzip

    upload(app, gzip.compress(b"# SNAP-style\n1\t2\n2\t3\n3\t1\n3\t4\n"), name="edges.txt.gz")
    assert not app.error and metric(app, "Nodes") == "4" and metric(app, "Edges") == "4"
    assert explorer(app).graph.read.compression == "gzip"
    assert "4 edges read as edge list (gzip)" in " ".join(texts(app.markdown))


def test_an_ambiguous_upload_says_how_to_choose_and_keeps_the_graph(app):
    upload(app, b"0,5,7\n1,5,9\n2,7,9\n", name="rows.csv")
    assert len(app.error) == 1 and "column 0 counts the rows" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"


def test_a_table_that_asks_for_its_columns_is_read_with_the_ones_chosen_here(app):
    """The error asks which columns are the edge's; the app answers it with a picker of the file's
    header, and reads the same bytes again (no second upload)."""
    import networkx as nx

    table = nx.to_pandas_edgelist(nx.karate_club_graph(), source="name1", target="name2")
    table = table.rename(columns={"weight": "score"}).assign(other=7)
    upload(app, table.to_csv(index=False).encode(), name="scores.csv")
    assert len(app.error) == 1 and "cannot tell which columns are source and target" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"  # the graph shown is unchanged
    assert app.selectbox(key="upload_fix_weight").options == ["(none: unweighted)", "name1", "name2", "score",
                                                               "other"]
    app.selectbox(key="upload_fix_weight").set_value(2)
    app.button(key="upload_fix_read").click().run()
    assert not app.error and not app.exception
    graph = explorer(app).graph
    assert (graph.num_nodes, graph.num_edges, graph.weighted) == (34, 78, True)
    assert graph.read.weight == "'score'"
    assert not app.get("selectbox") or "upload_fix_weight" not in [s.key for s in app.selectbox]


def test_a_header_numbering_its_columns_asks_for_its_ends_and_keeps_the_graph(app):
    """n1 … n6 number columns: the upload asks which are the ends (no silent n1 → n2), then reads them."""
    rows = "".join(f"{a},{b},{a + b},0,1,2\n" for a, b in [(1, 2), (2, 3), (3, 4), (4, 1)])
    upload(app, ("n1,n2,n3,n4,n5,n6\n" + rows).encode(), name="numbered.csv")
    assert len(app.error) == 1 and "cannot tell which columns are source and target" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"
    app.selectbox(key="upload_fix_source").set_value(0)
    app.selectbox(key="upload_fix_target").set_value(1)
    app.button(key="upload_fix_read").click().run()
    assert not app.error and not app.exception
    assert (explorer(app).graph.num_nodes, explorer(app).graph.num_edges) == (4, 4)


def test_an_html_table_upload_is_one_line_and_keeps_the_graph(app):
    upload(app, b'<table border="1" class="dataframe">\n<tr><th>source</th></tr>\n</table>\n', name="t.html")
    assert len(app.error) == 1 and texts(app.error)[0].startswith("t.html: HTML (<table>), not a graph file")
    assert explorer(app).graph_key == "lesmis"


def test_a_one_column_file_gets_its_error_and_no_column_picker(app):
    """One column holds no edge whichever way it is read: no picker offering it as source and target."""
    upload(app, b"a\nb\nc\nd\n", name="onecol.csv")
    assert len(app.error) == 1 and texts(app.error)[0].startswith("onecol.csv:1: only 1 column")
    assert "upload_fix_read" not in [b.key for b in app.button]
    assert explorer(app).graph_key == "lesmis"


@pytest.mark.parametrize("name", ["../../etc/passwd.csv", "<img src=x onerror=alert(1)>.csv",
                                  "*b* [l](javascript:alert(1)).csv"])
def test_a_hostile_file_name_is_shown_as_written(app, name):
    """The name is the user's text: escaped before Markdown, so the message and the heading show it."""
    upload(app, b"a,b\nb,c\n", name=name)
    assert texts(app.success) == [f"Loaded {name}: 3 nodes, 2 edges."]
    assert plain(app.subheader[0].value) == name
    for shown in (app.success[0].value, app.subheader[0].value):  # Markdown's characters arrive escaped
        assert not re.search(r"(?<!\\)[<>*\[\]()]", shown), shown
    assert explorer(app).graph.num_nodes == 3


def test_a_very_long_file_name_is_shortened_in_headings_not_in_the_message(app):
    name = "x" * 300 + ".csv"
    upload(app, b"a,b\nb,c\n", name=name)
    assert texts(app.success) == [f"Loaded {name}: 3 nodes, 2 edges."]  # the whole name, once
    heading = plain(app.subheader[0].value)  # five lines of x's before: the metrics pushed off the screen
    assert len(heading) <= 60 and heading.startswith("xxx") and heading.endswith("xxx.csv") and "…" in heading
    summary = next(c.value for c in app.sidebar.caption if c.value.startswith("**Graph:**"))
    assert heading in plain(summary) and name not in plain(summary)


@pytest.mark.parametrize("suffix", ["csv", "xlsx"])
def test_a_first_line_of_unknown_names_is_read_as_the_header_when_told(app, suffix):
    import io

    import networkx as nx

    g = nx.les_miserables_graph()
    table = nx.to_pandas_edgelist(g, source="person", target="friend")[["person", "friend"]]
    book = io.BytesIO()
    table.to_excel(book, index=False)  # a sheet's first row is told as a CSV's first line is
    upload(app, table.to_csv(index=False).encode() if suffix == "csv" else book.getvalue(),
           name=f"people.{suffix}")
    assert len(app.error) == 1 and "a header or an edge?" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"
    app.checkbox(key="upload_fix_header").check()
    app.button(key="upload_fix_read").click().run()
    assert not app.error and not app.exception
    graph = explorer(app).graph
    assert set(graph.names) == set(g.nodes) and graph.num_edges == g.number_of_edges()
    assert (graph.read.source, graph.read.target) == ("'person'", "'friend'")


def test_upload_a_gexf_as_gephi_0_10_writes_it(app):
    import io

    import networkx as nx

    buffer = io.BytesIO()
    nx.write_gexf(nx.karate_club_graph(), buffer, version="1.2draft")
    own, gephi = b'xmlns="http://www.gexf.net/1.2draft"', b'xmlns="http://gexf.net/1.2"'
    raw = buffer.getvalue().replace(own, gephi, 1)
    upload(app, raw, name="karate.gexf")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.labels.classes == ("Mr. Hi", "Officer")


def test_upload_a_matrix_market_file_as_scipy_writes_it(app):
    import io

    import networkx as nx
    import scipy.io
    import scipy.sparse as sp

    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(nx.to_numpy_array(nx.karate_club_graph())))
    upload(app, buffer.getvalue(), name="karate.mtx")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.read.format == "matrix-market"
    assert "78 edges read as Matrix Market" in " ".join(texts(app.markdown))


def test_upload_a_gdf_file_as_gephi_writes_it(app):
    import networkx as nx

    from ..data.test_gdf import gephi_gdf

    upload(app, gephi_gdf(nx.karate_club_graph()), name="karate.gdf")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.read.format == "gdf"
    assert explorer(app).graph.labels.classes == ("Mr. Hi", "Officer")
    assert "78 edges read as GDF (GUESS)" in " ".join(texts(app.markdown))


def test_upload_an_xgmml_file_as_cytoscape_writes_it(app):
    import networkx as nx

    from ..data.test_xgmml import cytoscape_xgmml

    upload(app, cytoscape_xgmml(nx.karate_club_graph()), name="karate.xgmml")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.read.format == "xgmml"
    assert explorer(app).graph.labels.classes == ("Mr. Hi", "Officer")
    assert "78 edges read as XGMML (Cytoscape)" in " ".join(texts(app.markdown))



@pytest.mark.parametrize("fmt", ["tgf", "cytoscape"])
def test_upload_a_yed_tgf_file_or_a_cytoscape_edge_table(app, fmt):
    """Two files that an edge list reading would get wrong or refuse: yEd's `1 Alice` node lines,
    Cytoscape's edges named `A (pp) B` without end columns."""
    import networkx as nx

    from ..data.test_sif import cytoscape_edge_table
    from ..data.test_tgf import yed_tgf

    g = nx.les_miserables_graph()
    upload(app, yed_tgf(g) if fmt == "tgf" else cytoscape_edge_table(g), name=f"lesmis.{fmt}")
    assert not app.error and metric(app, "Nodes") == "77" and metric(app, "Edges") == "254"
    assert "Valjean" in explorer(app).graph.names
    assert explorer(app).graph.read.format == ("tgf" if fmt == "tgf" else "edgelist")


def test_upload_a_graphs_jl_lg_file(app):
    """Graphs.jl's savegraph format: counts, direction and name on the first line, then 1-based edges."""
    import networkx as nx

    from ..data.test_dimacs import lg_text

    g = nx.convert_node_labels_to_integers(nx.karate_club_graph(), first_label=1)
    upload(app, lg_text(g, 34), name="karate.lg")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.read.format == "counted"


def test_upload_a_scipy_sparse_npz_with_its_labels(app):
    """A GNN dataset's .npz (the GNN benchmark's CSR parts and labels): the graph, coloured by its labels."""
    import networkx as nx
    import numpy as np
    import scipy.sparse as sp

    from ..data.test_arrays import saved

    karate = nx.karate_club_graph()
    a = sp.csr_matrix(nx.to_scipy_sparse_array(karate))
    club = np.array([karate.nodes[u]["club"] == "Officer" for u in karate], dtype=np.int64)
    upload(app, saved(np.savez_compressed, adj_data=a.data, adj_indices=a.indices, adj_indptr=a.indptr,
                      adj_shape=a.shape, labels=club), name="karate.npz")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    graph = explorer(app).graph
    assert graph.read.format == "numpy" and graph.weighted and graph.labels.codes.tolist() == club.tolist()


def _karate_table(fmt: str) -> bytes:
    """Karate as pandas writes it in ``fmt``: ends 'a' and 'b', the weight as 'score', one more column."""
    import io

    import networkx as nx

    table = nx.to_pandas_edgelist(nx.karate_club_graph(), source="a", target="b")
    table = table.rename(columns={"weight": "score"}).assign(other=7)
    if fmt == "parquet":
        return table.to_parquet()
    book = io.BytesIO()
    table.to_excel(book, sheet_name="ties", index=False)
    return book.getvalue()


@pytest.mark.parametrize("fmt, name, title", [("parquet", "karate.parquet", "Parquet"),
                                              ("excel", "karate.xlsx", "Excel workbook")])
def test_upload_a_table_pandas_writes_and_choose_its_columns(app, fmt, name, title):
    """to_parquet's table and to_excel's sheet are read as a CSV is: the question about a column, the
    picker that answers it and the one that reads it again all keep reading it in its own format."""
    upload(app, _karate_table(fmt), name=name)
    assert len(app.error) == 1 and "cannot tell which columns are source and target" in app.error[0].value
    assert explorer(app).graph_key == "lesmis"
    weights = ["(none: unweighted)", "a", "b", "score", "other"]
    assert app.selectbox(key="upload_fix_weight").options == weights
    app.selectbox(key="upload_fix_weight").set_value(2)
    app.button(key="upload_fix_read").click().run()
    assert not app.error and not app.exception
    assert metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    graph = explorer(app).graph
    assert graph.weighted and graph.read.format == fmt and graph.read.weight == "'score'"
    assert f"78 edges read as {title} (format as given) from 'a' → 'b', weight from 'score'" in \
        " ".join(texts(app.markdown))
    app.selectbox(key="upload_col_weight").select_index(0)  # (none: unweighted)
    app.button(key="upload_reread").click().run()
    assert not app.error and not app.exception
    assert not explorer(app).graph.weighted and explorer(app).graph.read.format == fmt


def test_upload_a_dot_file_as_networkx_writes_it(app, tmp_path):
    import warnings

    import networkx as nx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nx.nx_pydot.write_dot(nx.karate_club_graph(), tmp_path / "karate.dot")
    upload(app, (tmp_path / "karate.dot").read_bytes(), name="karate.dot")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    assert explorer(app).graph.labels.classes == ("Mr. Hi", "Officer")
    assert "78 edges read as Graphviz DOT" in " ".join(texts(app.markdown))


def igraph_file(tmp_path, writer: str) -> bytes:
    """Zachary's karate club written by igraph's ``write_<writer>``, names n0..n33, weights 1-4."""
    import igraph as ig

    g = ig.Graph.Famous("Zachary")
    g.vs["name"] = [f"n{i}" for i in range(34)]
    g.es["weight"] = [1 + i % 4 for i in range(78)]
    getattr(g, f"write_{writer}")(str(tmp_path / f"karate.{writer}"))
    return (tmp_path / f"karate.{writer}").read_bytes()


@pytest.mark.parametrize("writer, title", [("lgl", "LGL"), ("dot", "Graphviz DOT")])
def test_upload_a_file_igraph_writes(app, tmp_path, writer, title):
    upload(app, igraph_file(tmp_path, writer), name=f"karate.{writer}")
    assert not app.error and metric(app, "Nodes") == "34" and metric(app, "Edges") == "78"
    graph = explorer(app).graph
    assert graph.weighted and graph.names[0] == "n0"
    assert f"78 edges read as {title}" in " ".join(texts(app.markdown))


def test_upload_a_french_sheet_and_change_the_weight_it_guessed(app):
    rows = "".join(f"n{u};n{v};{1 + (u + v) % 3},5\n" for u, v in [(0, 1), (1, 2), (2, 0), (2, 3)])
    upload(app, ("source;cible;poids\n" + rows).encode(), name="feuille.csv")
    assert not app.error and metric(app, "Nodes") == "4" and explorer(app).graph.weighted
    assert "'poids' read as the weight: a number on every row" in " ".join(texts(app.caption))
    assert explorer(app).graph.weight.tolist() == [2.5, 3.5, 1.5, 3.5]
    app.selectbox(key="upload_col_weight").select_index(0)  # (none: unweighted)
    app.button(key="upload_reread").click().run()
    assert not app.error and not explorer(app).graph.weighted


def test_a_file_that_could_be_two_things_is_read_with_the_format_chosen(app):
    """'a b c' lines: a weighted edge list, an adjacency list or SIF; the error says --format, which in
    the app is the Format choice: choosing it reads the same file."""
    adjacency = b"a b c\nb c d\nc a e\n"
    upload(app, adjacency, name="adj.txt")
    [message] = texts(app.error)
    assert message.startswith("adj.txt:1: ") and "--format sif" in message and "Format choice" in message
    assert explorer(app).graph_key == "lesmis"  # the current graph is kept
    app.selectbox(key="upload_format").set_value("adjlist").run()
    app.button(key="upload_load").click().run()
    assert not app.exception and not app.error
    assert metric(app, "Nodes") == "5" and metric(app, "Edges") == "5"
    assert explorer(app).graph.read.format == "adjlist" and not explorer(app).graph.read.detected


def test_a_signed_dot_file_is_read_with_ignore_weights_as_its_error_says(app, tmp_path):
    """A bad weight's error names --weight none; in the app that is the Ignore weights box (a DOT
    file has no column picker)."""
    import networkx as nx

    g = nx.karate_club_graph()
    g.edges[0, 1]["weight"] = -1  # a signed tie
    nx.nx_pydot.write_dot(g, tmp_path / "signed.dot")
    upload(app, (tmp_path / "signed.dot").read_bytes(), name="signed.dot")
    [message] = texts(app.error)
    assert "weight -1 is not positive" in message and "--weight none reads every edge" in message
    assert message.endswith(APP_FLAGS) and "the Ignore weights box" in message
    app.checkbox(key="upload_unweighted").check().run()
    app.button(key="upload_load").click().run()
    assert not app.error and metric(app, "Nodes") == "34" and not explorer(app).graph.weighted
