"""Small pieces every page uses: guards, one-off messages and errors, the sidebar summary."""

from __future__ import annotations

import streamlit as st

import goat_core
from goat_core import views
from goat_core.analysis import picking
from goat_core.views.style import escape_markdown

from . import classroom, state, training, warmup
from .navigation import GRAPH_PAGE, TRAIN_PAGE
from .runs import RunRecord
from .state import Explorer

PICKER_NODES = 2000  # up to this many nodes a picker lists them all; above, it searches


def md(text) -> str:
    """Escape user-supplied text (node names, file names) before it enters Markdown."""
    return escape_markdown(text)


def error_line(err: BaseException) -> str:
    """What the user reads of a library error: its first line (file, line and problem)."""
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def show_error(err: goat_core.GoatError, where=st) -> None:
    """A GoatError (the user's input, a cancelled training) as one line; anything else is a bug and
    is never caught, so that Streamlit shows its traceback."""
    where.error(md(error_line(err)))


def valid_choice(key: str, options, default=None) -> None:
    """Before the widget ``key`` is drawn: a value it no longer offers (an older pair's node, a link's
    unknown tab) becomes ``default``, or is forgotten (the widget starts on its own default)."""
    if st.session_state.get(key) not in options:
        if default is None:
            st.session_state.pop(key, None)
        else:
            st.session_state[key] = default


def too_big(ex: Explorer, name: str, raw: bytes, limit_mb: int, what: str, kept: str) -> bool:
    """True (with a one-line error for the user) when an upload exceeds its stated limit."""
    if len(raw) <= limit_mb * 2**20:
        return False
    ex.message = ("error", f"{name}: {len(raw) / 2**20:.1f} MB is over the {limit_mb} MB limit "
                           f"for {what}; {kept}.")
    return True


def show_message(ex: Explorer) -> None:
    """Show (once) what a callback left for this run.

    Messages are plain text, never Markdown. Always one element, message or not: elements
    below keep their place in the page, so widgets there (a file uploader in the middle of
    an upload) are never remounted.
    """
    missing_notice(ex)
    slot = st.empty()
    if ex.message is not None:
        kind, text = ex.message  # plain text (file and node names, library errors): escaped
        getattr(slot, kind, slot.info)(md(text))
        ex.message = None


def missing_notice(ex: Explorer) -> None:
    """What the link this session opened names and this server lacks, with one click to rebuild
    it: load the upload again, train the run again (seeded: the same model), load the run zip.
    Always one container, so that what follows keeps its place."""
    box = st.container(key="missing_notice")
    missing = ex.missing
    if missing is None or (missing.graph is None and ex.run is not None):
        return
    if missing.graph is not None:
        box.warning(f"This link's graph, the upload **{md(missing.graph)}**, is not on this server (it was "
                    "restarted, or the link comes from another one). Load the same file again: the rest of "
                    "the link (run, pair, view) follows.", icon=":material/link_off:")
        if box.button(f"Load {missing.graph} again", key="missing_reupload", icon=":material/upload_file:"):
            st.session_state["graph_source"] = "upload"
            st.switch_page(GRAPH_PAGE)
    elif missing.run_zip:
        box.warning("This link's run was loaded from a zip that this server no longer holds: load the zip "
                    "again on the Train page (Load a saved run).", icon=":material/link_off:")
        box.page_link(TRAIN_PAGE, label="Go to Train", icon=":material/model_training:")
    elif missing.run is not None:
        params, holdout = missing.run
        box.warning(f"This link's run ({md(run_summary(params, holdout))}) is not on this server (it was "
                    "restarted, or the link comes from another one). Training it again with the same "
                    "settings and seed gives the same model.", icon=":material/link_off:")
        if box.button("Train it again", key="missing_retrain", type="primary", icon=":material/replay:"):
            retrain(ex, params, holdout, box)


def run_summary(params: dict, holdout: float) -> str:
    return (f"d={params.get('dim')}, {params.get('epochs')} epochs, lr {params.get('lr')}, seed "
            f"{params.get('seed')}, {holdout:.0%} held out, {params.get('backend', 'auto')} path")


def retrain(ex: Explorer, params: dict, holdout: float, where) -> None:
    """Train the link's run again (live progress in ``where``), then show the page with it."""
    try:
        with where.status(f"Training the link's run on {md(graph_title(ex))}…", expanded=True) as status:
            record = training.train(ex.graph, ex.graph_fp, params, holdout, status,
                                    track=training.pairs_to_track(ex.graph, ex.pair))
            status.update(label="Training done", state="complete")
    except goat_core.GoatError as err:
        show_error(err, where)
        return
    ex.runs[ex.graph_fp] = record
    ex.missing = None
    st.rerun()


def require_run(ex: Explorer) -> RunRecord:
    """Guard: stop the page with a pointer to the Train page until this graph has a run (or with
    the link's missing graph or run and one click to rebuild it)."""
    run = ex.run
    if run is None and ex.missing is not None:
        missing_notice(ex)
        stop(ex)
    if run is None:
        st.info(f"No trained model for **{md(graph_title(ex))}** yet: train one first (it takes seconds on "
                "Les Misérables), or upload a saved run on the Train page.")
        st.page_link(TRAIN_PAGE, label="Go to Train", icon=":material/model_training:")
        stop(ex)
    return run


def stop(ex: Explorer) -> None:
    """End the page early, still drawing the sidebar summary and updating the URL."""
    finish(ex)
    st.stop()


def require_attention(ex: Explorer, run: RunRecord) -> None:
    if run.goat.variant == "global":
        st.info("This run is the GoatGlobal ablation, which has no attention: train variant "
                "'goat' or 'mean-pool' to see attention.")
        st.page_link(TRAIN_PAGE, label="Go to Train", icon=":material/model_training:")
        stop(ex)


TITLE_CHARS = 60  # a longer file name is cut in the middle: headings stay one line, the extension shows


def graph_title(ex: Explorer) -> str:
    titles = {"lesmis": "Les Misérables", "email": "Email (EU research institution)"}
    if ex.graph_key in titles:
        return titles[ex.graph_key]
    name = ex.graph_key.split(":", 1)[-1]
    if len(name) <= TITLE_CHARS:
        return name
    tail = TITLE_CHARS // 3
    return f"{name[:TITLE_CHARS - tail - 1]}…{name[-tail:]}"


def pair_names(ex: Explorer) -> tuple[str, str]:
    s, t = ex.pair
    return ex.names[s], ex.names[t]


def seed_input() -> None:
    st.sidebar.number_input(
        "Seed", min_value=0, max_value=state.FORM_LIMITS["seed"][1], step=1, key=state.SEED_KEY,
        help="One seed for everything random: training, layouts, projections, k-means, random "
             "pairs. The same seed gives the same view.")


def figure_config(ex: Explorer, run: RunRecord | None = None, graph_name: str | None = None) -> dict:
    """What an exported figure says about itself: graph, run parameters, seed and pair.

    ``run`` defaults to the current graph's run and ``graph_name`` to the current graph; a page
    showing a run of its own (the case study) names both, and the session's pair is left out.
    """
    run = ex.run if run is None else run
    current = graph_name is None
    if graph_name is None:
        g = ex.graph
        graph_name = f"{graph_title(ex)} ({g.num_nodes:,} nodes, {g.num_edges:,} edges)"
    config: dict = {"app": "GOAT Explorer", "graph": graph_name}
    if current:
        config["pair"] = list(pair_names(ex))
    config["seed"] = state.seed() if run is None else run.seed
    if run is not None:
        config["run"] = {**run.params, "holdout": run.holdout}
        config["graph_fingerprint"] = run.graph_fp
    return config


def chart(where, fig, *, key: str, about: dict | None = None, **kwargs):
    """``where.plotly_chart(fig, key=key, **kwargs)`` as every page draws a figure: projected in
    projector mode, with an Export popover (SVG, PNG) carrying ``about`` (default: this
    session's graph and run, :func:`figure_config`). Returns the chart's selection event."""
    shown = classroom.styled(fig)
    event = where.plotly_chart(shown, key=key, **kwargs)
    classroom.export_menu(where, shown, key, figure_config(state.get()) if about is None else about)
    return event


def finish(ex: Explorer) -> None:
    """Sidebar summary of graph, run and pair, and the shareable URL: drawn after the page."""
    g = ex.graph
    lines = [f"**Graph:** {md(graph_title(ex))} · {g.num_nodes:,} nodes · {g.num_edges:,} edges"]
    run = ex.run
    if run is None:
        lines.append("**Run:** none yet (Train page)")
    else:
        p = run.params
        lines.append(f"**Run:** d={p['dim']}, {p['epochs']} epochs, lr {p['lr']:g}, seed {p['seed']} "
                     f"({run.origin})")
    s, t = pair_names(ex)
    lines.append(f"**Gossip pair:** {md(s)} ↔ {md(t)}")
    st.sidebar.caption("  \n".join(lines))
    state.sync_url(ex)
    # After the page: the server's warm-up starts once the first page is drawn (its imports would
    # otherwise compete with that first run), and says where the compile is.
    warmup.sidebar_status()


def node_search(graph: goat_core.Graph, key: str, label: str) -> int | None:
    """A node chosen by name or id, or None; its id is also ``st.session_state[key]``.

    Up to PICKER_NODES nodes: one list that searches as you type. Above, listing every name
    would send megabytes to the browser on each run: a search box, then its best matches.
    """
    names = graph.names
    if graph.num_nodes <= PICKER_NODES:
        options = list(range(graph.num_nodes))
        return st.selectbox(label, options, format_func=names.__getitem__, index=None, key=key,
                            placeholder="type a name or id…")
    query = st.text_input(label, key=f"{key}_query", placeholder="type a name or id…")
    matches = picking.find_nodes(graph, query, limit=50)
    if query.strip() and not matches:
        st.caption(f"No node name contains {md(query.strip())}.")
    if st.session_state.get(key) not in matches:
        st.session_state[key] = matches[0] if matches else None
    if not matches:
        return None
    return st.selectbox(f"{len(matches)} match{'es' if len(matches) > 1 else ''} (best first)", matches,
                        format_func=names.__getitem__, key=key)


def edges_drawn_caption(num_edges: int, max_edges: int = views.MAX_NETWORK_EDGES) -> None:
    """Say so when the whole-graph view draws a sample of the edges."""
    if num_edges > max_edges:
        st.caption(f"Edges drawn: a seeded sample of {max_edges:,} of {num_edges:,} (all nodes are drawn; "
                   "drawing every edge would hide them).")
