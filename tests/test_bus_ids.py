"""Bus delivery and time-ordered ids."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.ids import ascending


class Ping(Event):
    type: str = "ping"
    n: int


class Pong(Event):
    type: str = "pong"


def test_ids_sort_by_creation() -> None:
    ids = [ascending("prt") for _ in range(5000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("prt_") for i in ids)


async def test_subscription_receives_filtered_events_in_order() -> None:
    bus = Bus()
    sub = bus.subscribe(["ping"])
    got: list[int] = []

    async def consume() -> None:
        async for event in sub:
            assert isinstance(event, Ping)
            got.append(event.n)

    task = asyncio.create_task(consume())
    for n in range(3):
        bus.publish(Ping(n=n))
        bus.publish(Pong())
    await asyncio.sleep(0)
    sub.close()
    await asyncio.wait_for(task, 1)
    assert got == [0, 1, 2]


def test_listener_errors_do_not_break_publish_and_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    bus = Bus()
    seen: list[str] = []

    def bad(event: Event) -> None:
        raise RuntimeError("boom")

    bus.listen(bad)
    remove = bus.listen(lambda e: seen.append(e.type))
    with caplog.at_level(logging.ERROR, logger="shellpilot.bus"):
        bus.publish(Pong())
    remove()
    bus.publish(Pong())
    assert seen == ["pong"]
    [first, second] = [r for r in caplog.records if r.name == "shellpilot.bus"]
    assert "pong" in first.getMessage() and "bad" in first.getMessage()
    assert first.exc_info is not None and str(first.exc_info[1]) == "boom"
    assert second.exc_info is not None


def test_listener_error_reaches_stderr_without_logging_setup() -> None:
    code = (
        "from shellpilot.bus import Bus, Event\n"
        "class Pong(Event):\n    type: str = 'pong'\n"
        "def bad(event):\n    raise RuntimeError('boom-in-listener')\n"
        "bus = Bus()\nbus.listen(bad)\nbus.publish(Pong())\nprint('published')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "published\n"
    assert "boom-in-listener" in done.stderr and "pong" in done.stderr


async def test_slow_subscriber_drops_oldest_not_memory() -> None:
    bus = Bus()
    sub = bus.subscribe(maxsize=10)
    for n in range(100):
        bus.publish(Ping(n=n))
    assert sub.dropped == 90
    first = await sub.__anext__()
    assert isinstance(first, Ping) and first.n == 90
