"""Opening the session store in a data dir that cannot be written (a read-only mount, another
user's folder): whether it can be written, and a reading-only SQLite connection.

Owns: that check and that connection. Must not touch: queries (store.py) or the CLI.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from shellpilot.errors import StorageError
from shellpilot.storage.schema import SCHEMA, SCHEMA_VERSION

READ_ONLY_HINT = (
    "the data directory is read-only; choose a writable one with --data-dir DIR "
    "or the SHELLPILOT_DATA_DIR environment variable"
)
"""What to do when the store must be written but its directory cannot be."""


def writable(path: Path) -> bool:
    """Whether this process can write the store file ``path`` and the journal files beside it:
    the file (when it exists) and its folder, or else the nearest folder that exists."""
    if path.exists() and not os.access(path, os.W_OK):
        return False
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return os.access(folder, os.W_OK | os.X_OK)


def _uri(path: Path, flag: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{flag}"


def connect(path: Path) -> sqlite3.Connection:
    """A connection that only reads the store at ``path``.

    ``mode=ro`` first; a WAL store whose folder cannot hold the shared-memory file cannot
    be opened that way, so then ``immutable=1`` (nothing can write a folder this process
    cannot write through this mount; a writer elsewhere at the same moment may make a read
    fail with StorageError, never change the file). A missing file reads as an empty store.
    Raises StorageError naming the file when it cannot be read or has a newer schema.
    """
    if not path.exists():
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.executescript(SCHEMA)
        return db
    last: sqlite3.Error | None = None
    for flag in ("mode=ro", "immutable=1"):
        try:
            db = sqlite3.connect(_uri(path, flag), uri=True, isolation_level=None, check_same_thread=False)
            version = db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as exc:
            last = exc
            continue
        if version > SCHEMA_VERSION:
            db.close()
            raise StorageError(
                f"the session store has schema version {version}, newer than this shellpilot "
                f"understands ({SCHEMA_VERSION}); upgrade shellpilot",
                path=str(path),
            )
        return db
    raise StorageError(f"cannot read the session store: {last}", path=str(path))


__all__ = ["READ_ONLY_HINT", "connect", "writable"]
