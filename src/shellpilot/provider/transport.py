"""The HTTP exchange under both model protocols: one streamed POST of a ready body, over httpx2.

Owns: the client per event loop (timeout, connection limits, redirects as the official SDKs set
them), the headers those SDKs send (so servers see the same requests), sending a body and the
failures of doing so (``Unreachable``, ``StatusFailure``). Must not touch: what a body holds or
what the answer means (openai.py, anthropic.py), retries (retry.py), ``ProviderError`` texts.
"""

from __future__ import annotations

import contextlib
import json
import platform
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from shellpilot.provider.loop_client import LoopClient

if TYPE_CHECKING:
    import httpx2

MAX_CONNECTIONS = 1000
MAX_KEEPALIVE = 100
"""The connection limits both SDKs give their client."""


class Unreachable(Exception):
    """The request never got an answer: ``cause`` is the transport's own error and ``timed_out``
    says whether it was a timeout."""

    def __init__(self, cause: BaseException, *, timed_out: bool) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause = cause
        self.timed_out = timed_out


class StatusFailure(Exception):
    """The server answered with an HTTP error status: ``status``, the body's ``text`` (stripped;
    None when it could not be read), ``body`` (its JSON when it is JSON, else the text) and the
    ``response`` (its headers carry ``retry-after``); ``is_json`` says which ``body`` is."""

    def __init__(self, response: httpx2.Response, text: str | None) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response
        self.status = response.status_code
        self.text = text
        self.body: object = text
        self.is_json = False
        if text is not None:
            with contextlib.suppress(ValueError):
                self.body, self.is_json = json.loads(text), True


def _os_name() -> str:
    system = platform.system().lower()
    names = {"darwin": "MacOS", "windows": "Windows", "linux": "Linux", "freebsd": "FreeBSD"}
    if system in names:
        return names[system]
    return f"Other:{system}" if system else "Unknown"


def _arch() -> str:
    machine = platform.machine().lower()
    if machine in ("arm64", "aarch64"):
        return "arm64"
    if machine == "arm":
        return "arm"
    if machine == "x86_64":
        return "x64"
    if sys.maxsize <= 2**32:
        return "x32"
    return f"other:{machine}" if machine else "unknown"


@cache
def _sdk_version(distribution: str) -> str:
    """The installed version of the SDK package whose requests these are, read from its
    metadata (the SDK itself is not imported); ``unknown`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def sdk_headers(distribution: str, client_class: str) -> dict[str, str]:
    """The identifying headers the official SDK ``distribution`` (``openai``, ``anthropic``)
    sends from its ``client_class`` (``AsyncOpenAI``...): user agent, language, versions, platform."""
    version = _sdk_version(distribution)
    return {
        "User-Agent": f"{client_class}/Python {version}",
        "X-Stainless-Lang": "python",
        "X-Stainless-Package-Version": version,
        "X-Stainless-OS": _os_name(),
        "X-Stainless-Arch": _arch(),
        "X-Stainless-Runtime": platform.python_implementation(),
        "X-Stainless-Runtime-Version": platform.python_version(),
        "X-Stainless-Async": "async:asyncio",
    }


class HttpEndpoint:
    """One server: ``base_url`` (the path prefix requests are joined to), the ``headers`` every
    request carries and ``timeout_s`` (seconds, for connecting and for each read and write).

    The httpx2 client is made on first use in an event loop and kept for that loop (its
    connections belong to it); ``aclose`` closes it.
    """

    def __init__(self, base_url: str, headers: Mapping[str, str], *, timeout_s: float) -> None:
        self.base_url = base_url
        self.headers = dict(headers)
        self.timeout_s = timeout_s
        self._client = LoopClient(self._make_client)

    def client(self) -> httpx2.AsyncClient:
        """The cached httpx2 client of the running event loop (made on first call)."""
        return self._client.get()

    def _make_client(self) -> httpx2.AsyncClient:
        import httpx2

        return httpx2.AsyncClient(
            base_url=self.base_url,
            headers=self.headers,
            timeout=self.timeout_s,
            limits=httpx2.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_KEEPALIVE),
            follow_redirects=True,
        )

    async def post_stream(self, path: str, body: bytes) -> httpx2.Response:
        """POST ``body`` (JSON bytes) to ``path`` under the base URL and return the response with
        its body still to be streamed; close it with ``await response.aclose()``.

        Raises ``Unreachable`` when no answer came (connection, TLS, timeout) and
        ``StatusFailure`` for a status of 400 or more (its body read, the response closed).
        """
        import httpx2

        client = self.client()
        request = client.build_request("POST", path, content=body)
        try:
            response = await client.send(request, stream=True)
        except httpx2.TimeoutException as exc:
            raise Unreachable(exc, timed_out=True) from exc
        except Exception as exc:
            raise Unreachable(exc, timed_out=False) from exc
        if response.status_code < 400:
            return response
        try:
            await response.aread()
            text: str | None = response.text.strip()
        except Exception:
            text = None
        finally:
            await response.aclose()
        raise StatusFailure(response, text)

    async def aclose(self) -> None:
        """Close the client of the running loop (safe to call twice)."""
        await self._client.aclose()


__all__ = ["HttpEndpoint", "StatusFailure", "Unreachable", "sdk_headers"]
