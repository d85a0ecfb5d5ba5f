"""Markdown command files: shellpilot's own, OpenCode's and Claude Code's.

Owns: ``**/*.md`` under a command directory -> commands. Formats (frontmatter fields):
shellpilot and opencode (description, agent, model, subtask; nested ``dir/name``);
claude (description, argument-hint, arguments, model, allowed-tools, disallowed-tools;
nested ``dir:name``, also reachable as ``dir/name``). Must not touch: precedence or expansion.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import FrontmatterError, parse_markdown
from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.sources.base import (
    FileReader,
    Loaded,
    bool_field,
    read_each,
    read_text,
    text_field,
    walk_files,
)
from shellpilot.command.sources.claude import claude_fields, first_line

MarkdownFlavour = Literal["shellpilot", "opencode", "claude"]


def load_markdown_file(name: str, path: Path, flavour: MarkdownFlavour, *, trusted: bool = True) -> Loaded:
    """One command from one file; an unusable file yields only a warning (path, line).

    ``name`` is the ``/``-separated relative path; Claude files are named ``dir:name``
    (Claude Code's own spelling) with ``dir/name`` as an alias. ``trusted`` is False
    for a file of a project whose config is not trusted (its ``allowed-tools`` are ignored).
    """
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
    if flavour == "claude":
        fields = claude_fields(data, parsed.body, path, warnings)
        command = Command(
            name=name.replace("/", ":"),
            description=description or first_line(parsed.body),
            template=parsed.body,
            hints=hints(parsed.body, fields["syntax"], fields["named_arguments"]),
            origin=origin,
            aliases=[name] if "/" in name else [],
            trusted=trusted,
            directory=str(path.parent),
            **fields,
        )
    else:
        command = Command(
            name=name,
            description=description,
            agent=text_field(data, "agent", origin, warnings),
            model=text_field(data, "model", origin, warnings),
            subtask=bool_field(data, "subtask", origin, warnings),
            template=parsed.body,
            hints=hints(parsed.body, flavour),
            origin=origin,
            syntax=flavour,
            trusted=trusted,
            directory=str(path.parent),
        )
    loaded.commands.append(command)
    loaded.warnings.extend(warnings)
    return loaded


def load_markdown_dir(
    root: Path,
    flavour: MarkdownFlavour = "shellpilot",
    *,
    trusted: bool = True,
    read: FileReader = read_each,
) -> Loaded:
    """Every ``**/*.md`` under ``root`` (name = relative path without ``.md``), sorted;
    files that are symlinks out of ``root`` are skipped with a warning; the files are read
    with ``load_markdown_file`` by ``read`` (``read_each``, or a cache that parses only
    what changed)."""
    skipped: list[LoadWarning] = []
    files = walk_files(root, ".md", skipped)
    loaded = read(load_markdown_file, files, flavour, trusted=trusted)
    return Loaded(loaded.commands, skipped + loaded.warnings)
