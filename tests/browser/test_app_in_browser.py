"""The app in a real browser: train, click two nodes, upload, cancel, separate sessions.

Run with ``pytest -m browser tests/browser`` (Chromium at /usr/bin/chromium). Every page
leaves a screenshot in test-output/screenshots/.
"""

from __future__ import annotations

import re

import pytest

from ui import navigation

from .conftest import FIND_NODE, click_node, go, open_app, settle, shot

pytestmark = pytest.mark.browser

EDGES = b"source,target,weight\nann,bob,2\nbob,cat,1\ncat,ann,1\ncat,dan,3\ndan,eve,1\n"


def metric(page, label: str) -> str:
    box = page.get_by_test_id("stMetric").filter(has=page.get_by_text(label, exact=True))
    return box.get_by_test_id("stMetricValue").inner_text().strip()


def choose_file(page, path) -> None:
    """Put a file in the edge-list uploader and wait until the app has received it."""
    uploader = page.locator(".st-key-upload_edges")
    uploader.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text(f"Ready to load: {path.name}").wait_for()  # the server has the file
    settle(page)


def train_lesmis(page) -> None:
    go(page, "Train")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Current run").wait_for()
    settle(page)


def test_train_click_two_nodes_and_every_page(server, new_page, tmp_path):
    page = new_page()
    open_app(page, server)
    assert metric(page, "Nodes") == "77"
    shot(page, "1-graph")
    page.get_by_role("tab", name="Physics view (pyvis)").click()
    settle(page)
    frame = page.frame_locator("iframe").first
    frame.locator("canvas").first.wait_for()  # vis-network drew itself, offline
    shot(page, "1-graph-pyvis")
    with page.expect_download() as info:
        page.get_by_role("button", name="Download this view (HTML)").click()
    info.value.save_as(tmp_path / info.value.suggested_filename)
    saved = page.context.new_page()  # the downloaded file alone, off the app: it still draws
    saved.route(re.compile(r"^https?://"), lambda route: route.abort())
    saved.goto((tmp_path / "goat-physics-view.html").as_uri())
    saved.locator("#mynetwork canvas").wait_for()
    saved.close()

    train_lesmis(page)
    assert page.get_by_text(re.compile(r"^(Trained in|Fetched from the cache)")).count() == 1
    shot(page, "2-train")

    go(page, "Gossip & attend")
    assert page.get_by_role("heading", name="Marius ↔ Thenardier").is_visible()
    click_node(page, "Valjean")
    assert page.get_by_text("First node: Valjean.").is_visible()
    click_node(page, "Javert")
    heading = page.get_by_role("heading", name="Valjean ↔ Javert")
    heading.wait_for()
    assert 0.0 < float(metric(page, "Edge probability σ(r_s·r_t)")) < 1.0
    assert "s=Valjean" in page.url and "t=Javert" in page.url and "dim=64" in page.url
    shot(page, "3-gossip")
    page.get_by_role("tab", name="Alignment matrix").click()
    settle(page)
    page.get_by_text(re.compile("Alignment A = S")).first.wait_for()
    shot(page, "3-gossip-alignment")

    go(page, "Equations")
    page.get_by_role("heading", name="How a score is made").wait_for()
    page.get_by_test_id("stButtonGroup").get_by_text("softmax", exact=True).click()  # a step
    settle(page)
    page.get_by_text(re.compile(r"^p_s = softmax\(a_s\)")).first.wait_for()  # the figure follows the step
    assert "Valjean" in page.get_by_text(re.compile(r"^The pair")).first.inner_text()
    shot(page, "3-equations")

    # every other page of the registry (ui/navigation.py): a heading of its own, no exception
    rest = {"embeddings": ("Personas", "4-embeddings"),
            "scores": ("Link prediction on held-out edges", "5-scores"),
            "case_study": ("3 · Marius (55) gossips with Gavroche (48)", "6-case-study")}
    seen = ("graph", "train", "gossip", "equations")
    assert [p.name for p in navigation.PAGES if p.name not in seen] == list(rest)  # a new page: add it here
    for name, (heading, screenshot) in rest.items():
        go(page, navigation.page(name).title)
        page.get_by_role("heading", name=heading).wait_for()
        settle(page)
        assert not page.get_by_test_id("stException").count()
        shot(page, screenshot)


def test_shared_link_opens_the_same_view_in_dark_mode(server, new_page):
    page = new_page()
    open_app(page, server)
    train_lesmis(page)
    go(page, "Gossip & attend")
    click_node(page, "Cosette")
    click_node(page, "Fantine")
    link = page.url
    other = new_page(color_scheme="dark")
    other.goto(link)
    settle(other)
    other.get_by_role("heading", name="Cosette ↔ Fantine").wait_for()
    shot(other, "3-gossip-dark")


def test_upload_edge_list_good_then_bad(server, new_page, tmp_path):
    page = new_page()
    open_app(page, server)
    page.get_by_text("Upload a graph file").click()
    settle(page)
    good, bad = tmp_path / "friends.csv", tmp_path / "broken.txt"
    good.write_bytes(EDGES)
    bad.write_bytes(b"a b\nb c\nc d 1 2 3\n")
    choose_file(page, good)
    page.get_by_role("button", name="Load graph").click()
    settle(page)
    page.get_by_text("Loaded friends.csv: 5 nodes, 5 edges.").wait_for()
    assert metric(page, "Nodes") == "5"
    shot(page, "1-graph-uploaded")
    choose_file(page, bad)
    page.get_by_role("button", name="Load graph").click()
    settle(page)
    error = page.get_by_test_id("stAlertContentError")
    assert error.inner_text().strip() == "broken.txt:3: 5 columns; expected 'source target [weight]'"
    assert metric(page, "Nodes") == "5"  # the previous graph stays
    assert not page.get_by_test_id("stException").count()


def test_cancel_while_another_session_keeps_working(server, new_page):
    trainer, other = new_page(), new_page()
    open_app(trainer, server)
    go(trainer, "Train")
    epochs = trainer.locator(".st-key-train_epochs input")
    epochs.fill("3000")
    epochs.press("Tab")
    trainer.get_by_role("button", name="Train", exact=True).click()
    trainer.get_by_text(re.compile(r"epoch \d+/3000")).wait_for()

    # Meanwhile a second session loads, switches graph and draws: it is not frozen by the training.
    open_app(other, server)
    other.get_by_text("Email (bundled)").click()
    settle(other)
    assert metric(other, "Nodes") == "1,005"
    assert trainer.get_by_role("button", name="Cancel training").is_visible()  # still training

    trainer.get_by_role("button", name="Cancel training").click()
    trainer.get_by_text(re.compile(r"Training cancelled at epoch \d+/3000; no run yet\.")).wait_for()
    settle(trainer)
    go(trainer, "Gossip & attend")
    assert trainer.get_by_text("No trained model").is_visible()  # nothing half-trained was kept
    go(other, "Graph")
    assert metric(other, "Nodes") == "1,005"  # each session kept its own graph


def ba_edge_list(path, nodes: int, m: int) -> None:
    """A Barabási–Albert edge list with sparse integer ids (7919·i + 13), as real exports have."""
    import networkx as nx

    graph = nx.barabasi_albert_graph(nodes, m, seed=0)
    path.write_text("".join(f"{7919 * u + 13} {7919 * v + 13}\n" for u, v in graph.edges()))


def upload(page, server, path) -> None:
    open_app(page, server)
    page.get_by_text("Upload a graph file").click()
    settle(page)
    choose_file(page, path)
    page.get_by_role("button", name="Load graph").click()
    settle(page)


def upload_and_train(page, server, path) -> None:
    upload(page, server, path)
    page.get_by_text(f"Loaded {path.name}").wait_for()
    go(page, "Train")
    epochs = page.locator(".st-key-train_epochs input")
    epochs.fill("2")
    epochs.press("Tab")
    settle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Current run").wait_for()
    settle(page)


def test_integer_ids_click_and_read_as_names(server, new_page, tmp_path):
    page = new_page()
    path = tmp_path / "ints.txt"
    ba_edge_list(path, 150, 2)
    upload_and_train(page, server, path)
    go(page, "Gossip & attend")
    click_node(page, "13")  # node 0
    click_node(page, "7932")  # node 1: an edge of every BA graph with m >= 1
    page.get_by_role("heading", name="13 ↔ 7932").wait_for()
    axes = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot')]
        .filter(gd => gd.data.length && gd.data[0].type === 'bar').map(gd => gd.layout.yaxis.type)""")
    assert axes and set(axes) == {"category"}  # ids are names on the attention bars, not positions
    shot(page, "7-integer-ids")
    assert not page.get_by_test_id("stException").count()
    go(page, "Equations")  # integer ids are names in the step text and on the alignment's axes
    assert "The pair 13 (s) and 7932 (t)" in page.get_by_text(re.compile(r"^The pair")).first.inner_text()
    assert not page.get_by_test_id("stException").count()


EGO_NEIGHBOR = """() => {
  // the ego view: the chart whose points carry [id, name, partner]; its many-point trace is the neighbors
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    for (const trace of gd._fullData || []) {
      const cd = trace.customdata;
      if (cd && cd.length > 1 && cd[0].length === 3) return cd[0][1];
    }
  }
  return null;
}"""


PAIR_CHANGED = """(before) => [...document.querySelectorAll('h1, h2, h3')]
  .some(h => h.innerText.includes('↔') && h.innerText.trim() !== before)"""


def test_a_10k_node_upload_opens_every_page(server, new_page, tmp_path):
    page = new_page()
    path = tmp_path / "ba10k.txt"
    ba_edge_list(path, 10_000, 2)
    upload_and_train(page, server, path)
    for title in [p.title for p in navigation.PAGES]:  # the registry: every page
        go(page, title)
        assert not page.get_by_test_id("stException").count(), title
        assert not page.get_by_test_id("stAlertContentError").count(), title
        if title == "Graph":  # 10,000 nodes: drawn with WebGL, not one SVG element each
            assert page.locator(".js-plotly-plot .gl-canvas").count()
            assert not page.locator(".js-plotly-plot .scatterlayer .point").count()
        if title == "Gossip & attend":  # around the pair: a click on a neighbor makes it the partner
            neighbor = page.evaluate(EGO_NEIGHBOR)
            assert neighbor is not None
            pair = page.get_by_role("heading", name=re.compile("↔"))
            before = pair.inner_text().strip()
            click_node(page, neighbor)  # the arc is crowded: the click may land on a next-door neighbor
            page.wait_for_function(PAIR_CHANGED, arg=before)
            after = pair.inner_text().strip().split(" ↔ ")
            assert after[0] in before.split(" ↔ ")  # the partner changed, s or t stayed
        if title == "Embeddings":  # a click on a WebGL point still reaches the app
            click_node(page, "13")
            page.get_by_text(re.compile(r"is now the source of the gossip pair")).wait_for()
    shot(page, "8-10k-nodes")


# Centre of the bar of ``name`` on the first bar chart carrying it (customdata = [id, name]): the
# longest of its bars (a muted neighbor's own bar is empty; the outline of the model's attention
# is not), from the chart's axes and Plotly's decoded _fullData.
FIND_BAR = """(name) => {
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    if (!xa || !ya) continue;
    let best = null;
    for (const trace of gd._fullData) {
      const cd = trace.customdata;
      if (trace.type !== 'bar' || !cd) continue;
      for (let j = 0; j < cd.length; j++) {
        if (cd[j][1] === name && (best === null || trace.x[j] > best[0])) best = [trace.x[j], trace.y[j]];
      }
    }
    if (best) return [box.left + xa._offset + xa.l2p(best[0] / 2), box.top + ya._offset + ya.d2p(best[1])];
  }
  return null;
}"""

TOP_BAR = """() => {  // the most attended neighbor on the first attention chart (bars sorted, most first)
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const trace = (gd._fullData || [])[0];
    if (trace && trace.type === 'bar' && trace.customdata && trace.customdata[0][0] >= 0) {
      return trace.customdata[0][1];
    }
  }
  return null;
}"""

PLOT_TITLE = """(prefix) => [...document.querySelectorAll('.js-plotly-plot .gtitle')]
  .some(t => t.textContent.startsWith(prefix))"""


def click_bar(page, name: str) -> None:
    xy = page.evaluate(FIND_BAR, name)
    assert xy is not None, f"no bar for {name!r}"
    page.mouse.click(*xy)
    settle(page)


def test_mute_a_neighbor_by_clicking_its_bar_then_scrub_and_play_training(server, new_page):
    page = new_page()
    open_app(page, server)
    train_lesmis(page)  # tracks the current pair, Marius ↔ Thenardier
    go(page, "Gossip & attend")
    page.get_by_role("heading", name="Marius ↔ Thenardier").wait_for()
    label = "Edge probability σ(r_s·r_t)"
    model_p = metric(page, label)
    top = page.evaluate(TOP_BAR)
    assert top is not None

    click_bar(page, top)  # mute the neighbor Marius attends to most
    page.get_by_text(f"Muted: {top}").wait_for()
    assert metric(page, label) != model_p
    assert page.get_by_text("vs the model's").count() >= 1
    shot(page, "9-gossip-muted")
    click_bar(page, top)  # its outline is still there: a second click unmutes
    page.get_by_text(f"Muted: {top}").wait_for(state="detached")
    assert metric(page, label) == model_p

    page.get_by_role("tab", name="Over training").click()
    settle(page)
    final = metric(page, "Edge probability at this epoch")
    assert final == model_p  # the last epoch is the model
    page.wait_for_function(PLOT_TITLE, arg="Epoch 40:")
    thumb = page.get_by_test_id("stSlider").get_by_role("slider")  # the epoch scrubber: the tab's one slider
    thumb.focus()
    thumb.press("Home")  # scrub back to epoch 0, before training
    settle(page)
    page.wait_for_function(PLOT_TITLE, arg="Epoch 0:")
    assert metric(page, "Edge probability at this epoch") != final
    assert float(metric(page, "Entropy of Marius's attention")) > 0.95  # close to uniform
    shot(page, "9-gossip-over-training")
    page.locator(".js-plotly-plot .updatemenu-button").filter(has_text="Play").click()
    page.wait_for_function(PLOT_TITLE, arg="Epoch 40:", timeout=60_000)  # played to the last epoch
    assert not page.get_by_test_id("stException").count()


def test_upload_a_gexf_then_read_a_gephi_table_by_other_columns(server, new_page, tmp_path):
    """Any graph file goes through the uploader (no extension filter): GEXF's node attribute
    becomes the labels; a Gephi edge table is read by name, then re-read without its weights."""
    import networkx as nx

    page = new_page()
    open_app(page, server)
    page.get_by_text("Upload a graph file").click()
    settle(page)
    gexf, table = tmp_path / "karate.gexf", tmp_path / "gephi.csv"
    nx.write_gexf(nx.karate_club_graph(), gexf)
    table.write_text("Source,Target,Type,Id,Label,Weight\nann,bob,Undirected,0,,2\nbob,cat,Undirected,1,,1\n"
                     "cat,ann,Undirected,2,,1\ncat,dan,Undirected,3,,3\n")
    choose_file(page, gexf)
    page.get_by_role("button", name="Load graph").click()
    settle(page)
    page.get_by_text("Loaded karate.gexf: 34 nodes, 78 edges.").wait_for()
    page.get_by_text(re.compile(r"78 edges read as GEXF, weight from edge attribute 'weight'")).wait_for()
    assert metric(page, "Nodes") == "34"
    assert page.get_by_text("labels from node attribute 'club'", exact=False).count() >= 1
    shot(page, "1-graph-uploaded-gexf")
    choose_file(page, table)
    page.get_by_role("button", name="Load graph").click()
    settle(page)
    page.get_by_text("Loaded gephi.csv: 4 nodes, 4 edges.").wait_for()
    page.get_by_text(re.compile(r"from 'Source' → 'Target', weight from 'Weight'; ignored 'Type'")).wait_for()
    weight = page.locator(".st-key-upload_col_weight")
    weight.click()
    page.get_by_role("option", name="(none: unweighted)").click()
    settle(page)
    page.get_by_role("button", name="Read again").click()
    settle(page)
    page.get_by_text(re.compile(r"4 edges read as edge list \(format as given\) from 'Source' → 'Target', "
                                r"unweighted")).wait_for()
    shot(page, "1-graph-reread-columns")
    assert not page.get_by_test_id("stException").count()


def test_upload_an_lgl_file_igraph_writes(server, new_page, tmp_path):
    """igraph's write_lgl (``# n0`` then ``n1 2`` lines) is read as LGL, not as an edge list."""
    import igraph as ig

    g = ig.Graph.Famous("Zachary")
    g.vs["name"] = [f"n{i}" for i in range(34)]
    g.es["weight"] = [1 + i % 4 for i in range(78)]
    path = tmp_path / "karate.lgl"
    g.write_lgl(str(path))
    page = new_page()
    upload(page, server, path)
    page.get_by_text("Loaded karate.lgl: 34 nodes, 78 edges.").wait_for()
    page.get_by_text(re.compile(r"78 edges read as LGL, weight from edge attribute 'weight'")).wait_for()
    assert metric(page, "Nodes") == "34" and metric(page, "Edges") == "78"
    shot(page, "1-graph-uploaded-lgl")
    assert not page.get_by_test_id("stException").count()


def test_upload_a_graphviz_json_layout_dot_writes(server, new_page, tmp_path):
    """Graphviz's own ``dot -Tjson`` of a graph with a weighted edge, a name with a blank and a lone
    node, uploaded with no format chosen: the graph it lays out, its weight, not its drawing."""
    from ..data.test_dot import graphviz

    path = tmp_path / "layout.json"
    path.write_bytes(graphviz(b'graph { a -- "x y" [weight=3]; "x y" -- b; b -- a; lone; }', "json"))
    page = new_page()
    upload(page, server, path)
    page.get_by_text("Loaded layout.json: 4 nodes, 3 edges.").wait_for()
    page.get_by_text(re.compile(r"^3 edges read as node-link JSON, weight from edge attribute 'weight';"
                                r".*; undirected$")).wait_for()
    assert page.get_by_text("Graphviz JSON (dot -Tjson)", exact=True).count() == 1
    assert page.get_by_text(re.compile(r"^undirected, weighted · ")).count() == 1
    assert [metric(page, m) for m in ("Nodes", "Edges", "Isolated nodes")] == ["4", "3", "1"]
    page.wait_for_selector(".js-plotly-plot .scatterlayer .point")
    assert page.evaluate(FIND_NODE, "x y") is not None  # the quoted name, whole, on the chart
    shot(page, "1-graph-uploaded-graphviz-json")
    assert not page.get_by_test_id("stException").count()


def test_upload_a_gnn_benchmark_npz_keeps_its_classes_after_a_refresh(server, new_page, tmp_path):
    """The GNN benchmark's ``.npz`` (the adjacency matrix's CSR parts and a label array, by np.savez):
    read as that matrix with its classes, and the same graph after F5 (the link carries the upload)."""
    import networkx as nx
    import numpy as np

    g = nx.karate_club_graph()
    a = nx.to_scipy_sparse_array(g, weight=None, format="csr")
    path = tmp_path / "karate.npz"
    np.savez(path, adj_data=a.data, adj_indices=a.indices, adj_indptr=a.indptr, adj_shape=a.shape,
             labels=np.array([g.nodes[n]["club"] == "Officer" for n in g], dtype=np.int64))
    page = new_page()
    upload(page, server, path)
    page.get_by_text("Loaded karate.npz: 34 nodes, 78 edges.").wait_for()
    account = re.compile(r"78 edges read as NumPy/SciPy arrays, unweighted; labels from array 'labels'")
    page.get_by_text(account).wait_for()
    page.reload()
    settle(page)
    page.get_by_text(account).wait_for()
    assert [metric(page, m) for m in ("Nodes", "Edges")] == ["34", "78"]
    assert page.get_by_text(re.compile(r"\b2 classes\b")).count() >= 1, "the labels survive the refresh"
    shot(page, "1-graph-uploaded-npz")
    assert not page.get_by_test_id("stException").count()


def test_upload_an_excel_workbook_with_a_nodes_sheet_in_front_of_its_edges(server, new_page, tmp_path):
    """A workbook as people keep a network (pandas' to_excel: Nodes, then Edges) is read from its
    Edges sheet, and the account names the sheet it left out."""
    import networkx as nx
    import pandas as pd

    g = nx.karate_club_graph()
    path = tmp_path / "karate.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"id": list(g), "club": [g.nodes[n]["club"] for n in g]}).to_excel(
            writer, sheet_name="Nodes", index=False)
        nx.to_pandas_edgelist(g).to_excel(writer, sheet_name="Edges", index=False)
    page = new_page()
    upload(page, server, path)
    page.get_by_text("Loaded karate.xlsx: 34 nodes, 78 edges.").wait_for()
    page.get_by_text(re.compile(r"78 edges read as Excel workbook from 'source' → 'target'")).wait_for()
    assert metric(page, "Nodes") == "34" and metric(page, "Edges") == "78"
    shot(page, "1-graph-uploaded-xlsx")
    assert not page.get_by_test_id("stException").count()
