"""Persist-then-announce: every session, message or part change goes to the store, then the bus.

Owns: the pairing of a store write with its bus event. Must not touch: SQL (store.py),
processes, what the changes mean (the service and the loop decide that).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shellpilot.bus import Bus
from shellpilot.errors import StorageError, StorageFull
from shellpilot.session.events import (
    MessageUpdated,
    PartUpdated,
    SessionCreated,
    SessionDeleted,
    SessionUpdated,
)
from shellpilot.session.models import Message, Part, Session, ToolFailed, ToolPart, ToolRunning, now_ms
from shellpilot.storage.store import SessionStore


class SessionWriter:
    """Writes through ``store`` and publishes the matching event on ``bus``.

    ``live(part, title, values)`` is what a running tool's ``ctx.metadata`` binds to: it
    merges ``values`` into the running state's metadata, publishes ``part.updated`` every
    time (UIs follow live) and writes coalesced (see ``SessionStore.update_part_live``).
    A live write that fails (a full disk) does not stop the tool: the event still goes out,
    and the error is kept in ``live_error`` (the part's final write decides what is saved).
    """

    def __init__(self, store: SessionStore, bus: Bus) -> None:
        self.store = store
        self.bus = bus
        self.live_error: StorageError | None = None

    def create_session(self, session: Session) -> Session:
        """Insert a new session; publishes ``session.created``."""
        self.store.put_session(session)
        self.bus.publish(SessionCreated(session=session))
        return session

    def update_session(self, session: Session) -> Session:
        """Save changed session fields; publishes ``session.updated``."""
        self.store.put_session(session)
        self.bus.publish(SessionUpdated(session=session))
        return session

    def delete_session(self, session_id: str) -> None:
        """Delete a session and all under it; publishes ``session.deleted``."""
        self.store.delete_session(session_id)
        self.bus.publish(SessionDeleted(session_id=session_id))

    def message(self, message: Message) -> Message:
        """Insert or replace a message; publishes ``message.updated``."""
        self.store.put_message(message)
        self.bus.publish(MessageUpdated(message=message))
        return message

    def part(self, part: Part) -> Part:
        """Insert or replace a part now (always written); publishes ``part.updated``."""
        self.store.put_part(part)
        self.bus.publish(PartUpdated(part=part))
        return part

    def live(self, part: ToolPart, title: str | None, values: Mapping[str, Any]) -> ToolPart:
        """Merge live ``values`` (and ``title`` if given) into a running tool part; returns the new part.

        Not running (already finished): returned unchanged, nothing written.
        """
        state = part.state
        if not isinstance(state, ToolRunning):
            return part
        metadata = {**state.metadata, **values}
        new_state = state.model_copy(
            update={"metadata": metadata, "title": state.title if title is None else title}
        )
        updated = part.model_copy(update={"state": new_state})
        try:
            self.store.update_part_live(updated)
        except StorageError as exc:
            self.live_error = exc
        self.bus.publish(PartUpdated(part=updated))
        return updated

    def part_on_full_disk(self, final: ToolPart, full: StorageFull) -> ToolPart:
        """Save ``final``, whose write just failed with ``full``, as a failed part that says why.

        The store's reserve file is given up to make room. The failed state keeps the input,
        title, start time and metadata (exit code, spill file path...) with ``storage_error``
        added; its error text is ``the result could not be saved whole: <full>``. Returns the
        saved part; raises ``full`` when even that cannot be saved (the part then stays as
        last written until the next start marks it interrupted).
        """
        from shellpilot.storage import space

        space.release_reserve(self.store.path)
        state = final.state
        failed = ToolFailed(
            input=state.input,
            error=f"the result could not be saved whole: {full}",
            title=getattr(state, "title", ""),
            metadata={**getattr(state, "metadata", {}), "storage_error": str(full)},
            start_ms=getattr(state, "start_ms", None) or now_ms(),
        )
        part = final.model_copy(update={"state": failed})
        try:
            self.part(part)
        except StorageError:
            raise full from None
        return part


__all__ = ["SessionWriter"]
