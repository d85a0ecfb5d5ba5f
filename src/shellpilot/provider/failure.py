"""Helpers shared by the SDK boundaries for turning failures into ``ProviderError`` text.

Owns: reading error bodies, recognising transport errors, closing broken streams quietly.
Must not touch: SDK imports (each provider module maps its own SDK's exception classes).
"""

from __future__ import annotations

import contextlib
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
