"""Start-up recovery with real processes and real SQLite files: opening a store signals
nothing; ``recover`` stops what a killed shellpilot left running and marks it interrupted."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.errors import SessionBusy
from shellpilot.process.process_group import ProcessRecord, group_members
from shellpilot.session.models import (
    AssistantMessage,
    ToolFailed,
    ToolPart,
    ToolRunning,
)
from shellpilot.session.recovery import recover
from shellpilot.storage.store import INTERRUPTED, SessionStore
from shellpilot.testing import ScriptedModelServer, Turn

WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from shellpilot.session.models import *
    from shellpilot.storage.store import SessionStore
    store = SessionStore(Path(sys.argv[1]))
    s = Session(project_dir="/p"); store.put_session(s)
    u = UserMessage(session_id=s.id); store.put_message(u)
    a = AssistantMessage(session_id=s.id, parent_id=u.id); store.put_message(a)
    metadata = {"output": "so far\\n"}
    if len(sys.argv) > 3:
        metadata["process"] = {"pid": int(sys.argv[3]), "pgid": int(sys.argv[3]), "start": sys.argv[4]}
    p = ToolPart(session_id=s.id, message_id=a.id, tool="bash",
                 state=ToolRunning(input={"command": "yes"}, metadata=metadata))
    store.put_part(p)
    store.acquire_lease(s.id, "shell")
    print(s.id, a.id, p.id, flush=True)
    if sys.argv[2] == "die":
        os.kill(os.getpid(), 9)
    time.sleep(30)
    """
)


def _writer(path: Path, mode: str, *record: str) -> tuple[subprocess.Popen[str], list[str]]:
    """A real process that writes a running part (and holds the lease), then dies by SIGKILL
    (``die``) or stays alive (``live``)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), mode, *record], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    ids = proc.stdout.readline().split()
    return proc, ids


@pytest.fixture
def orphan() -> Iterator[subprocess.Popen[bytes]]:
    """``sh -c 'sleep 30 & sleep 30'`` in its own session, like the runner starts commands."""
    proc = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30; :"], start_new_session=True)
    end = time.monotonic() + 10
    while len(group_members(proc.pid)) < 3:
        assert time.monotonic() < end, "the group never started its children"
        time.sleep(0.02)
    yield proc
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
    proc.wait(10)


def test_recover_marks_parts_of_a_dead_process_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    proc, (session_id, message_id, part_id) = _writer(path, "die")
    proc.wait(10)
    store = SessionStore(path)
    done = recover(store)
    assert done.parts == [part_id] and done.killed == [] and done.sessions == [session_id]
    part = store.get_part(part_id)
    assert isinstance(part, ToolPart) and isinstance(part.state, ToolFailed)
    assert part.state.error == INTERRUPTED
    assert part.state.metadata["output"] == "so far\n"
    assert part.state.input == {"command": "yes"}
    message = store.get_message(message_id)
    assert isinstance(message, AssistantMessage) and message.error is not None
    assert message.completed_ms is not None
    store.acquire_lease(session_id, "shell")  # the dead process's lease was dropped
    assert recover(SessionStore(path)).parts == []  # nothing is left to recover


def test_recover_leaves_a_live_process_alone_and_its_lease_holds(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    proc, (session_id, _, part_id) = _writer(path, "live")
    try:
        store = SessionStore(path)
        assert recover(store).parts == []
        part = store.get_part(part_id)
        assert isinstance(part, ToolPart) and isinstance(part.state, ToolRunning)
        with pytest.raises(SessionBusy):
            store.acquire_lease(session_id, "shell")
        assert store.lease_holder(session_id) is not None
        # what `session delete` says names the process to stop
        busy = store.lease_busy(session_id)
        assert busy is not None and busy.pid == proc.pid and f"kill -INT {proc.pid}" in str(busy)
    finally:
        proc.kill()
        proc.wait(10)


def test_opening_a_store_signals_nothing_recover_stops_the_orphan(
    tmp_path: Path, orphan: subprocess.Popen[bytes]
) -> None:
    record = ProcessRecord.of(orphan.pid)
    assert record is not None and record.pgid == orphan.pid
    path = tmp_path / "s.db"
    proc, (_, _, part_id) = _writer(path, "die", str(record.pid), record.start)
    proc.wait(10)
    store = SessionStore(path)  # opening alone: the orphan runs on, the part stays running
    assert len(group_members(orphan.pid)) == 3
    part = store.get_part(part_id)
    assert isinstance(part, ToolPart) and isinstance(part.state, ToolRunning)
    done = recover(store)
    assert done.parts == [part_id] and done.killed == [part_id]
    assert orphan.wait(10) == -15  # SIGTERM from recovery
    assert group_members(orphan.pid) == []  # the shell and both sleeps
    stopped = store.get_part(part_id)
    assert isinstance(stopped, ToolPart) and isinstance(stopped.state, ToolFailed)
    assert stopped.state.metadata["interrupted"]["killed"] is True


def test_a_reused_pid_is_left_alone(tmp_path: Path, orphan: subprocess.Popen[bytes]) -> None:
    record = ProcessRecord.of(orphan.pid)
    assert record is not None
    stale = ProcessRecord(record.pid, record.pgid, str(int(record.start) - 1))  # same pid, other process
    path = tmp_path / "s.db"
    proc, (_, _, part_id) = _writer(path, "die", str(stale.pid), stale.start)
    proc.wait(10)
    done = recover(SessionStore(path))
    assert done.parts == [part_id] and done.killed == []
    assert orphan.poll() is None and len(group_members(orphan.pid)) == 3


def test_process_records_round_trip_and_malformed_ones_are_refused() -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    record = ProcessRecord.of(proc.pid)
    proc.wait(10)
    assert record is not None and ProcessRecord.from_dict(record.to_dict()) == record
    assert record.stop(0.1) is False  # gone: nothing is signalled
    for bad in (None, {}, {"pid": "1"}, {"pid": 1, "pgid": 1, "start": "1"}, {"pid": True, "start": "1"}):
        assert ProcessRecord.from_dict(bad) is None
    assert ProcessRecord.from_dict({"pid": os.getpid(), "start": "5"}) == ProcessRecord(
        os.getpid(), os.getpid(), "5"
    )


def _messages(data: Path) -> list[dict[str, object]]:
    db = sqlite3.connect(f"file:{data / 'shellpilot.db'}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT body FROM message ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []
    finally:
        db.close()
    return [json.loads(row[0]) for row in rows]


def test_a_run_killed_before_the_first_reply_is_closed_at_the_next_start(project: Path) -> None:
    """``kill -9`` of ``shellpilot run`` while the model has not answered yet: no part exists,
    only the open assistant message. The next start marks it interrupted."""
    data = Path(os.environ["SHELLPILOT_DATA_DIR"])
    asked = threading.Event()
    release = threading.Event()

    def hang(request: object) -> Turn:
        asked.set()
        release.wait(60)
        return Turn(text="too late")

    with ScriptedModelServer([hang]) as server:
        config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/test-model"}
        (project / "shellpilot.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
        run = [sys.executable, "-m", "shellpilot", "run", "--dir", str(project), "hello"]
        proc = subprocess.Popen(run, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        try:
            assert asked.wait(60), "the model was never asked"
            (open_message,) = [m for m in _messages(data) if m["role"] == "assistant"]
            assert open_message["completed_ms"] is None
            proc.kill()
            proc.wait(10)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        listed = subprocess.run(
            [sys.executable, "-m", "shellpilot", "session", "list", "--dir", str(project)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert listed.returncode == 0, listed.stderr
    (closed,) = [m for m in _messages(data) if m["role"] == "assistant"]
    assert closed["id"] == open_message["id"]
    assert closed["completed_ms"] is not None
    assert closed["error"] == {
        "name": "Interrupted",
        "message": "the process running this turn ended before it finished",
        "exit_code": 1,
    }
