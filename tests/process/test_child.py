"""Spawning the shell and watching its exit, both ways (pidfd and waiter thread)."""

from __future__ import annotations

import fcntl
import os
import signal
from pathlib import Path

import pytest

from shellpilot.process.child import PIPE_SIZE, ExitWatch, WatchKind, spawn


@pytest.mark.parametrize("kind", ["pidfd", "thread"])
async def test_exit_watch_reports_codes_and_signals(tmp_path: Path, kind: WatchKind) -> None:
    if kind == "pidfd" and not hasattr(os, "pidfd_open"):
        pytest.skip("no pidfd on this system")
    proc = spawn(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"], cwd=tmp_path, env=os.environ)
    watch = ExitWatch(proc, kind)
    assert await watch.exited == 3
    assert proc.stdout is not None and proc.stdout.read() == b"out\nerr\n"
    proc.stdout.close()
    watch.close()
    killed = spawn(["/bin/sh", "-c", "kill -TERM $$"], cwd=tmp_path, env=os.environ)
    watch = ExitWatch(killed, kind)
    assert await watch.exited == -signal.SIGTERM
    assert killed.stdout is not None
    killed.stdout.close()
    watch.close()


async def test_child_has_its_own_session_and_no_stdin(tmp_path: Path) -> None:
    proc = spawn(["/bin/sh", "-c", "cat; ps -o sid= -p $$"], cwd=tmp_path, env=os.environ)
    assert proc.stdout is not None
    if Path("/proc").is_dir():
        assert fcntl.fcntl(proc.stdout.fileno(), getattr(fcntl, "F_GETPIPE_SZ", 1032)) in (PIPE_SIZE, 65536)
    output = proc.stdout.read()
    proc.stdout.close()
    assert proc.wait() == 0
    assert output.split() == [str(proc.pid).encode()]


def test_spawn_errors_are_oserrors(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        spawn(["/bin/sh", "-c", "true"], cwd=tmp_path / "missing", env=os.environ)
