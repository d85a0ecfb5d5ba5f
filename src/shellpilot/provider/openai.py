"""OpenAI-compatible chat-completions provider (streaming tool calls, over httpx2).

Owns: request mapping, chunk assembly and the failure boundary for any server that speaks
``POST {base_url}/chat/completions`` (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter...), sending
what the official ``openai`` SDK sends without importing it.
Must not touch: config or the environment (registry.py passes key and URL); HTTP (transport.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from shellpilot.errors import ProviderError
from shellpilot.ids import ascending
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

DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_KEY = "unused"
"""Sent as the key to servers configured without one (local servers accept anything)."""

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "other",
}


def openai_message(message: Message) -> dict[str, Any] | None:
    """One message as a chat-completions ``messages`` entry; None for an assistant turn with
    neither text nor tool calls (left out). A failed tool result is prefixed ``Error:`` (the
    protocol has no error flag)."""
    if isinstance(message, UserMessage):
        return {"role": "user", "content": message.content}
    if isinstance(message, AssistantMessage):
        entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            entry["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
        elif not message.content:
            return None
        return entry
    if isinstance(message, ToolResultMessage):
        content = message.content
        if message.is_error and not content.lower().startswith("error"):
            content = f"Error: {content}"
        return {"role": "tool", "tool_call_id": message.call_id, "content": content}
    assert_never(message)


def to_openai_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """Map the request's system prompt and messages to chat-completions ``messages``."""
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        entry = openai_message(message)
        if entry is not None:
            out.append(entry)
    return out


def _encode_message(encoded: list[str], message: Message) -> None:
    """The fold that keeps each message's wire JSON between requests (see ``Transcript.fold``)."""
    entry = openai_message(message)
    if entry is not None:
        encoded.append(encode(entry))


def _params(
    request: ModelRequest, messages: Any, *, include_usage: bool, max_tokens_field: str
) -> dict[str, Any]:
    # The keys in the order the SDK's own ``chat.completions.create`` sends them.
    params: dict[str, Any] = {"model": request.model, "stream": True, "messages": messages}
    if request.max_tokens is not None:
        params[max_tokens_field] = request.max_tokens
    if include_usage:
        params["stream_options"] = {"include_usage": True}
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.tools:
        params["tool_choice"] = request.tool_choice
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in request.tools
        ]
    return params


def to_openai_params(
    request: ModelRequest, *, include_usage: bool = True, max_tokens_field: str = "max_tokens"
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /chat/completions``, keys in the order sent.

    ``max_tokens_field``: OpenAI's own API wants ``max_completion_tokens`` (reasoning models
    reject ``max_tokens``); compatible servers mostly know only ``max_tokens``.
    """
    return _params(
        request,
        to_openai_messages(request),
        include_usage=include_usage,
        max_tokens_field=max_tokens_field,
    )


def openai_body(
    request: ModelRequest, *, include_usage: bool = True, max_tokens_field: str = "max_tokens"
) -> bytes:
    """``to_openai_params`` encoded as the SDK encodes it, each message encoded once per
    transcript (kept between requests that extend it). Raises UnicodeEncodeError for text
    with unpaired surrogates."""
    encoded = request.messages.fold(_encode_message, list)
    system = [encode({"role": "system", "content": request.system})] if request.system else []
    messages = json_array([*system, *encoded])
    params = _params(request, None, include_usage=include_usage, max_tokens_field=max_tokens_field)
    return body_bytes(params, {"messages": messages})


@dataclass
class _Call:
    id: str
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    started: bool = False
    ended: bool = False


class ChunkAssembler:
    """Turn chat-completion chunks (each a chunk's JSON object) into provider events, tolerating
    server dialects.

    Handles: tool-call chunks without ids after the first (matched by ``index``), servers that
    never send an id (one is made up), a whole call in one chunk, several calls sharing index 0
    but with distinct ids, a missing ``finish_reason`` (inferred), missing usage.
    """

    def __init__(self) -> None:
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._finish_raw: str | None = None
        self._usage: Usage | None = None

    def feed(self, chunk: dict[str, Any]) -> Iterator[ProviderEvent]:
        """Events for one chunk, in order."""
        usage = chunk.get("usage")
        if isinstance(usage, dict) and usage.get("prompt_tokens") is not None:
            details = usage.get("prompt_tokens_details")
            cached = details.get("cached_tokens") if isinstance(details, dict) else 0
            self._usage = Usage(
                input_tokens=int(usage["prompt_tokens"] or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cached_input_tokens=int(cached or 0),
            )
        for choice in chunk.get("choices") or ():
            if (choice.get("index", 0) or 0) != 0:
                continue
            delta = choice.get("delta")
            if delta is not None:
                if delta.get("content"):
                    yield TextDelta(delta["content"])
                for tool_call in delta.get("tool_calls") or ():
                    yield from self._tool_chunk(tool_call)
            if choice.get("finish_reason"):
                self._finish_raw = choice["finish_reason"]
                yield from self._end_calls()

    def _tool_chunk(self, tool_call: dict[str, Any]) -> Iterator[ProviderEvent]:
        index = tool_call.get("index")
        index = index if isinstance(index, int) else 0
        call = self._by_index.get(index)
        new_id = tool_call.get("id") or None
        if call is None or call.ended or (new_id and call.id != new_id and (call.arguments or call.name)):
            if call is not None and not call.ended:
                yield from self._end(call)
            call = _Call(id=new_id or ascending("call"))
            self._by_index[index] = call
            self._calls.append(call)
        function = tool_call.get("function")
        if function is not None:
            if function.get("name") and not call.started:
                call.name += function["name"]
            if function.get("arguments"):
                call.arguments.append(function["arguments"])
        if not call.started and call.name:
            call.started = True
            yield ToolCallStart(call.id, call.name)
            if call.arguments:
                yield ToolCallDelta(call.id, "".join(call.arguments))
        elif call.started and function is not None and function.get("arguments"):
            yield ToolCallDelta(call.id, function["arguments"])

    def _end(self, call: _Call) -> Iterator[ProviderEvent]:
        call.ended = True
        if not call.started:
            call.started = True
            yield ToolCallStart(call.id, call.name)
        raw = "".join(call.arguments)
        arguments, error = parse_arguments(raw)
        yield ToolCallEnd(call.id, call.name, arguments, raw_arguments=raw, parse_error=error)

    def _end_calls(self) -> Iterator[ProviderEvent]:
        for call in self._calls:
            if not call.ended:
                yield from self._end(call)

    def finish(self) -> Iterator[ProviderEvent]:
        """The closing events once the stream ended: open calls, usage, then ``Finish``."""
        yield from self._end_calls()
        if self._usage is not None:
            yield self._usage
        raw = self._finish_raw
        yield settle_finish(_FINISH.get(raw, "other") if raw else None, raw, bool(self._calls))


def map_openai_error(exc: BaseException, provider: str, key_hint: str = "") -> ProviderError:
    """Translate a failure of one request (transport.py's, or a stream's) into ``ProviderError``,
    with the texts the ``openai`` SDK's errors carried."""
    if isinstance(exc, StatusFailure):
        body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else exc.body
        detail = error_detail(body) or f"Error code: {exc.status}"
        return status_error(exc, provider, exc.status, detail, key_hint)
    if isinstance(exc, Unreachable):
        message = "Request timed out." if exc.timed_out else "Connection error."
        return connection_failed(exc.cause, provider, message)
    if isinstance(exc, StreamFailure):
        detail = error_detail(exc.body) or exc.message
        kind = json.dumps(exc.body) if exc.body is not None else ""
        transient = any(word in kind for word in ("server_error", "overloaded", "rate_limit"))
        return ProviderError(f"{provider}: stream error: {detail}", provider=provider, retryable=transient)
    return other_error(exc, provider)


def _unreachable(exc: Exception) -> Unreachable | None:
    """``exc`` as ``Unreachable`` when reading the stream lost the connection or timed out
    (the errors the SDK's stream reported as connection errors), else None."""
    import ssl

    import anyio
    import httpx2

    if isinstance(exc, httpx2.TimeoutException):
        return Unreachable(exc, timed_out=True)
    if isinstance(exc, httpx2.RequestError | ssl.SSLError | anyio.EndOfStream):
        return Unreachable(exc, timed_out=False)
    return None


async def openai_chunks(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON chunks of a streamed chat completion, up to ``data: [DONE]`` (the rest of the
    body is read so the connection can be reused). Raises ``StreamFailure`` for a chunk holding
    an ``error``, ``Unreachable`` when the connection fails, ValueError for data that is not JSON."""
    body = response.aiter_bytes()
    try:
        async for event in server_events(body):
            if event.data.startswith("[DONE]"):
                if response.http_version == "HTTP/1.1":
                    async for _ in body:
                        pass
                return
            data = json.loads(event.data)
            if isinstance(data, dict) and data.get("error"):
                error = data["error"]
                message = error.get("message") if isinstance(error, dict) else None
                if not message or not isinstance(message, str):
                    message = "An error occurred during streaming"
                raise StreamFailure(message, error)
            yield data
    except Exception as exc:
        lost = _unreachable(exc)
        if lost is None:
            raise
        raise lost from exc


class OpenAIProvider:
    """A ``Provider`` for one OpenAI-compatible endpoint.

    ``base_url`` includes the API prefix (``http://localhost:11434/v1``). ``retry`` governs
    retries (transient errors before any output); a request is sent once per attempt.
    ``key_hint`` names where the key came from, for 401 messages. The HTTP client is made on
    first use and cached per event loop; requests carry the headers the official SDK sends.
    ``headers`` are added to every request (``OpenAI-Organization``...).
    ``include_usage`` asks for a final usage chunk (``stream_options``). A request's
    ``max_tokens`` goes out as ``max_completion_tokens`` to api.openai.com, ``max_tokens`` elsewhere.
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
        include_usage: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url or DEFAULT_BASE_URL
        self._retry = retry or RetryPolicy()
        self._key_hint = key_hint
        self._include_usage = include_usage
        official = self.base_url.rstrip("/") == DEFAULT_BASE_URL
        self._max_tokens_field = "max_completion_tokens" if official else "max_tokens"
        sent = {**_headers(api_key or NO_KEY, timeout_s), **(headers or {})}
        self.endpoint = HttpEndpoint(self.base_url, sent, timeout_s=timeout_s)

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one turn (see ``Provider.stream``)."""
        return retrying(lambda: self._attempt(request), self._retry)

    def _map(self, exc: BaseException) -> ProviderError:
        return map_openai_error(exc, self.name, self._key_hint)

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        try:
            # The body goes out as built: each message was encoded once for the transcript.
            body = openai_body(
                request, include_usage=self._include_usage, max_tokens_field=self._max_tokens_field
            )
            response = await self.endpoint.post_stream("/chat/completions", body)
        except Exception as exc:
            raise self._map(exc) from exc
        try:
            assembler = ChunkAssembler()
            chunks = mapped_stream(openai_chunks(response), self._map)
            async with aclosing(chunks):
                async for chunk in chunks:
                    for event in assembler.feed(chunk):
                        yield event
        finally:
            await close_quietly(response)
        for event in assembler.finish():
            yield event

    async def aclose(self) -> None:
        """Close the cached HTTP client (safe to call twice)."""
        await self.endpoint.aclose()


def _headers(api_key: str, timeout_s: float) -> dict[str, str]:
    """Every request's headers, as the SDK's ``AsyncOpenAI`` sends them (no retries of its own)."""
    return {
        "x-stainless-retry-count": "0",
        "x-stainless-read-timeout": str(float(timeout_s)),
        "Accept": "application/json",
        "Content-Type": "application/json",
        **sdk_headers("openai", "AsyncOpenAI"),
        "Authorization": f"Bearer {api_key}",
    }
