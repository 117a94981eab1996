"""Explorer helpers: layouts, pair picking, context shifts, and safe run archives."""

from __future__ import annotations

import io
import stat
import zipfile

import numpy as np
import pytest

from goat_core import Goat, GraphFormatError, NodeIndex, explore, load_graph, parse_edge_list, split_edges

from .conftest import FAST, planted_graph


@pytest.fixture(scope="module")
def lesmis():
    return load_graph("lesmis")


@pytest.fixture(scope="module")
def goat(lesmis):
    return Goat(**FAST, seed=2).fit(lesmis)


def test_layout_is_seeded_and_bounded(lesmis):
    a, b = explore.layout(lesmis, 4), explore.layout(lesmis, 4)
    assert np.array_equal(a, b) and a.shape == (77, 2) and np.abs(a).max() == pytest.approx(1.0)
    big = planted_graph(groups=3, size=80, p_in=0.1, p_out=0.01)  # > 200 nodes: the spring path
    c, d = explore.layout(big, 1), explore.layout(big, 2)
    assert not np.allclose(c, d) and np.array_equal(c, explore.layout(big, 1))


def test_communities_cover_every_node(lesmis):
    found = explore.communities(lesmis, seed=0)
    assert (found.codes >= 0).all() and len(found.classes) == found.codes.max() + 1
    assert np.array_equal(found.codes, explore.communities(lesmis, seed=0).codes)
    sizes = np.bincount(found.codes)
    assert list(sizes) == sorted(sizes, reverse=True)


def test_communities_find_planted_groups():
    from sklearn.metrics import normalized_mutual_info_score

    graph = planted_graph(groups=4, size=40, p_in=0.3, p_out=0.005)
    found = explore.communities(graph, seed=3)
    assert normalized_mutual_info_score(graph.labels.codes, found.codes) > 0.9


def test_default_pair(lesmis):
    assert explore.default_pair(lesmis) == (55, 25)  # Marius, Thenardier
    g = planted_graph()
    s, t = explore.default_pair(g)
    assert g.degrees()[s] == g.degrees().max() and g.has_edge(s, t)


def test_random_pairs_are_seeded_edges_and_non_edges(lesmis):
    edges = [explore.random_pair(lesmis, 7, k, edge=True) for k in range(5)]
    assert edges == [explore.random_pair(lesmis, 7, k, edge=True) for k in range(5)]
    assert all(lesmis.has_edge(*p) for p in edges) and len(set(edges)) > 1
    non = [explore.random_pair(lesmis, 7, k, edge=False) for k in range(5)]
    assert all(not lesmis.has_edge(*p) and p[0] != p[1] for p in non)


def test_ego_subgraph(lesmis):
    nodes, src, dst = explore.ego_subgraph(lesmis, 11, limit=10)  # Valjean, degree 36
    assert nodes[0] == 11 and len(nodes) == 10
    assert src.max() < 10 and dst.max() < 10
    assert all(lesmis.has_edge(int(nodes[a]), int(nodes[b])) for a, b in zip(src, dst, strict=True))


def test_context_shift(goat):
    shift = explore.context_shift(goat, NodeIndex(55), NodeIndex(25), NodeIndex(48))
    assert shift.node == "Marius" and shift.partner_a == "Thenardier" and shift.partner_b == "Gavroche"
    assert np.nansum(shift.weights_a) == pytest.approx(1.0, abs=1e-5)
    assert np.nansum(shift.weights_b) == pytest.approx(1.0, abs=1e-5)
    assert np.isnan(shift.weights_a[shift.neighbor_names.index("Thenardier")])  # partner left out
    assert 0.0 < shift.moved <= 1.0 and -1.0 <= shift.cosine <= 1.0
    to_a, to_b = shift.gained()
    assert not set(to_a) & set(to_b)
    same = explore.context_shift(goat, "Marius", "Thenardier", "Thenardier")
    assert same.moved == pytest.approx(0.0) and same.cosine == pytest.approx(1.0)


def test_contrasting_partner_is_another_neighbor(goat, lesmis):
    v = explore.contrasting_partner(goat, 55, 25)
    assert v != 25 and lesmis.has_edge(55, v)


def _zip(members: dict[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _members(goat) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(explore.run_to_zip(goat))) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_run_archive_round_trip_and_folder(goat):
    again = explore.run_from_zip(explore.run_to_zip(goat))
    pair = ("Marius", "Thenardier")
    assert again.attention(*pair).to_dict() == goat.attention(*pair).to_dict()
    nested = _zip({f"run/{k}": v for k, v in _members(goat).items()})
    assert explore.run_from_zip(nested).graph_.names == goat.graph_.names


@pytest.mark.parametrize("case, problem", [
    ("junk", "not a zip archive"),
    ("traversal", "points outside the archive"),
    ("absolute", "absolute path"),
    ("symlink", "symbolic link"),
    ("missing", "weights.pt missing"),
    ("huge", "over the"),
    ("bad config", "config.json: 'params' is missing"),
])
def test_run_archive_refuses_bad_archives(goat, case, problem):
    members = _members(goat)
    raw = {
        "junk": b"PK not really",
        "traversal": _zip({**members, "../../evil.txt": b"x"}),
        "absolute": _zip({**members, "/tmp/evil.txt": b"x"}),
        "symlink": _zip(members, symlink="config.json.lnk"),
        "missing": _zip({k: v for k, v in members.items() if k != "weights.pt"}),
        "huge": _zip(members),
        "bad config": _zip({**members, "config.json": b'{"format_version": 1}'}),
    }[case]
    limit = 1000 if case == "huge" else explore.MAX_RUN_ARCHIVE_BYTES
    with pytest.raises(GraphFormatError) as err:
        explore.run_from_zip(raw, file="up.zip", max_bytes=limit)
    assert str(err.value).startswith("up.zip: ") and problem in str(err.value) and "\n" not in str(err.value)


def test_recover_split(lesmis):
    split = split_edges(lesmis, 0.8, 9)
    found = explore.recover_split(lesmis, split.train, 9)
    assert found is not None and np.array_equal(found.test_neg, split.test_neg)
    assert explore.recover_split(lesmis, split.train, 10) is None  # other seed, other split
    assert explore.recover_split(lesmis, lesmis, 9) is None


def test_large_layouts_are_seeded_without_touching_global_random_state():
    import random

    from .conftest import planted_graph

    graph = planted_graph(groups=10, size=30, p_in=0.2, p_out=0.01, seed=3)  # 300 nodes: igraph's layout
    before = random.getstate()
    first = explore.layout(graph, 7)
    assert random.getstate() == before
    random.seed(12345)  # whatever the global state, the same seed gives the same picture
    assert np.array_equal(first, explore.layout(graph, 7))
    assert np.abs(first).max() == pytest.approx(1.0)


def _tampered(goat, config=None, nodes=None, tensors=None) -> bytes:
    """The goat's run zip with config.json / nodes.json / weights.pt changed by the callbacks."""
    import json

    import torch

    members = _members(goat)
    for name, change in (("config.json", config), ("nodes.json", nodes)):
        if change is not None:
            data = json.loads(members[name])
            change(data)
            members[name] = json.dumps(data).encode()
    if tensors is not None:
        data = torch.load(io.BytesIO(members["weights.pt"]), weights_only=True)
        change_tensors = tensors
        change_tensors(data)
        buffer = io.BytesIO()
        torch.save(data, buffer)
        members["weights.pt"] = buffer.getvalue()
    return _zip(members)


def _set(data, key, value):
    data[key] = value


def _patch_header(raw: bytes, member: str, local: int, central: int, value: int, bits: bool = False) -> bytes:
    """Rewrite a 2-byte field of a member's local and central headers (set ``value``'s bits with
    ``bits``): zipfile itself would not write an encrypted flag or an unknown method."""
    out = bytearray(raw)
    name = member.encode()
    for signature, field, name_at in ((b"PK\x03\x04", local, 30), (b"PK\x01\x02", central, 46)):
        start = 0
        while (start := out.find(signature, start)) != -1:
            if out[start + name_at:start + name_at + len(name)] == name:
                old = int.from_bytes(out[start + field:start + field + 2], "little")
                new = (old | value) if bits else value
                out[start + field:start + field + 2] = new.to_bytes(2, "little")
            start += 4
    return bytes(out)


@pytest.mark.parametrize("case, problem", [
    ("names as ints", "nodes.json: names must be a list of strings"),
    ("negative src", "weights.pt: src was changed after the run was saved"),
    ("neighborhood ids", "weights.pt: hood_table was changed after the run was saved"),
    ("NaN embedding", "weights.pt: embedding was changed after the run was saved"),
    ("malformed history", "config.json: was changed after the run was saved"),
    ("encrypted", "is encrypted"),
    ("compression", "compression method 99"),
])
def test_tampered_runs_are_one_line_errors(goat, case, problem):
    """Each of these once loaded and then crashed a page (or escaped the error handling)."""
    n = goat.graph_.num_nodes
    if case == "encrypted":  # general-purpose flag bit 0
        raw = _patch_header(_zip(_members(goat)), "weights.pt", 6, 8, 0x1, bits=True)
    elif case == "compression":
        raw = _patch_header(_zip(_members(goat)), "nodes.json", 8, 10, 99)
    else:
        raw = {
            "names as ints": lambda: _tampered(goat, nodes=lambda d: _set(d, "names", list(range(n)))),
            "negative src": lambda: _tampered(goat, tensors=lambda t: t["src"].__setitem__(0, -5)),
            "neighborhood ids": lambda: _tampered(goat, tensors=lambda t: t["hood_table"].__setitem__(
                (0, 0), n + 7)),
            "NaN embedding": lambda: _tampered(goat, tensors=lambda t: t["embedding"].__setitem__(
                (0, 0), float("nan"))),
            "malformed history": lambda: _tampered(goat, config=lambda d: _set(d, "history",
                                                                                 [{"loss": "x"}])),
        }[case]()
    with pytest.raises(GraphFormatError) as err:
        explore.run_from_zip(raw, file="up.zip")
    assert str(err.value).startswith("up.zip: ") and problem in str(err.value) and "\n" not in str(err.value)


def test_find_nodes_matches_either_unicode_spelling():
    graph = parse_edge_list("Zo\u00eb b\nb c\n".encode(), file="<find>")
    assert explore.find_nodes(graph, "Zoe\u0308") == explore.find_nodes(graph, "Zo\u00eb") == [0]


def test_find_nodes_ranks_exact_then_case_then_prefix_then_substring():
    graph = parse_edge_list(b"Anna anna\nannabel Hanna\n17 170\n170 1\n", file="<find>")
    names = graph.names
    found = [names[i] for i in explore.find_nodes(graph, "anna")]
    assert found == ["anna", "Anna", "annabel", "Hanna"]
    assert [names[i] for i in explore.find_nodes(graph, "17")] == ["17", "170"]  # ids are names
    assert explore.find_nodes(graph, "  ") == [] and explore.find_nodes(graph, "zzz") == []
    assert len(explore.find_nodes(graph, "a", limit=2)) == 2


def test_overview_keeps_every_node_up_to_the_limit_else_the_hubs():
    star = b"".join(f"hub {i}\n".encode() for i in range(30)) + b"0 1\n1 2\n"
    graph = parse_edge_list(star, file="<star>")
    whole = explore.overview(graph, 100)
    assert whole.complete and len(whole.src) == graph.num_edges
    part = explore.overview(graph, 3)
    assert not part.complete and len(part.nodes) == 3
    assert graph.index_of("hub") in part.nodes.tolist()  # the highest degree stays
    kept = set(part.nodes.tolist())
    for a, b in zip(part.src.tolist(), part.dst.tolist(), strict=True):  # only edges among drawn nodes
        u, v = int(part.nodes[a]), int(part.nodes[b])
        assert u in kept and v in kept and graph.has_edge(u, v)
    pos = explore.layout_edges(len(part.nodes), part.src, part.dst, seed=1)
    assert pos.shape == (3, 2) and np.abs(pos).max() <= 1.0 + 1e-9
    assert np.array_equal(pos, explore.layout_edges(len(part.nodes), part.src, part.dst, seed=1))


def test_ego_subgraph_is_the_center_and_its_top_neighbors_with_their_edges():
    graph = parse_edge_list(b"a b\na c\na d\nb c\nc d\nd e\n", file="<ego>")
    nodes, src, dst = explore.ego_subgraph(graph, graph.index_of("a"), limit=3)
    names = [graph.names[i] for i in nodes]
    assert names[0] == "a" and len(names) == 3 and "e" not in names
    edges = {frozenset((names[s], names[d])) for s, d in zip(src.tolist(), dst.tolist(), strict=True)}
    assert all(graph.has_edge(graph.index_of(x), graph.index_of(y)) for x, y in map(tuple, edges))


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA],
                         ids=["deflate", "bzip2", "lzma"])
def test_a_run_archive_with_damaged_compressed_data_is_one_line(goat, method):
    """Issue 24's second sweep: damaged bzip2 or LZMA data escaped as OSError / LZMAError (in the
    app, a page's traceback), where damaged deflate data was a one-line error."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, data in _members(goat).items():
            zf.writestr(name, data)
    raw = buffer.getvalue()
    start = raw.index(b"weights.pt") + 200  # inside the compressed weights
    damaged = raw[:start] + bytes(300) + raw[start + 300:]
    with pytest.raises(GraphFormatError) as err:
        explore.run_from_zip(damaged, file="up.zip")
    assert str(err.value).startswith("up.zip: damaged zip archive") and "\n" not in str(err.value)
