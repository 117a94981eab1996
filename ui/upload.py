"""Uploads: on the Graph page any graph file, its format found from its content; on the Train
page a saved run's zip (:func:`load_run`).

After a load the page shows the account of the read (``graph.read``) and the first rows as
read; an edge table with a header gets a column picker that re-reads the same bytes (kept in
this session, not uploaded again); node attributes that can be labels (karate's ``club``) are
offered as the graph's labels. A failed read leaves the current graph as it was.
"""

from __future__ import annotations

import re
from dataclasses import asdict, replace

import streamlit as st

import goat_core
from goat_core import archive
from goat_core.analysis import splits
from goat_core.data.formats import FORMAT_TITLES
from goat_core.data.graph import is_number
from goat_core.data.readers import table_columns

from . import cache, parts, state
from .parts import md
from .runs import RunRecord
from .state import Explorer

MAX_EDGES_MB = 20
MAX_LABELS_MB = 5
MAX_UNPACKED_MB = 100  # a compressed upload's content: 5x the upload limit
MAX_RUN_MB = 50
LAST = "upload_last"  # the last graph file loaded: (name, bytes, labels name, labels bytes, ReadOptions)
PICKERS = ("upload_col_source", "upload_col_target", "upload_col_weight")
PENDING = "upload_pending"  # a table not read as found: (LAST's five fields, header, first row, format)
FIXERS = ("upload_fix_source", "upload_fix_target", "upload_fix_weight")
TABLES = ("edgelist", "json-table", "parquet", "excel")  # the formats whose columns the pickers choose
GUESSED = ("edgelist", "excel")  # ... whose header is told from the values: the first line may be one
NO_WEIGHT = -1  # the weight picker's "unweighted"
# The read errors name the command line's flags (they are goat_core's); in the app, these controls
APP_FLAGS = (" (In the app: --format is the Format choice, --encoding the Text encoding choice, --directed "
             "the Directed edges box, --weight none the Ignore weights box, and --source, --target and "
             "--weight the column pickers.)")
# a flag after a blank or a "(" (--weight none's hint), not DOT's "a -- b"
FLAGS = re.compile(r"--(?:format|encoding|directed|source|target|weight)\b")
# Windows' ANSI code pages (Excel's "CSV (Comma delimited)" is written in one), then others met in files
ENCODINGS = {"cp1252": "Windows-1252 (Western Europe, Americas)", "cp1250": "Windows-1250 (Central Europe)",
             "cp1251": "Windows-1251 (Cyrillic)", "cp1253": "Windows-1253 (Greek)",
             "cp1254": "Windows-1254 (Turkish)", "latin-1": "Latin-1 (ISO-8859-1)",
             "mac_roman": "Mac OS Roman", "gbk": "GBK (Simplified Chinese)",
             "big5": "Big5 (Traditional Chinese)", "shift_jis": "Shift-JIS (Japanese)",
             "euc_kr": "EUC-KR (Korean)"}
FORMATS_NOTE = (
    "Any **graph file**, recognised by its content (or read as the Format choice says): an edge list or "
    "table (CSV, TSV, spaces, `;` or `|`; "
    "a header chooses columns by name, e.g. Gephi's `Source,Target,Weight`; pandas' index column is left "
    "out; KONECT), Excel workbooks (`.xlsx`: a sheet named `Edges`, else the first holding cells), "
    "pandas' `to_json` (any orient, JSON Lines) and `to_parquet` tables, read the same way, "
    "networkx's edge and adjacency lists, GEXF, GraphML, GML, Pajek, node-link JSON, igraph's LGL, NCOL "
    "and LEDA, Graphviz DOT, adjacency matrices (a labelled or square table of numbers), Matrix Market "
    "(`.mtx`), Gephi's GDF, VNA and UCINET DL exports, Cytoscape's SIF, XGMML and edge table, yEd's TGF, "
    "algs4's counted edge lists, Graphs.jl's LG, DIMACS, METIS; gzip, bz2, xz or a one-file zip of any of "
    "them (up to {edges} MB; about 1.5 million edges with integer ids). "
    "Optional **labels**: `node label` per line (up to {labels} MB), used to colour nodes and to score "
    "clusterings; a GEXF/GraphML/GML/JSON/DOT/GDF/VNA/XGMML file's node attributes are offered as labels "
    "too.")


def section(ex: Explorer) -> None:
    """The upload box: two file pickers, direction, and the Load button."""
    with st.container(border=True):
        st.markdown(FORMATS_NOTE.format(edges=MAX_EDGES_MB, labels=MAX_LABELS_MB))
        c1, c2 = st.columns(2)
        chosen = c1.file_uploader(f"Graph file (≤ {MAX_EDGES_MB} MB)", key="upload_edges",
                                  max_upload_size=MAX_EDGES_MB)
        labels_file = c2.file_uploader(f"Labels, optional (≤ {MAX_LABELS_MB} MB)", type=["txt", "csv", "tsv"],
                                       key="upload_labels", max_upload_size=MAX_LABELS_MB)
        ready = [f"{f.name} ({f.size:,} bytes)" for f in (chosen, labels_file) if f is not None]
        st.caption(f"Ready to load: {md(', '.join(ready))}" if ready else "No file chosen yet.")
        c1, c2 = st.columns(2, vertical_alignment="bottom")
        c1.selectbox("Format", [None, *FORMAT_TITLES], key="upload_format",
                     format_func=lambda f: "found from the content" if f is None else FORMAT_TITLES[f],
                     help="Leave it to the content, or say what the file is when it could be two things "
                          "(an adjacency list or a weighted edge list, a SIF file).")
        c1.selectbox("Text encoding", [None, *ENCODINGS], key="upload_encoding",
                     format_func=lambda e: "UTF-8 (or UTF-16 with a BOM)" if e is None else ENCODINGS[e],
                     help="A text file saved in another encoding than UTF-8: Excel's 'CSV (Comma "
                          "delimited)' on Windows is Windows-1252 in Western Europe and the Americas. XML "
                          "files and binary formats (Excel, Parquet) say their own.")
        c2.checkbox("Directed edges", key="upload_directed",
                    help="Keep edge directions (without it: as the file declares, e.g. a directed GEXF; "
                         "edge lists are undirected). GOAT's neighborhoods ignore direction either way "
                         "(the paper's D counts both).")
        c2.checkbox("Ignore weights", key="upload_unweighted",
                    help="Read every edge with weight 1, whatever values the file holds (signed ties -1, "
                         "values that are not weights).")
        st.button("Load graph", key="upload_load", type="primary", on_click=load, args=(ex,))
        pending_picker(ex)


def load(ex: Explorer) -> None:
    """Read the uploaded files; on any problem say so and keep the current graph."""
    edges = st.session_state.get("upload_edges")
    labels = st.session_state.get("upload_labels")
    if edges is None:
        ex.message = ("warning", "Choose a graph file first.")
        return
    raw = edges.getvalue()
    kept = "the current graph is kept"
    if parts.too_big(ex, edges.name, raw, MAX_EDGES_MB, "graph files", kept):
        return
    labels_raw = labels.getvalue() if labels is not None else None
    if labels_raw is not None and parts.too_big(ex, labels.name, labels_raw, MAX_LABELS_MB, "labels files",
                                                kept):
        return
    options = goat_core.ReadOptions(format=st.session_state.get("upload_format"),
                                    encoding=st.session_state.get("upload_encoding"),
                                    directed=bool(st.session_state.get("upload_directed", False)),
                                    weight="none" if st.session_state.get("upload_unweighted") else None)
    read(ex, edges.name, raw, labels.name if labels is not None else None, labels_raw, options)


def read(ex: Explorer, name: str, raw: bytes, labels_name: str | None, labels_raw: bytes | None,
         options: goat_core.ReadOptions, pend: bool = True) -> bool:
    """Read ``raw`` with ``options`` and make it the session's graph; False (and a one-line
    error, the graph unchanged) when it cannot be read, with the file kept for
    :func:`pending_picker` when ``pend`` and the error is the graph file's."""
    try:
        graph = cache.uploaded_graph(cache.digest(raw), name, options, cache.digest(labels_raw) if labels_raw
                                     else None, labels_name, MAX_UNPACKED_MB * 2**20, raw, labels_raw)
    except goat_core.GoatError as err:
        ex.message = ("error", str(err) + (APP_FLAGS if FLAGS.search(str(err)) else ""))
        if pend:
            st.session_state.pop(PENDING, None)
            if str(getattr(err, "file", "")).startswith(name):  # not the labels file's error
                keep_pending(name, raw, labels_name, labels_raw, options)
        return False
    st.session_state.pop(PENDING, None)
    key = cache.upload_key(cache.digest(raw), cache.digest(labels_raw) if labels_raw else None, options)
    state.set_upload(ex, graph, name, key)  # kept on the server by content: a refresh or a link finds it
    st.session_state[LAST] = (name, raw, labels_name, labels_raw, options)
    preset_pickers(graph)
    ex.message = ("success", f"Loaded {name}: {graph.num_nodes:,} nodes, {graph.num_edges:,} edges.")
    return True


def keep_pending(name: str, raw: bytes, labels_name: str | None, labels_raw: bytes | None,
                 options: goat_core.ReadOptions) -> None:
    """After a failed read of an edge table: keep its bytes and columns for :func:`pending_picker`
    (the error asks which columns are which; the picker answers without uploading again)."""
    found = table_columns(raw, name, max_bytes=MAX_UNPACKED_MB * 2**20, encoding=options.encoding)
    width = 0 if found is None else len(found[0] if found[0] is not None else found[1])
    if width < 2:  # no table, or one column: no choice of columns makes an edge of it
        st.session_state.pop(PENDING, None)
        return
    header, first, fmt = found
    st.session_state[PENDING] = (name, raw, labels_name, labels_raw, options, header, first, fmt)
    for key, value in zip(FIXERS, (0, 1, NO_WEIGHT)):
        st.session_state[key] = value


def pending_picker(ex: Explorer) -> None:
    """The columns of a table that could not be read as found, and a button to read it so."""
    pending = st.session_state.get(PENDING)
    if pending is None:
        return
    name, header, first = pending[0], pending[5], pending[6]
    columns = list(range(len(header) if header is not None else len(first)))

    def title(i: int) -> str:
        if header is not None:
            return header[i] or f"(unnamed column {i})"
        return f"column {i} ({first[i]})" if i < len(first) else f"column {i}"

    st.caption(md(f"Choose the columns of {name} and read it again (the graph shown is unchanged):"))
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1.4], vertical_alignment="bottom")
    c1.selectbox("Source", columns, format_func=title, key=FIXERS[0])
    c2.selectbox("Target", columns, format_func=title, key=FIXERS[1])
    c3.selectbox("Weight", [NO_WEIGHT] + columns, key=FIXERS[2],
                 format_func=lambda i: "(none: unweighted)" if i == NO_WEIGHT else title(i))
    if header is None and pending[7] in GUESSED and not any(is_number(v) for v in first):
        st.checkbox("The first line is a header", key="upload_fix_header",
                    help="Its words name the columns: read them as names, not as an edge.")
    c4.button("Read with these columns", key="upload_fix_read", on_click=read_pending, args=(ex,))


def read_pending(ex: Explorer) -> None:
    """The pending table read with the columns :func:`pending_picker` names."""
    name, raw, labels_name, labels_raw, options, header, first, fmt = st.session_state[PENDING]
    picked = [int(st.session_state[key]) for key in FIXERS]
    by_name = header is None and fmt in GUESSED and bool(st.session_state.get("upload_fix_header"))
    column = (lambda i: first[i]) if by_name else (lambda i: i)  # the header's words: the first line is one
    chosen = replace(options, format=fmt, source=column(picked[0]), target=column(picked[1]),
                     weight="none" if picked[2] == NO_WEIGHT else column(picked[2]))
    read(ex, name, raw, labels_name, labels_raw, chosen)


def preset_pickers(graph: goat_core.Graph) -> None:
    """The column and label pickers, set to what the read found."""
    found = graph.read.positions if graph.read is not None else None
    if found is not None:
        source, target, weight = found
        for key, value in zip(PICKERS, (source, target, NO_WEIGHT if weight is None else weight)):
            st.session_state[key] = value
    st.session_state.pop("upload_label_attr", None)


def reread(ex: Explorer) -> None:
    """The last file again, with the columns the picker names."""
    name, raw, labels_name, labels_raw, options = st.session_state[LAST]
    weight = st.session_state[PICKERS[2]]
    fmt = ex.graph.read.format if ex.graph.read is not None and ex.graph.read.format in TABLES else "edgelist"
    chosen = replace(options, format=fmt, source=int(st.session_state[PICKERS[0]]),
                     target=int(st.session_state[PICKERS[1]]),
                     weight="none" if weight == NO_WEIGHT else int(weight))
    read(ex, name, raw, labels_name, labels_raw, chosen, pend=False)  # the graph read before stays, as it was


def relabel(ex: Explorer) -> None:
    """The graph's labels from the node attribute the picker names."""
    name = st.session_state["upload_label_attr"]
    graph = ex.graph
    report = replace(graph.read, labels_from=repr(name)) if graph.read is not None else None
    relabelled = replace(graph, labels=goat_core.labels_from_attribute(graph, name), read=report)
    file, raw, labels_name, labels_raw, options = st.session_state[LAST]
    key = cache.upload_key(cache.digest(raw), cache.digest(labels_raw) if labels_raw else None,
                           {**asdict(options), "labels_from_attribute": name})
    state.set_upload(ex, relabelled, file, key)


def account(ex: Explorer) -> None:
    """What the last upload read: the account, the first rows, and the pickers."""
    graph, report = ex.graph, ex.graph.read
    if report is None or not ex.graph_key.startswith("upload:"):
        return
    with st.expander("How the file was read", expanded=True):
        st.markdown(md(report.summary()))
        if report.notes:
            st.caption(md(" · ".join(report.notes)))
        if report.rows:
            import pandas as pd

            names = ["source", "target", "weight"][:len(report.rows[0])]
            st.caption(f"The first {len(report.rows)} edges as read:")
            st.dataframe(pd.DataFrame(list(report.rows), columns=names), hide_index=True)
        last = st.session_state.get(LAST)
        if report.header is not None and report.positions is not None and last is not None:
            column_picker(ex, report.header)
        attributes = goat_core.label_attributes(graph)
        if attributes:
            st.session_state.setdefault("upload_label_attr", attributes[0] if graph.labels is None or
                                        "node attribute" in graph.labels.source else None)
            st.selectbox("Labels from node attribute", attributes, key="upload_label_attr", on_change=relabel,
                         args=(ex,), placeholder="(labels from the labels file)",
                         help="The graph's labels: 'Colour nodes by → labels' and the Scores page's "
                              "clustering scores use them.")


def column_picker(ex: Explorer, header: tuple[str, ...]) -> None:
    """Source, target and weight by the header's names, pre-set to what was detected (again after
    another page: Streamlit forgets a widget's value on a run that does not draw it)."""
    source, target, weight = ex.graph.read.positions
    for key, value in zip(PICKERS, (source, target, NO_WEIGHT if weight is None else weight), strict=True):
        st.session_state.setdefault(key, value)
    columns = list(range(len(header)))
    name = (lambda i: header[i] or f"(unnamed column {i})")
    st.caption("Not the right columns? Choose them and read the same file again:")
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1.4], vertical_alignment="bottom")
    c1.selectbox("Source", columns, format_func=name, key=PICKERS[0])
    c2.selectbox("Target", columns, format_func=name, key=PICKERS[1])
    c3.selectbox("Weight", [NO_WEIGHT] + columns, key=PICKERS[2],
                 format_func=lambda i: "(none: unweighted)" if i == NO_WEIGHT else name(i))
    c4.button("Read again", key="upload_reread", on_click=reread, args=(ex,))


def load_run(ex: Explorer) -> None:
    """Unpack an uploaded run zip safely; attach it to the matching graph, or to its own."""
    upload = st.session_state.get("run_upload")
    if upload is None:
        ex.message = ("warning", "Choose a run zip first.")
        return
    raw = upload.getvalue()
    if parts.too_big(ex, upload.name, raw, MAX_RUN_MB, "runs", "the current run is kept"):
        return
    try:
        goat = archive.run_from_zip(raw, file=upload.name)
    except goat_core.GoatError as err:  # any input error: one line, the current run kept
        ex.message = ("error", str(err))
        return
    candidates = [(ex.graph, ex.graph_key), (cache.bundled_graph("lesmis"), "lesmis")]
    match = splits.match_run(goat.graph_, goat.seed, candidates, own_key=f"run:{upload.name}")
    if match.graph is not ex.graph:
        state.set_graph(ex, match.graph, match.key)
    ex.runs[ex.graph_fp] = RunRecord(
        key=f"upload:{cache.digest(raw)}", goat=goat, graph_fp=ex.graph_fp, params=goat.get_params(),
        holdout=match.holdout, split=match.split, seconds=0.0, origin="upload", history=list(goat.history_))
    cache.run_store().put(ex.runs[ex.graph_fp])  # by content: a refresh or a shared link finds it again
    where = "its held-out edges were found again" if match.split is not None else "no held-out edges known"
    notes = "".join(f" Note: {note}." for note in goat.load_notes_)  # e.g. an older run format
    ex.message = ("warning" if notes else "success",
                  f"Loaded run {upload.name} on {parts.graph_title(ex)} ({where}).{notes}")
