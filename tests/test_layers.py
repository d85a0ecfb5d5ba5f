"""Import arrows point down the floors of design.md, and no modules import each other in a circle.

Every ``import`` is read, also those inside functions and under ``TYPE_CHECKING``: a module
knows what it names. A room is the first package under ``shellpilot`` (``tool``, ``session``...).
A room may import its own modules and rooms on lower floors; rooms on one floor do not know
each other, except on the foundation floor and the command floor (MCP prompts and skills are
command sources built on the command model). Importing an ancestor package (``shellpilot``
for ``__version__``) adds nothing: Python imports a module's ancestors first anyway.

One module lives on a lower floor than its folder: ``session.models``, the session records
(pydantic data only, importing nothing but ``ids`` and ``errors``). The store validates and
returns them, so storage imports it; moving the file down would rename a module that most
rooms import, and a store working on plain rows would change ``SessionStore``'s API.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import shellpilot

ROOT = Path(shellpilot.__file__).parent

FOUNDATION = {"errors", "ids", "paths", "bus", "config", "exports", "records"}
FLOORS: list[set[str]] = [
    FOUNDATION,
    {"scanner", "process", "provider"},
    {"permission", "storage"},
    {"agent", "testing"},
    {"tool"},
    {"command", "mcp", "skill"},
    {"session"},
    {"cli"},
    {"__main__", "shellpilot"},
]
"""Lowest first. ``shellpilot`` is the package's face, which names everything it re-exports."""
SHARED_FLOORS = (FOUNDATION, {"command", "mcp", "skill"})
"""Floors whose rooms may import each other (cycles are still forbidden)."""
MOVED = {"shellpilot.session.models": "records"}
"""Modules whose room is not their folder (see the module docstring)."""


def _module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for file in ROOT.rglob("*.py"):
        parts = file.relative_to(ROOT.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return names


def _imports() -> dict[str, set[str]]:
    """Module -> the shellpilot modules it imports (``from pkg import sub`` counts as ``pkg.sub``)."""
    files = _module_names()
    graph: dict[str, set[str]] = {}
    for name, file in files.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    found.add(sub if sub in files else node.module)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = {m for m in found if m.startswith("shellpilot") and m != name and m not in ancestors}
    return graph


GRAPH = _imports()


def _room(module: str) -> str:
    if module in MOVED:
        return MOVED[module]
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "shellpilot"


def _floor(room: str) -> int:
    return next(i for i, floor in enumerate(FLOORS) if room in floor)


def _allowed(source: str, target: str) -> bool:
    src, dst = _room(source), _room(target)
    if src == dst or _floor(dst) < _floor(src):
        return True
    return _floor(dst) == _floor(src) and any(src in f and dst in f for f in SHARED_FLOORS)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next((t for t in edges if t in graph), None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_was_read() -> None:
    assert "shellpilot.process.runner" in GRAPH and "shellpilot.scanner.scan" in GRAPH
    assert "shellpilot.session.subtask" in GRAPH["shellpilot.session.loop"]
    assert len(GRAPH) > 40


def test_every_room_is_on_a_floor() -> None:
    rooms = {_room(m) for m in GRAPH}
    placed = set().union(*FLOORS)
    assert rooms <= placed, sorted(rooms - placed)
    assert sum(len(f) for f in FLOORS) == len(placed), "a room is on two floors"


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_module_imports_only_what_its_floor_may_know(module: str) -> None:
    wrong = sorted(t for t in GRAPH[module] if not _allowed(module, t))
    assert not wrong, f"{module} ({_room(module)}) must not import {wrong}"


def test_no_import_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
