"""Markdown command files: shellpilot's own, OpenCode's and Claude Code's.

Owns: ``**/*.md`` under a command directory -> commands. Formats (frontmatter fields):
shellpilot and opencode (description, agent, model, subtask); claude (description,
argument-hint, model, allowed-tools; ``dir/name`` also reachable as ``dir:name``).
Must not touch: precedence or expansion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import FrontmatterError, parse_markdown
from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.sources.base import (
    FileParser,
    Loaded,
    bool_field,
    list_field,
    read_text,
    text_field,
    walk_files,
)

MarkdownFlavour = Literal["shellpilot", "opencode", "claude"]

DESCRIPTION_LIMIT = 100
"""Characters of a Claude command body's first line used when it has no description."""


def _first_line(body: str) -> str | None:
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text[:DESCRIPTION_LIMIT]
    return None


def _claude_model(model: str | None) -> str | None:
    """Claude names a bare model (``claude-3-5-haiku-latest``); we need ``provider/model``."""
    if model is None or "/" in model:
        return model
    return f"anthropic/{model}"


def _argument_hint(value: object, origin: str, warnings: list[LoadWarning]) -> str | None:
    """Claude writes ``argument-hint: [pr-number]``, which YAML reads as a list: rebuild it."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return text_field({"argument-hint": value}, "argument-hint", origin, warnings)


def load_markdown_file(name: str, path: Path, flavour: MarkdownFlavour) -> Loaded:
    """One command from one file; an unusable file yields only a warning (path, line)."""
    loaded = Loaded()
    origin = str(path)
    text = read_text(path)
    if isinstance(text, LoadWarning):
        loaded.warnings.append(text)
        return loaded
    try:
        parsed = parse_markdown(text, origin, warn_sanitised=flavour != "claude")
    except FrontmatterError as exc:
        loaded.warnings.append(LoadWarning(f"skipped: {exc.message}", origin, exc.line))
        return loaded
    warnings = list(parsed.warnings)
    data = parsed.data
    description = text_field(data, "description", origin, warnings)
    model = text_field(data, "model", origin, warnings)
    if flavour == "claude":
        command = Command(
            name=name,
            description=description or _first_line(parsed.body),
            model=_claude_model(model),
            template=parsed.body,
            hints=hints(parsed.body),
            origin=origin,
            argument_hint=_argument_hint(data.get("argument-hint"), origin, warnings),
            allowed_tools=list_field(data, "allowed-tools"),
            aliases=[name.replace("/", ":")] if "/" in name else [],
        )
    else:
        command = Command(
            name=name,
            description=description,
            agent=text_field(data, "agent", origin, warnings),
            model=model,
            subtask=bool_field(data, "subtask", origin, warnings),
            template=parsed.body,
            hints=hints(parsed.body),
            origin=origin,
        )
    loaded.commands.append(command)
    loaded.warnings.extend(warnings)
    return loaded


def load_markdown_dir(
    root: Path, flavour: MarkdownFlavour = "shellpilot", *, parse: FileParser = load_markdown_file
) -> Loaded:
    """Every ``**/*.md`` under ``root`` (name = relative path without ``.md``), sorted;
    each file read by ``parse`` (``load_markdown_file`` or a cache around it)."""
    loaded = Loaded()
    for name, path in walk_files(root, ".md"):
        loaded.extend(parse(name, path, flavour))
    return loaded
