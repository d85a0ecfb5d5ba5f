"""A typed in-process event bus: publish pydantic events, subscribe with async iterators.

Owns: delivery of events to subscribers. Must not touch: what events mean; event
classes live with the module that publishes them (session/events.py,
permission/events.py, command/events.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import suppress
from typing import Any

from pydantic import BaseModel, ConfigDict

log = logging.getLogger(__name__)
"""Where an exception raised by a listener is reported (with its traceback)."""


class Event(BaseModel):
    """Base of every bus event; subclasses set ``type`` to a literal such as ``part.updated``."""

    model_config = ConfigDict(defer_build=True)  # built on first use: most events never occur

    type: str


Listener = Callable[[Event], Any]


class Subscription:
    """An async iterator over events published after it was opened.

    Its queue is bounded (``maxsize`` events); a subscriber that falls that far behind
    loses the oldest events rather than growing memory. ``close()`` ends the iteration.
    """

    def __init__(self, bus: Bus, types: frozenset[str] | None, maxsize: int) -> None:
        self._bus = bus
        self._types = types
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue(maxsize=maxsize)
        self.dropped = 0

    def _offer(self, event: Event) -> None:
        if self._types is not None and event.type not in self._types:
            return
        if self._queue.full():
            with suppress(asyncio.QueueEmpty):
                self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(event)

    def close(self) -> None:
        """Stop delivery; a waiting ``__anext__`` ends with ``StopAsyncIteration``."""
        self._bus._remove(self)
        if self._queue.full():
            with suppress(asyncio.QueueEmpty):
                self._queue.get_nowait()
        self._queue.put_nowait(None)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        item = await self._queue.get()
        if item is None:
            raise StopAsyncIteration
        return item

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class Bus:
    """Fan-out of events to synchronous listeners and async subscriptions.

    ``publish`` never blocks and never raises because of a subscriber: a listener that
    raises misses that delivery only, and its exception is logged to the ``shellpilot.bus``
    logger (on stderr when logging is not configured). Build one per process (CLI or server
    start-up) and pass it down; there is no global bus.
    """

    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._listeners: list[tuple[frozenset[str] | None, Listener]] = []

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every matching listener and subscription."""
        for types, listener in list(self._listeners):
            if types is None or event.type in types:
                try:
                    listener(event)
                except Exception:
                    log.exception("a bus listener (%r) raised on a %s event", listener, event.type)
        for sub in list(self._subs):
            sub._offer(event)

    def listen(self, listener: Listener, types: Iterable[str] | None = None) -> Callable[[], None]:
        """Call ``listener(event)`` synchronously on publish; returns an unsubscribe function."""
        entry = (frozenset(types) if types is not None else None, listener)
        self._listeners.append(entry)

        def remove() -> None:
            with suppress(ValueError):
                self._listeners.remove(entry)

        return remove

    def subscribe(self, types: Iterable[str] | None = None, *, maxsize: int = 10_000) -> Subscription:
        """Open an async subscription, optionally filtered to event ``types``."""
        sub = Subscription(self, frozenset(types) if types is not None else None, maxsize)
        self._subs.append(sub)
        return sub

    def _remove(self, sub: Subscription) -> None:
        with suppress(ValueError):
            self._subs.remove(sub)
