"""MCP servers from config: lazy start, prompt listing, prompt fetching, clean shutdown.

Owns: one connection per configured server (official ``mcp`` SDK, imported inside
functions). Must not touch: commands or expansion; a failing server is a warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from shellpilot.command.arguments import split_arguments
from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import PromptArgumentSpec
from shellpilot.config.model import McpLocalConfig, McpRemoteConfig
from shellpilot.errors import CommandArgumentError, TemplateError

STDERR_TAIL = 400
"""Characters of a failed local server's stderr quoted in its warning."""
REMOTE_TIMEOUT_S = 30.0
"""Connect, write and pool timeout of a remote server's HTTP client, in seconds."""
REMOTE_READ_TIMEOUT_S = 300.0
"""Read timeout of a remote server's HTTP client, in seconds: a server may hold a stream open."""


@dataclass(frozen=True)
class McpPrompt:
    """A prompt offered by a server: name, description and declared arguments in order."""

    server: str
    name: str
    description: str | None = None
    arguments: list[PromptArgumentSpec] = field(default_factory=list)


def bind_arguments(command: str, specs: Sequence[PromptArgumentSpec], raw: str) -> dict[str, str]:
    """Split ``raw`` and bind the values to ``specs`` by position; the last takes the rest.

    Raises CommandArgumentError naming the first required argument left without a value
    (before anything is sent to a server or a model).
    """
    values = split_arguments(raw)
    bound: dict[str, str] = {}
    for index, spec in enumerate(specs):
        if index >= len(values):
            if spec.required:
                raise CommandArgumentError(
                    command,
                    spec.name,
                    f'/{command}: missing required argument "{spec.name}" '
                    f"(usage: /{command} " + " ".join(f"<{s.name}>" for s in specs) + ")",
                )
            continue
        last = index == len(specs) - 1
        bound[spec.name] = " ".join(values[index:]) if last else values[index]
    return bound


class _Connection:
    """One server's client, owned by a background task so the SDK's scopes stay in one task."""

    def __init__(self, name: str, config: McpLocalConfig | McpRemoteConfig, cwd: Path | None) -> None:
        self.name = name
        self.config = config
        self.cwd = cwd
        self.client: Any = None
        self.error: BaseException | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr: IO[str] | None = None

    def _transport(self) -> Any:
        if isinstance(self.config, McpLocalConfig):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=self.config.command[0],
                args=list(self.config.command[1:]),
                env=dict(self.config.environment) or None,
                cwd=self.cwd,
            )
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            return stdio_client(params, errlog=self._stderr)
        return _remote(self.config.url, dict(self.config.headers))

    async def _own(self) -> None:
        from mcp import Client

        try:
            async with Client(self._transport()) as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # reported as a warning; cancellation re-raised below
            if self.error is None:
                self.error = exc
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.client = None
            self._ready.set()

    async def start(self) -> None:
        """Start and wait up to the configured timeout; sets ``error`` on failure."""
        self._task = asyncio.create_task(self._own(), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.timeout_ms / 1000)
        except TimeoutError:
            self.error = TimeoutError(f"did not start within {self.config.timeout_ms} ms")
            await self.close(force=True)

    def stderr_tail(self) -> str:
        """The end of a local server's stderr (for warnings)."""
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.seek(0)
            return self._stderr.read()[-STDERR_TAIL:].strip()
        return ""

    async def close(self, *, force: bool = False) -> None:
        """Stop the server (closing the client ends the child process); ``force`` cancels
        at once instead of letting the SDK shut the session down politely."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None and not task.done():
            try:
                if force:
                    raise TimeoutError
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, Exception):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None


@contextlib.asynccontextmanager
async def _remote(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(REMOTE_TIMEOUT_S, read=REMOTE_READ_TIMEOUT_S)
    async with (
        httpx2.AsyncClient(headers=headers or None, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup) and error.exceptions:
        return _describe(error.exceptions[0])
    return str(error) or type(error).__name__


class McpManager:
    """The configured MCP servers of one project, for their prompts.

    Servers start on first use (``prompts()``), concurrently, each within its
    ``timeout_ms``; one that fails or times out adds to ``warnings`` and is left out.
    Use as ``async with McpManager(config.mcp) as mcp:`` or call ``aclose()``.
    """

    def __init__(self, servers: Mapping[str, McpLocalConfig | McpRemoteConfig], *, cwd: Path | None = None):
        self._servers = {name: cfg for name, cfg in servers.items() if cfg.enabled}
        self._cwd = cwd
        self._connections: dict[str, _Connection] = {}
        self._started = False
        self._lock = asyncio.Lock()
        self.warnings: list[LoadWarning] = []

    @property
    def configured(self) -> bool:
        """True when at least one enabled server is configured."""
        return bool(self._servers)

    async def _start(self) -> None:
        async with self._lock:
            if self._started:
                return
            self._started = True
            connections = [_Connection(n, c, self._cwd) for n, c in self._servers.items()]
            await asyncio.gather(*(c.start() for c in connections))
            for conn in connections:
                if conn.client is not None and conn.error is None:
                    self._connections[conn.name] = conn
                    continue
                detail = _describe(conn.error) if conn.error else "exited during start-up"
                tail = conn.stderr_tail()
                message = f"server did not start: {detail}" + (f" (stderr: {tail})" if tail else "")
                self.warnings.append(LoadWarning(message, f"mcp:{conn.name}"))
                await conn.close()

    async def prompts(self) -> list[McpPrompt]:
        """Every prompt of every running server, servers in config order."""
        await self._start()
        result: list[McpPrompt] = []
        for name, conn in self._connections.items():
            try:
                result.extend(await self._list(name, conn))
            except Exception as exc:
                self.warnings.append(LoadWarning(f"listing prompts failed: {_describe(exc)}", f"mcp:{name}"))
        return result

    async def _list(self, server: str, conn: _Connection) -> list[McpPrompt]:
        found: list[McpPrompt] = []
        cursor: str | None = None
        while True:
            page = await conn.client.list_prompts(cursor=cursor)
            for prompt in page.prompts:
                specs = [
                    PromptArgumentSpec(name=a.name, description=a.description, required=bool(a.required))
                    for a in prompt.arguments or []
                ]
                found.append(McpPrompt(server, prompt.name, prompt.description, specs))
            cursor = page.next_cursor
            if not cursor:
                return found

    async def get_prompt(self, server: str, name: str, arguments: Mapping[str, str]) -> str:
        """Render a prompt; its text contents joined with newlines.

        Raises TemplateError (origin ``mcp:<server>``) if the server is gone or fails.
        """
        await self._start()
        conn = self._connections.get(server)
        if conn is None or conn.client is None:
            raise TemplateError("the MCP server is not running", origin=f"mcp:{server}")
        try:
            result = await conn.client.get_prompt(name, dict(arguments))
        except Exception as exc:
            raise TemplateError(f'prompt "{name}" failed: {_describe(exc)}', origin=f"mcp:{server}") from exc
        texts = [m.content.text for m in result.messages if getattr(m.content, "type", None) == "text"]
        return "\n".join(texts)

    async def aclose(self) -> None:
        """Stop every server this manager started."""
        connections, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections))

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
