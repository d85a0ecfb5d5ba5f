"""Finding and killing what is left of a command's process group (its own session).

Owns: /proc liveness checks, the TERM -> grace -> KILL sequence for one group and the
crash-recovery process record. Must not touch: pipes, output, results, storage.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

_PROC = Path("/proc")
_POLL_S = 0.02
_KILL_WAIT_S = 2.0
"""After SIGKILL, how long to wait for the kernel to take the processes away."""


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, pgrp, session)`` of a process from /proc, or None if it is gone."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[2]), int(fields[3])


def start_time(pid: int) -> str:
    """The kernel start time of ``pid`` (field 22 of Linux ``/proc/<pid>/stat``, clock ticks
    since boot, as text), or "" where it cannot be read. With the pid it names one process:
    a later process that reuses the pid has another start time."""
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return ""
    # Field 2 (comm) may hold spaces and parentheses; the fields after the last ')' are fixed.
    fields = raw[raw.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def process_record(pid: int) -> dict[str, Any] | None:
    """``{"pid", "pgid", "start"}`` for a command's shell (started in its own session, so
    its pid is its process group); ``start`` is ``start_time(pid)``. A running tool part
    keeps it in ``metadata["process"]`` so that recovery after a crash
    (``storage.orphan.stop_orphan``) can stop the command. None when ``/proc`` cannot say."""
    start = start_time(pid)
    return {"pid": pid, "pgid": pid, "start": start} if start else None


def group_members(leader: int, *, quick: bool = False) -> list[int]:
    """Live (non-zombie) processes whose process group or session is ``leader``'s pid.

    The runner starts every command with ``start_new_session=True``, so the shell's pid is
    both the group and the session id; children that moved to another group (``set -m``)
    stay in the session and are found too. ``quick=True`` first asks the kernel whether
    the group exists at all (one syscall) and returns [] if not. Without /proc (macOS)
    only the group is checked and ``[leader]`` stands for "something is alive".
    """
    if quick or not _PROC.is_dir():
        try:
            os.killpg(leader, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        if not _PROC.is_dir():
            return [leader]
    found: list[int] = []
    me = os.getpid()
    for entry in os.scandir(_PROC):
        name = entry.name
        if not name.isdigit():
            continue
        pid = int(name)
        if pid == me:
            continue
        info = _stat(pid)
        if info is None:
            continue
        state, pgrp, session = info
        if state in ("Z", "X", "x"):
            continue
        if pgrp == leader or session == leader:
            found.append(pid)
    return sorted(found)


def is_alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (read from /proc)."""
    info = _stat(pid)
    return info is not None and info[0] not in ("Z", "X", "x")


def signal_group(leader: int, members: list[int], sig: signal.Signals) -> None:
    """Send ``sig`` to the process group ``leader`` and to each of ``members`` (those that
    left the group but stayed in the session); vanished processes are ignored."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, sig)
    for pid in members:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


async def _wait_gone(leader: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        alive = group_members(leader)
        if not alive or time.monotonic() >= deadline:
            return alive
        await asyncio.sleep(_POLL_S)


async def terminate_group(leader: int, grace_s: float) -> list[int]:
    """SIGTERM (and SIGCONT, so stopped ones can act on it) to the group and session of
    ``leader``; SIGKILL to whatever is still alive after ``grace_s`` seconds, checked by
    real liveness (/proc), not by "a signal was sent". Grandchildren are included.

    Returns the pids still alive at the end (normally []; a process that left the
    session with setsid cannot be found).
    """
    alive = group_members(leader)
    if not alive:
        return []
    signal_group(leader, alive, signal.SIGTERM)
    signal_group(leader, alive, signal.SIGCONT)
    alive = await _wait_gone(leader, grace_s)
    if not alive:
        return []
    signal_group(leader, alive, signal.SIGKILL)
    return await _wait_gone(leader, _KILL_WAIT_S)
