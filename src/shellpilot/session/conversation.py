"""One session's conversation held in memory while the loop runs it, and the model's view of it.

Owns: the session's messages and parts, read from the store once when a run starts and then
kept current from the bus (every write is announced there), and the ``Transcript`` the next
request sends, extended by each settled message instead of rebuilt. Must not touch: SQL beyond
that one read, providers' wire formats, the loop's control flow.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from types import TracebackType
from typing import Self

from shellpilot.bus import Bus, Event
from shellpilot.provider.base import Message as ModelMessage
from shellpilot.provider.transcript import Transcript
from shellpilot.session.events import MessageUpdated, PartUpdated
from shellpilot.session.history import FileReader, model_messages, reads_files
from shellpilot.session.models import AssistantMessage, Message, MessageWithParts, Part
from shellpilot.storage.store import SessionStore


class Conversation:
    """The messages of ``session_id`` in id (creation) order, as the store would return them.

    ``items`` is updated in place by every ``message.updated`` / ``part.updated`` event of
    the session on the bus, whoever wrote it (the loop, a subtask, a prompt that joins the
    run). ``transcript()`` is the provider's view of ``items``: messages are converted once,
    when settled (every message before the first assistant message still being written by
    this run); the rest is converted afresh at each call. A change to a converted message
    (a write to an old message, a message inserted before the settled ones, a ``file://``
    attachment whose content changed) makes the next call convert everything again, so the
    view always equals ``to_model_messages(items)``. Use as a context manager (stops listening).
    """

    def __init__(
        self, session_id: str, items: list[MessageWithParts], read_file: FileReader | None = None
    ) -> None:
        self.session_id = session_id
        self.items = items
        self._ids = [item.info.id for item in items]
        self._by_id = {item.info.id: item for item in items}
        self._read = read_file
        self._open: set[str] = set()
        self._settled = 0
        self._transcript: Transcript[ModelMessage] = Transcript()
        self._volatile: list[tuple[int, list[ModelMessage]]] = []
        self._stop: Callable[[], None] | None = None

    @classmethod
    def load(
        cls, store: SessionStore, bus: Bus, session_id: str, read_file: FileReader | None = None
    ) -> Conversation:
        """The session as stored now (one read), then kept current from ``bus``."""
        conversation = cls(session_id, store.messages(session_id), read_file)
        conversation._stop = bus.listen(conversation.apply, ["message.updated", "part.updated"])
        return conversation

    def close(self) -> None:
        """Stop following the bus (safe to call twice)."""
        stop, self._stop = self._stop, None
        if stop is not None:
            stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- following writes -----------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Take in one bus event (others' sessions and other event types are ignored)."""
        if isinstance(event, MessageUpdated) and event.message.session_id == self.session_id:
            self._message(event.message)
        elif isinstance(event, PartUpdated) and event.part.session_id == self.session_id:
            self._part(event.part)

    def _message(self, message: Message) -> None:
        item = self._by_id.get(message.id)
        if item is None:
            item = MessageWithParts(info=message)
            index = bisect.bisect_left(self._ids, message.id)
            self._ids.insert(index, message.id)
            self.items.insert(index, item)
            self._by_id[message.id] = item
        else:
            item.info = message
            index = bisect.bisect_left(self._ids, message.id)
        if isinstance(message, AssistantMessage) and message.completed_ms is None:
            self._open.add(message.id)
        else:
            self._open.discard(message.id)
        self._changed(index)

    def _part(self, part: Part) -> None:
        item = self._by_id.get(part.message_id)
        if item is None:
            return  # the store keeps no part without its message either
        parts = item.parts
        for position in range(len(parts) - 1, -1, -1):
            if parts[position].id == part.id:
                parts[position] = part
                break
        else:
            if parts and parts[-1].id > part.id:
                bisect.insort(parts, part, key=lambda p: p.id)
            else:
                parts.append(part)
        self._changed(bisect.bisect_left(self._ids, part.message_id))

    def _changed(self, index: int) -> None:
        if index < self._settled:
            self._reset()

    def _reset(self) -> None:
        self._settled = 0
        self._transcript = Transcript()
        self._volatile = []

    # -- the model's view -----------------------------------------------------------------

    def transcript(self) -> Transcript[ModelMessage]:
        """The provider messages of ``items`` (equal to ``to_model_messages(items)``)."""
        for index, before in self._volatile:  # attachments are read afresh for every request
            if model_messages(self.items[index], read_file=self._read) != before:
                self._reset()
                break
        items, settled = self.items, self._settled
        while settled < len(items) and items[settled].info.id not in self._open:
            item = items[settled]
            converted = model_messages(item, read_file=self._read)
            if reads_files(item):
                self._volatile.append((settled, converted))
            self._transcript = self._transcript.extended(converted)
            settled += 1
        self._settled = settled
        tail = [m for item in items[settled:] for m in model_messages(item, read_file=self._read)]
        if not tail:
            return self._transcript
        # Not yet settled (rare: a turn being written that already has content): a copy, so
        # the shared storage only ever holds settled messages.
        return Transcript([*self._transcript, *tail])
