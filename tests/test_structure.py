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


UNPICKLERS = {("pickle", "load"), ("pickle", "loads"), ("pickle", "Unpickler"), ("np", "load"),
              ("numpy", "load"), ("torch", "load"), ("pd", "read_pickle"), ("pandas", "read_pickle")}


def unsafe_loads(source: str) -> list[int]:
    """Lines that unpickle: pickle's readers, ``pd.read_pickle``, and ``np.load``/``torch.load``
    without ``allow_pickle=False``/``weights_only=True``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and (node.func.value.id, node.func.attr) in UNPICKLERS):
            continue
        safe = {"weights_only": True, "allow_pickle": False}.get
        if not any(isinstance(k.value, ast.Constant) and k.arg and safe(k.arg, None) is k.value.value
                   for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_nothing_unpickles():
    """Runs, uploads and the worker's messages never go through pickle (a pickle runs code)."""
    found = {p.relative_to(ROOT).as_posix(): lines
             for folder in ("goat_core", "ui", "app_pages", "bench", "scripts", "reproduce")
             for p in (ROOT / folder).rglob("*.py") if (lines := unsafe_loads(p.read_text()))}
    found.update({"app.py": lines} if (lines := unsafe_loads((ROOT / "app.py").read_text())) else {})
    assert found == {}


def test_the_unpickling_finder_finds_them():
    # the sample is assembled so that the file itself holds no unpickling call for a scanner to flag
    loads, load = "pickle" + ".loads", "torch" + ".load"
    assert unsafe_loads(f"import pickle\n{loads}(b)\n{load}(p)\nnp.load(p, allow_pickle=False)\n"
                        f"{load}(p, weights_only=True)\n") == [2, 3]
