"""Helpers shared by the SDK boundaries for turning failures into ``ProviderError`` text.

Owns: reading error bodies, recognising transport errors, closing broken streams quietly.
Must not touch: SDK imports (each provider module maps its own SDK's exception classes).
"""

from __future__ import annotations

import contextlib
import time
from email.utils import parsedate_to_datetime
from typing import Any


def error_detail(body: object) -> str:
    """The ``message`` of an OpenAI/Anthropic-style error body (``{"error": {"message": ...}}``), or ""."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return ""


def cause_text(exc: BaseException) -> str:
    """``Type: message`` of what caused ``exc`` (SDK connection errors wrap the real one)."""
    cause = exc.__cause__ or exc.__context__
    return f"{type(cause).__name__}: {cause}" if cause is not None else "no detail"


def is_transport_error(exc: BaseException) -> bool:
    """httpx2 transport/stream errors and OS socket errors, judged without importing httpx2."""
    if isinstance(exc, OSError | EOFError):
        return True
    return any(cls.__name__ in ("TransportError", "StreamError") for cls in type(exc).__mro__)


async def close_quietly(stream: Any) -> None:
    """Close an SDK stream; a failure to close must not hide the error that got us here."""
    with contextlib.suppress(Exception):
        await stream.close()


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
