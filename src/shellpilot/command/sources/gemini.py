"""Gemini CLI command files: ``.gemini/commands/**/*.toml``.

Owns: TOML -> command (``prompt``, ``description``); ``{{args}}`` is the raw argument
text, ``!{...}`` a shell block, ``@{...}`` a file (handled by the gemini syntax).
Nested files are named ``dir:name`` (Gemini's own spelling), also reachable as
``dir/name``. Must not touch: precedence or expansion.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.hints import hints
from shellpilot.command.layout import unbalanced_brace_block
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileReader, Loaded, read_each, read_text, text_field, walk_files

_AT_LINE = re.compile(r"at line (\d+)")
_ASSIGN = re.compile(r"^[A-Za-z_][\w-]*\s*=")
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-.]")


def gemini_name(relative: str) -> str:
    """Gemini CLI's name for ``dir/sub/name``: ``dir:sub:name``, each part with characters
    other than letters, digits, ``_``, ``-`` and ``.`` replaced by ``_``."""
    return ":".join(_UNSAFE.sub("_", part) for part in relative.split("/"))


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


def load_gemini_file(name: str, path: Path, *, trusted: bool = True) -> Loaded:
    """One command from one TOML file; a file without a usable ``prompt`` is skipped.

    A ``!{`` whose braces never close stays text, with a warning (Gemini CLI refuses
    to run such a command)."""
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
    if "\0" in template:
        loaded.warnings.append(LoadWarning("skipped: a binary prompt (NUL byte)", origin))
        return loaded
    unbalanced = unbalanced_brace_block(template)
    if unbalanced >= 0:
        loaded.warnings.append(
            LoadWarning(f"!{{ at offset {unbalanced} of the prompt never closes; it stays text", origin)
        )
    spelled = gemini_name(name)
    loaded.commands.append(
        Command(
            name=spelled,
            description=text_field(data, "description", origin, loaded.warnings),
            template=template,
            syntax="gemini",
            hints=hints(template, "gemini"),
            origin=origin,
            aliases=[name] if name != spelled else [],
            trusted=trusted,
            directory=str(path.parent),
        )
    )
    return loaded


def load_gemini_dir(root: Path, *, trusted: bool = True, read: FileReader = read_each) -> Loaded:
    """Every ``**/*.toml`` under ``root`` (see ``gemini_name``); symlinks out of ``root``
    are skipped with a warning; the files are read with ``load_gemini_file`` by ``read``
    (``read_each``, or a cache)."""
    skipped: list[LoadWarning] = []
    files = walk_files(root, ".toml", skipped)
    loaded = read(load_gemini_file, files, trusted=trusted)
    return Loaded(loaded.commands, skipped + loaded.warnings)
