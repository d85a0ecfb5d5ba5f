"""The in-memory conversation of a run: it follows every write through the bus and its
transcript always equals the history converted afresh from the store, while converting each
settled message only once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.provider.base import Message as ModelMessage
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.provider.scripted import ScriptedProvider, ToolCall, Turn
from shellpilot.provider.transcript import Transcript
from shellpilot.session.conversation import Conversation
from shellpilot.session.history import to_model_messages
from shellpilot.session.loop import AgentLoop
from shellpilot.session.models import (
    AssistantMessage,
    FilePart,
    MessageWithParts,
    Session,
    TextPart,
    ToolCompleted,
    ToolPart,
    ToolPending,
    UserMessage,
)
from shellpilot.session.request import read_attachment
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.session.writer import SessionWriter
from shellpilot.storage.store import SessionStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "db.sqlite") as opened:
        yield opened


@pytest.fixture
def writer(store: SessionStore) -> SessionWriter:
    return SessionWriter(store, Bus())


def session(writer: SessionWriter, project: Path) -> str:
    return writer.create_session(Session(project_dir=str(project))).id


def user(
    writer: SessionWriter, session_id: str, text: str, message: UserMessage | None = None
) -> UserMessage:
    info = message or UserMessage(session_id=session_id)
    writer.message(info)
    writer.part(TextPart(session_id=session_id, message_id=info.id, text=text))
    return info


def step(writer: SessionWriter, session_id: str, output: str, *, close: bool = True) -> AssistantMessage:
    """An assistant turn the way the loop writes it: open, text, a tool call run, closed."""
    reply = AssistantMessage(session_id=session_id)
    writer.message(reply)
    writer.part(TextPart(session_id=session_id, message_id=reply.id, text="running"))
    call = ToolPart(
        session_id=session_id, message_id=reply.id, tool="bash", state=ToolPending(input={"c": 1})
    )
    writer.part(call)
    done = ToolCompleted(input={"c": 1}, output=output, start_ms=1)
    writer.part(call.model_copy(update={"state": done}))
    if close:
        writer.message(reply.model_copy(update={"completed_ms": 2}))
    return reply


def fresh(store: SessionStore, session_id: str) -> list[ModelMessage]:
    return to_model_messages(store.messages(session_id), read_file=read_attachment)


def test_follows_writes_and_matches_the_store(
    store: SessionStore, writer: SessionWriter, tmp_path: Path
) -> None:
    sid = session(writer, tmp_path)
    other = session(writer, tmp_path)
    user(writer, sid, "first")
    with Conversation.load(store, writer.bus, sid, read_attachment) as conversation:
        assert list(conversation.transcript()) == fresh(store, sid)
        for n in range(5):
            step(writer, sid, f"out {n}")
            user(writer, other, "not this session")
            assert list(conversation.transcript()) == fresh(store, sid)
        assert [i.info.id for i in conversation.items] == [i.info.id for i in store.messages(sid)]
    step(writer, sid, "after close")  # no longer followed
    assert len(conversation.items) == len(store.messages(sid)) - 1


def test_settled_messages_are_converted_once(
    store: SessionStore, writer: SessionWriter, tmp_path: Path
) -> None:
    sid = session(writer, tmp_path)
    user(writer, sid, "go")
    seen: list[Any] = []

    def count(state: list[Any], message: ModelMessage) -> None:
        seen.append(message)

    with Conversation.load(store, writer.bus, sid) as conversation:
        views: list[Transcript] = []
        for n in range(20):
            views.append(conversation.transcript())
            views[-1].fold(count, list)
            step(writer, sid, f"out {n}")
        last = conversation.transcript()
        last.fold(count, list)
    # 1 user turn + 20 x (assistant + tool result): every message folded exactly once.
    assert len(seen) == len(last) == 41
    assert all(a is b for a, b in zip(views[-1], last, strict=False))  # shared, not rebuilt


def test_an_open_turn_is_not_settled_until_closed(
    store: SessionStore, writer: SessionWriter, tmp_path: Path
) -> None:
    sid = session(writer, tmp_path)
    user(writer, sid, "go")
    with Conversation.load(store, writer.bus, sid) as conversation:
        reply = step(writer, sid, "partial", close=False)
        assert list(conversation.transcript()) == fresh(store, sid)  # converted afresh, not kept
        writer.part(TextPart(session_id=sid, message_id=reply.id, text=" more"))
        writer.message(reply.model_copy(update={"completed_ms": 3}))
        assert list(conversation.transcript()) == fresh(store, sid)


def test_a_change_to_an_old_message_is_seen(
    store: SessionStore, writer: SessionWriter, tmp_path: Path
) -> None:
    sid = session(writer, tmp_path)
    early = UserMessage(session_id=sid)  # its id is older than the turns written below
    user(writer, sid, "go")
    with Conversation.load(store, writer.bus, sid) as conversation:
        step(writer, sid, "one")
        conversation.transcript()
        user(writer, sid, "late but older", message=early)  # lands before the settled turns
        assert list(conversation.transcript()) == fresh(store, sid)
        first = conversation.items[1]
        text = next(p for p in first.parts if isinstance(p, TextPart))
        writer.part(text.model_copy(update={"text": "edited"}))
        assert list(conversation.transcript()) == fresh(store, sid)
        assert [i.info.id for i in conversation.items] == [i.info.id for i in store.messages(sid)]


def test_attachments_are_read_for_every_request(
    store: SessionStore, writer: SessionWriter, tmp_path: Path
) -> None:
    sid = session(writer, tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("version 1\n")
    asked = UserMessage(session_id=sid)
    writer.message(asked)
    writer.part(TextPart(session_id=sid, message_id=asked.id, text="read this"))
    writer.part(FilePart(session_id=sid, message_id=asked.id, url=notes.as_uri(), path=str(notes)))
    with Conversation.load(store, writer.bus, sid, read_attachment) as conversation:
        assert "version 1" in conversation.transcript()[0].content  # type: ignore[union-attr]
        step(writer, sid, "changed it")
        notes.write_text("version 2\n")
        view = conversation.transcript()
        assert "version 2" in view[0].content and list(view) == fresh(store, sid)  # type: ignore[union-attr]


class CountingStore(SessionStore):
    """A real store that counts whole-session reads."""

    reads = 0

    def messages(self, session_id: str) -> list[MessageWithParts]:
        self.reads += 1
        return super().messages(session_id)


async def test_a_run_reads_the_session_once(tmp_path: Path, project: Path) -> None:
    cfg = Config.model_validate({"model": "scripted/m"})
    store = CountingStore(tmp_path / "db.sqlite")
    bus = Bus()
    service = SessionService(store, bus, cfg, tmp_path / "data", RunState(bus, lease=store))
    bash = {"command": "echo hi", "description": "say hi"}
    provider = ScriptedProvider(
        [Turn(tool_calls=[ToolCall("bash", bash)]) for _ in range(5)] + [Turn(text="done")]
    )
    providers = ProviderRegistry(cfg, env={}, providers={"scripted": provider})
    loop = AgentLoop(service, project_dir=project, providers=providers, shell="bash")
    try:
        sid = service.create(project).id
        await loop.prompt(sid, "before")  # five bash steps, then "done"
        store.reads = 0
        provider.add(Turn(text="again"))
        result = await loop.prompt(sid, "next")
        assert result.ok and result.text == "again" and store.reads == 1
        first = provider.requests[:6]
        assert [len(r.messages) for r in first] == [1, 3, 5, 7, 9, 11]
        assert all(a is b for a, b in zip(first[-1].messages, first[-2].messages, strict=False))
        assert list(provider.requests[-1].messages) == fresh(store, sid)[:-1]  # all but "again"
    finally:
        store.close()
