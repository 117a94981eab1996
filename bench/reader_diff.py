"""Differential check of the graph readers: does a change read every file the tests read (and 12
mutations of each) to the same graph, or stop with the same error, to the letter?

    .venv/bin/python bench/reader_diff.py record /tmp/corpus         # the inputs the reader tests pass
    .venv/bin/python bench/reader_diff.py read /tmp/corpus /tmp/new.tsv
    git worktree add /tmp/base REF
    .venv/bin/python bench/reader_diff.py read /tmp/corpus /tmp/base.tsv --code /tmp/base
    diff /tmp/base.tsv /tmp/new.tsv                                     # empty: no read changed

``record`` runs ``tests/data`` and ``tests/test_cli.py`` with ``read_graph_bytes`` wrapped, keeping
each distinct input (bytes, file name, options; up to 200 kB). ``read`` reads each input and 12
seeded mutations (tokens inserted, bytes deleted, lines repeated or dropped) with the code of
``--code`` (default: this checkout), one line each: the graph's hash (names, edges, weights,
direction, labels, node attributes) and its ``ReadReport``, the error's text, or a traceback's type.
A read over 20 s is written as a timeout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOKENS = [b" ", b"\t", b"\n", b"\r\n", b",", b";", b'"', b"'", b"#", b"%", b"*", b"[", b"]", b"{", b"}", b"=",
          b"<", b">", b"/", b"0", b"1", b"-1", b"2.5", b"1e9", b"nan", b"x", b"\xc3\xa9", b"\x00", b"\xff",
          b"edge", b"node", b"*Vertices 3", b"*Edges", b"*Arcs", b"nodedef>", b"edgedef>",
          b"format = fullmatrix", b"labels:", b"data:", b"p edge 3 3", b"e 1 2", b"directed", b"weight",
          b"->", b"--", b"pp", b"true", b"false", b"n = 3"]
OPTIONS = ("format", "source", "target", "weight", "directed")


class Timeout(Exception):
    pass


def record(corpus: Path) -> int:
    """Run the reader tests, keeping every distinct input of ``read_graph_bytes``."""
    import pytest

    sys.path.insert(0, str(ROOT))
    from goat_core.data import readers

    corpus.mkdir(parents=True, exist_ok=True)
    real = readers.read_graph_bytes

    def recording(raw, file="<upload>", options=None, **kw):
        if isinstance(raw, (bytes, bytearray)) and len(raw) <= 200_000:
            meta = {"file": file} | {name: getattr(options, name, None) for name in OPTIONS}
            key = hashlib.sha1(bytes(raw) + json.dumps(meta, default=str).encode()).hexdigest()[:16]
            (corpus / f"{key}.bin").write_bytes(bytes(raw))
            (corpus / f"{key}.json").write_text(json.dumps(meta, default=str))
        return real(raw, file, options, **kw)

    readers.read_graph_bytes = recording
    code = pytest.main([str(ROOT / "tests" / "data"), str(ROOT / "tests" / "test_cli.py"), "-q",
                        "-p", "no:cacheprovider"])
    print(f"{len(list(corpus.glob('*.bin')))} inputs in {corpus}")
    return int(code)


def mutate(raw: bytes, rng: random.Random) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        pos, op = rng.randint(0, len(data)), rng.random()
        if op < 0.35:
            data[pos:pos] = rng.choice(TOKENS)
        elif op < 0.6 and data:
            del data[pos:pos + rng.randint(1, 4)]
        else:
            lines = bytes(data).split(b"\n")
            if len(lines) > 1:
                if op < 0.8:
                    line, at = rng.randrange(len(lines)), rng.randrange(len(lines))
                    lines.insert(at, lines[line])
                else:
                    del lines[rng.randrange(len(lines))]
                data = bytearray(b"\n".join(lines))
    return bytes(data)


def outcome(raw: bytes, meta: dict) -> str:
    from goat_core import GoatError
    from goat_core.data.formats import ReadOptions
    from goat_core.data.readers import read_graph_bytes

    try:
        options = ReadOptions(**{name: meta[name] for name in OPTIONS if name != "directed"},
                              directed=bool(meta["directed"]))
        graph = read_graph_bytes(raw, meta["file"], options)
    except GoatError as err:
        return f"E {err}"
    except Exception as err:  # a traceback is what this check is for
        return f"X {type(err).__name__}: {err}"[:300]
    labels = graph.labels and [graph.labels.codes.tolist(), list(graph.labels.classes)]
    edges = sorted(zip(graph.src.tolist(), graph.dst.tolist(), map(repr, graph.weight.tolist()), strict=True))
    attrs = sorted((name, repr(values.tolist())) for name, values in graph.node_attrs.items())
    digest = hashlib.sha1(json.dumps([list(graph.names), edges, graph.directed, graph.weighted, labels,
                                      attrs]).encode()).hexdigest()[:16]
    return f"G {graph.num_nodes} {graph.num_edges} {graph.directed} {digest} {graph.read!r}"


def read(corpus: Path, out: Path, code: Path) -> int:
    sys.path.insert(0, str(code.resolve()))

    def timeout(*_):
        raise Timeout  # not TimeoutError: an OSError, which readers catch

    signal.signal(signal.SIGALRM, timeout)
    with out.open("w", buffering=1) as lines:
        for path in sorted(corpus.glob("*.bin")):
            meta, raw = json.loads(path.with_suffix(".json").read_text()), path.read_bytes()
            rng = random.Random(path.stem)
            for k, data in enumerate([raw] + [mutate(raw, rng) for _ in range(12)]):
                try:  # the alarm may ring after the read, before it is cancelled: a timeout too
                    signal.alarm(20)
                    try:
                        result = outcome(data, meta)
                    finally:
                        signal.alarm(0)
                except Timeout:
                    result = "T timeout"
                lines.write(f"{path.stem}#{k}\t{result}\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    steps = parser.add_subparsers(dest="step", required=True)
    steps.add_parser("record").add_argument("corpus", type=Path)
    reading = steps.add_parser("read")
    reading.add_argument("corpus", type=Path)
    reading.add_argument("out", type=Path)
    reading.add_argument("--code", type=Path, default=ROOT, help="the checkout whose readers read")
    args = parser.parse_args()
    return record(args.corpus) if args.step == "record" else read(args.corpus, args.out, args.code)


if __name__ == "__main__":
    sys.exit(main())
