"""The retry wrapper: what is retried, how often, with which delays, and what never is."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from shellpilot.errors import ProviderError
from shellpilot.provider.base import Finish, ProviderEvent, TextDelta
from shellpilot.provider.retry import RetryPolicy, is_transient_status, retrying


class Attempts:
    """Each call plays the next outcome: an error raised before or after one text event, or success."""

    def __init__(self, *outcomes: tuple[str, ProviderError | None]) -> None:
        self.outcomes = list(outcomes)
        self.started = 0
        self.closed = 0

    async def __call__(self) -> AsyncIterator[ProviderEvent]:
        self.started += 1
        when, error = self.outcomes.pop(0)
        try:
            if when == "after":
                yield TextDelta("partial")
            if error is not None:
                raise error
            yield TextDelta("ok")
            yield Finish("stop")
        finally:
            self.closed += 1


def transient(status: int | None = 503) -> ProviderError:
    return ProviderError("boom", provider="p", status=status, retryable=True)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (None, False),
        (400, False),
        (401, False),
        (404, False),
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (503, True),
        (529, True),
    ],
)
def test_transient_statuses(status: int | None, expected: bool) -> None:
    assert is_transient_status(status) is expected


def test_backoff_doubles_up_to_the_cap() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=3.0)
    assert [policy.delay(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


async def test_transient_errors_before_output_are_retried(retry: RetryPolicy, sleeps: Any) -> None:
    attempts = Attempts(("before", transient()), ("before", transient(None)), ("before", None))
    seen: list[tuple[int, float]] = []
    events = [e async for e in retrying(attempts, retry, on_retry=lambda err, n, d: seen.append((n, d)))]
    assert events == [TextDelta("ok"), Finish("stop")]
    assert attempts.started == 3 and attempts.closed == 3
    assert sleeps.delays == [0.25, 0.5]
    assert seen == [(1, 0.25), (2, 0.5)]


async def test_an_error_after_output_is_never_retried(retry: RetryPolicy, sleeps: Any) -> None:
    attempts = Attempts(("after", transient()), ("before", None))
    received: list[ProviderEvent] = []
    with pytest.raises(ProviderError):
        async for event in retrying(attempts, retry):
            received.append(event)
    assert received == [TextDelta("partial")]
    assert attempts.started == 1 and sleeps.delays == []


async def test_permanent_errors_are_raised_at_once(retry: RetryPolicy, sleeps: Any) -> None:
    attempts = Attempts(("before", ProviderError("bad", status=400)), ("before", None))
    with pytest.raises(ProviderError, match="bad"):
        [e async for e in retrying(attempts, retry)]
    assert attempts.started == 1 and sleeps.delays == []


async def test_zero_retries_means_one_attempt(sleeps: Any) -> None:
    attempts = Attempts(("before", transient()), ("before", None))
    with pytest.raises(ProviderError):
        [e async for e in retrying(attempts, RetryPolicy(max_retries=0, sleep=sleeps))]
    assert attempts.started == 1


async def test_closing_early_closes_the_attempt(retry: RetryPolicy) -> None:
    attempts = Attempts(("before", None))
    stream = retrying(attempts, retry)
    assert await anext(stream) == TextDelta("ok")
    await stream.aclose()  # type: ignore[attr-defined]
    assert attempts.closed == 1


async def test_retry_after_replaces_the_backoff_up_to_the_cap(retry: RetryPolicy, sleeps: Any) -> None:
    slow = ProviderError("busy", status=429, retryable=True, retry_after_s=9.0)
    quick = ProviderError("busy", status=429, retryable=True, retry_after_s=0.1)
    attempts = Attempts(("before", slow), ("before", quick), ("before", None))
    assert [e async for e in retrying(attempts, retry)][-1] == Finish("stop")
    assert sleeps.delays == [1.0, 0.1]
