"""The SQLite session store: sessions, messages, parts and session leases in one WAL file.

Owns: SQL, the records crash recovery reads and writes, coalescing of live part updates,
sqlite3/OS errors as ``StorageError``. Must not touch: the bus, terminals, processes.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from shellpilot.errors import SessionBusy, SessionNotFound, StorageError
from shellpilot.session.models import (
    Message,
    MessageWithParts,
    Part,
    Session,
    SessionSummary,
    ToolPart,
    now_ms,
)
from shellpilot.storage import lease as lease_table
from shellpilot.storage import owner as owners
from shellpilot.storage import readonly, space
from shellpilot.storage.export import export_json
from shellpilot.storage.orphans import INTERRUPTED, Orphans
from shellpilot.storage.orphans import close as close_orphans
from shellpilot.storage.reads import MESSAGES, PARTS, Reads, sessions_where
from shellpilot.storage.schema import SCHEMA, SCHEMA_VERSION


def _part_status(part: Part) -> str | None:
    return part.state.status if isinstance(part, ToolPart) else None


class SessionStore(Reads):
    """Sessions, messages and parts in one SQLite file (WAL, foreign keys, busy timeout 10 s).

    - Every write is one transaction; ``writes`` counts committed write transactions.
    - ``update_part_live`` coalesces live updates of a running tool part: at most one write
      per ``live_interval_ms`` (default 250 ms) per part, the latest value wins, a pending
      value is flushed by a timer on the running event loop, and ``put_part`` (the final
      state) always writes.
    - Opening never changes or signals anything beyond the schema (and the reserve file of
      ``storage.space``). Crash recovery is a session-layer step run once at start-up
      (``session.recovery.recover``): it reads ``orphans()`` (work of dead processes), stops
      their commands, then ``mark_interrupted``.
    - sqlite3 and OS errors raise ``StorageError`` naming the file (``StorageFull`` on a full
      disk, see ``storage.space``). Thread-safe (one lock).
    - ``read_only=True`` (``storage.readonly``): reads only; no migration, and every write
      raises ``StorageError`` saying how to choose another data dir.
    - Bounded reads (a session's messages streamed, the last message, one message's parts,
      session counts) come from ``storage.reads.Reads``.
    """

    def __init__(self, path: Path, *, live_interval_ms: int = 250, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.writes = 0
        self.live_interval_ms = live_interval_ms
        self._owner = owners.token()
        self._lock = threading.RLock()
        self._live_last: dict[str, float] = {}
        self._live_pending: dict[str, ToolPart] = {}
        self._live_timers: dict[str, asyncio.TimerHandle] = {}
        self._db: sqlite3.Connection | None = readonly.connect(self.path) if read_only else None
        if read_only:
            return
        with self._guard("open the session store"):
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                if space.is_full(exc):
                    raise
                raise StorageError(
                    f"cannot create the data directory {self.path.parent}: {exc.strerror or exc}; "
                    "choose one that can be created or written with --data-dir DIR or SHELLPILOT_DATA_DIR",
                    path=str(self.path),
                ) from exc
            db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=10)
            self._db = db
            db.execute("PRAGMA busy_timeout = 10000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            self._migrate(db)
        space.ensure_reserve(self.path)

    # -- plumbing ---------------------------------------------------------------------

    @contextmanager
    def _guard(self, action: str, size: int = 0) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            if space.is_full(exc):
                raise space.full_error(action, self.path, size) from exc
            raise StorageError(f"cannot {action}: {exc}", path=str(self.path)) from exc

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise StorageError("the session store is closed", path=str(self.path))
        return self._db

    @contextmanager
    def _tx(self, action: str, size: int = 0) -> Iterator[sqlite3.Connection]:
        if self.read_only:
            raise StorageError(f"cannot {action}: {readonly.READ_ONLY_HINT}", path=str(self.path))
        with self._guard(action, size), self._lock:
            db = self._conn
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            self.writes += 1

    def _read(self, action: str, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._guard(action), self._lock:
            cur = self._conn.execute(sql, args)
            return list(cur.fetchall())

    def _migrate(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"the session store has schema version {version}, newer than this shellpilot "
                f"understands ({SCHEMA_VERSION}); upgrade shellpilot or use another --data-dir",
                path=str(self.path),
            )
        if version < SCHEMA_VERSION:
            try:
                db.executescript(
                    "BEGIN IMMEDIATE;" + SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                )
            except BaseException:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Write pending live updates, then close the file (idempotent)."""
        if self._db is None:
            return
        with suppress(StorageError):  # live values only; a full disk must not stop the close
            self.flush_live()
        with self._guard("close the session store"), self._lock:
            self._db.close()
            self._db = None

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sessions ---------------------------------------------------------------------

    def put_session(self, session: Session) -> None:
        """Insert or replace ``session`` (title, updated time and body)."""
        with self._tx("save a session") as db:
            db.execute(
                "INSERT INTO session(id, project_dir, parent_id, title, created_ms, updated_ms, body) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET title=excluded.title, "
                "updated_ms=excluded.updated_ms, body=excluded.body",
                (
                    session.id,
                    session.project_dir,
                    session.parent_id,
                    session.title,
                    session.created_ms,
                    session.updated_ms,
                    session.model_dump_json(),
                ),
            )

    @staticmethod
    def _session(row: sqlite3.Row | tuple[Any, ...]) -> Session:
        session = Session.model_validate_json(row[0])
        return session.model_copy(update={"updated_ms": row[1]})

    def get_session(self, session_id: str) -> Session:
        """The session with this id; raises ``SessionNotFound``."""
        rows = self._read("read a session", "SELECT body, updated_ms FROM session WHERE id=?", (session_id,))
        if not rows:
            raise SessionNotFound(session_id)
        return self._session(rows[0])

    def list_sessions(
        self, project_dir: str | None = None, *, top_level: bool = False, limit: int | None = None
    ) -> list[SessionSummary]:
        """Sessions (of one project dir, or all), most recently updated first, with message
        counts and the number of direct child sessions; ``top_level`` leaves out child
        (subtask) sessions; ``limit`` keeps the first that many (None: all). Only the sessions
        returned are read and counted, so a page costs the same however many sessions exist."""
        where, args = sessions_where(project_dir, top_level)
        page = f"SELECT id FROM session {where} ORDER BY updated_ms DESC, id DESC"
        if limit is not None:
            page, args = page + " LIMIT ?", (*args, max(limit, 0))
        sql = (
            "SELECT s.body, s.updated_ms, (SELECT count(*) FROM message m WHERE m.session_id=s.id), "
            "(SELECT count(*) FROM session c WHERE c.parent_id=s.id) "
            f"FROM ({page}) AS p JOIN session s ON s.id=p.id ORDER BY s.updated_ms DESC, s.id DESC"
        )
        rows = self._read("list sessions", sql, args)
        return [
            SessionSummary(session=self._session(row), message_count=row[2], child_count=row[3])
            for row in rows
        ]

    def children(self, session_id: str) -> list[Session]:
        """Direct child sessions of ``session_id``, oldest first."""
        rows = self._read(
            "list child sessions",
            "SELECT body, updated_ms FROM session WHERE parent_id=? ORDER BY id",
            (session_id,),
        )
        return [self._session(row) for row in rows]

    def latest_session(self, project_dir: str) -> Session | None:
        """The most recently updated top-level session of ``project_dir`` (for ``--continue``)."""
        rows = self._read(
            "find the latest session",
            "SELECT body, updated_ms FROM session WHERE project_dir=? AND parent_id IS NULL "
            "ORDER BY updated_ms DESC, id DESC LIMIT 1",
            (project_dir,),
        )
        return self._session(rows[0]) if rows else None

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its messages, parts and child sessions; ``SessionNotFound`` if absent."""
        with self._tx("delete a session") as db:
            ids = [
                row[0]
                for row in db.execute(
                    "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE id=? "
                    "UNION ALL SELECT s.id FROM session s JOIN tree t ON s.parent_id=t.id) "
                    "SELECT id FROM tree",
                    (session_id,),
                )
            ]
            if not ids:
                raise SessionNotFound(session_id)
            marks = ",".join("?" * len(ids))
            db.execute(f"DELETE FROM part WHERE session_id IN ({marks})", ids)
            db.execute("DELETE FROM session WHERE id=?", (session_id,))

    # -- messages ---------------------------------------------------------------------

    def put_message(self, message: Message) -> None:
        """Insert or replace ``message``; bumps its session's updated time. ``SessionNotFound`` if absent."""
        with self._tx("save a message", len(body := message.model_dump_json())) as db:
            cur = db.execute(
                # Strictly after every other session of its project, so --continue (the latest
                # of the project) picks the right one even within one millisecond. One seek in
                # session_by_project: the max over every session was a scan per message.
                "UPDATE session SET updated_ms=max(?, (SELECT coalesce(max(o.updated_ms), 0) + 1 "
                "FROM session o WHERE o.project_dir=session.project_dir)) WHERE id=?",
                (now_ms(), message.session_id),
            )
            if cur.rowcount == 0:
                raise SessionNotFound(message.session_id)
            db.execute(
                "INSERT INTO message(id, session_id, role, body) VALUES (?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET body=excluded.body",
                (message.id, message.session_id, message.role, body),
            )

    def get_message(self, message_id: str) -> Message:
        """The message with this id; raises ``StorageError`` when absent."""
        rows = self._read("read a message", "SELECT body FROM message WHERE id=?", (message_id,))
        if not rows:
            raise StorageError(f"no message {message_id}", path=str(self.path))
        return MESSAGES.validate_json(rows[0][0])

    def messages(self, session_id: str) -> list[MessageWithParts]:
        """The session's messages with their parts, both in creation order (history replay)."""
        msgs = self._read(
            "read messages", "SELECT body FROM message WHERE session_id=? ORDER BY id", (session_id,)
        )
        parts = self._read(
            "read parts", "SELECT body FROM part WHERE session_id=? ORDER BY id", (session_id,)
        )
        out = [MessageWithParts(info=MESSAGES.validate_json(row[0])) for row in msgs]
        by_id = {item.info.id: item for item in out}
        for row in parts:
            part = PARTS.validate_json(row[0])
            holder = by_id.get(part.message_id)
            if holder is not None:
                holder.parts.append(part)
        return out

    # -- parts ------------------------------------------------------------------------

    def _write_part(self, part: Part) -> None:
        status = _part_status(part)
        owner = self._owner if status in ("pending", "running") else None
        with self._tx("save a part", len(body := part.model_dump_json())) as db:
            db.execute(
                "INSERT INTO part(id, message_id, session_id, type, status, owner, body) "
                "VALUES (?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET status=excluded.status, "
                "owner=excluded.owner, body=excluded.body",
                (part.id, part.message_id, part.session_id, part.type, status, owner, body),
            )
        if status in ("pending", "running"):
            self._live_last[part.id] = time.monotonic()

    def put_part(self, part: Part) -> None:
        """Insert or replace ``part`` now; supersedes any pending live update of it."""
        with self._lock:
            self._live_pending.pop(part.id, None)
            timer = self._live_timers.pop(part.id, None)
            if timer is not None:
                timer.cancel()
            if _part_status(part) not in ("pending", "running"):
                self._live_last.pop(part.id, None)
            self._write_part(part)

    def update_part_live(self, part: ToolPart) -> bool:
        """Record a live update of a running tool part, coalesced; True when written now.

        Writes at once if the part was last written ``live_interval_ms`` ago or more;
        otherwise keeps the value and (when an event loop runs) arms one timer that writes
        the latest value when the interval is up.
        """
        with self._lock:
            interval = self.live_interval_ms / 1000
            elapsed = time.monotonic() - self._live_last.get(part.id, 0.0)
            if elapsed >= interval:
                self._live_pending.pop(part.id, None)
                timer = self._live_timers.pop(part.id, None)
                if timer is not None:
                    timer.cancel()
                self._write_part(part)
                return True
            self._live_pending[part.id] = part
            if part.id not in self._live_timers:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:
                    return False
                self._live_timers[part.id] = loop.call_later(interval - elapsed, self._flush_one, part.id)
            return False

    def _flush_one(self, part_id: str) -> None:
        with self._lock:
            self._live_timers.pop(part_id, None)
            part = self._live_pending.pop(part_id, None)
            if part is not None and self._db is not None:
                with suppress(StorageError):  # a live value only: the final write supersedes it
                    self._write_part(part)

    def flush_live(self) -> int:
        """Write every pending live update now; returns how many were written."""
        with self._lock:
            for timer in self._live_timers.values():
                timer.cancel()
            self._live_timers.clear()
            pending = list(self._live_pending.values())
            self._live_pending.clear()
            for part in pending:
                self._write_part(part)
            return len(pending)

    def get_part(self, part_id: str) -> Part:
        """The part with this id (as last written); raises ``StorageError`` when absent."""
        rows = self._read("read a part", "SELECT body FROM part WHERE id=?", (part_id,))
        if not rows:
            raise StorageError(f"no part {part_id}", path=str(self.path))
        return PARTS.validate_json(rows[0][0])

    # -- leases (cross-process busy state) ---------------------------------------------

    def acquire_lease(self, session_id: str, kind: str) -> None:
        """Mark the session busy for this process (``storage.lease.acquire``: ``SessionBusy``
        names a live other holder, ``SessionNotFound``); ``kind``: ``shell`` or ``loop``."""
        with self._tx("take the session lease") as db:
            lease_table.acquire(db, session_id, self._owner, kind)

    def release_lease(self, session_id: str) -> None:
        """Drop this process's lease on the session (no-op if it holds none)."""
        with self._tx("release the session lease") as db:
            lease_table.release(db, session_id, self._owner)

    def lease_busy(self, session_id: str) -> SessionBusy | None:
        """SessionBusy naming the other live process that holds the session's lease (its
        pid, what it runs, since when), else None."""
        with self._guard("read the session lease"), self._lock:
            return lease_table.busy(self._conn, session_id, but=self._owner)

    def lease_holder(self, session_id: str) -> str | None:
        """The owner token of a live process holding the session's lease, else None."""
        with self._guard("read the session lease"), self._lock:
            return lease_table.holder(self._conn, session_id)

    # -- crash recovery -----------------------------------------------------------------

    def orphans(self) -> Orphans:
        """What processes that died left behind (read only; nothing is changed or signalled):
        pending/running tool parts whose owner is dead, and sessions whose lease a dead
        process holds. ``session.recovery.recover`` stops their commands, then calls
        ``mark_interrupted``."""
        rows = self._read(
            "find interrupted parts",
            "SELECT id, owner, body FROM part WHERE status IN ('pending', 'running')",
        )
        parts = [
            (str(owner), part)
            for _, owner, body in rows
            if owner != self._owner and not owners.is_alive(owner)
            for part in (PARTS.validate_json(body),)
            if isinstance(part, ToolPart)
        ]
        leases = self._read("read leases", "SELECT session_id, owner FROM lease")
        sessions = [str(row[0]) for row in leases if row[1] != self._owner and not owners.is_alive(row[1])]
        return Orphans(parts, sessions)

    def mark_interrupted(self, orphans: Orphans, killed: Collection[str] = ()) -> list[str]:
        """Close what ``orphans`` found, in one transaction (``storage.orphans.close``);
        returns the part ids marked ``error`` "interrupted"."""
        with self._tx("recover interrupted parts") as db:
            return close_orphans(db, orphans, killed)


__all__ = ["INTERRUPTED", "Orphans", "SessionStore", "export_json"]
