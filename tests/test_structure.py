"""The shape of the code: no import cycles inside ``goat_core`` or ``ui`` (imports inside
functions count: a lazy import is still a cycle), and a library that never imports Streamlit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def package_imports(package: str) -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports, anywhere in its body."""
    folder = ROOT / package
    modules = {p.relative_to(ROOT).with_suffix("").as_posix().replace("/", "."): p
               for p in folder.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        parent = name.rsplit(".", 1)[0] if not path.name == "__init__.py" else name
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = parent.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found.update(t for t in targets if t in modules and t != name)
        graph[name] = found - {f"{package}"}  # the package's __init__ re-exports; it is not a cycle
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


@pytest.mark.parametrize("package", ["goat_core", "ui"])
def test_no_import_cycles(package):
    assert cycles(package_imports(package)) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_the_library_never_imports_streamlit():
    for path in (ROOT / "goat_core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "streamlit" for n in names), path
