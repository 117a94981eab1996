"""Type hints on the public API, checked: every public function and method of ``goat_core``
is annotated, and mypy finds no error in the package (``pytest tests/test_typing.py``)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import goat_core

ROOT = Path(__file__).resolve().parents[1]


def public_functions():
    """(qualified name, function) for every public function and method defined in goat_core."""
    for info in pkgutil.walk_packages(goat_core.__path__, "goat_core."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj
            elif inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if inspect.isfunction(value) and (member == "__init__" or not member.startswith("_")):
                        yield f"{module.__name__}.{name}.{member}", value


def missing_annotations(function) -> list[str]:
    signature = inspect.signature(function)
    missing = [p.name for p in signature.parameters.values()
               if p.name not in ("self", "cls", "ctx") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and function.__name__ != "__init__":
        missing.append("return")
    return missing


def test_every_public_function_is_annotated():
    found = list(public_functions())
    assert len(found) > 100  # the walk sees the package, not an empty list
    gaps = {name: gap for name, function in found if (gap := missing_annotations(function))}
    assert gaps == {}


def test_the_annotation_check_sees_a_gap():
    def unannotated(a, b: int):
        return a

    assert missing_annotations(unannotated) == ["a", "return"]


def test_mypy_finds_no_error_in_goat_core():
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent))
    if mypy is None:
        pytest.fail("mypy is not installed: pip install -r requirements-dev.txt")
    proc = subprocess.run([mypy, "goat_core"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
