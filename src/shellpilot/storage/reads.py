"""Bounded reads of the session store: what costs the same however long or many sessions are.

Owns: a session's messages streamed in batches, its last message, one message's parts, and
counting sessions (the SQL of those, run through the store's guarded reader). Must not touch:
writes, crash recovery, the bus (store.py owns the connection, its lock and every write).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from pydantic import ConfigDict, TypeAdapter

from shellpilot.session.models import Message, MessageWithParts, Part

_ON_FIRST_USE = ConfigDict(defer_build=True)
"""Validators built when first used: a process that reads no message (a fresh shell call)
does not pay for the union of every part type."""
MESSAGES: TypeAdapter[Message] = TypeAdapter(Message, config=_ON_FIRST_USE)
"""Validates a stored message body (one adapter for every storage module)."""
PARTS: TypeAdapter[Part] = TypeAdapter(Part, config=_ON_FIRST_USE)
"""Validates a stored part body."""


def sessions_where(project_dir: str | None, top_level: bool) -> tuple[str, tuple[Any, ...]]:
    """The ``WHERE`` clause (and its arguments) of a session listing."""
    conditions, args = [], []
    if project_dir is not None:
        conditions.append("project_dir=?")
        args.append(project_dir)
    if top_level:
        conditions.append("parent_id IS NULL")
    return ("WHERE " + " AND ".join(conditions) if conditions else ""), tuple(args)


class Reads:
    """The bounded queries of ``SessionStore`` (which supplies ``_read``)."""

    def _read(self, action: str, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        raise NotImplementedError

    def iter_messages(self, session_id: str, *, batch: int = 100) -> Iterator[MessageWithParts]:
        """The session's messages with their parts, in creation order, like ``messages()``,
        but read ``batch`` messages (and their parts) per query and yielded one at a time:
        memory stays flat however long the session is (``session show``, ``export``).

        Not one snapshot: a message written meanwhile may or may not be included.
        """
        after = ""
        while True:
            rows = self._read(
                "read messages",
                "SELECT id, body FROM message WHERE session_id=? AND id>? ORDER BY id LIMIT ?",
                (session_id, after, batch),
            )
            if not rows:
                return
            ids = tuple(row[0] for row in rows)
            parts = self._read(
                "read parts",
                f"SELECT message_id, body FROM part WHERE message_id IN ({','.join('?' * len(ids))}) "
                "ORDER BY id",
                ids,
            )
            by_message: dict[str, list[str]] = {}
            for message_id, body in parts:
                by_message.setdefault(message_id, []).append(body)
            for message_id, body in rows:
                item = MessageWithParts(info=MESSAGES.validate_json(body))
                item.parts.extend(PARTS.validate_json(part) for part in by_message.get(message_id, ()))
                yield item
            after = ids[-1]

    def last_message(self, session_id: str, role: str | None = None) -> Message | None:
        """The session's most recent message (of ``role`` when given), None when there is none."""
        rows = self._read(
            "read the last message",
            "SELECT body FROM message WHERE session_id=? AND (? IS NULL OR role=?) ORDER BY id DESC LIMIT 1",
            (session_id, role, role),
        )
        return MESSAGES.validate_json(rows[0][0]) if rows else None

    def parts_of(self, message_id: str) -> list[Part]:
        """The parts of one message, in creation order."""
        rows = self._read("read parts", "SELECT body FROM part WHERE message_id=? ORDER BY id", (message_id,))
        return [PARTS.validate_json(row[0]) for row in rows]

    def count_sessions(self, project_dir: str | None = None, *, top_level: bool = False) -> int:
        """How many sessions ``list_sessions`` returns without a limit."""
        where, args = sessions_where(project_dir, top_level)
        return int(self._read("count sessions", f"SELECT count(*) FROM session {where}", args)[0][0])
