"""SessionStore on real SQLite files: CRUD, cascade, coalesced live writes, leases.

Crash recovery is tested in tests/session/test_recovery.py.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from shellpilot.errors import SessionNotFound, StorageError
from shellpilot.session.models import (
    AssistantMessage,
    Session,
    TextPart,
    ToolCompleted,
    ToolPart,
    ToolRunning,
    UserMessage,
)
from shellpilot.storage.store import SessionStore, export_json


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    with SessionStore(tmp_path / "data" / "shellpilot.db") as s:
        yield s  # type: ignore[misc]


def _conversation(store: SessionStore, project: str = "/proj") -> tuple[Session, AssistantMessage, ToolPart]:
    session = Session(project_dir=project, title="t")
    store.put_session(session)
    user = UserMessage(session_id=session.id)
    store.put_message(user)
    store.put_part(TextPart(session_id=session.id, message_id=user.id, text="hello"))
    reply = AssistantMessage(session_id=session.id, parent_id=user.id)
    store.put_message(reply)
    part = ToolPart(
        session_id=session.id, message_id=reply.id, tool="bash", state=ToolRunning(input={"command": "ls"})
    )
    store.put_part(part)
    return session, reply, part


def test_round_trip_and_history_order(store: SessionStore) -> None:
    session, reply, part = _conversation(store)
    assert store.get_session(session.id).title == "t"
    history = store.messages(session.id)
    assert [m.info.role for m in history] == ["user", "assistant"]
    assert isinstance(history[0].parts[0], TextPart) and history[0].parts[0].text == "hello"
    assert history[1].parts[0] == part
    assert store.get_message(reply.id) == reply
    assert store.get_part(part.id) == part
    doc = export_json(session, history)
    assert session.id in doc and '"hello"' in doc


def test_missing_things_raise_typed_errors(store: SessionStore) -> None:
    with pytest.raises(SessionNotFound):
        store.get_session("ses_nope")
    with pytest.raises(SessionNotFound):
        store.delete_session("ses_nope")
    with pytest.raises(SessionNotFound):
        store.put_message(UserMessage(session_id="ses_nope"))
    with pytest.raises(StorageError):
        store.get_part("prt_nope")


def test_list_latest_and_counts_per_project(store: SessionStore) -> None:
    first, _, _ = _conversation(store, "/a")
    second = Session(project_dir="/a")
    store.put_session(second)
    other = Session(project_dir="/b")
    store.put_session(other)
    child = Session(project_dir="/a", parent_id=second.id)
    store.put_session(child)
    listed = store.list_sessions("/a")
    assert {s.session.id for s in listed} == {first.id, second.id, child.id}
    counts = {s.session.id: s.message_count for s in listed}
    assert counts[first.id] == 2 and counts[second.id] == 0
    # A new message makes its session the latest (children never count for --continue).
    store.put_message(UserMessage(session_id=first.id))
    latest = store.latest_session("/a")
    assert latest is not None and latest.id == first.id
    assert store.latest_session("/nowhere") is None
    assert [c.id for c in store.children(second.id)] == [child.id]


def test_delete_cascades_to_messages_parts_and_children(store: SessionStore) -> None:
    session, _, part = _conversation(store)
    child = Session(project_dir="/proj", parent_id=session.id)
    store.put_session(child)
    _, _, child_part = _conversation(store)
    store.delete_session(session.id)
    with pytest.raises(SessionNotFound):
        store.get_session(child.id)
    with pytest.raises(StorageError):
        store.get_part(part.id)
    assert store.get_part(child_part.id) == child_part  # other sessions untouched
    db = sqlite3.connect(store.path)
    assert db.execute("SELECT count(*) FROM message WHERE session_id=?", (session.id,)).fetchone()[0] == 0


def test_ten_thousand_live_updates_are_a_handful_of_writes(store: SessionStore) -> None:
    _, _, part = _conversation(store)
    before = store.writes
    for i in range(10_000):
        state = ToolRunning(input={"command": "ls"}, metadata={"output": f"line {i}\n"}, start_ms=1)
        store.update_part_live(part.model_copy(update={"state": state}))
    assert store.writes - before <= 5
    assert store.flush_live() == 1
    stored = store.get_part(part.id)
    assert isinstance(stored, ToolPart) and isinstance(stored.state, ToolRunning)
    assert stored.state.metadata["output"] == "line 9999\n"
    final = part.model_copy(update={"state": ToolCompleted(input={}, output="done", start_ms=1)})
    store.put_part(final)
    assert store.get_part(part.id) == final


async def test_pending_live_update_is_written_by_the_timer(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db", live_interval_ms=50)
    _, _, part = _conversation(store)
    state = ToolRunning(input={}, metadata={"output": "late"}, start_ms=1)
    assert store.update_part_live(part.model_copy(update={"state": state})) is False
    await asyncio.sleep(0.3)
    stored = store.get_part(part.id)
    assert isinstance(stored, ToolPart) and isinstance(stored.state, ToolRunning)
    assert stored.state.metadata["output"] == "late"
    store.close()


def test_unusable_files_raise_storage_error(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError) as info:
        SessionStore(garbage)
    assert str(garbage) in str(info.value)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError):
        SessionStore(blocker / "sub" / "s.db")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SessionStore(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(StorageError, match="newer"):
        SessionStore(path)


def test_store_uses_wal_and_counts_writes(store: SessionStore) -> None:
    before = store.writes
    _conversation(store)
    assert store.writes - before == 5
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_list_top_level_only_with_child_counts(store: SessionStore) -> None:
    parent = Session(project_dir="/a")
    store.put_session(parent)
    kids = [Session(project_dir="/a", parent_id=parent.id) for _ in range(3)]
    for kid in kids:
        store.put_session(kid)
    grandchild = Session(project_dir="/a", parent_id=kids[0].id)
    store.put_session(grandchild)
    [top] = store.list_sessions("/a", top_level=True)
    assert top.session.id == parent.id and top.child_count == 3
    everything = {s.session.id: s.child_count for s in store.list_sessions("/a")}
    assert everything == {parent.id: 3, kids[0].id: 1, kids[1].id: 0, kids[2].id: 0, grandchild.id: 0}


def test_a_read_only_store_reads_and_refuses_writes_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SessionStore(path) as store:
        session = Session(project_dir="/a")
        store.put_session(session)
    with SessionStore(path, read_only=True) as reader:
        assert reader.get_session(session.id).id == session.id
        assert [s.session.id for s in reader.list_sessions()] == [session.id]
        with pytest.raises(StorageError, match=r"read-only.*--data-dir DIR or the SHELLPILOT_DATA_DIR"):
            reader.put_session(Session(project_dir="/b"))
    with SessionStore(tmp_path / "missing.db", read_only=True) as empty:
        assert empty.list_sessions() == []
    assert not (tmp_path / "missing.db").exists()


def test_a_data_dir_that_cannot_be_made_says_what_to_do(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError) as err:
        SessionStore(blocker / "data" / "shellpilot.db")
    message = str(err.value)
    assert message.startswith(f"cannot create the data directory {blocker / 'data'}: Not a directory;")
    assert "--data-dir DIR or SHELLPILOT_DATA_DIR" in message and "[Errno" not in message


def test_a_message_makes_its_session_the_latest_of_its_project(store: SessionStore) -> None:
    # Even when the clock says otherwise (a step back, or the same millisecond): after the
    # project's latest session, whatever other projects' sessions say.
    ahead = 4_000_000_000_000
    store.put_session(Session(project_dir="/a", created_ms=0, updated_ms=ahead))
    store.put_session(Session(project_dir="/b", created_ms=0, updated_ms=ahead * 2))
    mine = Session(project_dir="/a", created_ms=0, updated_ms=0)
    store.put_session(mine)
    store.put_message(UserMessage(session_id=mine.id))
    assert store.get_session(mine.id).updated_ms == ahead + 1
    latest = store.latest_session("/a")
    assert latest is not None and latest.id == mine.id
