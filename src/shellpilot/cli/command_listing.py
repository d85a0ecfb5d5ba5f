"""``shellpilot command list`` without typer: the project's command registry, the listing
and how it prints (text or JSON), so the fast path (cli/fast_path.py) runs it without
typer's import.

Owns: building the registry a CLI call uses, the listing and its formats. Must not touch:
loading or expansion rules (command/); heavy imports stay in functions.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shellpilot.command.model import Command
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.config.load import LoadedConfig


def registry_for(directory: Path | None, trust: bool = False) -> tuple[CommandRegistry, LoadedConfig]:
    from shellpilot.cli.project import project_dir_of, untrusted_warning
    from shellpilot.cli.render import print_warning
    from shellpilot.command.cache import ParseCache
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.config import load_config
    from shellpilot.paths import data_dir

    project = project_dir_of(directory)
    loaded = load_config(project, trust=trust)
    warning = untrusted_warning(loaded)
    if warning is not None:
        print_warning(warning)
    cache = ParseCache.for_project(data_dir(), project)  # unchanged files are not parsed again
    return CommandRegistry(project, loaded, cache=cache), loaded


def as_dict(command: Command) -> dict[str, Any]:
    return {
        "name": command.name,
        "display_name": command.display_name,
        "source": command.source,
        "origin": command.origin,
        "syntax": command.syntax,
        "description": command.description,
        "hints": command.hints,
        "agent": command.agent,
        "model": command.model,
        "subtask": command.subtask,
        "argument_hint": command.argument_hint,
        "aliases": command.aliases,
        "arguments": [dataclasses.asdict(a) for a in command.arguments],
        "named_arguments": command.named_arguments,
        "allowed_tools": command.allowed_tools,
        "disallowed_tools": command.disallowed_tools,
    }


def _listing(directory: Path | None, trust: bool) -> tuple[list[Command], list[str]]:
    """Every reachable command and the load warnings (MCP servers start only when configured)."""
    registry, _ = registry_for(directory, trust)
    if not registry.has_servers:  # no event loop to start (nor asyncio to import) for files alone
        return registry.list_files(), [str(w) for w in registry.warnings]

    async def load() -> tuple[list[Command], list[str]]:
        async with registry:
            return await registry.list(), [str(w) for w in registry.warnings]

    import asyncio

    return asyncio.run(load())


def _listing_text(commands: Sequence[Command]) -> str:
    """Two lines a command: ``/name source description  [hints]``, then its origin, indented."""
    width = max((len(c.name) for c in commands), default=0) + 1
    indent = " " * (width + 2)
    lines: list[str] = []
    for command in commands:
        hint = " ".join(command.hints) or (command.argument_hint or "")
        line = f"/{command.name.ljust(width)} {command.source.ljust(7)} {command.description or ''}".rstrip()
        lines.append(f"{line}  [{hint}]" if hint else line)
        lines.append(indent + command.origin)
    return "\n".join(lines)


def print_listing(*, as_json: bool, directory: Path | None, trust: bool) -> None:
    """Print every reachable command (two lines each, or JSON with the warnings) on stdout;
    the load warnings go to stderr after a text listing. Raises what loading raises
    (ConfigError for a broken config)."""
    from shellpilot.cli.render import print_warning
    from shellpilot.command.cache import gc_paused

    with gc_paused():  # thousands of commands, no cycle among them: see gc_paused
        commands, warnings = _listing(directory, trust)
        if as_json:
            text = json.dumps({"commands": [as_dict(c) for c in commands], "warnings": warnings}, indent=2)
        else:
            text = _listing_text(commands)
    if text:
        sys.stdout.write(text + "\n")  # one write: thousands of commands print at once
        sys.stdout.flush()
    if not as_json:
        for warning in warnings:
            print_warning(warning)


__all__ = ["as_dict", "print_listing", "registry_for"]
