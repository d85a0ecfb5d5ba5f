"""A scripted model: turns written in advance, replayed in order, every request recorded.

Owns: the ``Turn`` / ``ToolCall`` script data (shared with ``shellpilot.testing``'s HTTP server)
and ``ScriptedProvider``, an in-process ``Provider`` with no network, for tests of the loop.
Must not touch: SDKs, sockets, config.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shellpilot.errors import ProviderError
from shellpilot.provider.base import (
    Finish,
    FinishReason,
    ModelRequest,
    ProviderEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    parse_arguments,
)
from shellpilot.provider.retry import RetryPolicy, is_transient_status, retrying

ARGUMENT_CHUNK_CHARS = 12
"""Tool-call arguments are streamed in pieces of this many characters."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call the scripted model makes.

    ``arguments`` is a JSON object, or a raw string sent as is (to script malformed JSON).
    ``id`` None = one is made up (``call_<n>`` on the OpenAI wire, ``toolu_<n>`` on Anthropic's).
    """

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def raw_arguments(self) -> str:
        """The arguments as the JSON text that goes on the wire."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(dict(self.arguments))


@dataclass(frozen=True)
class Turn:
    """One scripted model answer.

    - ``text`` streams word by word; then each of ``tool_calls`` with its arguments in pieces.
    - ``error_status`` (e.g. 500, 429, 400) answers with that HTTP error instead
      (``error_message`` is its message, ``retry_after_s`` its ``Retry-After`` header);
      ``drop_connection`` closes the connection unanswered.
    - ``cut_after`` N closes the stream after N chunks (events in-process): an answer cut
      mid-way, which is never retried once output was seen.
    - ``finish_reason`` None = inferred: ``tool_calls`` when there are calls, else ``stop``.
    - ``input_tokens`` / ``output_tokens`` are the usage reported; ``chunk_delay_s`` pauses
      before every chunk (to script a slow model that a test cancels).
    """

    text: str = ""
    tool_calls: Sequence[ToolCall] = ()
    error_status: int | None = None
    error_message: str = ""
    retry_after_s: float | None = None
    drop_connection: bool = False
    cut_after: int | None = None
    finish_reason: FinishReason | None = None
    input_tokens: int = 10
    output_tokens: int = 5
    chunk_delay_s: float = 0.0

    @property
    def finish(self) -> FinishReason:
        """The finish reason this turn reports."""
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def text_chunks(self) -> list[str]:
        """The text split into streamed pieces (a word and the space after it)."""
        return re.findall(r"\s*\S+\s*", self.text) or ([self.text] if self.text else [])


def argument_chunks(raw: str) -> list[str]:
    """Raw arguments split into ``ARGUMENT_CHUNK_CHARS`` pieces (``[]`` for empty text)."""
    return [raw[i : i + ARGUMENT_CHUNK_CHARS] for i in range(0, len(raw), ARGUMENT_CHUNK_CHARS)]


Script = Turn | Callable[[ModelRequest], Turn]
"""A turn, or a function choosing the turn from the request it answers."""


class ScriptedProvider:
    """A ``Provider`` that replays ``turns`` in order and records each ``ModelRequest``.

    ``requests`` holds every request received (what the model "saw"). An error turn raises
    ``ProviderError`` with that status (retryable for 408/409/429/5xx); with ``retry`` set those
    are retried like a real provider. Running out of turns raises ``ProviderError`` naming the
    request number.
    """

    def __init__(
        self, turns: Iterable[Script] = (), *, name: str = "scripted", retry: RetryPolicy | None = None
    ) -> None:
        self.name = name
        self.requests: list[ModelRequest] = []
        self._turns: deque[Script] = deque(turns)
        self._retry = retry
        self._calls = 0

    def add(self, *turns: Script) -> None:
        """Append turns to the script."""
        self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        """Turns not yet replayed."""
        return len(self._turns)

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Replay the next turn (see ``Provider.stream``)."""
        if self._retry is None:
            return self._replay(request)
        return retrying(lambda: self._replay(request), self._retry)

    async def _replay(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if not self._turns:
            raise ProviderError(
                f"{self.name}: no scripted turn left for request #{len(self.requests)}",
                provider=self.name,
            )
        script = self._turns.popleft()
        turn = script(request) if callable(script) else script
        if turn.error_status is not None:
            status = turn.error_status
            raise ProviderError(
                f"{self.name}: HTTP {status}: {turn.error_message or 'scripted error'}",
                provider=self.name,
                status=status,
                retryable=is_transient_status(status),
                retry_after_s=turn.retry_after_s,
            )
        if turn.drop_connection:
            raise ProviderError(
                f"{self.name}: connection lost (scripted)", provider=self.name, retryable=True
            )
        for number, event in enumerate(self._events(turn)):
            if turn.cut_after is not None and number >= turn.cut_after:
                text = f"{self.name}: connection lost mid-stream (scripted)"
                raise ProviderError(text, provider=self.name, retryable=True)
            if turn.chunk_delay_s > 0:
                await asyncio.sleep(turn.chunk_delay_s)
            yield event

    def _events(self, turn: Turn) -> Iterator[ProviderEvent]:
        for piece in turn.text_chunks():
            yield TextDelta(piece)
        for call in turn.tool_calls:
            self._calls += 1
            call_id = call.id or f"call_{self._calls}"
            raw = call.raw_arguments()
            yield ToolCallStart(call_id, call.name)
            for piece in argument_chunks(raw):
                yield ToolCallDelta(call_id, piece)
            arguments, error = parse_arguments(raw)
            yield ToolCallEnd(call_id, call.name, arguments, raw_arguments=raw, parse_error=error)
        yield Usage(turn.input_tokens, turn.output_tokens)
        yield Finish(turn.finish)

    async def aclose(self) -> None:
        """Nothing to release."""
