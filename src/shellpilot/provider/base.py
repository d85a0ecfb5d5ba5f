"""The provider seam: what the loop sends a model (ModelRequest) and what streams back.

Owns: the request/message/event data types and the ``Provider`` protocol.
Must not touch: any SDK, the network, config or the environment (see openai.py, anthropic.py, registry.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from shellpilot.provider.transcript import Transcript

ToolChoice = Literal["auto", "required", "none"]
"""auto: the model decides; required: it must call a tool; none: it must not call one."""

FinishReason = Literal["stop", "tool_calls", "length", "error", "other"]
"""Why a model turn ended. Real providers raise ``ProviderError`` rather than finish with "error"."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class UserMessage(_Frozen):
    """The user's text (attachments are already inlined by the loop)."""

    role: Literal["user"] = "user"
    content: str


class ToolCallRequest(_Frozen):
    """One tool call the model made in an earlier assistant turn (``id`` as the provider gave it)."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class AssistantMessage(_Frozen):
    """An earlier assistant turn: its text and the tool calls it made (either may be empty)."""

    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)


class ToolResultMessage(_Frozen):
    """The output of one tool call, answering ``call_id``; ``is_error`` marks a failed call."""

    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    is_error: bool = False


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]
"""One entry of a conversation, discriminated by ``role``."""


class ToolSpec(_Frozen):
    """A tool the model may call: ``parameters`` is a JSON schema of an object."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ModelRequest(_Frozen):
    """Everything one model turn needs.

    ``model`` is the provider-side model name (``gpt-4o``, not ``openai/gpt-4o``).
    ``messages`` is a ``Transcript`` (a list given here is converted): a loop extends the
    previous request's transcript, so providers map each message to the wire once.
    ``temperature`` None = the provider's default; ``max_tokens`` None = the provider's
    default (OpenAI-compatible: unset; Anthropic: 8192, which its API requires).
    """

    model: str
    system: str = ""
    messages: Transcript[Message] = Field(default_factory=Transcript)
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    temperature: float | None = None
    max_tokens: int | None = Field(None, gt=0)


# -- events -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's text, in order."""

    text: str
    type: Literal["text_delta"] = field(default="text_delta", init=False)


@dataclass(frozen=True)
class ToolCallStart:
    """The model began a tool call (its arguments follow as deltas)."""

    id: str
    name: str
    type: Literal["tool_call_start"] = field(default="tool_call_start", init=False)


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of the raw JSON arguments of the tool call ``id``."""

    id: str
    arguments: str
    type: Literal["tool_call_delta"] = field(default="tool_call_delta", init=False)


@dataclass(frozen=True)
class ToolCallEnd:
    """A complete tool call.

    ``arguments`` is the parsed JSON object; when the raw text is not a JSON object,
    ``arguments`` is empty and ``parse_error`` says why (the loop returns that to the model).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""
    parse_error: str | None = None
    type: Literal["tool_call_end"] = field(default="tool_call_end", init=False)


@dataclass(frozen=True)
class Usage:
    """Token counts of the turn, when the server reports them (often missing on local servers)."""

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0
    type: Literal["usage"] = field(default="usage", init=False)


@dataclass(frozen=True)
class Finish:
    """The last event of every successful stream; ``raw`` is the provider's own reason string."""

    reason: FinishReason
    raw: str | None = None
    type: Literal["finish"] = field(default="finish", init=False)


ProviderEvent = TextDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | Usage | Finish
"""What ``Provider.stream`` yields. Order: deltas and tool calls as they come (each call:
start, deltas, end), then ``Usage`` when known, then exactly one ``Finish``."""


@runtime_checkable
class Provider(Protocol):
    """A model endpoint. ``name`` is the configured provider name (``openai``, ``ollama``...)."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one model turn.

        Raises ``ProviderError`` (never an SDK exception) once retries are spent; transient
        failures before any event are retried inside. Closing the iterator early (or
        cancelling the task) closes the HTTP stream.
        """
        ...

    async def aclose(self) -> None:
        """Release the HTTP client, if any (safe to call more than once)."""
        ...


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """Parse a tool call's raw JSON arguments -> (object, error). Empty text is ``{}``.

    Arguments holding unpaired UTF-16 surrogates (JSON such as ``"\\udcff"``) are an error
    for the model to fix: no text with them can be stored or run as UTF-8.
    """
    if not raw.strip():
        return {}, None
    shown = raw[:200].encode("utf-8", "replace").decode("utf-8")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"The tool call arguments are not valid JSON ({exc.msg} at char {exc.pos}): {shown}"
    if not isinstance(value, dict):
        return {}, f"The tool call arguments must be a JSON object, got {type(value).__name__}: {shown}"
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return {}, f"The tool call arguments hold unpaired surrogates (\\udXXX), not valid text: {shown}"
    return value, None


def settle_finish(reason: FinishReason | None, raw: str | None, made_tool_calls: bool) -> Finish:
    """The ``Finish`` of a turn from the provider's (mapped) reason.

    A missing reason is inferred, and "stop" after tool calls reads as "tool_calls": some
    OpenAI-compatible servers (older Ollama) report "stop" for turns that called tools.
    """
    if reason is None or (reason == "stop" and made_tool_calls):
        reason = "tool_calls" if made_tool_calls else "stop"
    return Finish(reason, raw=raw)
