"""Arrows point down: no module of the app imports one that imports it back, however far round.

Every ``import`` and ``from ... import`` counts, at the top of a module or inside a function (a
function-level import is a circle all the same, only a later one). ``from ui import state`` is an
import of ``ui.state``; ``from ui.widgets import tr`` of ``ui.widgets``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.source import tree

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def app_modules() -> dict[str, Path]:
    """Every module of the app: ui/, selfattn/, pages/ and app.py, by dotted name."""
    paths = [ROOT / "app.py", *(p for folder in ("ui", "selfattn", "pages") for p in sorted((ROOT / folder).rglob("*.py")))]
    return {_module_name(p): p for p in paths}


def imported(path: Path, name: str, modules: set[str]) -> set[str]:
    """The app's modules that the module ``name`` (at ``path``) imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from .core import y
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # "ui.state.keep" is no module: ui.state is
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = app_modules()
    return {name: imported(path, name, set(modules)) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle of ``graph``, each as its strongly connected set of modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # the graph is a few hundred modules: recursion is fine
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert "ui.state" in graph["pages.playground"]  # from ui import state as settings
    assert "ui.widgets" in graph["app"]  # from ui.widgets import tr, ...
    assert "selfattn.text.models" in graph["ui.warmup"]  # inside a function
    assert len(graph) > 50


def test_cycles_finds_a_circle_however_long():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_of_the_app_imports_one_that_imports_it_back():
    graph = import_graph()
    found = cycles(graph)
    named = []
    for group in found:
        members = set(group)
        arrows = sorted(f"{a} -> {b}" for a in group for b in graph[a] if b in members)
        named.append(" ↔ ".join(group) + " (" + "; ".join(arrows) + ")")
    assert not found, "import circles:\n" + "\n".join(named)
