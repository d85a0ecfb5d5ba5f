"""An HTTP client cached per event loop: what both model providers keep between turns.

Owns: making the client on first use in a loop, remaking it in another loop, closing it.
Must not touch: HTTP imports (the caller passes the factory that imports its client lazily).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Closable(Protocol):
    """An async HTTP client: ``await client.aclose()`` releases its connections."""

    async def aclose(self) -> None: ...


ClientT = TypeVar("ClientT", bound=Closable)


class LoopClient(Generic[ClientT]):
    """One client per running event loop, made by ``make()`` (a client's connections
    belong to the loop that opened them, so a call from another loop gets a new client)."""

    def __init__(self, make: Callable[[], ClientT]) -> None:
        self._make = make
        self._client: ClientT | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ClientT:
        """The cached client of the running event loop (made on first call in that loop)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._make()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the cached client if it belongs to the running loop; forget it either way (safe twice)."""
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()
        self._loop = None
