"""Catching what escapes a command's process group when it runs without a sandbox.

Owns: making this process a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), the run
marker in each command's environment, finding a run's escaped processes (re-parented to us,
or still below its shell in another session) and reaping the ones we adopted.
Must not touch: signals (process_group.py sends them), pipes, results.

A ``setsid`` child leaves the command's process group and session, so killing the group
misses it, and once its parent exits it would be re-parented to init and lost. As a
subreaper, shellpilot becomes its new parent instead; the marker ``SHELLPILOT_RUN=<token>``
that it inherited says which run it came from (a process that clears its environment
before escaping cannot be told apart and is left alone).
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from collections.abc import Iterable
from pathlib import Path

RUN_ENV = "SHELLPILOT_RUN"
"""Environment variable naming the run a process belongs to (set for every command)."""
_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_counter = itertools.count(1)
_adopted: set[int] = set()
"""Escaped processes listed or killed by a run: our children now, to be reaped when they end."""


@functools.cache
def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux; once per process).
    Returns False where the OS has no such thing or the call failed."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        # The C library this process already has loaded (no `ctypes.util.find_library`,
        # which runs `ldconfig -p` in a child process each time).
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def run_token() -> str:
    """A marker value unique to one run of this process (``<pid>-<n>``)."""
    return f"{os.getpid()}-{next(_counter)}"


def _children() -> list[int]:
    """Direct children of this process, read from every thread's ``children`` file."""
    found: list[int] = []
    try:
        tasks = list((_PROC / "self" / "task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1])


def _marked(pid: int, token: str) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{RUN_ENV}={token}".encode() in environ.split(b"\0")


def _alive(pid: int) -> bool:
    info = _state_and_parent(pid)
    return info is not None and info[0] not in ("Z", "X", "x")


def descendants(roots: Iterable[int]) -> list[int]:
    """Live processes below ``roots`` (children, grandchildren...), from one /proc scan."""
    wanted = set(roots)
    if not wanted:
        return []
    parent_of: dict[int, int] = {}
    for entry in os.scandir(_PROC):
        if entry.name.isdigit():
            info = _state_and_parent(int(entry.name))
            if info is not None and info[0] not in ("Z", "X", "x"):
                parent_of[int(entry.name)] = info[1]
    found: list[int] = []
    frontier = set(wanted)
    while frontier:
        frontier = {pid for pid, parent in parent_of.items() if parent in frontier and pid not in wanted}
        wanted |= frontier
        found += sorted(frontier)
    return found


def escaped(token: str, leader: int | None = None, *, deep: bool = False) -> list[int]:
    """Processes of the run ``token`` that left its process group: our children carrying its
    marker (other than ``leader``, the run's own shell) and, with ``deep``, everything below
    them and below ``leader`` (a ``setsid`` child whose parent still lives; one /proc scan).
    Without /proc: []."""
    adopted = [pid for pid in _children() if pid != leader and _alive(pid) and _marked(pid, token)]
    _adopted.update(adopted)
    if not deep:
        return sorted(adopted)
    roots = [*adopted, *([leader] if leader is not None else [])]
    found = {*adopted, *descendants(roots)}
    found.discard(leader if leader is not None else -1)
    return sorted(found)


def reap_group(pgid: int) -> int:
    """Reap our children that are zombies of process group ``pgid`` (a sandbox's init,
    re-parented to us when bwrap exits first); returns how many. No process of that group
    has a waiter of its own: its leader, the one we spawned, is reaped by its Popen."""
    reaped = 0
    for pid in _children():
        try:
            raw = (_PROC / str(pid) / "stat").read_bytes()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()
        if fields[0] == b"Z" and int(fields[2]) == pgid:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    reaped += 1
            except ChildProcessError:
                continue
    return reaped


def reap_adopted() -> list[int]:
    """Collect the exit status of adopted processes that have ended, so none stays a zombie
    of this process; returns the pids reaped. Never waits for one still running."""
    reaped: list[int] = []
    for pid in list(_adopted):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            _adopted.discard(pid)
            continue
        if done:
            _adopted.discard(pid)
            reaped.append(pid)
    return reaped
