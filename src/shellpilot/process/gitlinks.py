"""The submodule checkouts (gitlinks) of a repository, read from its index without running git.

Owns: parsing a git index (versions 2-4) for gitlink entries, and the before/after check that
sets aside a submodule ``.git`` a sandboxed command planted. Must not touch: mounts or argv.
A ``git status`` run later by the user recurses into every gitlink's checkout and runs
whatever that checkout's config names (``core.fsmonitor``...), outside any sandbox.
"""

from __future__ import annotations

import os
import secrets
import struct
import time
from dataclasses import dataclass
from pathlib import Path

_GITLINK = 0o160000
_GITLINK_MODE = _GITLINK.to_bytes(4, "big")
_parsed: dict[tuple[str, int, int, int], list[str]] = {}
"""gitlink_paths of an index file, by (path, inode, size, mtime ns): parsed once per change."""
_ENTRY_FIXED = 62  # ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each but times 8), sha1, flags


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (index v4 path prefix lengths): ``(value, next position)``."""
    byte = data[pos]
    value = byte & 0x7F
    pos += 1
    while byte & 0x80:
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
        pos += 1
    return value, pos


def gitlink_paths(index: bytes) -> list[str]:
    """The paths of the gitlink entries (mode 160000) of a git index file's bytes (SHA-1
    repositories); [] for anything that is not a readable index."""
    if len(index) < 12 or index[:4] != b"DIRC" or _GITLINK_MODE not in index:
        return []  # no entry can have mode 160000: the usual case, found at C speed
    version, count = struct.unpack(">II", index[4:12])
    if version not in (2, 3, 4):
        return []
    pos, previous, found = 12, b"", []
    try:
        for _ in range(count):
            mode = struct.unpack(">I", index[pos + 24 : pos + 28])[0]
            flags = struct.unpack(">H", index[pos + 60 : pos + 62])[0]
            start = pos + _ENTRY_FIXED + (2 if version >= 3 and flags & 0x4000 else 0)
            if version == 4:
                strip, start = _varint(index, start)
                end = index.index(b"\0", start)
                path = previous[: len(previous) - strip] + index[start:end]
                pos = end + 1
            else:
                end = index.index(b"\0", start)
                path = index[start:end]
                pos = pos + ((end - pos) // 8 + 1) * 8  # entries are NUL-padded to 8 bytes
            previous = path
            if mode & 0o170000 == _GITLINK:
                found.append(path.decode("utf-8", "surrogateescape"))
    except (ValueError, IndexError, struct.error):
        return found
    return found


Identity = tuple[str, ...]


@dataclass(frozen=True)
class Checkouts:
    """The ``.git`` of each gitlink's checkout before a run: ``{path: identity}`` (None when
    it did not exist), where the identity covers the entry itself, a pointer's text and, for
    a directory, its ``config``, ``commondir`` and ``hooks``."""

    worktree: Path
    index: Path
    seen: dict[Path, Identity | None]


def _stat(path: Path) -> str:
    try:
        info = os.lstat(path)
    except OSError:
        return "-"
    return f"{info.st_ino}:{info.st_mode}:{info.st_size}:{info.st_mtime_ns}"


def _identity(dotgit: Path) -> Identity | None:
    if not os.path.lexists(dotgit):
        return None
    if os.path.isdir(dotgit) and not os.path.islink(dotgit):
        inner = [dotgit / name for name in ("config", "config.worktree", "commondir", "hooks")]
        hooks = sorted((dotgit / "hooks").glob("*")) if (dotgit / "hooks").is_dir() else []
        return tuple(_stat(p) for p in (dotgit, *inner, *hooks))
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        text = "?"
    return (_stat(dotgit), text)


def find_repository(project: Path) -> tuple[Path, Path] | None:
    """``(work tree, git dir)`` of the repository holding ``project`` (a ``.git`` dir, or
    the dir a ``.git`` file points to); None outside any repository."""
    folder = project
    while not os.path.lexists(folder / ".git"):
        if folder.parent == folder:
            return None
        folder = folder.parent
    dotgit = folder / ".git"
    if dotgit.is_dir():
        return folder, dotgit
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return folder, Path(os.path.realpath(folder / text[len("gitdir:") :].strip()))


def _read(index: Path) -> list[str]:
    try:
        info = os.stat(index)
        key = (str(index), info.st_ino, info.st_size, info.st_mtime_ns)
        if key not in _parsed:
            if len(_parsed) > 64:
                _parsed.clear()
            _parsed[key] = gitlink_paths(index.read_bytes())
        return _parsed[key]
    except OSError:
        return []


def snapshot(project: Path) -> Checkouts | None:
    """The gitlinks of the index of the repository holding ``project`` and their checkouts'
    ``.git``, taken before a command runs; None outside any repository."""
    found = find_repository(project)
    if found is None:
        return None
    worktree, gitdir = found
    index = gitdir / "index"
    seen = {worktree / p / ".git": _identity(worktree / p / ".git") for p in _read(index)}
    return Checkouts(worktree, index, seen)


def move_aside(path: Path, now: float | None = None) -> Path:
    """Rename ``path`` to ``<name>.sandbox-blocked-<unix time>-<random>`` beside it and
    return the new path. The random part keeps a sandboxed command from creating that
    name first (which would make the rename fail and leave its plant in place). Raises
    OSError when the rename fails."""
    stamp = int(time.time() if now is None else now)
    target = path.with_name(f"{path.name}.sandbox-blocked-{stamp}-{secrets.token_hex(4)}")
    os.rename(path, target)
    return target


def _checkout(worktree: Path, rel: str) -> Path | None:
    """The checkout folder of index path ``rel`` when it lies inside ``worktree`` through
    no link (the sandboxed command may have written the index: `../victim`, `/x` or a
    path through a planted symlink names a place outside, which must not be touched)."""
    parts = rel.split("/")
    if rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return None
    folder = worktree / rel
    root = os.path.realpath(worktree)
    if os.path.realpath(folder) != os.path.join(root, *parts):
        return None
    return folder


def set_aside_planted(before: Checkouts, *, now: float | None = None) -> list[str]:
    """After the run: every gitlink's checkout ``.git`` that is new or changed since
    ``before`` (a repository or pointer the command planted, which the user's next ``git
    status`` would enter) is moved aside (``move_aside``); one note per move. Index paths
    that lead out of the worktree are left alone (see ``_checkout``)."""
    notes: list[str] = []
    for rel in _read(before.index):
        folder = _checkout(before.worktree, rel)
        if folder is None:
            continue
        dotgit = folder / ".git"
        now_id = _identity(dotgit)
        if now_id is None or before.seen.get(dotgit, None) == now_id:
            continue
        try:
            target = move_aside(dotgit, now)
        except OSError as exc:
            notes.append(
                f"The sandbox could not set aside {dotgit}, a submodule's git dir the command made: {exc}."
            )
            continue
        notes.append(
            f"The command made {dotgit}, the git dir of a submodule checkout, whose config the next "
            f"git status would run outside the sandbox; shellpilot moved it to {target}. "
            "Only the user may add or replace a submodule's repository."
        )
    return notes
