"""Permission requests and the bus events about them: ``permission.asked`` / ``permission.replied``.

Owns: the PermissionRequest model (what a UI shows and answers) and the two event classes.
Must not touch: deciding or waiting (``permission/service.py``); models only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shellpilot.bus import Event

Reply = Literal["once", "always", "reject"]
REPLIES: tuple[Reply, ...] = ("once", "always", "reject")
Reason = Literal["user", "cascade", "cancelled"]


class PermissionRequest(BaseModel):
    """A pending question to the user.

    ``patterns`` are only the values that still need an answer (those already allowed
    or read-only are left out); ``always`` are the patterns an "always" reply grants;
    ``metadata`` carries what helps the user decide, e.g. ``{"command": "..."}``;
    ``created`` is milliseconds since the epoch. ``person_only``: the command could not
    be analysed while a deny rule exists for the permission, so only a person's answer may
    allow it: ``--yes`` and ``--allow`` never do, and a UI should say it was not analysed.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    session_id: str
    permission: str
    patterns: tuple[str, ...]
    always: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    created: int
    person_only: bool = False


class PermissionAsked(Event):
    """Published when a request starts waiting for a reply; carries the whole request."""

    type: Literal["permission.asked"] = "permission.asked"
    request: PermissionRequest


class PermissionReplied(Event):
    """Published when a request is settled.

    ``reason``: ``user`` (a reply to this request), ``cascade`` (settled by a reply to
    another request of the session: an "always" that now covers it, or a "reject"), or
    ``cancelled`` (the session was cancelled or the asking task went away).
    """

    type: Literal["permission.replied"] = "permission.replied"
    session_id: str
    request_id: str
    reply: Reply
    message: str | None = None
    reason: Reason = "user"


__all__ = ["REPLIES", "PermissionAsked", "PermissionReplied", "PermissionRequest", "Reason", "Reply"]
