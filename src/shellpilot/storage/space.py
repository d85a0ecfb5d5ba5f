"""A full disk under the session store: recognising it, saying what to free, and a small
reserve file that is given up so the result of the command that filled the disk is still saved.

Owns: the ``shellpilot.db-reserve`` file beside the store and the full-disk error. Must not
touch: queries (store.py) or what is recorded (the session service decides that).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from pathlib import Path

from shellpilot.errors import StorageFull

RESERVE_BYTES = 256 * 1024
"""Size of the reserve file: room for the last records of a command (its part holds at most
~80 KB of text) with SQLite's page and write-ahead-log overhead."""
_SQLITE_FULL = 13


def reserve_path(store: Path) -> Path:
    """The reserve file of the store file ``store``: ``<store>-reserve``."""
    return store.with_name(store.name + "-reserve")


def ensure_reserve(store: Path) -> bool:
    """Create the reserve file when missing (best effort: a disk without that much room gets
    none). True when it exists afterwards."""
    path = reserve_path(store)
    if path.exists():
        return True
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return False
    try:
        try:
            os.posix_fallocate(fd, 0, RESERVE_BYTES)  # real blocks, not a sparse file
        except (AttributeError, OSError):
            os.write(fd, bytes(RESERVE_BYTES))
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        return False
    os.close(fd)
    return True


def release_reserve(store: Path) -> bool:
    """Delete the reserve file so its space can hold a record; True when there was one."""
    try:
        reserve_path(store).unlink()
    except OSError:
        return False
    return True


def is_full(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that failed because the disk has no room left."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer may still use on the disk holding ``folder`` (0 if unknown)."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return 0
    return info.f_bavail * info.f_frsize


def full_error(action: str, store: Path, size: int = 0) -> StorageFull:
    """The error for ``action`` failing on a full disk; ``size`` is the bytes being written
    (the estimate of what to free: twice that, for SQLite's log, plus the reserve)."""
    return StorageFull(
        action, path=str(store), free_bytes=free_bytes(store.parent), needed_bytes=2 * size + RESERVE_BYTES
    )


__all__ = [
    "RESERVE_BYTES",
    "ensure_reserve",
    "free_bytes",
    "full_error",
    "is_full",
    "release_reserve",
    "reserve_path",
]
