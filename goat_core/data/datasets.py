"""Bundled graphs by name: ``lesmis`` (networkx) and ``email`` (SNAP email-Eu-core).

Email may not be shipped with the project. It is found, in order, in the data directory named
by ``GOAT_DATA_DIR`` (laid out like the project's shared data: ``email/graph.txt`` and
``email/communities.txt``), in the user cache, or downloaded from SNAP's official URLs into
the cache; every copy is verified by SHA-256 of its LF-normalised content.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import urllib.request
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import GraphFormatError
from .formats import Column
from .graph import Graph, NodeLabels, data_dir, from_networkx, parse_labels
from .readers import read_graph_file

# Newman's lesmis.gml numbering, used by the GOAT paper's case study (25 Thenardier,
# 48 Gavroche, 55 Marius). networkx keys the same graph by name; this fixes the order.
LESMIS_PAPER_ORDER = (
    "Myriel Napoleon MlleBaptistine MmeMagloire CountessDeLo Geborand Champtercier Cravatte "
    "Count OldMan Labarre Valjean Marguerite MmeDeR Isabeau Gervais Tholomyes Listolier Fameuil "
    "Blacheville Favourite Dahlia Zephine Fantine MmeThenardier Thenardier Cosette Javert "
    "Fauchelevent Bamatabois Perpetue Simplice Scaufflaire Woman1 Judge Champmathieu Brevet "
    "Chenildieu Cochepaille Pontmercy Boulatruelle Eponine Anzelma Woman2 MotherInnocent Gribier "
    "Jondrette MmeBurgon Gavroche Gillenormand Magnon MlleGillenormand MmePontmercy MlleVaubois "
    "LtGillenormand Marius BaronessT Mabeuf Enjolras Combeferre Prouvaire Feuilly Courfeyrac "
    "Bahorel Bossuet Joly Grantaire MotherPlutarch Gueulemer Babet Claquesous Montparnasse "
    "Toussaint Child1 Child2 Brujon MmeHucheloup"
).split()

EMAIL_FILES = {
    # name in the data dir: (SNAP URL, sha256 of the LF-normalised content)
    "graph.txt": (
        "https://snap.stanford.edu/data/email-Eu-core.txt.gz",
        "23e0ca0bce21a053025e78f7e9691ac9210ae806a0689bd5edff3c3bac572d4c",
    ),
    "communities.txt": (
        "https://snap.stanford.edu/data/email-Eu-core-department-labels.txt.gz",
        "91a089f21ee35eb224066456fa5322c8ad57c0f07b2da7a58a3220c72b5d54b5",
    ),
}

BUNDLED = ("lesmis", "email")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "goat-explorer"


def lesmis(directed: bool = False) -> Graph:
    """Les Misérables co-appearances (77 nodes, 254 weighted edges), in the paper's id order."""
    import networkx as nx

    g = nx.les_miserables_graph()
    ordered = nx.Graph()
    ordered.add_nodes_from(LESMIS_PAPER_ORDER)
    ordered.add_edges_from(g.edges(data=True))
    assert ordered.number_of_nodes() == 77, "networkx's Les Misérables graph changed"
    graph = from_networkx(ordered, source="lesmis", directed=directed)
    communities = nx.algorithms.community.greedy_modularity_communities(ordered, weight="weight")
    codes = np.full(77, -1, dtype=np.int64)
    for c, members in enumerate(communities):
        for name in members:
            codes[LESMIS_PAPER_ORDER.index(name)] = c
    labels = NodeLabels(
        codes=codes, classes=tuple(f"community {c}" for c in range(len(communities))),
        source="lesmis (greedy modularity communities)",
    )
    return replace(graph, node_attrs={"paper_id": np.arange(77)}, labels=labels)


def _normalised_sha(raw: bytes) -> str:
    return hashlib.sha256(raw.replace(b"\r\n", b"\n")).hexdigest()


def _download(name: str, target: Path) -> None:
    url, sha = EMAIL_FILES[name]
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (fixed https URL)
        raw = gzip.decompress(response.read()).replace(b"\r\n", b"\n")
    if _normalised_sha(raw) != sha:
        raise GraphFormatError(url, "downloaded file does not match the expected SHA-256")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(raw)


def email_files(download: bool | None = None) -> dict[str, Path]:
    """Paths of the verified Email files; downloads into the cache if allowed and needed."""
    if download is None:
        download = os.environ.get("GOAT_OFFLINE", "") in ("", "0")
    found: dict[str, Path] = {}
    root = data_dir()
    for name in EMAIL_FILES:
        candidates = ([root / "email" / name] if root else []) + [cache_dir() / "email" / name]
        for path in candidates:
            if path.is_file():
                if _normalised_sha(path.read_bytes()) != EMAIL_FILES[name][1]:
                    raise GraphFormatError(str(path), "content does not match the SNAP email-Eu-core "
                                           "SHA-256; remove the file or fix GOAT_DATA_DIR")
                found[name] = path
                break
    missing = [name for name in EMAIL_FILES if name not in found]
    for name in missing if download else []:
        target = cache_dir() / "email" / name
        try:
            _download(name, target)
        except OSError as err:
            raise GraphFormatError(
                "email", f"not found locally and the download from {EMAIL_FILES[name][0]} failed "
                f"({err}); set GOAT_DATA_DIR to a folder holding email/graph.txt and "
                "email/communities.txt",
            ) from None
        found[name] = target
    if len(found) < len(EMAIL_FILES):
        where = f"GOAT_DATA_DIR={root}" if root else "GOAT_DATA_DIR is not set"
        raise GraphFormatError(
            "email", f"email data not found ({where}; cache {cache_dir() / 'email'} empty; "
            "downloads are off): set GOAT_DATA_DIR to a folder with email/graph.txt and "
            "email/communities.txt, or allow the download from snap.stanford.edu",
        )
    return found


def email(directed: bool = False, download: bool | None = None) -> Graph:
    """SNAP email-Eu-core: 1005 nodes, 25571 directed edges, 42 department labels."""
    files = email_files(download)
    graph = read_graph_file(files["graph.txt"], directed=directed)
    graph = replace(graph, source="email")
    labels = parse_labels(files["communities.txt"].read_bytes(), graph, str(files["communities.txt"]))
    return replace(graph, labels=labels)


def load_graph(spec: str | Path, directed: bool = False, *, format: str | None = None, source: Column = None,
               target: Column = None, weight: Column = None, encoding: str | None = None) -> Graph:
    """A bundled name (``lesmis``, ``email``) or a graph file in any supported format
    (:mod:`.readers`); ``format``, ``source``, ``target``, ``weight`` and ``encoding`` override what is
    found in a file (columns by header name or 0-based position; ``weight="none"`` ignores weights)."""
    if str(spec) in BUNDLED:
        given = {k: v for k, v in dict(format=format, source=source, target=target, weight=weight,
                                       encoding=encoding).items() if v is not None}
        if given:
            flags = ", ".join(f"--{k}" for k in given)
            raise GraphFormatError(str(spec), f"{flags} {'applies' if len(given) == 1 else 'apply'} to graph "
                                              f"files, not to the bundled graph {spec!r}")
        return lesmis(directed=directed) if str(spec) == "lesmis" else email(directed=directed)
    return read_graph_file(spec, directed=directed, format=format, source=source, target=target,
                           weight=weight, encoding=encoding)
