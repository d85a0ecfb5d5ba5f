"""Import arrows follow design.md: a module imports nothing it must not know about.

Data flows CLI -> session -> tool -> (scan | permission | runner); the scanner knows no
processes, the runner no permissions, the permission engine no shells, providers no
sessions. The check reads every module's imports (also those inside functions).

Storage keeps records and never signals a process; start-up recovery (``session.recovery``)
joins the store and the process runner. One exception crosses sideways: storage may import
``shellpilot.process.process_group`` for ``start_time`` (a pure /proc read), the same
definition of "this process" the owner tokens of rows and the process records use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import shellpilot

ROOT = Path(shellpilot.__file__).parent
FOUNDATION = {"bus", "errors", "ids", "paths", "config"}


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for file in ROOT.rglob("*.py"):
        parts = file.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
        graph[name] = {m for m in found if m.startswith("shellpilot.")}
    return graph


GRAPH = _imports()


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) < 2:
        return "shellpilot"
    return parts[1]


def _allowed(source: str, target: str) -> bool:
    src, dst = _layer(source), _layer(target)
    if src == dst:
        return True
    if src in FOUNDATION:
        return dst in FOUNDATION
    if src in ("scanner", "process"):
        return dst in FOUNDATION
    if src == "permission":
        return dst in FOUNDATION
    if src == "provider":
        return dst in FOUNDATION
    if src == "storage":
        return dst in FOUNDATION or target in {
            "shellpilot.session.models",
            "shellpilot.session.events",
            "shellpilot.process.process_group",
        }
    if src == "command":
        return dst not in {"session", "storage", "cli", "provider", "server", "agent"}
    return dst != "cli" or src in {"__main__", "server"}


def test_the_graph_was_read() -> None:
    assert "shellpilot.process.runner" in GRAPH and "shellpilot.scanner.scan" in GRAPH
    assert len(GRAPH) > 40


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_module_imports_only_what_its_layer_may_know(module: str) -> None:
    wrong = sorted(t for t in GRAPH[module] if not _allowed(module, t))
    assert not wrong, f"{module} ({_layer(module)}) must not import {wrong}"
