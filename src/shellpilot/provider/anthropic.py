"""Anthropic messages provider (official ``anthropic`` SDK, streaming with tool use).

Owns: request mapping (system, alternating roles, tool_use / tool_result blocks, tool choice),
stream-event assembly and the SDK-exception boundary for ``POST {base_url}/v1/messages``.
Must not touch: config or the environment (registry.py passes key and URL); import ``anthropic`` lazily.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from shellpilot.errors import ProviderError
from shellpilot.provider.base import (
    AssistantMessage,
    FinishReason,
    Message,
    ModelRequest,
    ProviderEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResultMessage,
    Usage,
    UserMessage,
    parse_arguments,
    settle_finish,
)
from shellpilot.provider.body import body_bytes, encode, json_array
from shellpilot.provider.failure import (
    connection_failed,
    error_detail,
    mapped_stream,
    other_error,
    status_error,
)
from shellpilot.provider.loop_client import LoopClient
from shellpilot.provider.retry import RetryPolicy, retrying

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 8192
"""Anthropic requires ``max_tokens``; used when the request leaves it unset."""

_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
_TOOL_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
_TRANSIENT_TYPES = ("overloaded_error", "api_error", "rate_limit_error", "timeout_error")


def anthropic_turn(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """The role and content blocks one message adds; no blocks for empty text (the API
    rejects empty text blocks)."""
    if isinstance(message, UserMessage):
        return "user", [{"type": "text", "text": message.content}] if message.content.strip() else []
    if isinstance(message, AssistantMessage):
        blocks: list[dict[str, Any]] = []
        if message.content.strip():
            blocks.append({"type": "text", "text": message.content})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls
        )
        return "assistant", blocks
    if isinstance(message, ToolResultMessage):
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call_id}
        block["content"] = message.content or "(no output)"
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    assert_never(message)


def to_anthropic_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """Map messages to Anthropic's alternating user/assistant turns of content blocks.

    Tool results become ``tool_result`` blocks of a user turn; consecutive same-role turns
    merge; empty text is dropped (the API rejects empty text blocks).
    """
    turns: list[dict[str, Any]] = []
    for message in request.messages:
        role, blocks = anthropic_turn(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


class _Turns:
    """Encoded turns kept between requests: the finished ones, and the last one's blocks
    (a later message of the same role still merges into it)."""

    def __init__(self) -> None:
        self.closed: list[str] = []
        self.role: str | None = None
        self.blocks: list[str] = []

    def turn(self, role: str, blocks: list[str]) -> str:
        return "{" + f'"role":{encode(role)},"content":' + json_array(blocks) + "}"

    def encoded(self) -> list[str]:
        """Every turn's JSON, in order."""
        if self.role is None:
            return self.closed
        return [*self.closed, self.turn(self.role, self.blocks)]


def _encode_message(turns: _Turns, message: Message) -> None:
    """The fold that keeps each turn's wire JSON between requests (see ``Transcript.fold``)."""
    role, blocks = anthropic_turn(message)
    if not blocks:
        return
    if role != turns.role:
        if turns.role is not None:
            turns.closed.append(turns.turn(turns.role, turns.blocks))
        turns.role, turns.blocks = role, []
    turns.blocks.extend(encode(block) for block in blocks)


def _params(request: ModelRequest, messages: Any) -> dict[str, Any]:
    # The keys in the order the SDK's own ``messages.create`` sends them (``temperature``
    # last: the installed SDK's signature has no such argument, it went in ``extra_body``).
    params: dict[str, Any] = {
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": messages,
        "model": request.model,
        "stream": True,
    }
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tool_choice"] = _TOOL_CHOICE[request.tool_choice]
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
    if request.temperature is not None:
        params["temperature"] = request.temperature
    return params


def to_anthropic_params(request: ModelRequest) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /v1/messages``, keys in the order sent."""
    return _params(request, to_anthropic_messages(request))


def anthropic_body(request: ModelRequest) -> bytes:
    """``to_anthropic_params`` encoded as the SDK encodes it, each message encoded once per
    transcript (kept between requests that extend it). Raises UnicodeEncodeError for text
    with unpaired surrogates."""
    turns = request.messages.fold(_encode_message, _Turns)
    return body_bytes(_params(request, None), {"messages": json_array(turns.encoded())})


@dataclass
class _Block:
    kind: str
    id: str = ""
    name: str = ""
    json: list[str] = field(default_factory=list)


class EventAssembler:
    """Turn Anthropic raw stream events into provider events (text, tool use, usage, finish)."""

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._input_tokens = 0
        self._cached = 0
        self._output_tokens = 0
        self._has_usage = False
        self._stop_raw: str | None = None
        self.stopped = False
        self._tool_calls = 0

    def feed(self, event: Any) -> Iterator[ProviderEvent]:
        """Events for one raw SDK event; unknown event and block types are skipped."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            usage = getattr(event.message, "usage", None)
            if usage is not None:
                self._has_usage = True
                self._input_tokens = int(getattr(usage, "input_tokens", 0) or 0)
                self._cached = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
                self._output_tokens = int(getattr(usage, "output_tokens", 0) or 0)
        elif kind == "content_block_start":
            block = event.content_block
            btype = getattr(block, "type", "")
            if btype == "tool_use":
                self._blocks[event.index] = _Block("tool_use", id=block.id, name=block.name)
                self._tool_calls += 1
                yield ToolCallStart(block.id, block.name)
            elif btype == "text":
                self._blocks[event.index] = _Block("text")
                if getattr(block, "text", ""):
                    yield TextDelta(block.text)
        elif kind == "content_block_delta":
            current = self._blocks.get(event.index)
            delta = event.delta
            dtype = getattr(delta, "type", "")
            if dtype == "text_delta" and delta.text:
                yield TextDelta(delta.text)
            elif dtype == "input_json_delta" and current is not None and current.kind == "tool_use":
                current.json.append(delta.partial_json or "")
                if delta.partial_json:
                    yield ToolCallDelta(current.id, delta.partial_json)
        elif kind == "content_block_stop":
            done = self._blocks.pop(event.index, None)
            if done is not None and done.kind == "tool_use":
                raw = "".join(done.json)
                arguments, error = parse_arguments(raw)
                yield ToolCallEnd(done.id, done.name, arguments, raw_arguments=raw, parse_error=error)
        elif kind == "message_delta":
            self._stop_raw = getattr(event.delta, "stop_reason", None) or self._stop_raw
            usage = getattr(event, "usage", None)
            if usage is not None:
                self._has_usage = True
                self._output_tokens = int(getattr(usage, "output_tokens", 0) or 0)
                if getattr(usage, "input_tokens", None):
                    self._input_tokens = int(usage.input_tokens)
        elif kind == "message_stop":
            self.stopped = True

    def finish(self) -> Iterator[ProviderEvent]:
        """Usage (when reported) then ``Finish``."""
        if self._has_usage:
            yield Usage(self._input_tokens, self._output_tokens, cached_input_tokens=self._cached)
        raw = self._stop_raw
        yield settle_finish(_FINISH.get(raw, "other") if raw else None, raw, self._tool_calls > 0)


def map_anthropic_error(exc: BaseException, provider: str, key_hint: str = "") -> ProviderError:
    """Translate an ``anthropic`` SDK (or transport) exception into ``ProviderError``."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        detail = error_detail(exc.body) or exc.message
        kind = json.dumps(exc.body) if exc.body is not None else ""
        if status < 400:  # an ``event: error`` inside a 200 stream
            transient = any(t in kind for t in _TRANSIENT_TYPES)
            text = f"{provider}: stream error: {detail}"
            return ProviderError(text, provider=provider, retryable=transient)
        return status_error(exc, provider, status, detail, key_hint)
    if isinstance(exc, anthropic.APIConnectionError):
        return connection_failed(exc, provider, exc.message)
    return other_error(exc, provider)


class AnthropicProvider:
    """A ``Provider`` for the Anthropic messages API (or a server speaking it).

    ``base_url`` is the API root without ``/v1`` (the SDK adds ``/v1/messages``). The SDK's own
    retries are off; ``retry`` governs. The SDK client is made on first use, cached per loop.
    """

    def __init__(
        self,
        name: str,
        *,
        api_key: str | None,
        base_url: str | None = None,
        timeout_s: float = 600.0,
        retry: RetryPolicy | None = None,
        key_hint: str = "",
    ) -> None:
        self.name = name
        self.base_url = base_url or DEFAULT_BASE_URL
        self._api_key = api_key or "unused"
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._key_hint = key_hint
        self._client = LoopClient(self._make_client)

    def client(self) -> AsyncAnthropic:
        """The cached SDK client of the running event loop (made on first call)."""
        return self._client.get()

    def _make_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, timeout=self._timeout_s, max_retries=0
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one turn (see ``Provider.stream``)."""
        return retrying(lambda: self._attempt(request), self._retry)

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        from anthropic import AsyncStream
        from anthropic.types import Message as WireMessage
        from anthropic.types import RawMessageStreamEvent

        try:
            body = anthropic_body(request)
            # The raw request path with the body already encoded: the SDK's preparation of a
            # ``body`` (a copy of the whole conversation, walked in Python) never runs.
            stream = await self.client().post(
                "/v1/messages",
                content=body,
                cast_to=WireMessage,
                stream=True,
                stream_cls=AsyncStream[RawMessageStreamEvent],
            )
        except Exception as exc:
            raise map_anthropic_error(exc, self.name, self._key_hint) from exc
        assembler = EventAssembler()
        raw_events = mapped_stream(stream, lambda exc: map_anthropic_error(exc, self.name, self._key_hint))
        async with aclosing(raw_events):
            async for raw in raw_events:
                for event in assembler.feed(raw):
                    yield event
        if not assembler.stopped:
            raise ProviderError(
                f"{self.name}: the stream ended before message_stop (connection cut?)",
                provider=self.name,
                retryable=True,
            )
        for event in assembler.finish():
            yield event

    async def aclose(self) -> None:
        """Close the cached SDK client (safe to call twice)."""
        await self._client.aclose()
