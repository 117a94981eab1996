"""Per-session state of GOAT Explorer and its mirror in the URL.

Everything a browser session owns lives in one :class:`Explorer` object under
``st.session_state["explorer"]``: the graph, the runs trained on it, the gossip pair. Streamlit
keeps session state per browser session, so two sessions never see each other's graph, run
or pair; what sessions share is only the caches in :mod:`ui.cache`, keyed by content.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

import goat_core
from goat_core import presets
from goat_core.analysis import picking

from . import cache
from .runs import RunRecord, run_key, with_backend

KEY = "explorer"
SEED_KEY = "seed"
PROJECTOR_KEY = "projector"  # the sidebar's projector-mode toggle (ui.classroom)
NAMES_KEY = "node_names"  # the sidebar's "name the key nodes" toggle (ui.classroom)
PAIR_WIDGETS = ("pair_source", "pair_target")
# URL parameter -> Goat parameter (short names keep shared links readable).
URL_PARAMS = {"dim": "dim", "N": "neighborhood", "dropout": "dropout", "lr": "lr", "epochs": "epochs",
              "batch": "batch_size", "neg": "negatives", "variant": "variant", "excl": "exclude_partner",
              "pad": "padding", "vf": "validation_fraction", "pat": "patience", "backend": "backend"}
# The training form's limits: its widgets and the values a shared link may carry.
FORM_LIMITS = {"dim": (1, 1024), "neighborhood": (1, 1000), "dropout": (0.0, 0.95), "lr": (1e-6, 1.0),
               "epochs": (1, 5000), "batch_size": (1, 8192), "negatives": (0, 20), "holdout": (0.0, 0.5),
               "validation_fraction": (0.0, 0.5), "patience": (1, 100), "seed": (0, 2**31 - 1)}


def form_values(ex: Explorer) -> dict:
    """The training form's values for the current graph (the fast preset until changed)."""
    return ex.forms.setdefault(ex.graph_fp, presets.fast(ex.graph.num_edges))


@dataclass
class Missing:
    """What a link names that this server does not hold (restarted, or another server): the pages
    say so and offer one click to rebuild it. ``graph``: the file name of an upload to load again
    (``upload_key`` its content key); ``run``: (parameters, hold-out) of a run to train again;
    ``run_zip``: a run loaded from a zip, to load again; ``query``: the link, resumed once the
    upload is back."""

    graph: str | None = None
    upload_key: str | None = None
    run: tuple[dict, float] | None = None
    run_zip: bool = False
    query: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Explorer:
    """One browser session's world."""

    graph: goat_core.Graph
    graph_key: str  # "lesmis", "email", "upload:<file>", "run:<file>"
    graph_fp: str
    pair: tuple[int, int]
    runs: dict[str, RunRecord] = field(default_factory=dict)  # by graph fingerprint
    pending: int | None = None  # first click of a two-click pair choice
    click_round: int = 0  # bumps to give the clickable charts fresh keys
    draws: int = 0  # random pair draws so far (seeded)
    forms: dict[str, dict] = field(default_factory=dict)  # training form values, by graph fingerprint
    message: tuple[str, str] | None = None  # (kind, text) left by a callback for the next run
    muted: tuple[int, ...] = ()  # neighbors muted in the attention of ``muted_pair`` (counterfactual)
    muted_pair: tuple[int, int] | None = None
    # "Runs side by side" on the Scores page: by the base run's key, its runs by name (ui.side_by_side)
    side_by_side: dict[str, dict[str, RunRecord]] = field(default_factory=dict)
    upload_key: str | None = None  # an uploaded graph's content key (ui.cache.upload_key): what a link names
    view: dict[str, object] = field(default_factory=dict)  # the pages' main choices by URL name (VIEW_PARAMS)
    missing: Missing | None = None  # what the link this session opened names and this server lacks

    @property
    def run(self) -> RunRecord | None:
        return self.runs.get(self.graph_fp)

    @property
    def names(self) -> tuple[str, ...]:
        return self.graph.names

    @property
    def bundled(self) -> bool:
        return self.graph_key in goat_core.BUNDLED


def seed() -> int:
    return int(st.session_state.get(SEED_KEY, 0))


def get() -> Explorer:
    """This session's Explorer, created on first use (on Les Misérables, or from the URL)."""
    if KEY not in st.session_state:
        graph = cache.bundled_graph("lesmis")
        ex = Explorer(graph=graph, graph_key="lesmis", graph_fp=graph.fingerprint(),
                      pair=picking.default_pair(graph))
        st.session_state[KEY] = ex
        restore_from_url(ex)
    ex = st.session_state[KEY]
    keep_view(ex)
    return ex


def set_graph(ex: Explorer, graph: goat_core.Graph, key: str, upload_key: str | None = None) -> None:
    """Make ``graph`` current; runs of other graphs stay (switching back finds them). An upload
    brings its content key (what a shared link names); the upload a link waited for resumes the
    rest of the link (run, pair, mutes, view)."""
    ex.graph, ex.graph_key, ex.graph_fp = graph, key, graph.fingerprint()
    ex.upload_key = upload_key
    ex.pair = picking.default_pair(graph)
    ex.pending = None
    ex.click_round += 1
    set_mutes(ex, ())
    forget_pair_widgets()
    waiting = ex.missing
    ex.missing = None
    if waiting is not None and waiting.upload_key is not None and waiting.upload_key == upload_key:
        apply_link(ex, waiting.query)


def set_upload(ex: Explorer, graph: goat_core.Graph, file: str, key: str) -> None:
    """Make an uploaded graph current and keep it in the server's store under its content key, so
    that a refresh or a shared link finds it again."""
    cache.upload_store().put(key, graph, file)
    set_graph(ex, graph, f"upload:{file}", upload_key=key)


def set_pair(ex: Explorer, source: int, target: int) -> bool:
    """Set the gossip pair (node ids); a node never gossips with itself."""
    source, target = int(source), int(target)
    n = ex.graph.num_nodes
    if source == target or not (0 <= source < n and 0 <= target < n):
        return False
    ex.pair = (source, target)
    ex.pending = None
    return True


def forget_pair_widgets() -> None:
    for key in PAIR_WIDGETS:
        st.session_state.pop(key, None)


def click(ex: Explorer, node: int) -> str:
    """One click on a node of a graph chart: first click waits, second sets the pair."""
    if ex.pending is None or ex.pending == node:
        ex.pending = int(node)
        return "pending"
    set_pair(ex, ex.pending, node)
    return "pair"


def selected_customdata(event) -> list[list | tuple]:
    """The ``customdata`` of every point of a Plotly selection event that carries a list."""
    try:
        points = event["selection"]["points"] if event else []
    except (KeyError, TypeError):
        return []
    found = [point.get("customdata") if isinstance(point, dict) else None for point in points]
    return [data for data in found if isinstance(data, (list, tuple))]


def selected_nodes(event) -> list[int]:
    """Node ids of a Plotly selection event (``customdata = [id, name]``), in click order."""
    out: list[int] = []
    for data in selected_customdata(event):
        if data and isinstance(data[0], (int, float)):
            node = int(data[0])
            if node not in out:
                out.append(node)
    return out


def take_chart_clicks(ex: Explorer, prefix: str) -> str | None:
    """Read the clickable chart's selection (from its key) before it is drawn again.

    Each processed selection gives the chart a fresh key, so the next click is always new
    (a Plotly selection cannot be cleared from Python). Returns what happened.
    """
    nodes = selected_nodes(st.session_state.get(chart_key(ex, prefix)))
    if not nodes:
        return None
    ex.click_round += 1
    if len(nodes) >= 2:  # shift-click of two nodes
        set_pair(ex, nodes[0], nodes[1])
        return "pair"
    return click(ex, nodes[0])


def take_partner_click(ex: Explorer, prefix: str) -> bool:
    """Read a click on the pair's ego view (``customdata = [id, name, partner]``): a click on s
    or t swaps the pair, one on a neighbor makes the pair (partner, id). True when it changed."""
    for data in selected_customdata(st.session_state.get(chart_key(ex, prefix))):
        if len(data) >= 3:
            ex.click_round += 1
            node = int(data[0])
            if node in ex.pair:
                return set_pair(ex, ex.pair[1], ex.pair[0])
            return set_pair(ex, int(data[2]), node)
    return False


def take_edge_click(ex: Explorer, prefix: str) -> tuple[int, int] | None:
    """Read a click on an edge point (``customdata = [s, t, name s, name t]``) before its chart is
    drawn again: that pair becomes the gossip pair. Returns the pair, or None without a click."""
    for data in selected_customdata(st.session_state.get(chart_key(ex, prefix))):
        ends = data[:2]
        if len(ends) == 2 and all(isinstance(v, (int, float)) for v in ends):
            ex.click_round += 1
            return ex.pair if set_pair(ex, int(data[0]), int(data[1])) else None
    return None


def chart_key(ex: Explorer, prefix: str) -> str:
    return f"{prefix}_{ex.click_round}"


# --------------------------------------------------------------------------- muted neighbors

MUTE_CHARTS = ("att_source", "att_target")  # the attention bars: a click mutes (or unmutes) a neighbor


def mutes(ex: Explorer) -> list[int]:
    """The neighbors muted in the current pair's attention (none once the pair changed)."""
    return list(ex.muted) if ex.muted_pair == ex.pair else []


def set_mutes(ex: Explorer, nodes) -> None:
    ex.muted, ex.muted_pair = tuple(int(v) for v in nodes), ex.pair


def take_mute_click(ex: Explorer) -> int | None:
    """The neighbor a click on an attention bar named (``customdata = [id, name]``; the padding
    bar's id is -1 and names none), read before the bars are drawn again; None without a click.
    Each processed click gives the charts fresh keys, as :func:`take_chart_clicks` does."""
    for prefix in MUTE_CHARTS:
        nodes = selected_nodes(st.session_state.get(chart_key(ex, prefix)))
        if nodes:
            ex.click_round += 1
            return nodes[0] if nodes[0] >= 0 else None
    return None


# --------------------------------------------------------------------------- the URL

# The pages' main choices a link carries: URL name -> widget key. Widgets forget their value when
# their page is left; the Explorer keeps it (``ex.view``) and gives it back when the page returns.
VIEW_PARAMS = {"projector": PROJECTOR_KEY, "names": NAMES_KEY, "colour": "graph_colour",
               "gtab": "graph_tabs", "view": "gossip_view", "tab": "gossip_tabs", "uniform": "att_uniform",
               "step": "eq_step", "emb": "emb_kind", "proj": "emb_method", "ecolour": "emb_colour",
               "table": "scores_contingency"}
BOOLEAN_VIEWS = ("projector", "names", "uniform")


def keep_view(ex: Explorer) -> None:
    """Mirror the view widgets into ``ex.view`` (and back into a widget whose page was left)."""
    for param, key in VIEW_PARAMS.items():
        if key in st.session_state:
            ex.view[param] = st.session_state[key]
        elif param in ex.view:
            st.session_state[key] = ex.view[param]


def url_state(ex: Explorer) -> dict[str, str | list[str]]:
    """What a link carries: graph, seed, pair, mutes, the run's parameters and the pages' choices.
    While the link's upload or run zip is missing, the link stays as it came (a refresh keeps it)."""
    waiting = ex.missing
    frozen = waiting is not None and (waiting.graph is not None or (waiting.run_zip and ex.run is None))
    if waiting is not None and frozen and waiting.query:
        return {key: list(values) for key, values in waiting.query.items()}
    params: dict[str, str | list[str]] = {"graph": graph_param(ex), "seed": str(seed())}
    if not ex.bundled:  # the file's name: what to upload again when the server lacks it
        params["file"] = ex.graph_key.split(":", 1)[-1]
    s, t = ex.pair
    params["s"], params["t"] = ex.names[s], ex.names[t]
    muted = mutes(ex)
    if muted:
        params["mute"] = [ex.names[v] for v in muted]
    run = ex.run
    if run is not None:
        for short, name in URL_PARAMS.items():
            if name in run.params:
                params[short] = str(run.params[name])
        params["holdout"] = f"{run.holdout:g}"
        if run.origin == "upload":  # a run loaded from a zip: the server's store knows it by content
            params["run"] = run.key
    elif ex.missing is not None and ex.missing.run is not None:  # the link's run, not trained yet
        wanted, holdout = ex.missing.run
        params.update({short: str(wanted[name]) for short, name in URL_PARAMS.items() if name in wanted})
        params["holdout"] = f"{holdout:g}"
    for param, value in ex.view.items():
        if value is None:
            continue
        if param in BOOLEAN_VIEWS:
            if value:
                params[param] = "1"
        else:
            params[param] = str(value)
    return params


def graph_param(ex: Explorer) -> str:
    """The link's name for the graph: a bundled name, ``upload:<content key>``, or ``run`` (the
    graph a run zip brought)."""
    if ex.bundled:
        return ex.graph_key
    if ex.upload_key is not None:
        return f"upload:{ex.upload_key}"
    if ex.missing is not None and ex.missing.upload_key is not None:  # still waiting for the upload
        return f"upload:{ex.missing.upload_key}"
    return "run" if ex.graph_key.startswith("run:") else "upload"


def read_query() -> dict[str, list[str]]:
    """The page's URL parameters, each with every value it was given (``mute`` repeats)."""
    return {key: st.query_params.get_all(key) for key in st.query_params.keys()}


def sync_url(ex: Explorer) -> None:
    keep_view(ex)
    wanted = {k: (v if isinstance(v, list) else [v]) for k, v in url_state(ex).items()}
    if read_query() != wanted:
        st.query_params.from_dict(wanted)


BOOLEAN_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def parse_url_value(name: str, text: str) -> object:
    """A training-form value from a shared link; ValueError when it is not one the form takes
    (parameters must pass ``goat_core.PARAMETERS``' check and stay inside the form's limits)."""
    value: object
    if name == "exclude_partner":
        value = BOOLEAN_WORDS.get(text.lower())
    elif name in ("variant", "padding", "backend"):
        value = text
    elif name in ("dropout", "lr", "holdout", "validation_fraction"):
        value = float(text)
    else:
        value = int(text)
    spec = goat_core.PARAMETERS.get(name)
    low, high = FORM_LIMITS.get(name, (None, None))
    if value is None or (spec is not None and not spec.check(value)) or (
            low is not None and not low <= value <= high):  # type: ignore[operator]
        raise ValueError(f"{name} {text!r} is out of range")
    return value


def restore_from_url(ex: Explorer) -> None:
    """Rebuild a shared view (or this browser's, after a refresh) from the page's URL."""
    query = read_query()
    if query:
        apply_link(ex, query)


def _first(query: dict[str, list[str]], key: str, default: str = "") -> str:
    values = query.get(key) or [default]
    return values[-1]


def apply_link(ex: Explorer, query: dict[str, list[str]]) -> None:
    """A link's view, from the server's stores: graph, seed, training form and run, pair, mutes
    and the pages' choices. What the stores lack goes to ``ex.missing`` (the pages offer to
    rebuild it); a value no widget takes is ignored with a warning."""
    try:
        st.session_state[SEED_KEY] = parse_url_value("seed", _first(query, "seed", "0"))
    except ValueError:  # the seed parameter's own rule: a link's -1 never reaches a training
        ex.message = ("warning", f"ignored URL parameter seed={_first(query, 'seed')!r} (not a seed the "
                                 "training form takes)")
    _link_view(ex, query)  # projector mode first: a page that waits for a missing graph is projected too
    if not _link_graph(ex, query):
        return
    zip_key = _first(query, "run")
    if zip_key:
        record = cache.run_store().get(zip_key)
        if record is not None and record.graph_fp == ex.graph_fp:
            ex.runs[ex.graph_fp] = record
        else:
            ex.missing = Missing(run_zip=True, query=query)
    else:
        _link_run(ex, query)
    names = {name: i for i, name in enumerate(ex.names)}
    s, t = _first(query, "s"), _first(query, "t")
    if s in names and t in names:
        set_pair(ex, names[s], names[t])
    set_mutes(ex, [names[v] for v in query.get("mute", []) if v in names])


def _link_graph(ex: Explorer, query: dict[str, list[str]]) -> bool:
    """Make the link's graph current; False when this server does not hold it (``ex.missing``)."""
    graph_key = _first(query, "graph", "lesmis")
    if graph_key in goat_core.BUNDLED:
        if graph_key != ex.graph_key:
            try:
                set_graph(ex, cache.bundled_graph(graph_key), graph_key)
            except goat_core.GraphFormatError as err:
                ex.message = ("error", str(err))
                return False
        return True
    if graph_key == "upload":  # a link made before uploads had content keys
        ex.missing = Missing(graph=_first(query, "file") or "the uploaded graph", query=query)
        return False
    if graph_key.startswith("upload:"):
        key = graph_key.split(":", 1)[1]
        found = cache.upload_store().get(key)
        if found is None:
            ex.missing = Missing(graph=_first(query, "file") or "the uploaded graph", upload_key=key,
                                 query=query)
            return False
        graph, file = found
        set_graph(ex, graph, f"upload:{file}", upload_key=key)
        return True
    if graph_key == "run":
        record = cache.run_store().get(_first(query, "run"))
        if record is None:
            ex.missing = Missing(run_zip=True, query=query)
            return False
        set_graph(ex, record.goat.graph_, f"run:{_first(query, 'file') or 'run'}")
        return True
    ex.message = ("warning", f"ignored URL parameter graph={graph_key!r} (not a graph this app knows)")
    return True


def _link_run(ex: Explorer, query: dict[str, list[str]]) -> None:
    """The training form from the link and, when the server holds that run, the run itself."""
    form = {}
    for short, name in list(URL_PARAMS.items()) + [("holdout", "holdout")]:
        if short in query:
            try:
                form[name] = parse_url_value(name, _first(query, short))
            except ValueError:
                ex.message = ("warning", f"ignored URL parameter {short}={_first(query, short)!r} (not a "
                                         "value the training form takes)")
    backend = form.pop("backend", None)
    if not form:
        return
    values = ex.forms[ex.graph_fp] = dict(presets.fast(ex.graph.num_edges), **form)
    params = {k: v for k, v in values.items() if k != "holdout"}
    params["seed"] = seed()
    if backend is not None:
        params["backend"] = backend
    params = with_backend(params, ex.graph.num_edges)  # the link's compute path, else the app's
    holdout = float(values["holdout"])
    record = cache.run_store().get(run_key(ex.graph_fp, params, holdout))
    if record is not None:
        ex.runs[ex.graph_fp] = record
    else:
        ex.missing = Missing(run=(params, holdout), query={})


def _link_view(ex: Explorer, query: dict[str, list[str]]) -> None:
    for param, key in VIEW_PARAMS.items():
        if param not in query:
            continue
        text = _first(query, param)
        value: object = BOOLEAN_WORDS.get(text.lower(), False) if param in BOOLEAN_VIEWS else text
        ex.view[param] = value
        st.session_state[key] = value
