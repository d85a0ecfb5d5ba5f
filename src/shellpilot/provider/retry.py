"""Bounded retry with exponential backoff around one provider stream.

Owns: which failures count as transient and how long to wait between attempts.
Must not touch: SDKs (providers map their exceptions to ``ProviderError`` before this sees them).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from shellpilot.errors import ProviderError
from shellpilot.provider.base import ProviderEvent

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})
"""Non-5xx HTTP statuses worth retrying (every 5xx is retried too)."""


def is_transient_status(status: int | None) -> bool:
    """True for 408/409/425/429 and every 5xx (529 "overloaded" included)."""
    return status is not None and (status in TRANSIENT_STATUSES or status >= 500)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a failed stream that produced no output yet.

    Delay before retry ``n`` (0-based) is ``min(base_delay_s * 2**n, max_delay_s)`` seconds.
    ``sleep`` is injectable so tests run without waiting. ``on_retry(error, retry_number,
    delay_s)`` is told about each retry before the wait (e.g. to show "retrying in 2 s").
    """

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)
    on_retry: Callable[[ProviderError, int, float], None] | None = field(default=None, compare=False)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        return float(min(self.base_delay_s * (2**attempt), self.max_delay_s))


async def retrying(
    attempt: Callable[[], AsyncIterator[ProviderEvent]],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[ProviderError, int, float], None] | None = None,
) -> AsyncIterator[ProviderEvent]:
    """Yield the events of ``attempt()``, starting it again after a retryable ``ProviderError``.

    A retry happens only while no event has been yielded (a half-streamed answer is never
    replayed) and at most ``policy.max_retries`` times; then the last error propagates. The
    wait is the policy's backoff, or the server's ``Retry-After`` (capped at ``max_delay_s``).
    ``on_retry`` (default: ``policy.on_retry``) is told about each retry.
    """
    notify = on_retry or policy.on_retry
    retries = 0
    while True:
        emitted = False
        stream = attempt()
        try:
            async for event in stream:
                emitted = True
                yield event
            return
        except ProviderError as err:
            if emitted or not err.retryable or retries >= policy.max_retries:
                raise
            wait = policy.delay(retries)
            if err.retry_after_s is not None:  # the server knows best, within our cap
                wait = min(err.retry_after_s, policy.max_delay_s)
            retries += 1
            if notify is not None:
                notify(err, retries, wait)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
        await policy.sleep(wait)
