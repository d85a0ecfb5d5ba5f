"""Finding and killing what is left of a command's process group (its own session).

Owns: /proc liveness checks, the one TERM -> grace -> KILL sequence for a group and the
``ProcessRecord`` crash recovery reads. Must not touch: pipes, output, results, storage.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ProcessRecord:
    """Which process a running command is, so that recovery after a crash can stop it.

    ``pid``: the command's shell (started in its own session, so its pid is also its
    process group ``pgid``); ``start``: ``start_time(pid)``, which tells that process from
    a later one reusing the pid. A running tool part keeps ``to_dict()`` in
    ``metadata["process"]``; start-up recovery reads it back with ``from_dict``.
    """

    pid: int
    pgid: int
    start: str

    @classmethod
    def of(cls, pid: int) -> ProcessRecord | None:
        """The record of a command's shell just started; None when ``/proc`` cannot say."""
        start = start_time(pid)
        return cls(pid, pid, start) if start else None

    @classmethod
    def from_dict(cls, value: object) -> ProcessRecord | None:
        """A stored ``{"pid", "pgid", "start"}`` back as a record; None when malformed
        (missing or mistyped fields, a pid or group <= 1, an empty start time)."""
        if not isinstance(value, Mapping):
            return None
        pid, pgid, start = value.get("pid"), value.get("pgid", value.get("pid")), value.get("start")
        if not (isinstance(pid, int) and isinstance(pgid, int) and isinstance(start, str)):
            return None
        if isinstance(pid, bool) or isinstance(pgid, bool) or pid <= 1 or pgid <= 1 or not start:
            return None
        return cls(pid, pgid, start)

    def to_dict(self) -> dict[str, Any]:
        """``{"pid", "pgid", "start"}`` (JSON-ready, for the part's metadata)."""
        return {"pid": self.pid, "pgid": self.pgid, "start": self.start}

    def still_running(self) -> bool:
        """Whether the recorded shell is alive and is still that same process."""
        return is_alive(self.pid) and start_time(self.pid) == self.start

    def stop(self, grace_s: float) -> bool:
        """Stop what is left of the recorded command (``terminate_group_now``: TERM, then
        KILL after ``grace_s`` seconds) if its shell is still that same process; True when
        something was signalled. Blocking: for start-up recovery, outside an event loop."""
        if not self.still_running():
            return False
        terminate_group_now(self.pgid, grace_s, present=[self.pid])
        return True


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
    """Send ``sig`` to the process group ``leader`` (none when ``leader`` is -1) and to each
    of ``members`` (those that left the group); vanished processes are ignored."""
    if leader > 0:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, sig)
    for pid in members:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _targets(leader: int, also: Callable[[], Iterable[int]] | None) -> list[int]:
    found = set(group_members(leader))
    if also is not None:
        found.update(pid for pid in also() if is_alive(pid))
    return sorted(found)


def _term_then_kill(
    leader: int,
    grace_s: float,
    present: list[int],
    also: Callable[[], Iterable[int]] | None = None,
    spare_leader: bool = False,
) -> Generator[float, None, list[int]]:
    """THE TERM -> grace -> KILL sequence, written once: SIGTERM + SIGCONT to the group and
    session of ``leader`` and to ``also()`` (processes that escaped both, asked again at
    every step), then SIGKILL to whatever is alive after ``grace_s`` seconds, then up to
    ``_KILL_WAIT_S`` for the kernel to take them. ``spare_leader``: the leader itself gets
    no SIGTERM (only the SIGKILL if it outlives the grace). Each ``yield`` asks its driver
    to sleep that many seconds before liveness (/proc) is read again; it returns the pids
    still alive at the end. ``terminate_group`` drives it with asyncio, ``terminate_group_now``
    with a blocking sleep (start-up recovery, outside any event loop)."""
    alive = _targets(leader, also) or list(present)
    if not alive:
        return []
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, _KILL_WAIT_S)):
        spared = spare_leader and sig == signal.SIGTERM
        targets = [pid for pid in alive if pid != leader] if spared else alive
        for each in (sig, signal.SIGCONT) if sig == signal.SIGTERM else (sig,):
            signal_group(-1 if spared else leader, targets, each)
        deadline = time.monotonic() + wait_s
        while True:
            alive = _targets(leader, also)
            if not alive:
                return []
            if time.monotonic() >= deadline:
                break
            yield _POLL_S
    return alive


async def terminate_group(
    leader: int,
    grace_s: float,
    *,
    present: list[int] | None = None,
    also: Callable[[], Iterable[int]] | None = None,
    spare_leader: bool = False,
) -> list[int]:
    """SIGTERM (and SIGCONT, so stopped ones can act on it) to the group and session of
    ``leader`` and to the pids ``also()`` returns (processes that escaped both); SIGKILL to
    whatever is still alive after ``grace_s`` seconds, checked by real liveness (/proc), not
    by "a signal was sent". Grandchildren are included. ``present``: pids known to be
    alive, signalled even when /proc lists no member.

    ``spare_leader``: the leader gets no SIGTERM, only the SIGKILL if it outlives the grace
    (bubblewrap as leader would die of SIGTERM at once and take its namespace down with
    SIGKILL, leaving the command no time to clean up; it exits by itself when they do).

    Returns the pids still alive at the end (normally []; a process that left the
    session with setsid and is not named by ``also`` cannot be found).
    """
    steps = _term_then_kill(leader, grace_s, present or [], also, spare_leader)
    try:
        while True:
            await asyncio.sleep(next(steps))
    except StopIteration as done:
        return list(done.value)


def terminate_group_now(leader: int, grace_s: float, *, present: list[int] | None = None) -> list[int]:
    """``terminate_group`` for code outside an event loop (blocks up to ``grace_s`` + 2 s)."""
    steps = _term_then_kill(leader, grace_s, present or [])
    try:
        while True:
            time.sleep(next(steps))
    except StopIteration as done:
        return list(done.value)
