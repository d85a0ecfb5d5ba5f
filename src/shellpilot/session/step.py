"""One model turn: stream the provider's events into the assistant message's parts, live.

Owns: text and tool-call parts as they stream, usage and finish of the turn. Must not
touch: tool execution (dispatch.py) or the loop's control flow (loop.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from shellpilot.bus import Bus
from shellpilot.ids import ascending
from shellpilot.provider.base import (
    Finish,
    FinishReason,
    ModelRequest,
    Provider,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from shellpilot.session.models import AssistantMessage, TextPart, ToolPart, ToolPending
from shellpilot.session.stream_events import PartDelta
from shellpilot.session.writer import SessionWriter


@dataclass
class StepResult:
    """What one turn produced: its text, its tool calls (pending parts, in order, with
    ``parse_errors[call_id]`` for arguments that were not a JSON object), finish and usage."""

    text: str = ""
    calls: list[ToolPart] = field(default_factory=list)
    parse_errors: dict[str, str] = field(default_factory=dict)
    finish: FinishReason | None = None
    tokens: dict[str, int] = field(default_factory=dict)


class _TextStream:
    """The open text part of a turn: created on the first delta, saved when it closes."""

    def __init__(self, writer: SessionWriter, bus: Bus, message: AssistantMessage) -> None:
        self._writer, self._bus, self._message = writer, bus, message
        self._part: TextPart | None = None
        self._chunks: list[str] = []

    def add(self, delta: str) -> None:
        if self._part is None:
            self._part = TextPart(session_id=self._message.session_id, message_id=self._message.id, text="")
            self._writer.part(self._part)
        self._chunks.append(delta)
        self._bus.publish(
            PartDelta(
                session_id=self._message.session_id,
                message_id=self._message.id,
                part_id=self._part.id,
                delta=delta,
            )
        )

    def close(self) -> str:
        text = "".join(self._chunks)
        if self._part is not None and self._part.text != text:
            self._part = self._part.model_copy(update={"text": text})
            self._writer.part(self._part)
        return text


async def stream_step(
    provider: Provider,
    request: ModelRequest,
    message: AssistantMessage,
    writer: SessionWriter,
    bus: Bus,
) -> StepResult:
    """Stream one turn of ``provider`` into parts of ``message``.

    Text goes into one text part (``part.delta`` per piece, saved when the stream ends or
    is cancelled, so a cancelled turn keeps what arrived); each tool call becomes a
    ``pending`` tool part with its parsed input. Raises ProviderError as the provider does;
    cancellation closes the stream.
    """
    result = StepResult()
    text = _TextStream(writer, bus, message)
    calls: dict[str, ToolPart] = {}
    events = provider.stream(request)
    try:
        async for event in events:
            if isinstance(event, TextDelta):
                text.add(event.text)
            elif isinstance(event, ToolCallStart):
                calls[event.id] = _pending(message, event.id, event.name)
                writer.part(calls[event.id])
            elif isinstance(event, ToolCallDelta):
                continue
            elif isinstance(event, ToolCallEnd):
                part = calls.get(event.id) or _pending(message, event.id, event.name)
                part = part.model_copy(update={"state": ToolPending(input=event.arguments)})
                calls[event.id] = part
                writer.part(part)
                if event.parse_error:
                    result.parse_errors[part.call_id] = event.parse_error
            elif isinstance(event, Usage):
                result.tokens = {"input": event.input_tokens, "output": event.output_tokens}
                if event.cached_input_tokens:
                    result.tokens["cached_input"] = event.cached_input_tokens
            elif isinstance(event, Finish):
                result.finish = event.reason
            else:
                assert_never(event)
    finally:
        result.text = text.close()
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    result.calls = list(calls.values())
    return result


def _pending(message: AssistantMessage, call_id: str, tool: str) -> ToolPart:
    return ToolPart(
        session_id=message.session_id,
        message_id=message.id,
        tool=tool,
        call_id=call_id or ascending("call"),
        state=ToolPending(),
    )
