"""storage.orphan with real processes: the spawn record and the recovery kill."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.process.process_group import ProcessRecord, group_members
from shellpilot.storage.orphan import stop_orphan


def _record(pid: int) -> dict[str, object] | None:
    record = ProcessRecord.of(pid)
    return record.to_dict() if record is not None else None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.fixture
def group() -> Iterator[subprocess.Popen[bytes]]:
    """``sh -c 'sleep 30 & sleep 30'`` in its own session, like the runner starts commands."""
    proc = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30; :"], start_new_session=True)
    yield proc
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
    proc.wait(10)


def _wait_members(pgid: int, count: int) -> None:
    end = time.monotonic() + 10
    while len(group_members(pgid)) < count:
        assert time.monotonic() < end, "the group never started its children"
        time.sleep(0.02)


def test_stop_orphan_kills_the_recorded_group(group: subprocess.Popen[bytes]) -> None:
    _wait_members(group.pid, 3)
    record = _record(group.pid)
    assert record is not None and record["pgid"] == group.pid and record["start"]
    assert stop_orphan(record) is True
    group.wait(10)
    assert group_members(group.pid) == []  # the shell and both sleeps


def test_a_reused_pid_is_left_alone(group: subprocess.Popen[bytes]) -> None:
    record = _record(group.pid)
    assert record is not None
    stale = {**record, "start": str(int(record["start"]) - 1)}  # another process, same pid
    assert stop_orphan(stale) is False
    assert _alive(group.pid)


def test_gone_and_malformed_records_are_ignored() -> None:
    proc = subprocess.Popen(["true"], start_new_session=True)
    record = _record(proc.pid)
    proc.wait(10)
    assert stop_orphan(record) is False
    for bad in (None, {}, {"pid": "1"}, {"pid": 1, "pgid": 1, "start": "1"}, {"pid": os.getpid()}):
        assert stop_orphan(bad) is False
