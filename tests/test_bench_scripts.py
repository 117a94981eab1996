"""Every ``goat_core`` import of the scripts outside the package (bench/, scripts/, reproduce/),
child-process code in their strings included, resolves: a module moved inside ``goat_core`` must
not leave a benchmark that fails only when someone reruns it."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for folder in ("bench", "scripts", "reproduce") for p in (ROOT / folder).rglob("*.py"))


def goat_imports(source: str) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names) of every ``from goat_core… import …`` / ``import goat_core…``, in the code
    and in the triple-quoted strings a script runs in a child process."""
    trees = [ast.parse(source)]
    for text in re.findall(r'"""(.*?)"""', source, re.S):
        code = re.sub(r"\{\w+(![rsa])?\}", "None", text)  # str.format fields of child code
        try:
            trees.append(ast.parse(code))
        except SyntaxError:
            continue  # prose, not code
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("goat_core"):
                found.append((node.module, tuple(a.name for a in node.names)))
            elif isinstance(node, ast.Import):
                found += [(a.name, ()) for a in node.names if a.name.startswith("goat_core")]
    return found


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_goat_core_imports_resolve(script):
    for module, names in goat_imports(script.read_text()):
        imported = importlib.import_module(module)
        for name in names:
            assert hasattr(imported, name) or importlib.util.find_spec(f"{module}.{name}"), \
                f"{script.name}: {module} has no {name}"


def test_the_check_sees_child_code():
    child = 'CHILD = """\nsys.path.insert(0, {root!r})\nfrom goat_core import delimited\n"""\n'
    assert ("goat_core", ("delimited",)) in goat_imports(child)
