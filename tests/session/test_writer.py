"""SessionWriter: each write lands in the store, then its event on the bus; live updates coalesce."""

from __future__ import annotations

from pathlib import Path

from shellpilot.bus import Bus, Event
from shellpilot.session.events import MessageUpdated, PartUpdated, SessionCreated, SessionDeleted
from shellpilot.session.models import AssistantMessage, Session, ToolCompleted, ToolPart, ToolRunning
from shellpilot.session.writer import SessionWriter
from shellpilot.storage.store import SessionStore


def test_writes_then_publishes_and_coalesces_live_updates(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    bus = Bus()
    events: list[Event] = []
    bus.listen(events.append)
    writer = SessionWriter(store, bus)
    session = writer.create_session(Session(project_dir="/p"))
    message = writer.message(AssistantMessage(session_id=session.id))
    part = ToolPart(session_id=session.id, message_id=message.id, tool="bash", state=ToolRunning(input={}))
    writer.part(part)
    assert [type(e) for e in events] == [SessionCreated, MessageUpdated, PartUpdated]

    before = store.writes
    live = part
    for i in range(1000):
        live = writer.live(live, "title" if i == 999 else None, {"output": f"{i}\n", "n": i})
    assert store.writes - before <= 2  # coalesced in the store...
    assert len(events) == 3 + 1000  # ...but every update reaches the bus
    assert isinstance(live.state, ToolRunning)
    assert live.state.metadata == {"output": "999\n", "n": 999} and live.state.title == "title"

    done = part.model_copy(update={"state": ToolCompleted(output="ok", start_ms=1)})
    writer.part(done)
    assert writer.live(done, None, {"output": "late"}) is done  # a finished part is left alone
    assert store.get_part(part.id) == done
    writer.delete_session(session.id)
    assert isinstance(events[-1], SessionDeleted)
