"""Claude Code's command and skill files: the frontmatter fields they share.

Owns: reading ``argument-hint``, ``arguments``, ``allowed-tools``, ``disallowed-tools``
and ``model`` as Claude Code does, the plugin root, and which argument rule a file
follows. Must not touch: precedence, names (registry.py) or expansion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.layout import layout
from shellpilot.command.model import TemplateSyntax
from shellpilot.command.placeholders import claude_rules
from shellpilot.command.sources.base import text_field

DESCRIPTION_LIMIT = 100
"""Characters of a Claude command body's first line used when it has no description."""


def first_line(body: str) -> str | None:
    """The first non-blank line of ``body`` without its ``#`` marks, at most 100 characters."""
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:DESCRIPTION_LIMIT]
    return None


def argument_hint(value: object, origin: str, warnings: list[LoadWarning]) -> str | None:
    """Claude writes ``argument-hint: [pr-number]``, which YAML reads as a list: rebuild it."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return text_field({"argument-hint": value}, "argument-hint", origin, warnings)


def tool_list(value: object) -> list[str]:
    """``allowed-tools`` / ``disallowed-tools`` as a list: a YAML list, or a string of
    entries separated by commas or spaces outside parentheses
    (``Bash(git add:*), Read`` and ``Read Bash(npm test *)`` alike)."""
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    if not isinstance(value, str):
        return []
    entries: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if "".join(current).strip():
                entries.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        entries.append("".join(current).strip())
    return entries


def named_arguments(value: object) -> list[str]:
    """Claude's ``arguments:``: a YAML list of names, or one string of space-separated names."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return []


def plugin_root(path: Path) -> Path:
    """``${CLAUDE_PLUGIN_ROOT}`` for a file: the nearest folder above it holding
    ``.claude-plugin/``, else the parent of the nearest ``commands`` or ``skills`` folder
    (a plugin's layout; ``.claude`` for project files), else the file's own folder."""
    for folder in path.parents:
        if (folder / ".claude-plugin").is_dir():
            return folder
    for folder in path.parents:
        if folder.name in ("commands", "skills"):
            return folder.parent
    return path.parent


def claude_syntax(body: str, named: list[str]) -> TemplateSyntax:
    """``claude`` or ``claude-legacy`` (see ``placeholders.claude_rules``)."""
    return claude_rules(body, layout(body, "claude"), named)


def claude_fields(data: dict[str, Any], body: str, path: Path, warnings: list[LoadWarning]) -> dict[str, Any]:
    """The ``Command`` fields a Claude Code file's frontmatter sets (commands and skills);
    ``plugin_root`` only when the file uses ``${CLAUDE_PLUGIN_ROOT}``."""
    origin = str(path)
    named = named_arguments(data.get("arguments"))
    model = text_field(data, "model", origin, warnings)
    return {
        "model": None if model in (None, "inherit") else model,
        "argument_hint": argument_hint(data.get("argument-hint"), origin, warnings),
        "named_arguments": named,
        "allowed_tools": tool_list(data.get("allowed-tools")),
        "disallowed_tools": tool_list(data.get("disallowed-tools")),
        "syntax": claude_syntax(body, named),
        "plugin_root": str(plugin_root(path)) if _uses_plugin_root(data, body) else None,
    }


def _uses_plugin_root(data: dict[str, Any], body: str) -> bool:
    """Only a file that names ``${CLAUDE_PLUGIN_ROOT}`` needs its plugin root looked up."""
    return "CLAUDE_PLUGIN_ROOT" in body or "CLAUDE_PLUGIN_ROOT" in str(data.get("allowed-tools", ""))
