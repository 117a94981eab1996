"""Figures as SVG and PNG files that carry the run's configuration (caption + metadata).

The renders go through kaleido and the system Chromium, as the app's Export buttons do.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from goat_core import views
from goat_core.views import export

SVG_NS = "{http://www.w3.org/2000/svg}"
EVIL = "<script>alert('x')</script>"
CONFIG = {"app": "GOAT Explorer", "graph": f"Les Misérables & {EVIL}", "seed": 7,
          "run": {"dim": 64, "epochs": 40, "lr": 0.005, "holdout": 0.15}, "pair": ["Marius", EVIL]}


@pytest.fixture(scope="module")
def figure():
    return views.attention_bars(["Cosette", EVIL, "Valjean"], np.array([0.5, 0.3, 0.2]), ["Cosette"],
                                node="Marius", partner=EVIL)


@pytest.fixture(scope="module")
def rendered(figure):
    problem = export.renderer_problem()
    if problem:
        pytest.fail(f"{problem} (CI installs Debian's chromium: see scripts/test.sh)")
    return {fmt: export.figure_bytes(figure, fmt, CONFIG) for fmt in export.FORMATS}


def test_svg_is_xml_with_the_configuration_escaped(rendered):
    raw = rendered["svg"]
    root = ET.fromstring(raw)  # parses: every label and the metadata are escaped
    assert root.tag == f"{SVG_NS}svg"
    metadata = root.find(f"{SVG_NS}metadata")
    assert metadata is not None and json.loads(metadata.text) == json.loads(export.config_json(CONFIG))
    assert "Configuration:" in root.find(f"{SVG_NS}desc").text
    assert not [e for e in root.iter() if e.tag.endswith("script")]  # the name stays text
    assert b"<script>" not in raw
    texts = " ".join("".join(e.itertext()) for e in root.iter(f"{SVG_NS}text")).replace(export.NBSP, " ")
    assert "seed 7" in texts and "dim=64" in texts  # the caption line inside the picture
    assert EVIL in texts  # shown as the characters it is


def test_png_has_the_configuration_in_a_text_chunk(rendered):
    image = Image.open(io.BytesIO(rendered["png"]))
    image.load()
    assert image.format == "PNG" and image.width >= 2 * export.EXPORT_WIDTH  # scale 2
    assert json.loads(image.text[export.PNG_KEY]) == json.loads(export.config_json(CONFIG))
    assert export.png_text(rendered["png"])[export.PNG_KEY] == export.config_json(CONFIG)


def test_metadata_helpers_on_hand_made_files():
    svg = export.svg_with_metadata(b'<svg xmlns="http://www.w3.org/2000/svg" width="10"><g/></svg>',
                                   '{"a": "<b>&"}', title="<i>t</i>")
    root = ET.fromstring(svg)
    assert root.find(f"{SVG_NS}metadata").text == '{"a": "<b>&"}'
    assert root.find(f"{SVG_NS}title").text == "<i>t</i>"
    buffer = io.BytesIO()
    Image.new("RGB", (3, 2)).save(buffer, format="PNG")
    png = export.png_with_text(buffer.getvalue(), "k", "v é")
    assert Image.open(io.BytesIO(png)).text == {"k": "v é"}  # a valid chunk (CRC checked by Pillow)
    with pytest.raises(export.ExportError, match="no PNG"):
        export.png_with_text(b"GIF89a", "k", "v")
    with pytest.raises(export.ExportError, match="format must be one of svg, png"):
        export.figure_bytes(views.degree_histogram(np.array([1, 2])), "pdf", {})


def test_caption_is_one_line_of_the_configuration():
    text = export.caption(CONFIG).replace(export.NBSP, " ")
    assert text.startswith("GOAT Explorer · Les Misérables") and "seed 7" in text
    assert "dim=64, epochs=40, lr=0.005, holdout=0.15" in text and f"Marius ↔ {EVIL}" in text
    long = export.caption({"graph": "x" * 500})
    assert len(long) == export.CAPTION_CHARS and long.endswith("…")
    shown = export.with_caption(views.degree_histogram(np.array([1, 2])), f"a {EVIL}")
    assert shown.layout.title.subtitle.text == "a &lt;script&gt;alert('x')&lt;/script&gt;"
    wrapped = export.with_caption(views.degree_histogram(np.array([1, 2])), "word " * 60)
    assert wrapped.layout.title.subtitle.text.count("<br>") == 2  # 300 characters: three lines


@pytest.mark.parametrize("value, words", [
    ("MISSING", "BROWSER_PATH names {path}, which does not exist"),
    ("NOT_EXECUTABLE", "BROWSER_PATH names {path}, which is not executable"),
])
def test_a_browser_path_naming_no_browser_is_a_problem_up_front(monkeypatch, tmp_path, value, words):
    """Issue 24: with BROWSER_PATH naming a missing file, export looked possible and a click failed
    with an empty message."""
    path = tmp_path / ("no-chromium" if value == "MISSING" else "chromium.txt")
    if value == "NOT_EXECUTABLE":
        path.write_text("not a browser")
    monkeypatch.setenv("BROWSER_PATH", str(path))
    problem = export.renderer_problem()
    assert problem is not None and words.format(path=path) in problem
    with pytest.raises(export.ExportError) as err:
        figure = views.attention_bars(["a"], np.array([1.0]), [], node="s", partner="t")
        export.figure_bytes(figure, "svg", {})
    assert words.format(path=path) in str(err.value) and "\n" not in str(err.value)


def test_a_browser_path_naming_a_directory_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path))
    problem = export.renderer_problem()
    assert problem is not None and f"BROWSER_PATH names {tmp_path}, a directory, not the browser's" in problem
