"""Closing what a process that died left in the store: its running tool parts and turns.

Owns: the `Orphans` record and the SQL that marks them interrupted, run inside a transaction
the store opens. Must not touch: finding or signalling processes (session.recovery does that).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from dataclasses import dataclass, field

from shellpilot.session.models import AssistantMessage, MessageError, ToolFailed, ToolPart, now_ms
from shellpilot.storage.reads import MESSAGES

INTERRUPTED = "interrupted"
"""Error text of a tool part whose process died while it ran (crash recovery)."""


@dataclass(frozen=True)
class Orphans:
    """What dead processes left in the store: ``parts`` as ``(owner, part)`` (tool parts
    still pending/running) and ``sessions`` whose lease a dead process holds."""

    parts: list[tuple[str, ToolPart]] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.parts or self.sessions)


def close(db: sqlite3.Connection, orphans: Orphans, killed: Collection[str] = ()) -> list[str]:
    """Close what ``orphans`` found inside the open transaction ``db``; returns the part ids marked.

    Each part becomes ``error`` "interrupted" (live metadata such as the output so far kept,
    plus ``metadata.interrupted = {"owner", "killed"}``, ``killed``: its id is in ``killed``)
    unless another process already settled it; its assistant message, and every unfinished
    assistant message of a session whose dead lease is dropped (a run killed before the
    model's first reply), gets ``completed_ms`` and an ``Interrupted`` error.
    """
    end = now_ms()
    done: list[str] = []
    for owner, part in orphans.parts:
        row = db.execute("SELECT owner FROM part WHERE id=?", (part.id,)).fetchone()
        if row is None or row[0] != owner:
            continue  # deleted, or settled by someone else meanwhile
        state = part.state
        metadata = dict(getattr(state, "metadata", {}))
        metadata["interrupted"] = {"owner": owner, "killed": part.id in killed}
        failed = ToolFailed(
            input=state.input,
            error=INTERRUPTED,
            title=getattr(state, "title", ""),
            metadata=metadata,
            start_ms=getattr(state, "start_ms", end),
            end_ms=end,
        )
        fixed = part.model_copy(update={"state": failed})
        db.execute(
            "UPDATE part SET status='error', owner=NULL, body=? WHERE id=?",
            (fixed.model_dump_json(), part.id),
        )
        _interrupt_message(db, part.message_id, end)
        done.append(part.id)
    for session_id in orphans.sessions:
        rows = db.execute(
            "SELECT id FROM message WHERE session_id=? AND role='assistant'", (session_id,)
        ).fetchall()
        for (message_id,) in rows:
            _interrupt_message(db, message_id, end)
        db.execute("DELETE FROM lease WHERE session_id=?", (session_id,))
    return done


def _interrupt_message(db: sqlite3.Connection, message_id: str, end: int) -> None:
    row = db.execute("SELECT body FROM message WHERE id=?", (message_id,)).fetchone()
    if row is None:
        return
    message = MESSAGES.validate_json(row[0])
    if not isinstance(message, AssistantMessage) or message.completed_ms is not None:
        return
    fixed = message.model_copy(
        update={
            "completed_ms": end,
            "error": MessageError(
                name="Interrupted", message="the process running this turn ended before it finished"
            ),
        }
    )
    db.execute("UPDATE message SET body=? WHERE id=?", (fixed.model_dump_json(), message_id))


__all__ = ["INTERRUPTED", "Orphans", "close"]
