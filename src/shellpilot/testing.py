"""A real local model server for tests: OpenAI chat-completions and Anthropic messages over HTTP.

Owns: ``ScriptedModelServer`` (loopback, random port, a background thread), its wire encoding of
scripted turns, and the record of every request it got. Must not touch: shellpilot's providers
or loop (it is what they talk to); only stdlib networking, nothing beyond 127.0.0.1.

Use it from your own tests to check a command or an agent end to end without a real model::

    from shellpilot.testing import ScriptedModelServer, ToolCall, Turn

    def test_my_command(tmp_path):
        turns = [
            Turn(tool_calls=[ToolCall("bash", {"command": "ls"})]),
            Turn(text="Done."),
        ]
        with ScriptedModelServer(turns) as server:
            config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/any"}
            ...  # write config to shellpilot.json, run `shellpilot run ...`
            assert server.requests[1].tool_results()[0].content  # the model saw the ls output

``server.openai_base_url`` (``http://127.0.0.1:<port>/v1``) and ``server.anthropic_base_url``
(``http://127.0.0.1:<port>``) are the ``base_url`` values for either protocol; both are served
at once. ``Turn(error_status=500)`` answers one request with that HTTP error,
``Turn(drop_connection=True)`` closes the connection unanswered, ``Turn(cut_after=3)`` after
three SSE events. When the script runs out the
server answers 400 with a message naming the request number.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self

from shellpilot.provider.scripted import ToolCall, Turn, argument_chunks

WireProtocol = Literal["openai", "anthropic"]
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


@dataclass(frozen=True)
class RecordedToolResult:
    """A tool result the client sent back; ``is_error`` is None on the OpenAI wire (no flag there)."""

    call_id: str
    content: str
    is_error: bool | None


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server got it: ``headers`` have lower-case names, ``body`` is the JSON.

    Properties ``messages`` and ``system`` read the body; the methods ``tool_names()``,
    ``tool_choice()``, ``user_texts()`` and ``tool_results()`` read it the same way on both
    protocols.
    """

    protocol: WireProtocol
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's ``messages`` list, as sent."""
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        """The system prompt (OpenAI: the system messages joined; Anthropic: ``system``)."""
        if self.protocol == "anthropic":
            return _text_of(self.body.get("system") or "")
        return "\n".join(_text_of(m.get("content")) for m in self.messages if m.get("role") == "system")

    def tool_names(self) -> list[str]:
        """Names of the tools offered to the model."""
        tools = self.body.get("tools") or []
        if self.protocol == "openai":
            return [t.get("function", {}).get("name", "") for t in tools]
        return [t.get("name", "") for t in tools]

    def tool_choice(self) -> str | None:
        """``auto`` / ``required`` / ``none`` (Anthropic's ``any`` reads as ``required``), or None."""
        choice = self.body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"any": "required"}.get(choice.get("type", ""), choice.get("type"))
        return choice if isinstance(choice, str) else None

    def user_texts(self) -> list[str]:
        """Every text the user side sent, in order (tool results excluded)."""
        out: list[str] = []
        for message in self.messages:
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                out.extend(b.get("text", "") for b in content if b.get("type") == "text")
            else:
                out.append(_text_of(content))
        return out

    def tool_results(self) -> list[RecordedToolResult]:
        """Every tool result in the request, in order, on either protocol."""
        out: list[RecordedToolResult] = []
        for message in self.messages:
            if self.protocol == "openai" and message.get("role") == "tool":
                out.append(
                    RecordedToolResult(
                        message.get("tool_call_id", ""), _text_of(message.get("content")), None
                    )
                )
            elif self.protocol == "anthropic" and isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        out.append(
                            RecordedToolResult(
                                block.get("tool_use_id", ""),
                                _text_of(block.get("content")),
                                bool(block.get("is_error", False)),
                            )
                        )
        return out


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


ServerScript = Turn | Callable[[RecordedRequest], Turn]
"""A turn, or a function choosing the turn from the request it answers (runs in the server thread)."""


class ScriptedModelServer:
    """A loopback HTTP server that replays scripted turns on both provider protocols.

    ``POST /v1/chat/completions`` answers in OpenAI's format and ``POST /v1/messages`` in
    Anthropic's, streaming (SSE) or not, as the request asks. Turns are consumed in order
    across both. ``requests`` lists every request received. Use as a context manager (or
    ``start()`` / ``stop()``); the port is chosen by the OS.
    """

    def __init__(
        self, turns: Iterable[ServerScript] = (), *, quirks: Iterable[Quirk] = (), host: str = "127.0.0.1"
    ) -> None:
        self._turns: deque[ServerScript] = deque(turns)
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self.quirks = frozenset(quirks)
        self._host = host
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._ids = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port on loopback and serve in a daemon thread."""
        if self._httpd is not None:
            return self
        httpd = _HTTPServer((self._host, 0), _Handler)
        httpd.script = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection (safe to call twice)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.close_all()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (the server must be started)."""
        if self._httpd is None:
            raise RuntimeError("ScriptedModelServer is not running; use `with ScriptedModelServer(...)`.")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK ``base_url``: ``http://127.0.0.1:<port>/v1``."""
        return self.url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK ``base_url``: ``http://127.0.0.1:<port>``."""
        return self.url

    def base_url(self, protocol: WireProtocol) -> str:
        """The ``base_url`` for ``protocol``."""
        return self.openai_base_url if protocol == "openai" else self.anthropic_base_url

    def provider_config(self, protocol: WireProtocol, *, api_key: str = "test-key") -> dict[str, Any]:
        """A ``provider.<name>`` entry for shellpilot.json pointing at this server."""
        return {"type": protocol, "base_url": self.base_url(protocol), "api_key": api_key}

    # -- script and record -------------------------------------------------------------------

    def add(self, *turns: ServerScript) -> None:
        """Append turns to the script (thread-safe)."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        """Turns not yet replayed."""
        with self._lock:
            return len(self._turns)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def _next(self, request: RecordedRequest) -> tuple[Turn | None, int]:
        with self._lock:
            self._requests.append(request)
            number = len(self._requests)
            script = self._turns.popleft() if self._turns else None
        if script is None:
            return None, number
        return (script(request) if callable(script) else script), number

    def _call_id(self, protocol: WireProtocol, call: ToolCall) -> str:
        if call.id:
            return call.id
        with self._lock:
            self._ids += 1
            return f"{'call' if protocol == 'openai' else 'toolu'}_{self._ids:04d}"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    script: ScriptedModelServer

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()

    def close_all(self) -> None:
        with self.open_lock:
            sockets, self.open = list(self.open), set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = 30

    def setup(self) -> None:
        super().setup()
        # Many small SSE writes: without this, Nagle + delayed ACK add ~40 ms per turn.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.open_lock:
            self.server.open.add(self.connection)

    def finish(self) -> None:
        with self.server.open_lock:
            self.server.open.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test output clean

    def do_GET(self) -> None:
        self._json(
            404, {"error": {"message": f"ScriptedModelServer: no GET {self.path}", "type": "not_found"}}
        )

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        protocol: WireProtocol
        if path.endswith("/chat/completions"):
            protocol = "openai"
        elif path.endswith("/messages"):
            protocol = "anthropic"
        else:
            self._json(404, {"error": {"message": f"ScriptedModelServer: unknown path {path}"}})
            return
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._json(400, _error_body(protocol, 400, f"request body is not JSON: {exc}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(protocol, path, headers, body)
        turn, number = self.server.script._next(request)
        if turn is None:
            message = f"ScriptedModelServer: no scripted turn left for request #{number}"
            self._json(400, _error_body(protocol, 400, message))
        elif turn.drop_connection:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        elif turn.error_status is not None:
            status = turn.error_status
            extra = {"retry-after": "0"} if status == 429 else {}
            self._json(status, _error_body(protocol, status, turn.error_message or "scripted error"), extra)
        elif body.get("stream"):
            self._stream(protocol, turn, body)
        else:
            self._json(200, self._whole(protocol, turn, body))

    # -- wire encoding -----------------------------------------------------------------------

    def _json(self, status: int, payload: Mapping[str, Any], extra: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, protocol: WireProtocol, turn: Turn, body: Mapping[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        events = (
            _openai_events(self, turn, body) if protocol == "openai" else _anthropic_events(self, turn, body)
        )
        try:
            for number, event in enumerate(events):
                if turn.cut_after is not None and number >= turn.cut_after:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if turn.chunk_delay_s > 0:
                    time.sleep(turn.chunk_delay_s)
                data = event.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True  # the client went away (cancelled); that is fine

    def _whole(self, protocol: WireProtocol, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        model = body.get("model", "scripted")
        script = self.server.script
        if protocol == "openai":
            message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
            if turn.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": script._call_id("openai", c),
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
                "choices": [
                    {"index": 0, "message": message, "finish_reason": _OPENAI_FINISH.get(turn.finish)}
                ],
                "usage": _openai_usage(turn),
            }
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        for c in turn.tool_calls:
            arguments = json.loads(c.raw_arguments() or "{}")
            blocks.append(
                {
                    "type": "tool_use",
                    "id": script._call_id("anthropic", c),
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


def _error_body(protocol: WireProtocol, status: int, message: str) -> dict[str, Any]:
    if protocol == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def _openai_usage(turn: Turn) -> dict[str, int]:
    total = turn.input_tokens + turn.output_tokens
    return {
        "prompt_tokens": turn.input_tokens,
        "completion_tokens": turn.output_tokens,
        "total_tokens": total,
    }


def _openai_events(handler: _Handler, turn: Turn, body: Mapping[str, Any]) -> Iterator[str]:
    quirks = handler.server.script.quirks
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time())}
    base["model"] = body.get("model", "scripted")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        payload = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(payload)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for piece in turn.text_chunks():
        yield chunk({"content": piece})
    for index, call in enumerate(turn.tool_calls):
        call_id = handler.server.script._call_id("openai", call)
        head: dict[str, Any] = {"index": index, "type": "function"}
        if "no_tool_call_ids" not in quirks:
            head["id"] = call_id
        raw = call.raw_arguments()
        if "whole_tool_calls" in quirks:
            yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": raw}}]})
            continue
        yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]})
        for piece in argument_chunks(raw):
            part: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if "repeat_tool_call_ids" in quirks:
                part["id"] = call_id
            yield chunk({"tool_calls": [part]})
    finish = None if "no_finish_reason" in quirks else _OPENAI_FINISH.get(turn.finish, "content_filter")
    yield chunk({}, finish)
    wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    if wants_usage and "no_usage" not in quirks:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': _openai_usage(turn)})}\n\n"
    if "no_done" not in quirks:
        yield "data: [DONE]\n\n"


def _anthropic_events(handler: _Handler, turn: Turn, body: Mapping[str, Any]) -> Iterator[str]:
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
        call_id = handler.server.script._call_id("anthropic", call)
        block = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
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


__all__ = [
    "Quirk",
    "RecordedRequest",
    "RecordedToolResult",
    "ScriptedModelServer",
    "ServerScript",
    "ToolCall",
    "Turn",
    "WireProtocol",
]
