"""SessionService.shell with the real runner, real processes and a real SQLite store."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.errors import InvalidTimeout, SessionBusy, SessionNotFound, UsageError, WorkdirNotFound
from shellpilot.session.events import PartUpdated, SessionStatus
from shellpilot.session.models import (
    AssistantMessage,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    UserMessage,
)
from shellpilot.session.run_state import RunState
from shellpilot.session.service import USER_SHELL_TEXT, SessionService
from shellpilot.storage.store import SessionStore


@pytest.fixture
def service(tmp_path: Path) -> SessionService:
    data = tmp_path / "data"
    store = SessionStore(data / "shellpilot.db")
    bus = Bus()
    return SessionService(store, bus, Config(), data, RunState(bus, lease=store))


def _completed(part: ToolPart) -> ToolCompleted:
    assert isinstance(part.state, ToolCompleted), part.state
    return part.state


async def test_shell_records_the_user_turn_and_a_completed_bash_part(
    service: SessionService, project: Path
) -> None:
    session = service.create(project)
    message, part = await service.shell(session.id, "pwd; echo '$HOME'; echo oops >&2; exit 3")
    state = _completed(part)
    assert state.input == {"command": "pwd; echo '$HOME'; echo oops >&2; exit 3"}
    assert state.metadata["exit"] == 3  # a non-zero exit is a completed part, not an error
    assert state.output.startswith(f"{project.resolve()}\n$HOME\noops\n")
    assert state.metadata["truncated"] is False and state.metadata["aborted"] is False
    assert "scan" in state.metadata
    assert message.completed_ms is not None and message.parent_id is not None
    history = service.messages(session.id)
    assert [type(m.info) for m in history] == [UserMessage, AssistantMessage]
    text = history[0].parts[0]
    assert isinstance(text, TextPart) and text.synthetic and text.text == USER_SHELL_TEXT
    assert history[1].parts == [part]
    assert history[1].info.id == message.id and history[1].info.parent_id == history[0].info.id


async def test_live_preview_reaches_callback_bus_and_store_in_few_writes(
    service: SessionService, project: Path
) -> None:
    session = service.create(project)
    previews: list[str] = []
    events: list[Event] = []
    service.bus.listen(events.append, ["part.updated", "session.status"])
    before = service.store.writes
    command = "for i in $(seq 1 10000); do echo line $i; done; sleep 0.3; echo tail"
    started = time.monotonic()
    _, part = await service.shell(session.id, command, on_output=previews.append)
    elapsed = time.monotonic() - started
    assert previews and previews[-1].endswith("tail\n")
    running = [e for e in events if isinstance(e, PartUpdated) and e.part.type == "tool"]
    assert any(isinstance(e.part, ToolPart) and e.part.state.status == "running" for e in running)
    statuses = [e.status for e in events if isinstance(e, SessionStatus)]
    assert statuses == ["busy", "idle"]
    # user msg, text part, assistant msg, running part, final part, final msg, and live
    # writes coalesced to at most one per live interval: ~10 for 10,000 lines in 0.4 s.
    # Bounded by the run's own length, so a slow (loaded) run may take more intervals.
    intervals = elapsed / (service.store.live_interval_ms / 1000)
    assert service.store.writes - before <= 10 + intervals
    assert _completed(part).metadata["output"].endswith("tail\n")


async def test_cancel_kills_the_command_and_records_aborted(service: SessionService, project: Path) -> None:
    session = service.create(project)
    started = asyncio.Event()

    def seen(preview: str) -> None:
        if "ready" in preview:
            started.set()

    task = asyncio.create_task(service.shell(session.id, "echo ready; sleep 30", on_output=seen))
    await asyncio.wait_for(started.wait(), 10)
    with pytest.raises(SessionBusy):
        await service.shell(session.id, "true")
    await service.run_state.cancel(session.id)
    _, part = await asyncio.wait_for(task, 10)
    state = _completed(part)
    assert state.metadata["aborted"] is True
    assert "aborted by the user" in state.output
    assert "ready" in state.output
    assert not service.run_state.busy(session.id)
    stored = service.store.get_part(part.id)
    assert stored == part


async def test_timeout_and_truncation_use_the_runner_limits(service: SessionService, project: Path) -> None:
    session = service.create(project)
    _, part = await service.shell(session.id, "sleep 5", timeout_ms=300)
    state = _completed(part)
    assert state.metadata["timed_out"] is True and state.metadata["exit"] is None

    _, big = await service.shell(session.id, "seq 1 200000")
    state = _completed(big)
    assert state.metadata["truncated"] is True
    path = Path(state.metadata["output_path"])
    assert path.read_bytes() == b"".join(b"%d\n" % i for i in range(1, 200001))
    assert str(path) in state.output and "200000" in state.output
    assert len(state.output) < 60_000


async def test_bad_input_is_refused_before_anything_runs(service: SessionService, project: Path) -> None:
    with pytest.raises(SessionNotFound):
        await service.shell("ses_missing", "true")
    session = service.create(project)
    with pytest.raises(UsageError):
        await service.shell(session.id, "   ")
    with pytest.raises(InvalidTimeout):
        await service.shell(session.id, "true", timeout_ms=0)
    assert service.messages(session.id) == []


async def test_spawn_failure_is_recorded_as_an_error_part(service: SessionService, tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    session = service.create(gone)
    os.rmdir(gone)
    with pytest.raises(WorkdirNotFound):
        await service.shell(session.id, "true")
    part = service.messages(session.id)[-1].parts[-1]
    assert isinstance(part, ToolPart) and isinstance(part.state, ToolFailed)
    assert not service.run_state.busy(session.id)


def test_delete_cascades_to_child_sessions(service: SessionService, project: Path) -> None:
    parent = service.create(project)
    child = service.create(project, parent_id=parent.id)
    assert [s.id for s in service.store.children(parent.id)] == [child.id]
    service.delete(parent.id)
    with pytest.raises(SessionNotFound):
        service.get(child.id)


async def test_delete_removes_the_spill_files_of_the_session_and_its_children(
    service: SessionService, project: Path, tmp_path: Path
) -> None:
    from shellpilot.paths import tool_output_dir

    parent = service.create(project)
    _, big = await service.shell(parent.id, "seq 1 200000")
    spill = Path(_completed(big).metadata["output_path"])
    assert spill.is_file() and spill.parent == tool_output_dir(service.data_dir, project)
    child = service.create(project, parent_id=parent.id)
    _, small = await service.shell(child.id, "seq 1 100000")
    child_spill = Path(_completed(small).metadata["output_path"])
    outside = tmp_path / "not-a-spill.txt"
    outside.write_text("keep me\n")
    # A part naming a file outside the tool-output folder (hand-edited store, a traversal).
    message = AssistantMessage(session_id=child.id, agent="build")
    service.store.put_message(message)
    for path in (outside, tool_output_dir(service.data_dir) / ".." / "shellpilot.db"):
        meta = {"output_path": str(path)}
        state = ToolCompleted(input={"command": "x"}, output="", metadata=meta, start_ms=1)
        service.store.put_part(ToolPart(session_id=child.id, message_id=message.id, tool="bash", state=state))
    other = service.create(project)
    _, kept = await service.shell(other.id, "seq 1 150000")
    other_spill = Path(_completed(kept).metadata["output_path"])

    service.delete(parent.id)
    assert not spill.exists() and not child_spill.exists()
    assert outside.read_text() == "keep me\n"
    assert (service.data_dir / "shellpilot.db").is_file()
    assert other_spill.is_file()  # another session's full output stays


async def test_the_shell_process_is_recorded_when_it_starts(service: SessionService, project: Path) -> None:
    session = service.create(project)
    seen: list[object] = []

    def on_output(_: str) -> None:
        # The record is in the store while the command still runs (crash recovery reads it).
        (item,) = [m for m in service.store.messages(session.id) if isinstance(m.info, AssistantMessage)]
        seen.append(getattr(item.parts[0].state, "metadata", {}).get("process"))

    _, part = await service.shell(session.id, "echo $$; sleep 0.3", on_output=on_output)
    shell_pid = int(_completed(part).output.split()[0])
    assert seen and seen[0] == _completed(part).metadata["process"]
    assert _completed(part).metadata["process"]["pgid"] == shell_pid
