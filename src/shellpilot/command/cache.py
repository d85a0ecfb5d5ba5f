"""Parsed command files kept between processes: one JSON file per project in the data dir.

Owns: the cache file (read once, replaced atomically when it changed), its keys (the parser and
its arguments, the file's path, and its size, mtime and ctime in ns) and wrapping a per-file
parser with it. Must not touch: any file format (the wrapped parser decides everything),
precedence (registry.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileParser, Loaded

CACHE_VERSION = 1
"""Bumped when the file's layout changes; a file of another version is ignored."""


def _code_stamp() -> list[tuple[str, int, int]]:
    """Size and mtime of every module of the command package: a parser that changed (an
    upgrade, an edited checkout) invalidates every entry parsed by the old code."""
    root = Path(__file__).parent
    stamp: list[tuple[str, int, int]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                stamp.append((os.path.relpath(os.path.join(folder, name), root), st.st_size, st.st_mtime_ns))
    return stamp


class _Entry(BaseModel):
    """One file's parse: its stamp (size, mtime ns, ctime ns) and what the parser returned."""

    stamp: tuple[int, int, int]
    commands: list[Command]
    warnings: list[tuple[str, str | None, int | None]]


class _CacheDoc(BaseModel):
    """The cache file: read and written whole, validated in one pass."""

    version: int
    code: list[tuple[str, int, int]]
    entries: dict[str, _Entry]


def cache_file(data_dir: Path, project_dir: Path) -> Path:
    """Where the parse cache of ``project_dir`` lives: ``<data>/command-cache/<hash>.json``."""
    digest = hashlib.sha256(str(project_dir).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return data_dir / "command-cache" / f"{digest}.json"


class ParseCache:
    """What per-file parsers returned, reused while a file is unchanged.

    ``wrap(parse)`` is ``parse(name, path, *args, **kwargs) -> Loaded`` that returns the
    stored result when the same parser was called with the same arguments for the same path
    and the file's size, mtime and ctime (ns) are what they were; otherwise it parses and
    stores. Only plain data is stored (commands with a text template, warnings), so a
    result holding anything else is simply not cached. ``save()`` writes the entries used
    since the file was read (entries of files that are gone are dropped) to a temporary
    file and renames it over the old one: readers see one whole file or the other, and of
    two writers the last wins. A missing, unreadable, corrupt or other-version file reads
    as empty (everything is parsed again); a file that cannot be written is left as it was.
    The whole file is validated in one pass when first needed, and every module of the
    command package is part of its stamp, so code that parses differently never reuses it.
    """

    def __init__(self, file: Path) -> None:
        self.file = Path(file)
        self._old: dict[str, _Entry] | None = None
        self._new: dict[str, _Entry] = {}
        self._changed = False
        self._code = _code_stamp()
        self.hits = 0
        self.misses = 0

    @classmethod
    def for_project(cls, data_dir: Path, project_dir: Path) -> ParseCache:
        """The cache of ``project_dir`` in ``data_dir``."""
        return cls(cache_file(data_dir, project_dir))

    def _entries(self) -> dict[str, _Entry]:
        if self._old is None:
            self._old = {}
            with contextlib.suppress(OSError, ValidationError, ValueError):
                doc = _CacheDoc.model_validate_json(self.file.read_bytes())
                if doc.version == CACHE_VERSION and doc.code == self._code:
                    self._old = doc.entries
        return self._old

    def wrap(self, parse: FileParser) -> FileParser:
        """``parse`` with its results kept in this cache (see the class docstring)."""
        parser = f"{parse.__module__}.{parse.__qualname__}"

        def cached(name: str, path: Path, *args: Any, **kwargs: Any) -> Loaded:
            try:
                st = os.stat(path)
            except OSError:
                return parse(name, path, *args, **kwargs)
            key = f"{parser}\0{path}\0{name}\0{args!r}\0{sorted(kwargs.items())!r}"
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            entry = self._new.get(key) or self._entries().get(key)
            if entry is not None and entry.stamp == stamp:
                self.hits += 1
                self._new[key] = entry
                return Loaded(list(entry.commands), [LoadWarning(*w) for w in entry.warnings])
            self.misses += 1
            loaded = parse(name, path, *args, **kwargs)
            self._changed = True
            if all(isinstance(c.template, str) for c in loaded.commands):
                warnings = [(w.message, w.path, w.line) for w in loaded.warnings]
                self._new[key] = _Entry(stamp=stamp, commands=loaded.commands, warnings=warnings)
            return loaded

        return cached

    def save(self) -> None:
        """Write the entries used since the last read, when they differ from the file's."""
        if not self._changed and len(self._new) == len(self._entries()):
            return
        doc = _CacheDoc(version=CACHE_VERSION, code=self._code, entries=self._new)
        with contextlib.suppress(OSError):
            self.file.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.file.parent)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(doc.model_dump_json(exclude_defaults=True).encode())
                os.replace(temp, self.file)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        self._old, self._changed = dict(self._new), False


Wrap = Callable[[FileParser], FileParser]
"""How the registry wraps each per-file parser: ``ParseCache.wrap``, or no cache at all."""
