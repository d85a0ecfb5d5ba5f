"""The lease table: which process runs a session now, so another process refuses it.

Owns: the lease SQL, run inside a transaction the store opens. Must not touch: the store's
connection handling or any other table than ``lease`` (and ``session``, read to check it exists).
"""

from __future__ import annotations

import sqlite3

from shellpilot.errors import SessionBusy, SessionNotFound
from shellpilot.session.models import now_ms
from shellpilot.storage import owner as owners


def acquire(db: sqlite3.Connection, session_id: str, owner: str, kind: str) -> None:
    """Give ``owner`` the session's lease for ``kind`` (``shell``, ``loop``); a dead holder's
    lease is taken over. SessionBusy naming a live other holder's pid, what it runs and since
    when; SessionNotFound when the session does not exist."""
    taken = busy(db, session_id, but=owner)
    if taken is not None:
        raise taken
    if db.execute("SELECT 1 FROM session WHERE id=?", (session_id,)).fetchone() is None:
        raise SessionNotFound(session_id)
    db.execute(
        "INSERT OR REPLACE INTO lease(session_id, owner, kind, acquired_ms) VALUES (?,?,?,?)",
        (session_id, owner, kind, now_ms()),
    )


def busy(db: sqlite3.Connection, session_id: str, *, but: str | None = None) -> SessionBusy | None:
    """SessionBusy naming the pid, the work (``shell``, ``loop``) and the start of a live
    process (other than owner ``but``) that holds the session's lease; None when none does."""
    row = db.execute(
        "SELECT owner, kind, acquired_ms FROM lease WHERE session_id=?", (session_id,)
    ).fetchone()
    if row is None or row[0] == but or not owners.is_alive(row[0]):
        return None
    return SessionBusy(session_id, pid=owners.pid_of(row[0]), kind=row[1], since_ms=row[2])


def release(db: sqlite3.Connection, session_id: str, owner: str) -> None:
    """Drop ``owner``'s lease on the session (nothing when it holds none)."""
    db.execute("DELETE FROM lease WHERE session_id=? AND owner=?", (session_id, owner))


def holder(db: sqlite3.Connection, session_id: str) -> str | None:
    """The owner token of a live process holding the session's lease, else None."""
    row = db.execute("SELECT owner FROM lease WHERE session_id=?", (session_id,)).fetchone()
    return str(row[0]) if row is not None and owners.is_alive(row[0]) else None


__all__ = ["acquire", "busy", "holder", "release"]
