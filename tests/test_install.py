"""The library installs: ``pip install .`` builds a wheel that holds every module of ``goat_core``
and the ``goat`` command, which answers as ``python -m goat_core`` does.

Offline and quick: the wheel is built from a copy of the tree with the setuptools already in this
virtualenv (``--no-build-isolation``), then installed without its dependencies into a fresh
virtualenv made from the base interpreter (it sees none of this virtualenv's packages). The
dependencies (torch, numpy…) come from this virtualenv's site-packages through a ``.pth`` file:
what is checked is that the wheel carries the whole package and a working entry point, not
pip's resolver. The declared dependencies are checked against requirements.txt below.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
BUILD_FILES = ("pyproject.toml", "README.md")  # what setuptools reads besides goat_core/

pytestmark = pytest.mark.slow


@dataclass
class Installed:
    wheel: Path
    python: Path  # the fresh virtualenv's interpreter
    goat: Path  # its console script
    work: Path  # a folder outside the tree, to run from


def run(command: list, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing but the venv's own paths
    proc = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    if check:
        assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def python_files() -> list[Path]:
    """Every Python file of the project (the library, the app, tests, tools): the copy that is built
    has the clone's layout, several top-level packages beside goat_core."""
    found = list(ROOT.glob("*.py"))
    for folder in ROOT.iterdir():
        if folder.is_dir() and not folder.is_symlink() and not folder.name.startswith("."):
            found += [p for p in folder.rglob("*.py") if "__pycache__" not in p.parts]
    return found


def library_files() -> set[str]:
    """goat_core's Python files in the tree, as paths inside a wheel."""
    inside = [p.relative_to(ROOT) for p in python_files()]
    return {p.as_posix() for p in inside if p.parts[0] == "goat_core"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "source"  # a copy: building writes build/ and *.egg-info next to pyproject.toml
    for path in [*python_files(), *(ROOT / name for name in BUILD_FILES)]:
        (source / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, source / path.relative_to(ROOT))
    dist = tmp / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", dist, source], cwd=tmp)
    (wheel,) = dist.glob("goat_explorer-*.whl")
    env = tmp / "fresh"
    venv.create(env, with_pip=False)  # from the base interpreter: none of this virtualenv's packages
    python = env / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel],
        cwd=tmp)  # this virtualenv's pip installs into the fresh one (which has none)
    fresh_site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          cwd=tmp).stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    assert not any((Path(p) / "goat_core").exists() for p in ours)  # the library can come from the wheel only
    (fresh_site / "dependencies-from-the-test-venv.pth").write_text("\n".join(sorted(ours)) + "\n")
    return Installed(wheel=wheel, python=python, goat=env / "bin" / "goat", work=tmp)


def test_the_wheel_holds_every_module_of_goat_core_and_the_goat_command(installed):
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        entry_points = next(wheel.read(n).decode() for n in names
                            if n.endswith(".dist-info/entry_points.txt"))
    assert {n for n in names if n.endswith(".py")} == library_files()  # every subpackage, nothing else
    assert not [n for n in names if n.split("/")[0] in ("ui", "app_pages", "tests", "bench", "reproduce")]
    assert "goat = goat_core.cli:main" in entry_points.splitlines()


def test_goat_answers_as_python_m_goat_core(installed, tmp_path):
    where = "import importlib.util; print(importlib.util.find_spec('goat_core').origin)"
    found = run([installed.python, "-c", where], cwd=installed.work).stdout.strip()
    assert Path(found).is_relative_to(installed.python.parents[1]), found  # the installed copy, not the tree
    helped = run([installed.goat, "--help"], cwd=installed.work).stdout
    assert helped == run([sys.executable, "-m", "goat_core", "--help"], cwd=ROOT).stdout
    assert "info" in helped and "train" in helped
    triangle = tmp_path / "triangle.txt"
    triangle.write_text("a b\nb c\nc a\n")
    info = json.loads(run([installed.goat, "info", triangle, "--json"], cwd=installed.work).stdout)
    assert (info["nodes"], info["edges"]) == (3, 3)
    bad = run([installed.goat, "info", tmp_path / "missing.txt"], cwd=installed.work, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and len(bad.stderr.splitlines()) == 1


def requirements(lines) -> dict[str, Requirement]:
    found = [Requirement(line.split("#")[0]) for line in lines
             if line.split("#")[0].strip() and not line.lstrip().startswith("-")]
    return {r.name.lower(): r for r in found}


def test_the_package_declares_requirements_txts_runtime_requirements():
    """requirements.txt is the app's lock; the package declares the same requirements with the same
    bounds (Streamlit as the ``app`` extra), except torch: a lower bound, never a pin, so that pip keeps
    the torch build an environment has (CPU or CUDA) instead of fetching PyPI's CUDA build."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = requirements(project["dependencies"])
    app = requirements(project["optional-dependencies"]["app"])
    locked = requirements((ROOT / "requirements.txt").read_text().splitlines())
    assert "streamlit" in app and "streamlit" not in declared  # the library never imports it
    assert set(declared) | set(app) == set(locked)
    for name, requirement in {**declared, **app}.items():
        if name != "torch":
            assert requirement.specifier == locked[name].specifier, name
    torch = declared["torch"].specifier
    assert all(spec.operator == ">=" for spec in torch) and torch.contains(str(locked["torch"].specifier)[2:])
