"""A session as one JSON document (``shellpilot session export``), written as it is read.

Owns: the export format, ``{"session": ..., "messages": [{"info": ..., "parts": [...]}]}``
indented by 2, and writing it one message at a time. Must not touch: SQL (the messages come
from ``SessionStore.iter_messages``), terminals.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from shellpilot.session.models import MessageWithParts, Session


def _indented(value: object, depth: int) -> str:
    """``json.dumps(value, indent=2)`` as it reads nested ``depth`` levels deep (JSON text
    holds no raw newline inside a string, so every newline starts a line of the value)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + "  " * depth)


def write_export(
    session: Session, messages: Iterable[MessageWithParts], write: Callable[[str], object]
) -> None:
    """Write the export of ``session`` with ``messages`` through ``write``, one message at a
    time: memory holds one message, whatever the session's length. The text equals
    ``export_json`` of the same messages."""
    write('{\n  "session": ' + _indented(session.model_dump(mode="json"), 1) + ',\n  "messages": [')
    first = True
    for item in messages:
        write(("\n    " if first else ",\n    ") + _indented(item.model_dump(mode="json"), 2))
        first = False
    write("]\n}" if first else "\n  ]\n}")


def export_json(session: Session, messages: Iterable[MessageWithParts]) -> str:
    """A session and its conversation as one JSON document (the whole text in memory)."""
    chunks: list[str] = []
    write_export(session, messages, chunks.append)
    return "".join(chunks)
