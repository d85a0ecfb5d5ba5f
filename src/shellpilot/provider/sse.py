"""Server-sent events read from a streamed HTTP body: the framing both model protocols stream in.

Owns: splitting bytes into lines (CR, LF or CRLF, across chunk boundaries) and lines into events
(``event``/``data`` fields, comments skipped), with no size limit on a line or an event.
Must not touch: what an event means (openai.py and anthropic.py read their own), HTTP itself.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from dataclasses import dataclass

_LINE_END = re.compile(rb"\r\n?|\n")


@dataclass(frozen=True)
class ServerEvent:
    """One event: its ``event:`` name (None when the server sent none) and its ``data:`` lines
    joined with newlines (``""`` when it had none)."""

    event: str | None
    data: str


class _Lines:
    """Bytes in, complete lines out; a CR at the end of one chunk pairs with an LF starting the next."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._after_cr = False

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        if not chunk:
            return
        start = 1 if self._after_cr and chunk[:1] == b"\n" else 0
        self._after_cr = False
        for end in _LINE_END.finditer(chunk, start):
            self._pending += chunk[start : end.start()]
            yield bytes(self._pending)
            self._pending.clear()
            start = end.end()
            self._after_cr = start == len(chunk) and end.group() == b"\r"
        self._pending += chunk[start:]


class _Events:
    """Lines in, events out: a blank line ends an event that has a name or data."""

    def __init__(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []
        self._started = False

    def line(self, raw: bytes) -> ServerEvent | None:
        text = raw.decode("utf-8")
        if not text:
            if not self._started:
                return None
            done = ServerEvent(self._event, "\n".join(self._data))
            self._event, self._data, self._started = None, [], False
            return done
        if text.startswith(":"):
            return None
        name, _, value = text.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value or None
            self._started = True
        elif name == "data":
            self._data.append(value)
            self._started = True
        elif name in ("id", "retry"):
            self._started = True  # an event of its own even without data (ignored by both protocols)
        return None


async def server_events(chunks: AsyncIterable[bytes]) -> AsyncIterator[ServerEvent]:
    """The events of a ``text/event-stream`` body read as ``chunks``. An event is delivered when
    its blank line arrives (one cut off by the end of the body is dropped, as the SDKs drop it).
    Raises UnicodeDecodeError for a line that is not UTF-8, and whatever reading ``chunks`` raises."""
    lines, events = _Lines(), _Events()
    async for chunk in chunks:
        for raw in lines.feed(chunk):
            event = events.line(raw)
            if event is not None:
                yield event


__all__ = ["ServerEvent", "server_events"]
