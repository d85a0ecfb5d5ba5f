"""The command a dead shellpilot process left running: stopping it at recovery.

Owns: the recovery kill, reading the ``{"pid", "pgid", "start"}`` record a running part
keeps (made by ``shell.process_group.process_record``). Must not touch: SQL, models, the runner.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shellpilot.shell.process_group import start_time

_PROC = Path("/proc")
_TERM_GRACE_S = 1.0
"""After SIGTERM, how long the orphaned group gets to exit before SIGKILL."""
_KILL_WAIT_S = 1.0
_POLL_S = 0.02


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """``(state, ppid, pgrp, session)`` from /proc, or None if the process is gone."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3])


def _members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in the group or session ``pgid``."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(_PROC):
            if not entry.name.isdigit():
                continue
            info = _stat(int(entry.name))
            if info is not None and info[0] not in ("Z", "X") and pgid in (info[2], info[3]):
                found.append(int(entry.name))
    return found


def _signal(pgid: int, members: list[int], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
    for pid in members:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _wait_gone(pgid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        alive = _members(pgid)
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
    info = _stat(pid)
    if info is None or info[0] in ("Z", "X") or start_time(pid) != start:
        return False
    alive = _members(pgid) or [pid]
    _signal(pgid, alive, signal.SIGTERM)
    _signal(pgid, alive, signal.SIGCONT)
    alive = _wait_gone(pgid, _TERM_GRACE_S)
    if alive:
        _signal(pgid, alive, signal.SIGKILL)
        _wait_gone(pgid, _KILL_WAIT_S)
    return True


__all__ = ["stop_orphan"]
