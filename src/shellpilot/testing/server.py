"""ScriptedModelServer: a loopback HTTP server replaying scripted turns on both provider protocols.

Owns: the socket, the serving thread, the script queue and the request record. Must not touch:
shellpilot's providers or loop (it is what they talk to); nothing beyond 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from shellpilot.provider.scripted import ToolCall, Turn
from shellpilot.testing.record import RecordedRequest, WireProtocol
from shellpilot.testing.wire import (
    CallIds,
    Quirk,
    anthropic_stream,
    error_body,
    openai_stream,
    whole_message,
)

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

    def _ids_for(self, protocol: WireProtocol) -> CallIds:
        prefix = "call" if protocol == "openai" else "toolu"

        def call_id(call: ToolCall) -> str:
            if call.id:
                return call.id
            with self._lock:
                self._ids += 1
                return f"{prefix}_{self._ids:04d}"

        return call_id


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    script: ScriptedModelServer

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a cancelled stream) is normal here; anything else is shown."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

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
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""  # read first: keep-alive needs it gone
        path = self.path.split("?", 1)[0].rstrip("/")
        protocol: WireProtocol
        if path.endswith("/chat/completions"):
            protocol = "openai"
        elif path.endswith("/messages"):
            protocol = "anthropic"
        else:
            self._json(404, {"error": {"message": f"ScriptedModelServer: unknown path {path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._json(400, error_body(protocol, 400, f"request body is not JSON: {exc}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(protocol, path, headers, body, raw)
        turn, number = self.server.script._next(request)
        if turn is None:
            message = f"ScriptedModelServer: no scripted turn left for request #{number}"
            self._json(400, error_body(protocol, 400, message))
        elif turn.drop_connection:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        elif turn.error_status is not None:
            status = turn.error_status
            extra = {} if turn.retry_after_s is None else {"retry-after": str(turn.retry_after_s)}
            self._json(status, error_body(protocol, status, turn.error_message or "scripted error"), extra)
        elif body.get("stream"):
            self._stream(protocol, turn, body)
        else:
            self._json(200, whole_message(protocol, turn, body, self.server.script._ids_for(protocol)))

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
        ids = self.server.script._ids_for(protocol)
        if protocol == "openai":
            events = openai_stream(turn, body, ids, self.server.script.quirks)
        else:
            events = anthropic_stream(turn, body, ids)
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
