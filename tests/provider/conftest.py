"""Fixtures for provider tests: a recording no-wait sleep, a fast retry policy, a model server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shellpilot.provider.retry import RetryPolicy
from shellpilot.testing import ScriptedModelServer


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


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    """A real scripted model server on loopback (both protocols), stopped after the test."""
    with ScriptedModelServer() as srv:
        yield srv
