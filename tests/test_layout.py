"""docs/architecture.md's layout table and the files stay in step: every module of ``goat_core``
is in the table, and every path the table names exists. In a row's path cell, a name without a folder
is in the folder of the path before it (``goat_core/views/``, ``network.py``, ...); a folder
stands for its ``__init__.py``."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def layout_paths(document: str) -> list[str]:
    """The paths named in the path column of a document's "## Layout" table, folders resolved."""
    section = document.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    paths: list[str] = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split(" | ", 1)[0]
        folder = PurePosixPath(".")
        for name in re.findall(r"`([^`]+)`", cell):
            if "/" in name:
                path = PurePosixPath(name)
                folder = path if name.endswith("/") else path.parent
            else:
                path = folder / name
            paths.append(path.as_posix() + ("/" if name.endswith("/") else ""))
    return paths


def test_every_library_module_is_in_the_layout_table_and_every_path_there_exists():
    paths = layout_paths(ARCHITECTURE.read_text())
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert missing == [], f"docs/architecture.md's layout table names paths that do not exist: {missing}"
    covered = {p for p in paths if p.endswith(".py")} | {f"{p}__init__.py" for p in paths if p.endswith("/")}
    modules = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "goat_core").rglob("*.py"))
    absent = [m for m in modules if m not in covered]
    assert absent == [], f"modules missing from docs/architecture.md's layout table: {absent}"


def test_the_table_reader_resolves_names_against_the_path_before_them():
    document = ("intro\n## Layout\n| path | concern |\n|---|---|\n"
              "| `goat_core/views/`, `network.py` | x |\n| `goat_core/data/graph.py`, `sampling.py` | y |\n"
              "| `app.py`, `pages/` | z |\n\n## Next\n| `not/this.py` | w |\n")
    assert layout_paths(document) == ["goat_core/views/", "goat_core/views/network.py",
                                    "goat_core/data/graph.py", "goat_core/data/sampling.py",
                                    "app.py", "pages/"]


def test_every_top_level_folder_is_in_the_layout_table():
    """A newcomer reads the architecture from the table: no folder of the project is left out."""
    paths = layout_paths(ARCHITECTURE.read_text())
    named = {p.split("/")[0] for p in paths}
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
               and any(p.iterdir()) and p.name not in ("build", "dist", "runs", "test-output")}
    folders = {f for f in folders if not f.endswith(".egg-info")}
    assert folders - named == set(), f"folders missing from the layout table: {folders - named}"
