"""The graphs people bring, through every page: integer ids (sparse ones, as in real edge
lists) and a 10,000-node graph. The pages must complete without an exception or an error, and
integer ids must stay names. Timing belongs in bench/app_scale.py, not here."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from ui import navigation

from .conftest import explorer, goto, new_app, train
from .test_graph_page import upload

PAGES = [p.name for p in navigation.PAGES]


def edge_list(nodes: int, m: int, seed: int = 0) -> bytes:
    """A Barabási–Albert edge list whose ids are sparse integers (7919·i + 13)."""
    graph = nx.barabasi_albert_graph(nodes, m, seed=seed)
    return "".join(f"{7919 * u + 13} {7919 * v + 13}\n" for u, v in graph.edges()).encode()


@pytest.mark.parametrize("nodes, m", [(800, 3), (10_000, 2)], ids=["integer-ids", "10k-nodes"])
def test_every_page_completes_on_an_uploaded_graph(nodes, m):
    at = new_app()
    upload(at, edge_list(nodes, m), name=f"ba{nodes}.txt")
    assert explorer(at).graph.num_nodes == nodes
    train(at, epochs=1, dim=8, neighborhood=10, batch_size=512)
    assert explorer(at).run is not None and not at.error
    for page in PAGES:
        goto(at, page)
        assert not at.error, (page, [e.value for e in at.error])
    goto(at, "gossip")
    s, t = explorer(at).pair
    names = explorer(at).names
    assert at.header[0].value.replace("\\", "") == f"{names[s]} ↔ {names[t]}"
    bars = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
            if json.loads(c.proto.spec)["data"][0].get("type") == "bar"]
    assert bars, "the attention bars are drawn"
    for spec in bars:
        assert spec["layout"]["yaxis"]["type"] == "category"  # "7932" is a name, not a position
        assert all(str(y).lstrip("★ ").isdigit() for y in spec["data"][0]["y"])


def test_a_large_graph_is_searched_by_id_and_explored_around_the_pair():
    at = new_app()
    upload(at, edge_list(3_000, 2), name="ba3000.txt")
    train(at, epochs=1, dim=8, neighborhood=10, batch_size=512)
    goto(at, "gossip")
    assert "pair_source" not in [box.key for box in at.selectbox]  # no list of 3,000 names
    assert at.session_state["gossip_view"] == "ego"  # the whole graph is not offered: a hairball
    wanted = str(7919 * 42 + 13)
    at.text_input(key="pair_found_query").input(wanted).run()
    assert at.selectbox(key="pair_found").value == explorer(at).graph.index_of(wanted)  # exact id first
    next(b for b in at.button if b.key == "pair_found_source").click().run()
    ex = explorer(at)
    assert ex.names[ex.pair[0]] == wanted and not at.exception
    assert any(c.proto.id.endswith(f"gossip_ego_{ex.click_round}") for c in at.get("plotly_chart"))
    at.text_input(key="pair_found_query").input("no such node").run()
    assert any("No node name contains" in c.value for c in at.caption)
    goto(at, "graph")
    at.text_input(key="graph_search_query").input(wanted).run()
    assert any(f"**{wanted}**: degree" in m.value for m in at.markdown)
