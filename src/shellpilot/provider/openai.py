"""OpenAI-compatible chat-completions provider (official ``openai`` SDK, streaming tool calls).

Owns: request mapping, chunk assembly and the SDK-exception boundary for any server that speaks
``POST {base_url}/chat/completions`` (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter...).
Must not touch: config or the environment (registry.py passes key and URL); import ``openai`` lazily.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
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
    connection_failed,
    error_detail,
    mapped_stream,
    other_error,
    status_error,
)
from shellpilot.provider.loop_client import LoopClient
from shellpilot.provider.retry import RetryPolicy, retrying

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk

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
    """Turn chat-completion chunks into provider events, tolerating server dialects.

    Handles: tool-call chunks without ids after the first (matched by ``index``), servers that
    never send an id (one is made up), a whole call in one chunk, several calls sharing index 0
    but with distinct ids, a missing ``finish_reason`` (inferred), missing usage.
    """

    def __init__(self) -> None:
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._finish_raw: str | None = None
        self._usage: Usage | None = None

    def feed(self, chunk: ChatCompletionChunk) -> Iterator[ProviderEvent]:
        """Events for one chunk, in order."""
        usage = getattr(chunk, "usage", None)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            details = getattr(usage, "prompt_tokens_details", None)
            self._usage = Usage(
                input_tokens=int(usage.prompt_tokens or 0),
                output_tokens=int(usage.completion_tokens or 0),
                cached_input_tokens=int(getattr(details, "cached_tokens", 0) or 0),
            )
        for choice in chunk.choices or ():
            if (getattr(choice, "index", 0) or 0) != 0:
                continue
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    yield TextDelta(delta.content)
                for tool_call in delta.tool_calls or ():
                    yield from self._tool_chunk(tool_call)
            if choice.finish_reason:
                self._finish_raw = choice.finish_reason
                yield from self._end_calls()

    def _tool_chunk(self, tool_call: Any) -> Iterator[ProviderEvent]:
        index = tool_call.index if isinstance(tool_call.index, int) else 0
        call = self._by_index.get(index)
        new_id = tool_call.id or None
        if call is None or call.ended or (new_id and call.id != new_id and (call.arguments or call.name)):
            if call is not None and not call.ended:
                yield from self._end(call)
            call = _Call(id=new_id or ascending("call"))
            self._by_index[index] = call
            self._calls.append(call)
        function = tool_call.function
        if function is not None:
            if function.name and not call.started:
                call.name += function.name
            if function.arguments:
                call.arguments.append(function.arguments)
        if not call.started and call.name:
            call.started = True
            yield ToolCallStart(call.id, call.name)
            if call.arguments:
                yield ToolCallDelta(call.id, "".join(call.arguments))
        elif call.started and function is not None and function.arguments:
            yield ToolCallDelta(call.id, function.arguments)

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
    """Translate an ``openai`` SDK (or transport) exception into ``ProviderError``."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        detail = error_detail(exc.body) or exc.message
        return status_error(exc, provider, exc.status_code, detail, key_hint)
    if isinstance(exc, openai.APIConnectionError):
        return connection_failed(exc, provider, exc.message)
    if isinstance(exc, openai.APIError):
        detail = error_detail(exc.body) or exc.message
        kind = json.dumps(exc.body) if exc.body is not None else ""
        transient = any(word in kind for word in ("server_error", "overloaded", "rate_limit"))
        return ProviderError(f"{provider}: stream error: {detail}", provider=provider, retryable=transient)
    return other_error(exc, provider)


class OpenAIProvider:
    """A ``Provider`` for one OpenAI-compatible endpoint.

    ``base_url`` includes the API prefix (``http://localhost:11434/v1``). The SDK's own retries
    are off; ``retry`` governs (transient errors before any output). ``key_hint`` names where
    the key came from, for 401 messages. The SDK client is made on first use and cached per
    event loop. ``include_usage`` asks for a final usage chunk (``stream_options``). A request's
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
    ) -> None:
        self.name = name
        self.base_url = base_url or DEFAULT_BASE_URL
        self._api_key = api_key or NO_KEY
        self._timeout_s = timeout_s
        self._retry = retry or RetryPolicy()
        self._key_hint = key_hint
        self._include_usage = include_usage
        official = self.base_url.rstrip("/") == DEFAULT_BASE_URL
        self._max_tokens_field = "max_completion_tokens" if official else "max_tokens"
        self._client = LoopClient(self._make_client)

    def client(self) -> AsyncOpenAI:
        """The cached SDK client of the running event loop (made on first call)."""
        return self._client.get()

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            api_key=self._api_key, base_url=self.base_url, timeout=self._timeout_s, max_retries=0
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one turn (see ``Provider.stream``)."""
        return retrying(lambda: self._attempt(request), self._retry)

    async def _attempt(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        from openai import AsyncStream
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        try:
            body = openai_body(
                request, include_usage=self._include_usage, max_tokens_field=self._max_tokens_field
            )
            # The raw request path: the body goes out as built, without the SDK's per-message
            # transform of ``chat.completions.create`` (which walks the whole conversation).
            stream = await self.client().post(
                "/chat/completions",
                content=body,
                cast_to=ChatCompletion,
                stream=True,
                stream_cls=AsyncStream[ChatCompletionChunk],
                options={"security": {"bearer_auth": True}},
            )
        except Exception as exc:
            raise map_openai_error(exc, self.name, self._key_hint) from exc
        assembler = ChunkAssembler()
        chunks = mapped_stream(stream, lambda exc: map_openai_error(exc, self.name, self._key_hint))
        async with aclosing(chunks):
            async for chunk in chunks:
                for event in assembler.feed(chunk):
                    yield event
        for event in assembler.finish():
            yield event

    async def aclose(self) -> None:
        """Close the cached SDK client (safe to call twice)."""
        await self._client.aclose()
