"""Session, message and part models: the typed shape of a conversation (pydantic).

Owns: the data of sessions, messages (user | assistant) and parts (discriminated by
``type``) and the id/time helpers that build them. Must not touch: storage, the bus, processes.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from shellpilot.errors import ShellpilotError
from shellpilot.ids import ascending


def now_ms() -> int:
    """Wall-clock time in milliseconds since the epoch (all model times use this unit)."""
    return int(time.time() * 1000)


class _Model(BaseModel):
    # Schemas are built on first use (``defer_build``): a CLI call validates few of these
    # models, and building all of them at import cost a noticeable part of its start-up.
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Session(_Model):
    """One conversation in one project directory; ``parent_id`` is set for child (subtask) sessions.

    ``id`` is ``ses_…`` (sorts by creation); times are ms since the epoch.
    """

    id: str = Field(default_factory=lambda: ascending("ses"))
    project_dir: str
    title: str = ""
    parent_id: str | None = None
    created_ms: int = Field(default_factory=now_ms)
    updated_ms: int = Field(default_factory=now_ms)


class SessionSummary(_Model):
    """A session plus its message count and number of direct child (subtask) sessions, for listings."""

    session: Session
    message_count: int
    child_count: int = 0


class MessageError(_Model):
    """Why a message ended badly: ``name`` is a stable tag (``Aborted``, ``Interrupted``, ...),
    ``exit_code`` the status a CLI run that ends with it exits with (1 unless set)."""

    name: str
    message: str
    exit_code: int = 1

    @classmethod
    def of(cls, exc: BaseException) -> MessageError:
        """The record of an exception: its class name, its text, and (for a ShellpilotError)
        its class's exit code."""
        code = exc.exit_code if isinstance(exc, ShellpilotError) else 1
        return cls(name=type(exc).__name__, message=str(exc) or type(exc).__name__, exit_code=code)


class OutputFormat(_Model):
    """What the user asked the answer to look like: plain text or JSON matching ``schema``.

    ``retry_count`` (default 2): invalid structured answers the model may correct before the
    turn fails.
    """

    type: Literal["text", "json_schema"] = "text"
    json_schema: dict[str, Any] | None = Field(None, alias="schema")
    retry_count: int = Field(2, ge=0)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _MessageBase(_Model):
    id: str = Field(default_factory=lambda: ascending("msg"))
    session_id: str
    agent: str = "build"
    model: str | None = None
    """The model as ``provider/model``; None when no model was involved (the user's shell)."""
    created_ms: int = Field(default_factory=now_ms)


class UserMessage(_MessageBase):
    """A turn from the user (typed text, a slash command, or the record of a user shell)."""

    role: Literal["user"] = "user"
    format: OutputFormat | None = None


class AssistantMessage(_MessageBase):
    """A turn of the agent; ``parent_id`` is the user message it answers.

    ``completed_ms`` is None while it runs; ``finish`` is the provider's finish reason
    (``stop``, ``tool-calls``, ``length``, ...); ``structured`` holds captured structured output.
    """

    role: Literal["assistant"] = "assistant"
    parent_id: str | None = None
    completed_ms: int | None = None
    error: MessageError | None = None
    finish: str | None = None
    structured: Any | None = None
    tokens: dict[str, int] = Field(default_factory=dict)
    cost: float = 0.0


Message: TypeAlias = Annotated[UserMessage | AssistantMessage, Field(discriminator="role")]


class _PartBase(_Model):
    id: str = Field(default_factory=lambda: ascending("prt"))
    session_id: str
    message_id: str


class TextPart(_PartBase):
    """Text of a turn; ``synthetic`` marks text shellpilot wrote, not the user or the model."""

    type: Literal["text"] = "text"
    text: str
    synthetic: bool = False


class ToolPending(_Model):
    """A tool call announced by the model, not started yet."""

    status: Literal["pending"] = "pending"
    input: dict[str, Any] = Field(default_factory=dict)


class ToolRunning(_Model):
    """A tool call in progress; ``metadata`` carries live values (``output`` preview, ...)."""

    status: Literal["running"] = "running"
    input: dict[str, Any] = Field(default_factory=dict)
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    start_ms: int = Field(default_factory=now_ms)


class ToolCompleted(_Model):
    """A finished tool call; ``output`` is what the model reads next turn."""

    status: Literal["completed"] = "completed"
    input: dict[str, Any] = Field(default_factory=dict)
    output: str
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    start_ms: int
    end_ms: int = Field(default_factory=now_ms)


class ToolFailed(_Model):
    """A failed tool call; ``error`` is the text the model sees. ``metadata`` keeps what ran."""

    status: Literal["error"] = "error"
    input: dict[str, Any] = Field(default_factory=dict)
    error: str
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    start_ms: int
    end_ms: int = Field(default_factory=now_ms)


ToolState: TypeAlias = Annotated[
    ToolPending | ToolRunning | ToolCompleted | ToolFailed, Field(discriminator="status")
]


class ToolPart(_PartBase):
    """One tool call (``tool`` = tool id such as ``bash``) and its current state."""

    type: Literal["tool"] = "tool"
    tool: str
    call_id: str = Field(default_factory=lambda: ascending("call"))
    state: ToolState


class FilePart(_PartBase):
    """A file attached to a turn (``@path`` reference or upload); ``url`` is ``file://…`` or data."""

    type: Literal["file"] = "file"
    url: str
    mime: str = "text/plain"
    filename: str | None = None
    path: str | None = None


class AgentPart(_PartBase):
    """An ``@agent`` mention in a user turn."""

    type: Literal["agent"] = "agent"
    name: str


class SubtaskPart(_PartBase):
    """A request to run ``prompt`` in a child session with ``agent`` (command subtasks)."""

    type: Literal["subtask"] = "subtask"
    agent: str
    prompt: str
    description: str = ""
    command: str | None = None
    model: str | None = None


Part: TypeAlias = Annotated[
    TextPart | ToolPart | FilePart | AgentPart | SubtaskPart, Field(discriminator="type")
]


class MessageWithParts(_Model):
    """A message and its parts in creation order: the unit of a history replay or an export."""

    info: Message
    parts: list[Part] = Field(default_factory=list)


__all__ = [
    "AgentPart",
    "AssistantMessage",
    "FilePart",
    "Message",
    "MessageError",
    "MessageWithParts",
    "OutputFormat",
    "Part",
    "Session",
    "SessionSummary",
    "SubtaskPart",
    "TextPart",
    "ToolCompleted",
    "ToolFailed",
    "ToolPart",
    "ToolPending",
    "ToolRunning",
    "ToolState",
    "UserMessage",
    "now_ms",
]
