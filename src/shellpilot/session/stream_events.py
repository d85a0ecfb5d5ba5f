"""Bus events of the agent loop that are not store writes: streamed text and turn ends.

Owns: ``part.delta`` (a piece of assistant text as it streams) and ``turn.finished``.
Must not touch: the store or the session events of ``session/events.py``.
"""

from __future__ import annotations

from typing import Any, Literal

from shellpilot.bus import Event


class PartDelta(Event):
    """``delta`` was appended to the text part ``part_id`` (the full part follows as
    ``part.updated`` when the text ends). UIs print deltas as they come."""

    type: Literal["part.delta"] = "part.delta"
    session_id: str
    message_id: str
    part_id: str
    delta: str


class TurnFinished(Event):
    """A prompt's loop ended: ``ok`` False with ``error`` (name, message) when it failed."""

    type: Literal["turn.finished"] = "turn.finished"
    session_id: str
    message_id: str | None
    ok: bool
    error: dict[str, Any] | None = None
    structured: Any | None = None


__all__ = ["PartDelta", "TurnFinished"]
