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
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x80-\x9f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)
_SPACES = re.compile(r"\s+")
_BACKSLASH_HINT = "; write \\\\ for a backslash inside \"...\", or quote the prompt with '''...'''"
NAME_PART_LIMIT = 50
"""UTF-16 units of one name part Gemini CLI keeps; a longer part is cut to 47 plus ``...``."""
DESCRIPTION_LIMIT = 100
"""UTF-16 units of a description Gemini CLI shows; a longer one is cut to 97 plus ``...``."""


def _units(text: str) -> int:
    """Length in UTF-16 code units, as JavaScript counts it (an emoji is 2)."""
    return len(text.encode("utf-16-le")) // 2


def _cut(text: str, limit: int) -> str:
    """``text`` cut as Gemini CLI cuts it: past ``limit`` UTF-16 units, the first
    ``limit - 3`` units plus ``...`` (a character split in half is dropped)."""
    if _units(text) <= limit:
        return text
    head = text.encode("utf-16-le")[: 2 * (limit - 3)].decode("utf-16-le", errors="ignore")
    return head + "..."


def gemini_name(relative: str) -> str:
    """Gemini CLI's name for ``dir/sub/name``: ``dir:sub:name``, each part with characters
    other than letters, digits, ``_``, ``-`` and ``.`` replaced by ``_`` (one per UTF-16
    unit: an emoji becomes ``__``), a part longer than 50 cut to 47 plus ``...``."""
    return ":".join(
        _cut(_UNSAFE.sub(lambda m: "_" * _units(m.group()), part), NAME_PART_LIMIT)
        for part in relative.split("/")
    )


def gemini_description(value: str | None, path: Path) -> str:
    """What Gemini CLI shows for a command: the description (default ``Custom command from
    <file>.toml``) without escape sequences and invisible control characters, every run of
    whitespace one space, at most 100 UTF-16 units (97 plus ``...``)."""
    text = value or f"Custom command from {path.name}"
    text = _SPACES.sub(" ", _INVISIBLE.sub("", _ANSI.sub("", text))).strip()
    return _cut(text, DESCRIPTION_LIMIT)


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
            hint = _BACKSLASH_HINT if "Unescaped '\\'" in str(exc) else ""
            loaded.warnings.append(
                LoadWarning(f"skipped: invalid TOML ({exc}); Gemini CLI skips it too{hint}", origin, line)
            )
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
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        loaded.warnings.append(
            LoadWarning(
                f'"description" must be a TOML string, got {type(description).__name__} {description!r} '
                "(Gemini CLI skips this file); quote it",
                origin,
            )
        )
    loaded.commands.append(
        Command(
            name=spelled,
            description=gemini_description(text_field(data, "description", origin, []), path),
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
