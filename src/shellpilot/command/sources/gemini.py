"""Gemini CLI command files: ``.gemini/commands/**/*.toml``.

Owns: TOML -> command (``prompt``, ``description``); ``{{args}}`` is the raw argument
text, ``!{...}`` a shell block, ``@{...}`` a file (handled by the gemini syntax).
``dir/name`` is also reachable as ``dir:name`` (Gemini's own spelling).
Must not touch: precedence or expansion.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileParser, Loaded, read_text, text_field, walk_files

_AT_LINE = re.compile(r"at line (\d+)")
_ASSIGN = re.compile(r"^[A-Za-z_][\w-]*\s*=")


def _by_assignment(text: str) -> dict[str, Any]:
    """Lenient reading: each top-level ``key = value`` (with its continuation lines)
    parsed on its own; the pieces that parse are kept."""
    chunks: list[list[str]] = []
    for line in text.split("\n"):
        if _ASSIGN.match(line):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
    data: dict[str, Any] = {}
    for chunk in chunks:
        try:
            data.update(tomllib.loads("\n".join(chunk)))
        except tomllib.TOMLDecodeError:
            continue
    return data


def load_gemini_file(name: str, path: Path) -> Loaded:
    """One command from one TOML file; a file without a usable ``prompt`` is skipped."""
    loaded = Loaded()
    origin = str(path)
    text = read_text(path)
    if isinstance(text, LoadWarning):
        loaded.warnings.append(text)
        return loaded
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _AT_LINE.search(str(exc))
        line = int(found.group(1)) if found else None
        data = _by_assignment(text)
        if not isinstance(data.get("prompt"), str):
            loaded.warnings.append(LoadWarning(f"skipped: invalid TOML ({exc})", origin, line))
            return loaded
        loaded.warnings.append(LoadWarning(f"invalid TOML ({exc}); read key by key", origin, line))
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        loaded.warnings.append(LoadWarning('skipped: no "prompt" string', origin))
        return loaded
    template = prompt.strip()
    loaded.commands.append(
        Command(
            name=name,
            description=text_field(data, "description", origin, loaded.warnings),
            template=template,
            syntax="gemini",
            hints=hints(template, "gemini"),
            origin=origin,
            aliases=[name.replace("/", ":")] if "/" in name else [],
        )
    )
    return loaded


def load_gemini_dir(root: Path, *, parse: FileParser = load_gemini_file) -> Loaded:
    """Every ``**/*.toml`` under ``root`` (name = relative path without ``.toml``); each
    file read by ``parse`` (``load_gemini_file`` or a cache around it)."""
    loaded = Loaded()
    for name, path in walk_files(root, ".toml"):
        loaded.extend(parse(name, path))
    return loaded
