"""Parsed command files kept between processes: one file per project in the data dir.

Owns: the cache file (read once, replaced atomically when it changed, checked by a CRC), its
keys (the parser and its arguments, the file's path and name, its size, mtime and ctime in ns),
reviving stored commands, and reading a directory's files through it (``read``, a
``FileReader``). Must not touch: any file format (the parser decides everything), precedence.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import marshal
import os
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileParser, Loaded

CACHE_VERSION = 4
"""Bumped when the file's layout changes; a file of another version is ignored."""

SETTLED_NS = 2_000_000_000
"""A parse is stored only when the file's mtime is this much (2 s, in ns) older than the read.
File times are coarse (a kernel tick; 1-2 s on some file systems), so a file written twice
within one tick can keep its size and times; once it has settled, any later write gets a
later mtime, so the stored stamp can never match a changed file."""

Raw = list[Any]
"""One file's parse as stored: ``[size, mtime_ns, ctime_ns, [command...], [[message, path, line]...]]``,
each command its fields without default values."""
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
    """Where the parse cache of ``project_dir`` lives: ``<data>/command-cache/<hash>.bin``."""
    digest = hashlib.sha256(str(project_dir).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return data_dir / "command-cache" / f"{digest}.bin"


FORMAT = {"version": CACHE_VERSION, "python": list(sys.version_info[:2]), "marshal": marshal.version}
"""What the header must carry besides the code stamp and CRC: the body is ``marshal`` data,
whose format belongs to one Python version (decoding it is 2-3x faster than JSON's, which
counts for the megabytes of ten thousand files)."""


_DEFAULTS: dict[str, Any] = {}
"""Each ``Command`` field that has a plain default -> that default."""
_LISTS: list[str] = []
"""The ``Command`` fields whose default is a new empty list."""
for _field in fields(Command):
    if _field.default is not MISSING:
        _DEFAULTS[_field.name] = _field.default
    elif _field.default_factory is list:
        _LISTS.append(_field.name)
_FIELDS = frozenset(f.name for f in fields(Command))


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: reading ten thousand entries allocates a few
    hundred thousand objects (none in a cycle), and the collector, woken every 700 of them
    to walk a growing heap, took a third of the time. Collection resumes on exit."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _store(command: Command) -> dict[str, Any] | None:
    """The command's fields that differ from their defaults, or None when it cannot be stored
    (a fetched template, declared arguments)."""
    if not isinstance(command.template, str) or command.arguments:
        return None
    stored: dict[str, Any] = {}
    for key, value in vars(command).items():
        if key in _DEFAULTS:
            if value != _DEFAULTS[key]:
                stored[key] = value
        elif key not in _LISTS or value:
            stored[key] = value
    return stored


def _revive(data: dict[str, Any]) -> Command:
    """The command ``_store`` wrote, built without running ``__init__`` (a third of its
    cost, which counts for ten thousand files). Only the field names are checked: the
    values are what this code stored (the file's CRC and code stamp vouch for that).
    Raises KeyError for a missing required field or a name that is not a field."""
    if not _FIELDS.issuperset(data) or "name" not in data or "template" not in data:
        raise KeyError("not the fields of a command")
    command = object.__new__(Command)
    state = vars(command)
    state.update(_DEFAULTS)
    state.update(data)
    for name in _LISTS:  # each command its own lists, never the cache's
        value = data.get(name)
        state[name] = list(value) if value else []
    return command


class ParseCache:
    """What per-file parsers returned, reused while a file is unchanged.

    ``read(parse, files, *args, **kwargs)`` reads every ``(name, path)`` of ``files`` like
    ``parse(name, Path(path), *args, **kwargs)`` would and joins the results; for each file
    it returns the stored result when the same parser was called with the same arguments
    for the same path and the file's size, mtime and ctime (ns) are what they were;
    otherwise it parses, and stores the result once the file has settled (``SETTLED_NS``).
    ``wrap(parse)`` is the same for one file at a time. Only what depends on the file
    alone is stored (commands with a text template and no plugin root, warnings); anything
    else is parsed every time. ``save()`` writes the entries used since the file was read
    (entries of files that are gone are dropped) to a temporary file and renames it over
    the old one: readers see one whole file or the other, and of two writers the last
    wins. The file is a JSON header line (``FORMAT``, a stamp of the command package's
    code, the body's CRC-32) and the ``marshal`` body: a missing, unreadable, damaged (CRC,
    shape), other-version, other-Python or other-code file reads as empty, so everything is
    parsed again; a file that cannot be written is left as it was. A cache of the JSON
    layout of earlier versions (``<hash>.json`` beside it) is removed on the first save.
    """

    def __init__(self, file: Path) -> None:
        self.file = Path(file)
        self._old: Entries | None = None
        self._new: Entries = {}
        self._changed = False
        self._code = _code_stamp()
        self._groups: dict[tuple[Any, ...], str] = {}
        self.hits = 0
        self.misses = 0

    @classmethod
    def for_project(cls, data_dir: Path, project_dir: Path) -> ParseCache:
        """The cache of ``project_dir`` in ``data_dir``."""
        return cls(cache_file(data_dir, project_dir))

    def _entries(self) -> Entries:
        if self._old is None:
            self._old = {}
            with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
                data = self.file.read_bytes()
                cut = data.find(b"\n")
                header = json.loads(data[:cut]) if cut >= 0 else None
                body = memoryview(data)[cut + 1 :]  # megabytes: read in place, not copied
                if (
                    isinstance(header, dict)
                    and all(header.get(key) == value for key, value in FORMAT.items())
                    and header.get("code") == self._code
                    and header.get("crc") == zlib.crc32(body)
                ):
                    with gc_paused():
                        entries = marshal.loads(body)
                    if isinstance(entries, dict):
                        self._old = {g: f for g, f in entries.items() if isinstance(f, dict)}
        return self._old

    def _group(self, parse: FileParser, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        """The entries' group of ``parse`` called with these arguments (built once per call shape)."""
        shape = (parse, args, *sorted(kwargs.items()))
        group = self._groups.get(shape)
        if group is None:
            parser = f"{parse.__module__}.{parse.__qualname__}"
            group = self._groups[shape] = f"{parser}\0{args!r}\0{sorted(kwargs.items())!r}"
        return group

    def read(
        self, parse: FileParser, files: Sequence[tuple[str, str]], /, *args: Any, **kwargs: Any
    ) -> Loaded:
        """Every file of ``files`` read by ``parse``, unchanged ones from the cache (see the class
        docstring); a ``FileReader``."""
        group = self._group(parse, args, kwargs)
        commands: list[Command] = []
        warnings: list[LoadWarning] = []
        with gc_paused():
            self._read_into(commands, warnings, group, parse, files, args, kwargs)
        return Loaded(commands, warnings)

    def _read_into(
        self,
        commands: list[Command],
        warnings: list[LoadWarning],
        group: str,
        parse: FileParser,
        files: Sequence[tuple[str, str]],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        old = self._entries().get(group, {})
        new = self._new.setdefault(group, {})
        settled = time.time_ns() - SETTLED_NS  # taken before any file is read
        stat, revive, hits = os.stat, _revive, 0
        for name, path in files:  # the hot loop of a warm listing: kept lean
            try:
                st = stat(path)
            except OSError:
                one = parse(name, Path(path), *args, **kwargs)
                commands += one.commands
                warnings += one.warnings
                continue
            key = f"{path}\0{name}"
            raw = new.get(key) or old.get(key)
            if raw is not None:
                try:
                    if raw[0] == st.st_size and raw[1] == st.st_mtime_ns and raw[2] == st.st_ctime_ns:
                        stored, notes = raw[3], raw[4]
                        # Everything built before anything is added: a damaged entry adds nothing.
                        found = [revive(stored[0])] if len(stored) == 1 else [revive(d) for d in stored]
                        if notes:
                            warnings += [LoadWarning(str(m), p, ln) for m, p, ln in notes]
                        commands += found
                        new[key] = raw
                        hits += 1
                        continue
                except (TypeError, ValueError, IndexError, KeyError, AttributeError):
                    pass  # a damaged entry: parse the file again
            self.misses += 1
            one = parse(name, Path(path), *args, **kwargs)
            commands += one.commands
            warnings += one.warnings
            # Stored: plain results of a settled file alone (see SETTLED_NS). A command naming
            # its plugin root also depends on the folders above the file (a ``.claude-plugin/``
            # added later), so it is parsed afresh each time.
            saved = [None if c.plugin_root else _store(c) for c in one.commands]
            if st.st_mtime_ns <= settled and all(data is not None for data in saved):
                notes = [[w.message, w.path, w.line] for w in one.warnings]
                new[key] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, saved, notes]
                self._changed = True
        self.hits += hits

    def wrap(self, parse: FileParser) -> FileParser:
        """``parse`` for one file at a time with its results kept in this cache: ``read`` of
        one file."""

        def cached(name: str, path: Path, *args: Any, **kwargs: Any) -> Loaded:
            return self.read(parse, [(name, str(path))], *args, **kwargs)

        return cached

    def save(self) -> None:
        """Write the entries used since the last read, when they differ from the file's."""
        old = self._entries()
        new = {group: files for group, files in self._new.items() if files}
        # Without a miss every entry used came from the file, so equal counts mean equal keys.
        if not self._changed and {g: len(f) for g, f in new.items()} == {g: len(f) for g, f in old.items()}:
            return
        import tempfile  # only when something changed

        with contextlib.suppress(OSError, ValueError):
            body = marshal.dumps(new)
            header = json.dumps({**FORMAT, "code": self._code, "crc": zlib.crc32(body)})
            self.file.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".bin", dir=self.file.parent)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(header.encode() + b"\n" + body)
                os.replace(temp, self.file)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.file.with_suffix(".json"))  # the layout of version 3 and before
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        self._old, self._changed = {g: dict(f) for g, f in new.items()}, False
