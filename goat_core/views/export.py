"""Any figure as an SVG or PNG that says how it was made: the run's configuration as a caption line (it
survives a screenshot) and as JSON metadata (SVG ``<metadata>``, PNG ``tEXt``). Images come from kaleido,
which needs a Chrome or Chromium; without one :class:`ExportError` says so in one line."""

from __future__ import annotations

import html
import json
import os
import re
import struct
import textwrap
import zlib
from collections.abc import Mapping
from pathlib import Path
from xml.sax.saxutils import escape

import plotly.graph_objects as go

from ..errors import GoatError
from .style import _e

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
PNG_KEY = "goat-explorer-config"  # the tEXt keyword holding the configuration's JSON
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CAPTION_CHARS = 330  # a longer caption is cut (the metadata keeps everything)
NBSP = "\u00a0"  # keeps "seed 3" and "s ↔ t" on one caption line
CAPTION_LINE = 115  # characters per caption line (three lines at most)
EXPORT_WIDTH = 1000  # pixels of the exported page when the figure sets no width


class ExportError(GoatError, RuntimeError):
    """A figure could not be turned into a file (no exporter or no browser for it)."""


def renderer_problem() -> str | None:
    """Why figures cannot be exported here, or None (a cheap check: kaleido importable and a Chrome or
    Chromium executable really there, ``BROWSER_PATH``'s included, which kaleido takes unchecked)."""
    try:
        import kaleido  # noqa: F401
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return "figure export needs the kaleido package (pip install 'kaleido>=1')"
    named = os.environ.get("BROWSER_PATH")
    if named:  # kaleido takes it as it is (an empty one: as unset)
        return _browser_problem(named, "BROWSER_PATH names")
    try:
        found = Chromium.find_browser(skip_local=False)
    except Exception:  # the finder's own trouble: let the export itself try
        return None
    if not found:
        return ("figure export needs Chrome or Chromium (kaleido drives it): install one, or set "
                "BROWSER_PATH to its executable")
    return _browser_problem(found, "the browser found is")


def _browser_problem(path: str, named: str) -> str | None:
    """None when ``path`` is an executable file, else why figure export cannot use it."""
    why = ("a directory, not the browser's executable" if Path(path).is_dir()
           else "which does not exist" if not Path(path).is_file()
           else "which is not executable" if not os.access(path, os.X_OK) else None)
    return None if why is None else f"figure export needs Chrome or Chromium: {named} {path}, {why}"


def config_json(config: Mapping) -> str:
    """The configuration as compact, ASCII-only JSON (fits a PNG tEXt chunk, any node names)."""
    return json.dumps(config, sort_keys=True, ensure_ascii=True, default=str)


def caption(config: Mapping) -> str:
    """One readable line of ``config``: texts as they are, numbers as "key value", a dict as
    "k=v, ...", a list joined by "↔" (a pair); cut at CAPTION_CHARS (the metadata keeps all)."""
    parts = []
    for key, value in config.items():
        if isinstance(value, Mapping):
            parts.append(", ".join(f"{k}={v}" for k, v in value.items() if not isinstance(v, Mapping | list)))
        elif isinstance(value, (list, tuple)):
            parts.append(f"{NBSP}↔{NBSP}".join(str(v) for v in value))  # a pair stays on one line
        elif isinstance(value, str):
            parts.append(value)
        elif value is not None:
            parts.append(f"{key}{NBSP}{value}")
    text = " · ".join(p for p in parts if p)
    return text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1] + "…"


def with_caption(fig: go.Figure, text: str) -> go.Figure:
    """A copy of ``fig`` with ``text`` as a small subtitle, wrapped (escaped: it may hold node names)."""
    out = go.Figure(fig)
    lines = textwrap.wrap(text, CAPTION_LINE) or [""]
    top = out.layout.margin.t if out.layout.margin.t is not None else 80
    out.update_layout(title_subtitle_text="<br>".join(_e(line) for line in lines),
                      title_subtitle_font_size=11, margin_t=top + 16 + 14 * len(lines))
    if not out.layout.title.text:
        out.update_layout(title_text=" ")  # a subtitle shows under a title only
    return out


def figure_bytes(fig: go.Figure, fmt: str, config: Mapping, *, scale: float = 2.0) -> bytes:
    """``fig`` as an SVG or PNG with ``config`` in its caption and metadata; ``scale`` multiplies a PNG's
    pixels (2: sharp on a projector)."""
    if fmt not in FORMATS:
        raise ExportError(f"figure format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    shown = with_caption(fig, caption(config))
    width = None if shown.layout.width else EXPORT_WIDTH
    try:
        raw = shown.to_image(format=fmt, width=width, scale=scale if fmt == "png" else 1)
    except Exception as err:  # kaleido's errors are many (no browser, a crash): one line for the user
        first = str(err).strip().splitlines()[0] if str(err).strip() else "the browser could not be started"
        problem = renderer_problem() or f"{type(err).__name__}: {first}"
        raise ExportError(f"could not export the figure as {fmt.upper()}: {problem}") from err
    text = config_json(config)
    return svg_with_metadata(raw, text, title=_plain(shown.layout.title.text)) if fmt == "svg" \
        else png_with_text(raw, PNG_KEY, text)


def _plain(label: str | None) -> str:
    """A Plotly label without its markup (``<br>``, ``<b>``) and entities, for a file's title."""
    return html.unescape(re.sub(r"<[^>]+>", " ", label or "")).strip()


def svg_with_metadata(svg: bytes, config_text: str, *, title: str = "") -> bytes:
    """``svg`` with ``<title>``, ``<desc>`` and ``<metadata>`` first in its root, XML-escaped."""
    text = svg.decode("utf-8")
    root = re.search(r"<svg\b[^>]*>", text)
    if root is None:
        raise ExportError("the exporter returned no <svg> element")
    block = (f"<title>{escape(title)}</title>"
             f"<desc>Made with GOAT Explorer. Configuration: {escape(config_text)}</desc>"
             f'<metadata id="goat-explorer-config">{escape(config_text)}</metadata>')
    return (text[: root.end()] + block + text[root.end():]).encode("utf-8")


def png_with_text(png: bytes, keyword: str, text: str) -> bytes:
    """``png`` with one ``tEXt`` chunk (``keyword``, Latin-1 ``text``) right after IHDR."""
    if not png.startswith(PNG_SIGNATURE):
        raise ExportError("the exporter returned no PNG image")
    ihdr_end = len(PNG_SIGNATURE) + 8 + struct.unpack(">I", png[8:12])[0] + 4  # length, type, data, CRC
    body = keyword.encode("latin-1") + b"\0" + text.encode("latin-1")
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def png_text(png: bytes) -> dict[str, str]:
    """The ``tEXt`` chunks of a PNG, keyword -> text (what :func:`png_with_text` wrote)."""
    out, pos = {}, len(PNG_SIGNATURE)
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I", png[pos:pos + 4])[0], png[pos + 4:pos + 8]
        if kind == b"tEXt":
            key, _, value = png[pos + 8:pos + 8 + length].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + length
    return out
