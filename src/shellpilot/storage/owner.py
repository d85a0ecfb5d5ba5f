"""Process ownership tokens: who wrote a running part or holds a session lease, and are they alive.

Owns: the ``"pid:start"`` token and the liveness check. Must not touch: SQL or models.
"""

from __future__ import annotations

import os
from pathlib import Path

from shellpilot.process.process_group import start_time


def _state(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[0] if fields else ""


def token(pid: int | None = None) -> str:
    """``"pid:start"`` for ``pid`` (default: this process); start guards against pid reuse."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{start_time(pid)}"


def pid_of(owner: str) -> int | None:
    """The pid in an owner token (None when malformed)."""
    try:
        pid = int(owner.partition(":")[0])
    except ValueError:
        return None
    return pid if pid > 0 else None


def is_alive(owner: str | None) -> bool:
    """Whether the process named by an owner token still runs (a zombie counts as dead).

    A malformed or missing token is dead: its rows can only be left-overs.
    """
    if not owner:
        return False
    pid, start = pid_of(owner), owner.partition(":")[2]
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user
    except OSError:
        return False
    if _state(pid) == "Z":
        return False
    current = start_time(pid)
    return not (start and current and start != current)
