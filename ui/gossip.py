"""What the Gossip & attend page shows of the pair, computed once per run of the page
(:func:`pair_view`): the attention as shown (the model's own, or a counterfactual with muted
neighbors or uniform attention), the model's own beside it, and uniform attention over the same
neighbors (what attention adds). Also the mutes (a click on a bar) and the attention's CSV rows."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import goat_core
from goat_core import NodeIndex, views
from goat_core.analysis import splits

from . import state
from .parts import md
from .runs import RunRecord
from .state import Explorer


@dataclass(frozen=True)
class PairView:
    shown: goat_core.PairAttention  # what the page shows: the model's, or a counterfactual
    model: goat_core.PairAttention  # the model's own answer
    flat: goat_core.PairAttention | None  # uniform attention over the same neighbors; None when shown is
    status: str  # "edge", "edge, held out from training" or "no edge"

    @property
    def counterfactual(self) -> bool:
        return bool(self.shown.muted) or self.shown.uniform

    def delta(self, field: str) -> str | None:
        """A metric's change from the model's own answer, under a counterfactual."""
        if not self.counterfactual:
            return None
        return f"{getattr(self.shown, field) - getattr(self.model, field):+.3f} vs the model's"

    def captions(self) -> list[str]:
        """What the metrics do not say: the counterfactual's terms, and what attention adds."""
        att, model, lines = self.shown, self.model, []
        if self.counterfactual:
            what = " and ".join(([f"{md(', '.join(att.muted))} muted"] if att.muted else [])
                                + (["uniform attention"] if att.uniform else []))
            lines.append(f"A counterfactual ({what}): the model's own answer is p = {model.probability:.3f}, "
                         f"score {model.score:.3f}. Outlined bars below show the model's attention.")
        if self.flat is not None:
            lines.append(f"With uniform attention over the same neighbors the score would be "
                         f"{self.flat.score:.3f} (p = {self.flat.probability:.3f}): attention adds "
                         f"{att.score - self.flat.score:+.3f} to the score.")
        return lines

    def rows(self) -> list[dict]:
        """The shown attention as CSV rows: one per sampled neighbor of each side, and the padding's
        share when there is one."""
        att = self.shown
        sides = (("source", att.source, att.target, att.source_names, att.source_attention,
                  att.source_padding),
                 ("target", att.target, att.source, att.target_names, att.target_attention,
                  att.target_padding))
        rows = [{"side": side, "node": node, "partner": partner, "neighbor": n, "attention": float(w),
                 "shared": n in att.shared}
                for side, node, partner, nbrs, weights, _ in sides
                for n, w in zip(nbrs, weights, strict=True)]
        rows += [{"side": side, "node": node, "partner": partner, "neighbor": views.PADDING_LABEL,
                  "attention": pad, "shared": False}
                 for side, node, partner, _, _, pad in sides if pad > 0.0]
        return rows


def pair_view(ex: Explorer, run: RunRecord, uniform: bool) -> PairView:
    """The current pair's attention with this session's mutes (``uniform``: uniform attention).

    Mutes made for another run of the pair (e.g. another N) no longer apply: they are dropped
    with a warning for the next run of the page."""
    goat = run.goat
    s, t = map(NodeIndex, ex.pair)  # positions in the graph's names (a plain int would be a name)
    model = goat.attention(s, t)
    shown = model
    if state.mutes(ex) or uniform:
        try:
            shown = goat.attention(s, t, mute=[NodeIndex(v) for v in state.mutes(ex)], uniform=uniform)
        except goat_core.GoatError as err:
            state.set_mutes(ex, ())
            ex.message = ("warning", f"Unmuted every neighbor: {err}")
            shown = goat.attention(s, t, uniform=True) if uniform else model
    flat = None if shown.uniform else goat.attention(s, t, mute=list(shown.muted), uniform=True)
    return PairView(shown, model, flat, splits.edge_status(ex.graph, goat.graph_, s, t))


def take_mute_click(ex: Explorer, goat: goat_core.Goat) -> None:
    """A click on an attention bar mutes that neighbor, a second one unmutes it; read before the bars
    are drawn again. A mute the model refuses (the last neighbor of a side) is a warning."""
    clicked = state.take_mute_click(ex)
    if clicked is None:
        return
    now = state.mutes(ex)
    wanted = [v for v in now if v != clicked] if clicked in now else now + [clicked]
    s, t = map(NodeIndex, ex.pair)
    try:
        goat.attention(s, t, mute=[NodeIndex(v) for v in wanted])
    except goat_core.GoatError as err:
        ex.message = ("warning", str(err))
    else:
        state.set_mutes(ex, wanted)


def uniform_on() -> bool:
    """The "Uniform attention" toggle's value, read before it is drawn (the numbers come first)."""
    return bool(st.session_state.get("att_uniform"))
