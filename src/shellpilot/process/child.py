"""Starting the shell process and knowing, without polling, when it has exited.

Owns: the Popen call (own session, stdin /dev/null, one merged output pipe) and the exit
watch (pidfd on Linux, a waiter thread elsewhere). Must not touch: output, kills, timeouts.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

PIPE_SIZE = 1 << 20
"""Requested kernel buffer of the output pipe (bytes): fewer wake-ups for chatty commands."""
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

WatchKind = Literal["auto", "pidfd", "thread"]


def spawn(
    argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], pass_fds: Sequence[int] = ()
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session (so its pid is its process group and session id),
    stdin from /dev/null, stdout and stderr merged into one pipe (their order is kept);
    ``pass_fds`` stay open in the child (every other descriptor is closed).

    Raises OSError as Popen does (missing cwd or binary); the caller translates it.
    """
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
        close_fds=True,
        pass_fds=tuple(pass_fds),
    )
    assert proc.stdout is not None
    with contextlib.suppress(OSError):  # a smaller pipe still works, only with more wake-ups
        fcntl.fcntl(proc.stdout.fileno(), _F_SETPIPE_SZ, PIPE_SIZE)
    return proc


class ExitWatch:
    """Resolves ``exited`` (with the Popen return code: negative = killed by that signal)
    once the process has ended and has been reaped.

    ``kind="pidfd"`` registers the process's pidfd with the event loop (no thread, no
    polling); ``"thread"`` waits in a daemon thread; ``"auto"`` takes pidfd when the OS
    has it. ``close()`` releases the pidfd (idempotent).
    """

    def __init__(self, proc: subprocess.Popen[bytes], kind: WatchKind = "auto") -> None:
        self._loop = asyncio.get_running_loop()
        self._proc = proc
        self._fd: int | None = None
        self.exited: asyncio.Future[int] = self._loop.create_future()
        if kind != "thread" and hasattr(os, "pidfd_open"):
            try:
                self._fd = os.pidfd_open(proc.pid)
            except OSError:
                if kind == "pidfd":
                    raise
        elif kind == "pidfd":
            raise OSError("pidfd_open is not available on this system")
        if self._fd is not None:
            self._loop.add_reader(self._fd, self._pidfd_ready)
        else:
            threading.Thread(target=self._wait, name=f"shellpilot-wait-{proc.pid}", daemon=True).start()

    def _pidfd_ready(self) -> None:
        code = self._proc.poll()
        if code is None:
            return
        self.close()
        self._resolve(code)

    def _wait(self) -> None:
        code = self._proc.wait()
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
            self._loop.call_soon_threadsafe(self._resolve, code)

    def _resolve(self, code: int) -> None:
        if not self.exited.done():
            self.exited.set_result(code)

    def close(self) -> None:
        """Stop watching (the pidfd is closed; a waiter thread ends with the process)."""
        if self._fd is not None:
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
