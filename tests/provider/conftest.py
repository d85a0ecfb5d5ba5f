"""Fixtures for provider tests: a recording no-wait sleep and a fast retry policy."""

from __future__ import annotations

import pytest

from shellpilot.provider.retry import RetryPolicy


class Sleeps:
    """A real (instant) sleep that records the delays it was asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def retry(sleeps: Sleeps) -> RetryPolicy:
    return RetryPolicy(max_retries=2, base_delay_s=0.25, max_delay_s=1.0, sleep=sleeps)
