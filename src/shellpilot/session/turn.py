"""The result of one prompt and the helpers that read it back from stored history.

Owns: ``TurnResult`` and pure lookups over ``MessageWithParts`` lists. Must not touch:
the store, providers, tools.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shellpilot.errors import Aborted
from shellpilot.process.abort import USER_ABORT, abort_reason
from shellpilot.session.models import (
    AssistantMessage,
    MessageError,
    MessageWithParts,
    SubtaskPart,
    TextPart,
    UserMessage,
)

ABORTED = MessageError.of(Aborted())
"""The error recorded on an assistant message whose turn the user cancelled."""


def aborted_error(abort: asyncio.Event) -> MessageError:
    """The error of an assistant message whose turn was stopped: ``ABORTED``, or the reason
    an ``AbortSignal`` carries (``terminated by SIGTERM``)."""
    reason = abort_reason(abort)
    return ABORTED if reason == USER_ABORT else MessageError.of(Aborted(reason))


@dataclass(frozen=True)
class TurnResult:
    """What a prompt or command ended with: the last assistant message (None when no model
    turn ran), its text, the structured output (when a format asked for one), ``ok``, and
    ``warnings`` (e.g. from expanding a command)."""

    session_id: str
    message: AssistantMessage | None
    text: str
    structured: Any | None = None
    warnings: tuple[str, ...] = ()

    @property
    def error(self) -> MessageError | None:
        """The last assistant message's error (Aborted, ProviderError, ...), if any."""
        return self.message.error if self.message is not None else None

    @property
    def ok(self) -> bool:
        """True when the turn finished without an error."""
        return self.error is None


def message_text(item: MessageWithParts) -> str:
    """The non-synthetic text parts of a message, joined."""
    return "".join(p.text for p in item.parts if isinstance(p, TextPart) and not p.synthetic)


def last_user(history: Sequence[MessageWithParts]) -> MessageWithParts | None:
    """The most recent user message, None when there is none."""
    for item in reversed(history):
        if isinstance(item.info, UserMessage):
            return item
    return None


def last_assistant(history: Sequence[MessageWithParts]) -> MessageWithParts | None:
    """The most recent assistant message, None when there is none."""
    for item in reversed(history):
        if isinstance(item.info, AssistantMessage):
            return item
    return None


def pending_subtask(history: Sequence[MessageWithParts]) -> tuple[MessageWithParts, SubtaskPart] | None:
    """The last message when it is a user message holding a subtask part not yet run."""
    if not history or not isinstance(history[-1].info, UserMessage):
        return None
    for part in history[-1].parts:
        if isinstance(part, SubtaskPart):
            return history[-1], part
    return None


def result_of(session_id: str, history: Sequence[MessageWithParts]) -> TurnResult:
    """The ``TurnResult`` that ``history`` ends with."""
    item = last_assistant(history)
    if item is None or not isinstance(item.info, AssistantMessage):
        return TurnResult(session_id, None, "")
    return TurnResult(session_id, item.info, message_text(item), item.info.structured)
