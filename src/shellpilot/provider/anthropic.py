"""Anthropic messages provider (streaming with tool use, over httpx2).

Owns: request mapping (system, alternating roles, tool_use / tool_result blocks, tool choice),
stream-event assembly and the failure boundary for ``POST {base_url}/v1/messages``, sending what
the official ``anthropic`` SDK sends without importing it.
Must not touch: config or the environment (registry.py passes key and URL); HTTP (transport.py).
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
    StreamFailure,
    close_quietly,
    connection_failed,
    error_detail,
    mapped_stream,
    other_error,
    status_error,
)
from shellpilot.provider.retry import RetryPolicy, retrying
from shellpilot.provider.sse import server_events
from shellpilot.provider.transport import HttpEndpoint, StatusFailure, Unreachable, sdk_headers

if TYPE_CHECKING:
    import httpx2

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2026-10-21"
"""The ``anthropic-version`` header: the API version the installed ``anthropic`` SDK (2.x) speaks."""
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
    """Turn Anthropic stream events (each an event's JSON object) into provider events (text,
    tool use, usage, finish)."""

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._input_tokens = 0
        self._cached = 0
        self._output_tokens = 0
        self._has_usage = False
        self._stop_raw: str | None = None
        self.stopped = False
        self._tool_calls = 0

    def feed(self, event: dict[str, Any]) -> Iterator[ProviderEvent]:
        """Events for one stream event; unknown event and block types are skipped."""
        kind = event.get("type")
        if kind == "message_start":
            usage = (event.get("message") or {}).get("usage")
            if usage is not None:
                self._has_usage = True
                self._input_tokens = int(usage.get("input_tokens", 0) or 0)
                self._cached = int(usage.get("cache_read_input_tokens", 0) or 0)
                self._output_tokens = int(usage.get("output_tokens", 0) or 0)
        elif kind == "content_block_start":
            block = event["content_block"]
            btype = block.get("type", "")
            if btype == "tool_use":
                self._blocks[event["index"]] = _Block("tool_use", id=block["id"], name=block["name"])
                self._tool_calls += 1
                yield ToolCallStart(block["id"], block["name"])
            elif btype == "text":
                self._blocks[event["index"]] = _Block("text")
                if block.get("text", ""):
                    yield TextDelta(block["text"])
        elif kind == "content_block_delta":
            current = self._blocks.get(event["index"])
            delta = event["delta"]
            dtype = delta.get("type", "")
            if dtype == "text_delta" and delta.get("text"):
                yield TextDelta(delta["text"])
            elif dtype == "input_json_delta" and current is not None and current.kind == "tool_use":
                partial = delta.get("partial_json") or ""
                current.json.append(partial)
                if partial:
                    yield ToolCallDelta(current.id, partial)
        elif kind == "content_block_stop":
            done = self._blocks.pop(event["index"], None)
            if done is not None and done.kind == "tool_use":
                raw = "".join(done.json)
                arguments, error = parse_arguments(raw)
                yield ToolCallEnd(done.id, done.name, arguments, raw_arguments=raw, parse_error=error)
        elif kind == "message_delta":
            self._stop_raw = (event.get("delta") or {}).get("stop_reason") or self._stop_raw
            usage = event.get("usage")
            if usage is not None:
                self._has_usage = True
                self._output_tokens = int(usage.get("output_tokens", 0) or 0)
                if usage.get("input_tokens"):
                    self._input_tokens = int(usage["input_tokens"])
        elif kind == "message_stop":
            self.stopped = True

    def finish(self) -> Iterator[ProviderEvent]:
        """Usage (when reported) then ``Finish``."""
        if self._has_usage:
            yield Usage(self._input_tokens, self._output_tokens, cached_input_tokens=self._cached)
        raw = self._stop_raw
        yield settle_finish(_FINISH.get(raw, "other") if raw else None, raw, self._tool_calls > 0)


def map_anthropic_error(exc: BaseException, provider: str, key_hint: str = "") -> ProviderError:
    """Translate a failure of one request (transport.py's, or a stream's) into ``ProviderError``,
    with the texts the ``anthropic`` SDK's errors carried."""
    if isinstance(exc, StatusFailure):
        if exc.text is None:
            message = f"Error code: {exc.status}"
        elif not exc.is_json:
            message = exc.text or f"Error code: {exc.status}"
        else:
            message = f"Error code: {exc.status} - {exc.body}"
        detail = error_detail(exc.body) or message
        return status_error(exc, provider, exc.status, detail, key_hint)
    if isinstance(exc, StreamFailure):  # an ``event: error`` inside a 200 stream
        detail = error_detail(exc.body) or exc.message
        kind = json.dumps(exc.body) if exc.body is not None else ""
        transient = any(t in kind for t in _TRANSIENT_TYPES)
        return ProviderError(f"{provider}: stream error: {detail}", provider=provider, retryable=transient)
    if isinstance(exc, Unreachable):
        return connection_failed(exc.cause, provider, _TIMED_OUT if exc.timed_out else "Connection error.")
    return other_error(exc, provider)


_TIMED_OUT = (
    "Request timed out or interrupted. This could be due to a network timeout, dropped connection, "
    "or request cancellation. See https://docs.anthropic.com/en/api/errors#long-requests for more details."
)
"""The SDK's text for a request that timed out."""


async def anthropic_events(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON stream events of a streamed message (``ping`` and nameless events skipped).
    Raises ``StreamFailure`` for an ``event: error``, ValueError for data that is not JSON."""
    async for sse in server_events(response.aiter_bytes()):
        if sse.event in ("ping", None):
            continue
        if sse.event == "error":
            body: object = sse.data
            try:
                body = json.loads(sse.data)
                message = f"{body}"
            except ValueError:
                message = sse.data or f"Error code: {response.status_code}"
            raise StreamFailure(message, body)
        if sse.data:
            yield json.loads(sse.data)


class AnthropicProvider:
    """A ``Provider`` for the Anthropic messages API (or a server speaking it).

    ``base_url`` is the API root without ``/v1`` (requests go to ``/v1/messages`` under it).
    ``retry`` governs retries; a request is sent once per attempt. The HTTP client is made on
    first use, cached per loop; requests carry the headers the official SDK sends.
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
        self._retry = retry or RetryPolicy()
        self._key_hint = key_hint
        self.endpoint = HttpEndpoint(
            self.base_url, _headers(api_key or "unused", timeout_s), timeout_s=timeout_s
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one turn (see ``Provider.stream``)."""
        return retrying(lambda: self._attempt(request), self._retry)

    def _map(self, exc: BaseException) -> ProviderError:
        return map_anthropic_error(exc, self.name, self._key_hint)

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        try:
            # The body goes out as built: each turn was encoded once for the transcript.
            body = anthropic_body(request)
            response = await self.endpoint.post_stream("/v1/messages", body)
        except Exception as exc:
            raise self._map(exc) from exc
        assembler = EventAssembler()
        try:
            raw_events = mapped_stream(anthropic_events(response), self._map)
            async with aclosing(raw_events):
                async for raw in raw_events:
                    for event in assembler.feed(raw):
                        yield event
        finally:
            await close_quietly(response)
        if not assembler.stopped:
            raise ProviderError(
                f"{self.name}: the stream ended before message_stop (connection cut?)",
                provider=self.name,
                retryable=True,
            )
        for event in assembler.finish():
            yield event

    async def aclose(self) -> None:
        """Close the cached HTTP client (safe to call twice)."""
        await self.endpoint.aclose()


def _headers(api_key: str, timeout_s: float) -> dict[str, str]:
    """Every request's headers, as the SDK's ``AsyncAnthropic`` sends them (no retries of its
    own; its ``x-stainless-timeout`` names a per-request timeout that was never given)."""
    return {
        "x-stainless-timeout": "NOT_GIVEN",
        "x-stainless-retry-count": "0",
        "x-stainless-read-timeout": str(float(timeout_s)),
        "Accept": "application/json",
        "Content-Type": "application/json",
        **sdk_headers("anthropic", "AsyncAnthropic"),
        "Authorization": f"Bearer {api_key}",
        "anthropic-version": API_VERSION,
    }
