"""Fuzz the graph readers from files real tools write: every result must be a graph or one
GraphFormatError line, with no warning from a parser (igraph's Pajek reader only warned when it
stopped reading early), in under 20 s (not a test: a search, seeded and repeatable).

    .venv/bin/python bench/fuzz_readers.py --cases 20000 --seed 0 [--encodings]

Seeds: Zachary's karate club written by networkx (GML, GraphML, GEXF, Pajek, edge and adjacency
lists, node-link, Cytoscape JSON, DOT, graph6/sparse6), igraph (NCOL, LGL, GML, GraphML, Pajek, DOT,
edge list, LEDA), pandas (CSV with and without index, quoted, TSV, JSON orients, JSON Lines,
Parquet, Excel), scipy (Matrix Market), numpy (.npy, .npz) and hand-written GDF, VNA, UCINET DL,
SIF, TGF, XGMML, DIMACS, METIS, KONECT and algs4 files. Each case mutates one seed a few times
(lines dropped, repeated, swapped or taken from another seed, a token replaced or appended, a byte
changed, the end cut; binary seeds: bytes changed; the writers' dates left out, so that the same
cases are the same files any day); ``--encodings`` also reads a third of the cases
with a text encoding named. Prints each distinct finding once (its kind, where, the first case) and
writes them, with the counts, to ``bench/results/fuzz_readers.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import signal
import tempfile
import traceback
import warnings
from pathlib import Path

from _common import ROOT, machine  # bench/ is on sys.path: python bench/fuzz_readers.py

TOKENS = [b"", b"0", b"-1", b"nan", b"inf", b"1e309", b"1e-320", b"\xc2\xb2", b"\xe2\x80\xa8", b'"', b"'",
          b"[", b"]", b"{", b"}", b"<", b">", b",", b";", b"\t", b" ", b"#", b"%", b"\n", b"\r", b"\x00",
          b"999999999999", b"1.5", b"a", b"\xff", b"&#34;", b"&amp;", b"-", b"->", b"--", b"=", b":", b"*",
          b"edge", b"node", b"null", b"true", b"1_0", b"0x10", b"\xef\xbb\xbf", b"\\", b"\xf0\x9f\x98\x80",
          b"2147483648", b"-0"]
BINARY = (".xlsx", ".parquet", ".npz", ".npy")
ENCODINGS = ["cp1252", "latin-1", "utf-16", "gbk", "shift_jis", "koi8-r", "utf-7", "utf-32"]


def write_seeds(folder: Path) -> list[Path]:
    import igraph as ig
    import networkx as nx
    import numpy as np
    import scipy.io

    graph = nx.relabel_nodes(nx.karate_club_graph(), {i: f"n{i}" for i in range(34)})
    for u, v in graph.edges:
        graph[u][v]["weight"] = (int(u[1:]) + int(v[1:])) % 5 + 1
    writers = {"nx.gml": nx.write_gml, "nx.graphml": nx.write_graphml, "nx.gexf": nx.write_gexf,
               "nx.net": nx.write_pajek, "nx.edgelist": nx.write_edgelist, "nx.adjlist": nx.write_adjlist,
               "nx.madj": nx.write_multiline_adjlist, "nx.dot": nx.nx_pydot.write_dot}
    for name, write in writers.items():
        write(graph, folder / name)
    plain = nx.Graph(graph)
    nx.write_graph6(plain, folder / "g.g6")
    nx.write_sparse6(plain, folder / "g.s6")
    (folder / "nl.json").write_text(json.dumps(nx.node_link_data(graph, edges="links")))
    (folder / "cy.json").write_text(json.dumps(nx.cytoscape_data(graph)))
    karate = ig.Graph.Famous("Zachary")
    karate.vs["name"] = [f"v{i}" for i in range(karate.vcount())]
    karate.es["weight"] = [1 + i % 3 for i in range(karate.ecount())]
    for fmt in ("ncol", "lgl", "gml", "graphml", "pajek", "dot", "edgelist", "leda"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(karate, f"write_{fmt}")(str(folder / f"ig.{fmt}"))
    table = nx.to_pandas_edgelist(graph)
    table.to_csv(folder / "pd.csv")
    table.to_csv(folder / "pd_quoted.csv", quoting=1, index=False)
    table.to_csv(folder / "pd.tsv", sep="\t", index=False)
    for orient in ("columns", "records", "split", "table", "values"):
        table.head(30).to_json(folder / f"pd_{orient}.json", orient=orient)
    table.to_json(folder / "pd.jsonl", orient="records", lines=True)
    table.to_parquet(folder / "pd.parquet")
    table.to_excel(folder / "pd.xlsx")
    nx.to_pandas_adjacency(graph).to_csv(folder / "adjacency.csv")
    scipy.io.mmwrite(str(folder / "m.mtx"), nx.to_scipy_sparse_array(plain))
    np.save(folder / "e.npy", np.array([[0, 1], [1, 2], [2, 3], [3, 0]]))
    np.savez(folder / "e.npz", edges=np.array([[0, 1], [1, 2], [2, 3]]), labels=np.array([0, 1, 0, 1]))
    hand = {
        "g.gdf": "nodedef>name VARCHAR,label VARCHAR\na,'A'\nb,'B'\nc,'C'\n"
                 "edgedef>node1 VARCHAR,node2 VARCHAR,weight DOUBLE\na,b,1.5\nb,c,2\nc,a,1\n",
        "g.vna": "*Node data\nID gender\na m\nb f\nc m\n*Tie data\nfrom to strength\na b 1\nb c 2\nc a 1\n",
        "full.dl": "dl n=3\nformat = fullmatrix\nlabels:\na,b,c\ndata:\n0 1 1\n1 0 0\n1 0 0\n",
        "list.dl": "DL n=4\nformat = edgelist1\nlabels embedded:\ndata:\na b 1\nb c 2\nc d 1\n",
        "g.sif": "a pp b c\nb pd c\nd pp a\ne\n",
        "g.tgf": "1 Alice\n2 Bob\n3 Carol\n#\n1 2 friend\n2 3\n3 1\n",
        "g.xgmml": '<?xml version="1.0"?>\n<graph label="g" directed="1" xmlns="http://www.cs.rpi.edu/XGMML">\n'
                   '<node id="1" label="a"/>\n<node id="2" label="b"/>\n<node id="3" label="c"/>\n'
                   '<edge source="1" target="2"><att name="weight" type="real" value="2"/></edge>\n'
                   '<edge source="2" target="3"/>\n</graph>\n',
        "g.col": "c hi\np edge 4 3\ne 1 2\ne 2 3\ne 3 4\n",
        "g.graph": "4 3\n2\n1 3\n2 4\n3\n",
        "konect.tsv": "% sym unweighted\n% 3 4 4\n1 2\n2 3\n3 4\n",
        "algs4.txt": "4\n3\n0 1\n1 2\n2 3\n",
        "french.csv": "source;cible;poids\nA;B;1,5\nB;C;2\nC;A;0,5\n",
        "excel.csv": "a,b,3,,\nb,c,2,,\n,,,,\n",
        "snap.txt": "# Directed graph: x.txt\n# Nodes: 4 Edges: 4\n# FromNodeId\tToNodeId\n"
                    "0\t1\n1\t2\n2\t3\n3\t0\n",
    }
    for name, text in hand.items():
        (folder / name).write_text(text)
    dates = {"ig.gml": rb'(?<=igraph version )(\S+)[^"]*', "nx.gexf": rb'( )lastmodifieddate="[^"]*"'}
    for name, dated in dates.items():  # the time of writing left out: the same cases every day
        (folder / name).write_bytes(re.sub(dated, rb"\1", (folder / name).read_bytes()))
    return sorted(folder.iterdir())


def mutate(raw: bytes, seeds: list[Path], rng: random.Random) -> bytes:
    lines = raw.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        op, k = rng.randrange(10), rng.randrange(max(len(lines), 1))
        if not lines:
            lines = [rng.choice(TOKENS)]
        elif op == 0:
            del lines[k]
        elif op == 1:
            lines.insert(k, lines[k])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[k], lines[j] = lines[j], lines[k]
        elif op in (3, 4, 5):
            parts = re.split(rb"([\s,;\"'=<>\[\]{}:]+)", lines[k])
            parts[rng.randrange(len(parts))] = rng.choice(TOKENS)
            lines[k] = b"".join(parts)
        elif op == 6:
            data = bytearray(b"\n".join(lines))
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
            lines = bytes(data).split(b"\n")
        elif op == 7:
            data = b"\n".join(lines)
            lines = data[: rng.randrange(len(data) + 1)].split(b"\n")
        elif op == 8:
            lines.insert(k, rng.choice(rng.choice(seeds).read_bytes().split(b"\n")))
        else:
            lines[k] += rng.choice(TOKENS)
    return b"\n".join(lines)


class Timeout(Exception):
    pass


def _timeout(*_) -> None:
    raise Timeout


def run(cases: int, seed: int, encodings: bool) -> dict:
    from goat_core import GraphFormatError
    from goat_core.data.formats import ReadOptions
    from goat_core.data.readers import read_graph_bytes

    findings: dict[str, dict] = {}
    counts: collections.Counter = collections.Counter()
    signal.signal(signal.SIGALRM, _timeout)
    with tempfile.TemporaryDirectory() as tmp:
        seeds = write_seeds(Path(tmp))
        for case in range(seed, seed + cases):
            rng = random.Random(case)
            path = rng.choice(seeds)
            raw = path.read_bytes()
            if path.suffix in BINARY:
                data = bytearray(raw)
                for _ in range(rng.randint(1, 3)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                raw = bytes(data)
            else:
                raw = mutate(raw, seeds, rng)
            told = rng.choice(ENCODINGS) if encodings and rng.random() < 1 / 3 else None
            options = ReadOptions(encoding=told)
            found = None
            signal.alarm(20)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    read_graph_bytes(raw, path.name, options)
                counts["read"] += 1
                parser = [w for w in caught  # igraph's, raised where goat_core calls it
                          if issubclass(w.category, RuntimeWarning) and "goat_core" in w.filename]
                if parser:
                    found = ("warning", str(parser[0].message)[:80])
            except GraphFormatError as err:
                counts["refused"] += 1
                if "\n" in str(err):
                    found = ("two lines", str(err)[:80])
            except Timeout:
                found = ("over 20 s", "")
            except Exception as err:  # the finding this looks for
                frame = traceback.extract_tb(err.__traceback__)[-1]
                found = (type(err).__name__, f"{Path(frame.filename).name}:{frame.lineno}")
            finally:
                signal.alarm(0)
            if found is not None:
                counts["findings"] += 1
                key = f"{found[0]} {found[1]} ({path.name})"
                findings.setdefault(key, {"case": case, "seed_file": path.name, "encoding": options.encoding})
    return {"machine": machine(), "cases": cases, "first_case": seed, "encodings": encodings,
            "seed_files": len(seeds), "counts": dict(counts), "findings": findings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="the first case's number (cases are seeded)")
    parser.add_argument("--encodings", action="store_true", help="name an encoding in a third of the cases")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "fuzz_readers.json"))
    args = parser.parse_args()
    out = run(args.cases, args.seed, args.encodings)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    for key, where in out["findings"].items():
        print(f"{key}: case {where['case']}")
    print(f"{out['cases']} cases on {out['seed_files']} seed files: {out['counts']}")


if __name__ == "__main__":
    main()
