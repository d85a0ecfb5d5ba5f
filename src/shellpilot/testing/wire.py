"""How ScriptedModelServer writes a scripted turn on the wire, per protocol.

Owns: the OpenAI chat-completions and Anthropic messages encodings (SSE events, whole
messages, error bodies) of a ``Turn``. Must not touch: sockets or threads (server.py sends).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from shellpilot.provider.scripted import ToolCall, Turn, argument_chunks
from shellpilot.testing.record import WireProtocol

CallIds = Callable[[ToolCall], str]
"""Gives a scripted tool call its wire id (the call's own, or a made-up one)."""

Quirk = Literal[
    "no_usage", "no_finish_reason", "no_done", "no_tool_call_ids", "repeat_tool_call_ids", "whole_tool_calls"
]
"""OpenAI-dialect variations seen on compatible servers (Ollama, vLLM, llama.cpp), to test tolerance:
no usage chunk, no ``finish_reason``, no ``[DONE]``, tool calls without ids, ids on every chunk,
each tool call in a single chunk."""

_OPENAI_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length"}
_ANTHROPIC_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def error_body(protocol: WireProtocol, status: int, message: str) -> dict[str, Any]:
    """The JSON error body each API sends with an HTTP error ``status``."""
    if protocol == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def openai_usage(turn: Turn) -> dict[str, int]:
    """Chat-completions ``usage`` of ``turn``."""
    total = turn.input_tokens + turn.output_tokens
    return {
        "prompt_tokens": turn.input_tokens,
        "completion_tokens": turn.output_tokens,
        "total_tokens": total,
    }


def openai_stream(
    turn: Turn, body: Mapping[str, Any], call_id: CallIds, quirks: frozenset[str] = frozenset()
) -> Iterator[str]:
    """The SSE events (``data: {...}``) of ``turn`` as a chat-completions stream."""
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time())}
    base["model"] = body.get("model", "scripted")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(payload)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for piece in turn.text_chunks():
        yield chunk({"content": piece})
    for index, call in enumerate(turn.tool_calls):
        ident = call_id(call)
        head: dict[str, Any] = {"index": index, "type": "function"}
        if "no_tool_call_ids" not in quirks:
            head["id"] = ident
        raw = call.raw_arguments()
        if "whole_tool_calls" in quirks:
            yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": raw}}]})
            continue
        yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        for piece in argument_chunks(raw):
            part: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if "repeat_tool_call_ids" in quirks:
                part["id"] = ident
            yield chunk({"tool_calls": [part]})
    finish = None if "no_finish_reason" in quirks else _OPENAI_FINISH.get(turn.finish, "content_filter")
    yield chunk({}, finish)
    wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    if wants_usage and "no_usage" not in quirks:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': openai_usage(turn)})}\n\n"
    if "no_done" not in quirks:
        yield "data: [DONE]\n\n"


def anthropic_stream(turn: Turn, body: Mapping[str, Any], call_id: CallIds) -> Iterator[str]:
    """The SSE events (``event: ...`` + ``data: {...}``) of ``turn`` as a messages stream."""

    def event(name: str, payload: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps({'type': name, **payload})}\n\n"

    message = {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": 1},
    }
    yield event("message_start", {"message": message})
    yield event("ping", {})
    index = 0
    if turn.text:
        yield event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
        for piece in turn.text_chunks():
            yield event(
                "content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}}
            )
        yield event("content_block_stop", {"index": index})
        index += 1
    for call in turn.tool_calls:
        ident = call_id(call)
        block = {"type": "tool_use", "id": ident, "name": call.name, "input": {}}
        yield event("content_block_start", {"index": index, "content_block": block})
        for piece in argument_chunks(call.raw_arguments()):
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield event("content_block_delta", {"index": index, "delta": delta})
        yield event("content_block_stop", {"index": index})
        index += 1
    stop = _ANTHROPIC_STOP.get(turn.finish, "refusal")
    usage = {"output_tokens": turn.output_tokens}
    yield event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage})
    yield event("message_stop", {})


def whole_message(
    protocol: WireProtocol, turn: Turn, body: Mapping[str, Any], call_id: CallIds
) -> dict[str, Any]:
    """The non-streaming answer of ``turn`` (a chat completion, or a message)."""
    model = body.get("model", "scripted")
    if protocol == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call_id(c),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.raw_arguments()},
                }
                for c in turn.tool_calls
            ]
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": _OPENAI_FINISH.get(turn.finish)}],
            "usage": openai_usage(turn),
        }
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    for c in turn.tool_calls:
        arguments = json.loads(c.raw_arguments() or "{}")
        blocks.append(
            {
                "type": "tool_use",
                "id": call_id(c),
                "name": c.name,
                "input": arguments,
            }
        )
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": _ANTHROPIC_STOP.get(turn.finish, "refusal"),
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens},
    }
