"""Bounded reads of a real SQLite store: paged session lists, streamed messages, streamed export."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.session.models import (
    AssistantMessage,
    MessageWithParts,
    Session,
    TextPart,
    ToolCompleted,
    ToolPart,
    UserMessage,
)
from shellpilot.storage.export import export_json, write_export
from shellpilot.storage.store import SessionStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "shellpilot.db") as opened:
        yield opened


def seed(store: SessionStore, messages: int, output_bytes: int = 100, project: str = "/p") -> Session:
    session = Session(project_dir=project, title="long")
    store.put_session(session)
    for n in range(messages):
        if n % 2 == 0:
            asked = UserMessage(session_id=session.id)
            store.put_message(asked)
            store.put_part(TextPart(session_id=session.id, message_id=asked.id, text=f"q{n} ü\n\u2028"))
            continue
        reply = AssistantMessage(session_id=session.id, completed_ms=1)
        store.put_message(reply)
        store.put_part(TextPart(session_id=session.id, message_id=reply.id, text=f"a{n}"))
        done = ToolCompleted(
            input={"command": "cat"}, output="x" * output_bytes, metadata={"exit": 0}, start_ms=1
        )
        store.put_part(ToolPart(session_id=session.id, message_id=reply.id, tool="bash", state=done))
    return session


def test_iter_messages_equals_messages_across_batches(store: SessionStore) -> None:
    session = seed(store, 23)
    empty = AssistantMessage(session_id=session.id)  # a message without parts
    store.put_message(empty)
    seed(store, 4)  # another session's messages stay out
    whole = store.messages(session.id)
    for batch in (1, 3, 24, 100):
        assert list(store.iter_messages(session.id, batch=batch)) == whole
    assert list(store.iter_messages("ses_none")) == []


def test_last_message_and_parts_of(store: SessionStore) -> None:
    session = seed(store, 5)
    history = store.messages(session.id)
    assert store.last_message(session.id) == history[-1].info
    assert store.last_message(session.id, "assistant") == history[-2].info
    assert store.last_message(session.id, "user") == history[-1].info
    assert store.last_message("ses_none") is None
    assert store.parts_of(history[1].info.id) == history[1].parts


def test_a_page_of_sessions_is_the_newest_with_their_counts(store: SessionStore) -> None:
    made = [seed(store, n % 3 + 1, project="/a") for n in range(12)]  # each write bumps its session
    store.put_session(Session(project_dir="/a", parent_id=made[0].id, title="child", updated_ms=0))
    store.put_session(Session(project_dir="/b", title="elsewhere", updated_ms=0))
    everything = store.list_sessions("/a", top_level=True)
    page = store.list_sessions("/a", top_level=True, limit=5)
    assert page == everything[:5] and len(everything) == 12
    assert [s.session.id for s in everything] == [s.id for s in reversed(made)]  # newest first
    assert [s.message_count for s in page] == [n % 3 + 1 for n in reversed(range(7, 12))]
    assert store.count_sessions("/a", top_level=True) == 12
    assert store.count_sessions("/a") == 13 and store.count_sessions() == 14
    assert len(store.list_sessions(limit=100)) == 14
    child_counts = {s.session.id: s.child_count for s in everything}
    assert child_counts[made[0].id] == 1


def old_export(session: Session, messages: list[MessageWithParts]) -> str:
    """The export as it was made before it was streamed: one document in memory."""
    doc = {
        "session": session.model_dump(mode="json"),
        "messages": [item.model_dump(mode="json") for item in messages],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("count", [0, 1, 7])
def test_streamed_export_is_the_same_text(store: SessionStore, count: int) -> None:
    session = seed(store, count)
    history = store.messages(session.id)
    chunks: list[str] = []
    write_export(session, store.iter_messages(session.id, batch=2), chunks.append)
    assert "".join(chunks) == old_export(session, history) == export_json(session, history)


def test_export_memory_stays_flat(store: SessionStore) -> None:
    # About 6 MB of tool output; the streamed export holds a batch of messages at a time.
    session = seed(store, 1500, output_bytes=8000)
    written = 0

    def sink(text: str) -> None:
        nonlocal written
        written += len(text)

    tracemalloc.start()
    try:
        write_export(session, store.iter_messages(session.id), sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert written > 6_000_000
    assert peak < written / 4, f"peak {peak} bytes for {written} bytes written"
