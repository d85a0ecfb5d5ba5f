"""Shared pieces of the command sources: the result type, file walking, field coercion.

Owns: ``Loaded``, ``read_each``, ``walk_files`` (symlinks out of the folder skipped), ``read_text``
(binary files skipped) and the typed readers of frontmatter values.
Must not touch: any one format's rules (markdown.py, gemini.py, codex.py, claude.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import Command


@dataclass
class Loaded:
    """Commands read from one source, in a stable order, plus what went wrong."""

    commands: list[Command] = field(default_factory=list)
    warnings: list[LoadWarning] = field(default_factory=list)

    def extend(self, other: Loaded) -> None:
        """Append ``other``'s commands and warnings."""
        self.commands.extend(other.commands)
        self.warnings.extend(other.warnings)


FileParser = Callable[..., Loaded]
"""``parse(name, path, *format_arguments) -> Loaded``: one command file read into commands and
warnings (``path`` a ``Path``)."""


class FileReader(Protocol):
    """``read(parse, files, *format_arguments) -> Loaded``: every ``(name, path)`` of ``files``
    read by ``parse``, results joined in order. Each directory loader takes one (``read=``), so
    a cache can answer for files it has seen (command/cache.py); ``read_each`` parses them all."""

    def __call__(
        self, parse: FileParser, files: Sequence[tuple[str, str]], /, *args: Any, **kwargs: Any
    ) -> Loaded: ...


def read_each(parse: FileParser, files: Sequence[tuple[str, str]], /, *args: Any, **kwargs: Any) -> Loaded:
    """Every file parsed, no cache (the plain ``FileReader``)."""
    loaded = Loaded()
    for name, path in files:
        loaded.extend(parse(name, Path(path), *args, **kwargs))
    return loaded


def escapes(path: Path, root: Path) -> LoadWarning | None:
    """A warning when ``path`` resolves (through a symlink) outside ``root``, else None.

    A command file, skill or prompt is read only from inside its own folder: a link to
    ``~/.ssh/id_rsa`` or ``/etc/passwd`` in a cloned project must never reach a model.
    A link that stays inside the folder (or a folder that is itself a link) is fine.
    """
    try:
        target = path.resolve()
        inside = target.is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return LoadWarning("skipped: cannot resolve the symlink", str(path))
    if inside:
        return None
    return LoadWarning(f"skipped: a symlink to {target}, outside {root}", str(path))


def walk_files(
    root: Path, suffix: str, warnings: list[LoadWarning] | None = None, *, nested: bool = True
) -> list[tuple[str, str]]:
    """``(name, path)`` for every file under ``root`` ending in ``suffix``, sorted by name.

    ``name`` is the relative path without the suffix, ``/``-separated (``git/commit``);
    ``path`` is the file's path as text (no ``Path`` per file: a listing of thousands of
    unchanged files never needs one). A missing or unreadable ``root`` or sub-folder yields
    nothing; ``nested=False`` reads only its top level. A file that resolves outside
    ``root`` through a symlink is skipped with a warning appended to ``warnings`` (see
    ``escapes``); a symlinked sub-folder is followed when it resolves inside ``root`` and is
    not a loop (folder links inside it are not followed again), and skipped with a warning when
    it resolves outside. Only symlinks cost a ``stat``:
    the kind of every other entry comes with the directory listing.
    """
    found: list[tuple[str, str]] = []
    cut = len(suffix)

    def visit(folder: str, prefix: str, linked: bool = False) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            return
        for entry in entries:
            file = entry.name
            try:
                is_dir = entry.is_dir()  # follows a symlink, as os.walk does
            except OSError:
                is_dir = False
            if is_dir:
                if not nested:
                    continue
                if not entry.is_symlink():
                    visit(entry.path, prefix + file + "/", linked)
                elif not linked and _linked_folder(entry.path, root, warnings):
                    visit(entry.path, prefix + file + "/", True)
                continue
            if not file.endswith(suffix) or len(file) <= cut:
                continue
            if entry.is_symlink():
                problem = escapes(Path(entry.path), root)
                if problem is not None:
                    if warnings is not None:
                        warnings.append(problem)
                    continue
            found.append((prefix + file[:-cut], entry.path))

    visit(str(root), "")
    found.sort(key=itemgetter(0))
    return found


def _linked_folder(path: str, root: Path, warnings: list[LoadWarning] | None) -> bool:
    """Should ``walk_files`` enter the symlinked folder ``path``? Yes when it resolves inside
    ``root`` and not to a folder holding the link (a loop); Gemini CLI and OpenCode follow
    folder links too. A link to a folder outside is skipped with a warning, as a file link is."""
    problem = escapes(Path(path), root)
    if problem is not None:
        if warnings is not None:
            message = problem.message.replace("skipped: a symlink", "skipped: a folder symlink")
            warnings.append(LoadWarning(message, path))
        return False
    return not Path(os.path.realpath(os.path.dirname(path))).is_relative_to(os.path.realpath(path))


def read_text(path: Path) -> str | LoadWarning:
    """The file's UTF-8 text, or a warning saying why it could not be read (not UTF-8,
    unreadable, or binary: a NUL byte never goes into a prompt)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        before = exc.object[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        return LoadWarning(
            f"skipped: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at column {column}); "
            "save it as UTF-8",
            str(path),
            line,
        )
    except OSError as exc:
        return LoadWarning(f"skipped: cannot read ({exc.strerror})", str(path))
    nul = text.find("\0")
    if nul >= 0:
        return LoadWarning(f"skipped: a binary file (NUL byte at offset {nul})", str(path))
    return text


def text_field(data: dict[str, Any], key: str, path: str, warnings: list[LoadWarning]) -> str | None:
    """A string value; numbers and booleans are written as text; lists and maps are ignored."""
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value.strip() if isinstance(value, str) and value.strip() else None
    if isinstance(value, int | float | bool):
        return str(value)
    warnings.append(LoadWarning(f'"{key}" must be text; ignored', path))
    return None


def bool_field(data: dict[str, Any], key: str, path: str, warnings: list[LoadWarning]) -> bool | None:
    """A boolean value; ``"true"``/``"false"`` strings are accepted; anything else is ignored."""
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    warnings.append(LoadWarning(f'"{key}" must be true or false, got {value!r}; ignored', path))
    return None


def list_field(data: dict[str, Any], key: str) -> list[str]:
    """A list of strings; a comma-separated string is split (Claude's ``allowed-tools``)."""
    value = data.get(key)
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [str(item) for item in value]
    return []
