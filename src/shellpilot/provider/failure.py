"""Helpers shared by both protocols for turning failures into ``ProviderError`` text.

Owns: reading error bodies, recognising transport errors, the ``ProviderError`` texts both
protocols share (HTTP status, connection), an error event inside a stream (``StreamFailure``),
reading a stream with its errors mapped, closing it quietly.
Must not touch: HTTP itself (transport.py); httpx2 is loaded only to judge an error already raised.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from email.utils import parsedate_to_datetime
from typing import Any

from shellpilot.errors import ProviderError
from shellpilot.provider.retry import is_transient_status


def error_detail(body: object) -> str:
    """The ``message`` of an OpenAI/Anthropic-style error body (``{"error": {"message": ...}}``), or ""."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return ""


class StreamFailure(Exception):
    """An error the server reported inside a stream that began well: its ``message`` and ``body``
    (the error object as sent)."""

    def __init__(self, message: str, body: object) -> None:
        super().__init__(message)
        self.message = message
        self.body = body


def is_transport_error(exc: BaseException) -> bool:
    """httpx2 transport/stream errors (the HTTP client) and OS socket errors."""
    import httpx2  # already loaded by the transport that raised

    return isinstance(exc, OSError | EOFError | httpx2.TransportError | httpx2.StreamError)


async def close_quietly(stream: Any) -> None:
    """``await stream.aclose()`` (a stream, a response); a failure to close must not hide the
    error that got us here."""
    with contextlib.suppress(Exception):
        await stream.aclose()


async def mapped_stream(
    stream: Any, map_error: Callable[[BaseException], ProviderError]
) -> AsyncGenerator[Any, None]:
    """The items of ``stream``; an ``Exception`` while reading is raised as ``map_error(exc)``.

    The stream is closed quietly however the reading ends (exhausted, failed, cancelled, or this
    generator closed): iterate it inside ``contextlib.aclosing`` so that closing is prompt.
    """
    try:
        items = aiter(stream)
        while True:
            try:
                item = await anext(items)
            except StopAsyncIteration:
                break
            except Exception as exc:
                raise map_error(exc) from exc
            yield item
    finally:
        await close_quietly(stream)


def status_error(exc: BaseException, provider: str, status: int, detail: str, key_hint: str) -> ProviderError:
    """``{provider}: HTTP {status}: {detail}`` for an HTTP error answer of either protocol.

    Adds a hint for 401/403 (the key, named by ``key_hint`` when given) and 404 (model name and
    base_url); retryable when the status is transient, with the server's retry-after from ``exc``.
    """
    text = f"{provider}: HTTP {status}: {detail}"
    if status in (401, 403) and key_hint:
        text += f" (check the API key: {key_hint})"
    elif status == 404:
        text += " (check the model name and the base_url)"
    return ProviderError(
        text,
        provider=provider,
        status=status,
        retryable=is_transient_status(status),
        retry_after_s=retry_after_s(exc),
    )


def connection_failed(cause: BaseException, provider: str, message: str) -> ProviderError:
    """A request that got no answer (``message`` says how, ``cause`` is the transport's own
    error): retryable, naming the real cause."""
    text = f"{provider}: connection failed: {message} ({type(cause).__name__}: {cause})"
    return ProviderError(text, provider=provider, retryable=True)


def other_error(exc: BaseException, provider: str) -> ProviderError:
    """What no protocol failure matched: a transport error is a retryable lost connection, the rest not."""
    if is_transport_error(exc):
        return ProviderError(f"{provider}: connection lost: {exc!r}", provider=provider, retryable=True)
    return ProviderError(f"{provider}: {type(exc).__name__}: {exc}", provider=provider)


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, ``retry-after`` seconds or date), if any."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(float(millis) / 1000, 0.0)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, OverflowError):
        return None
