"""Parsed command files kept between processes: one file per project in the data dir.

Owns: the cache file (read once, replaced atomically when it changed, checked by a CRC), its
keys (the parser and its arguments, the file's path and name, and its size, mtime and ctime in
ns) and wrapping a per-file parser with it. Must not touch: any file format (the wrapped parser
decides everything), precedence (registry.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileParser, Loaded

CACHE_VERSION = 2
"""Bumped when the file's layout changes; a file of another version is ignored."""

Raw = list[Any]
"""One file's parse as stored: ``[size, mtime_ns, ctime_ns, [command...], [[message, path, line]...]]``,
each command its JSON dump without default values."""
Entries = dict[str, dict[str, Raw]]
"""Parses by parser and arguments (``module.function\\0args\\0kwargs``), then by file (``path\\0name``)."""


def _code_stamp() -> list[list[Any]]:
    """Size and mtime of every module of the command package: a parser that changed (an
    upgrade, an edited checkout) invalidates every entry parsed by the old code."""
    root = Path(__file__).parent
    stamp: list[list[Any]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                stamp.append([os.path.relpath(os.path.join(folder, name), root), st.st_size, st.st_mtime_ns])
    return stamp


def cache_file(data_dir: Path, project_dir: Path) -> Path:
    """Where the parse cache of ``project_dir`` lives: ``<data>/command-cache/<hash>.json``."""
    digest = hashlib.sha256(str(project_dir).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return data_dir / "command-cache" / f"{digest}.json"


def _store(command: Command) -> dict[str, Any]:
    return command.model_dump(mode="json", exclude_defaults=True)


def _loaded(raw: Raw) -> Loaded:
    commands = [Command.model_validate(data) for data in raw[3]]
    return Loaded(commands, [LoadWarning(str(m), p, ln) for m, p, ln in raw[4]])


class ParseCache:
    """What per-file parsers returned, reused while a file is unchanged.

    ``wrap(parse)`` is ``parse(name, path, *args, **kwargs) -> Loaded`` that returns the
    stored result when the same parser was called with the same arguments for the same path
    and the file's size, mtime and ctime (ns) are what they were; otherwise it parses and
    stores. Only what depends on the file alone is stored (commands with a text template
    and no plugin root, warnings); anything else is parsed every time. ``save()`` writes the entries used
    since the file was read (entries of files that are gone are dropped) to a temporary
    file and renames it over the old one: readers see one whole file or the other, and of
    two writers the last wins. The file is a JSON header line (version, a stamp of the
    command package's code, the body's CRC-32) and the JSON body: a missing, unreadable,
    damaged (CRC), other-version or other-code file reads as empty, so everything is parsed
    again; a file that cannot be written is left as it was.
    """

    def __init__(self, file: Path) -> None:
        self.file = Path(file)
        self._old: Entries | None = None
        self._new: Entries = {}
        self._changed = False
        self._code = _code_stamp()
        self.hits = 0
        self.misses = 0

    @classmethod
    def for_project(cls, data_dir: Path, project_dir: Path) -> ParseCache:
        """The cache of ``project_dir`` in ``data_dir``."""
        return cls(cache_file(data_dir, project_dir))

    def _entries(self) -> Entries:
        if self._old is None:
            self._old = {}
            with contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
                head, _, body = self.file.read_bytes().partition(b"\n")
                header = json.loads(head)
                if (
                    header.get("version") == CACHE_VERSION
                    and header.get("code") == self._code
                    and header.get("crc") == zlib.crc32(body)
                ):
                    entries = json.loads(body)
                    if isinstance(entries, dict):
                        self._old = entries
        return self._old

    def _hit(self, group: str, key: str, stamp: list[int]) -> Loaded | None:
        new = self._new.setdefault(group, {})
        raw = new.get(key) or self._entries().get(group, {}).get(key)
        try:
            if raw is None or raw[:3] != stamp:
                return None
            loaded = _loaded(raw)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            return None  # a damaged entry: parse the file again
        new[key] = raw
        return loaded

    def wrap(self, parse: FileParser) -> FileParser:
        """``parse`` with its results kept in this cache (see the class docstring)."""
        parser = f"{parse.__module__}.{parse.__qualname__}"

        def cached(name: str, path: Path, *args: Any, **kwargs: Any) -> Loaded:
            try:
                st = os.stat(path)
            except OSError:
                return parse(name, path, *args, **kwargs)
            group = f"{parser}\0{args!r}\0{sorted(kwargs.items())!r}"
            key = f"{path}\0{name}"
            stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
            found = self._hit(group, key, stamp)
            if found is not None:
                self.hits += 1
                return found
            self.misses += 1
            loaded = parse(name, path, *args, **kwargs)
            self._changed = True
            # Stored: plain results of the file alone. A command naming its plugin root also
            # depends on the folders above the file (a ``.claude-plugin/`` added later), so
            # it is parsed afresh each time.
            if all(isinstance(c.template, str) and not c.plugin_root for c in loaded.commands):
                warnings = [[w.message, w.path, w.line] for w in loaded.warnings]
                self._new[group][key] = [*stamp, [_store(c) for c in loaded.commands], warnings]
            return loaded

        return cached

    def save(self) -> None:
        """Write the entries used since the last read, when they differ from the file's."""
        old = self._entries()
        new = {group: files for group, files in self._new.items() if files}
        if not self._changed and {g: set(f) for g, f in new.items()} == {g: set(f) for g, f in old.items()}:
            return
        with contextlib.suppress(OSError, UnicodeEncodeError):
            body = json.dumps(new, ensure_ascii=False, separators=(",", ":")).encode()
            header = json.dumps({"version": CACHE_VERSION, "code": self._code, "crc": zlib.crc32(body)})
            self.file.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.file.parent)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(header.encode() + b"\n" + body)
                os.replace(temp, self.file)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        self._old, self._changed = {g: dict(f) for g, f in new.items()}, False


Wrap = Callable[[FileParser], FileParser]
"""How the registry wraps each per-file parser: ``ParseCache.wrap``, or no cache at all."""
