"""Bus events published by the session layer (store writes and run state changes).

Owns: the event classes ``session.*``, ``message.updated``, ``part.updated``. Must not
touch: delivery (bus.py) or the permission/command events (their modules own those).
"""

from __future__ import annotations

from typing import Literal

from shellpilot.bus import Event
from shellpilot.session.models import Message, Part, Session

SessionStatusValue = Literal["busy", "idle"]


class SessionCreated(Event):
    """A session was created."""

    type: Literal["session.created"] = "session.created"
    session: Session


class SessionUpdated(Event):
    """A session's fields (title, updated time) changed."""

    type: Literal["session.updated"] = "session.updated"
    session: Session


class SessionDeleted(Event):
    """A session and everything under it (messages, parts, child sessions) was deleted."""

    type: Literal["session.deleted"] = "session.deleted"
    session_id: str


class MessageUpdated(Event):
    """A message was created or changed (e.g. its completion time was set)."""

    type: Literal["message.updated"] = "message.updated"
    message: Message


class PartUpdated(Event):
    """A part was created or changed; for a running tool part this fires on every live update."""

    type: Literal["part.updated"] = "part.updated"
    part: Part


class SessionStatus(Event):
    """The session started (``busy``) or stopped (``idle``) running something."""

    type: Literal["session.status"] = "session.status"
    session_id: str
    status: SessionStatusValue


SESSION_EVENT_TYPES = (
    "session.created",
    "session.updated",
    "session.deleted",
    "message.updated",
    "part.updated",
    "session.status",
)

__all__ = [
    "SESSION_EVENT_TYPES",
    "MessageUpdated",
    "PartUpdated",
    "SessionCreated",
    "SessionDeleted",
    "SessionStatus",
    "SessionStatusValue",
    "SessionUpdated",
]
