"""The command a dead shellpilot process left running: stopping it at recovery.

Owns: the recovery kill, reading the ``{"pid", "pgid", "start"}`` record a running part
keeps (made by ``shell.process_group.process_record``). Must not touch: SQL, models, the runner.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Mapping
from typing import Any

from shellpilot.process.process_group import group_members, is_alive, signal_group, start_time

_TERM_GRACE_S = 1.0
"""After SIGTERM, how long the orphaned group gets to exit before SIGKILL."""
_KILL_WAIT_S = 1.0
_POLL_S = 0.02


def _wait_gone(pgid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        alive = group_members(pgid)
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(_POLL_S)


def stop_orphan(record: Mapping[str, Any] | None) -> bool:
    """Kill the process group a dead owner left running; True when something was signalled.

    Only when the recorded leader still runs AND its kernel start time is the recorded one
    (a reused pid is someone else's process): SIGTERM (+SIGCONT) to the group and session,
    SIGKILL after about a second to whatever is left. A malformed record is ignored.
    """
    if not isinstance(record, Mapping):
        return False
    pid, pgid, start = record.get("pid"), record.get("pgid", record.get("pid")), record.get("start")
    if not (isinstance(pid, int) and isinstance(pgid, int) and isinstance(start, str)):
        return False
    if pid <= 1 or pgid <= 1 or not start:
        return False
    if not is_alive(pid) or start_time(pid) != start:
        return False
    alive = group_members(pgid) or [pid]
    signal_group(pgid, alive, signal.SIGTERM)
    signal_group(pgid, alive, signal.SIGCONT)
    alive = _wait_gone(pgid, _TERM_GRACE_S)
    if alive:
        signal_group(pgid, alive, signal.SIGKILL)
        _wait_gone(pgid, _KILL_WAIT_S)
    return True


__all__ = ["stop_orphan"]
