"""Finding and killing a command's process group with real processes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from shellpilot.process.child import ExitWatch, spawn
from shellpilot.process.process_group import ProcessRecord, group_members, start_time, terminate_group


def _record(pid: int) -> dict[str, object] | None:
    record = ProcessRecord.of(pid)
    return record.to_dict() if record is not None else None


async def test_members_are_found_and_killed_with_grandchildren(tmp_path: Path) -> None:
    script = "sleep 30 & (trap '' TERM; sleep 30) & echo ready; wait"
    proc = spawn(["/bin/sh", "-c", script], cwd=tmp_path, env=os.environ)
    watch = ExitWatch(proc)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    members = group_members(proc.pid)
    assert proc.pid in members and len(members) >= 3
    assert await terminate_group(proc.pid, grace_s=0.3) == []
    assert group_members(proc.pid) == []
    await asyncio.wait_for(watch.exited, 3)
    watch.close()
    proc.stdout.close()


async def test_nothing_to_kill(tmp_path: Path) -> None:
    proc = spawn(["/bin/sh", "-c", "exit 0"], cwd=tmp_path, env=os.environ)
    assert proc.wait() == 0
    assert proc.stdout is not None
    proc.stdout.close()
    assert group_members(proc.pid, quick=True) == []
    assert group_members(proc.pid) == []
    assert await terminate_group(proc.pid, grace_s=0.1) == []


async def test_process_record_names_the_group_and_its_start_time(tmp_path: Path) -> None:
    proc = spawn(["sleep", "30"], cwd=tmp_path, env=dict(os.environ))
    try:
        record = _record(proc.pid)
        assert record is not None and record == {
            "pid": proc.pid,
            "pgid": proc.pid,
            "start": start_time(proc.pid),
        }
        assert record["start"].isdigit() and start_time(os.getpid()) != ""
    finally:
        await terminate_group(proc.pid, 1.0)
        proc.wait(5)
        assert proc.stdout is not None
        proc.stdout.close()
    assert _record(proc.pid) is None  # reaped: /proc has nothing to say
