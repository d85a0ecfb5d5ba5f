"""Unsandboxed commands: processes that leave the group (setsid) are listed and killed."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from shellpilot.config import Config
from shellpilot.process.process_group import is_alive
from shellpilot.process.runner import run
from shellpilot.process.subreaper import RUN_ENV, become_subreaper

FAST = Config.model_validate({"shell": {"kill_grace_ms": 300, "drain_ms": 300}})
pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")


def _running(cmdline: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            if b" ".join(argv).decode(errors="replace") == cmdline:
                found.append(int(entry.name))
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


async def test_a_setsid_child_is_killed_on_timeout(project: Path, tmp_path: Path) -> None:
    sleeper = f"sleep 1007.{os.getpid()}"
    result = await run(
        f"(setsid {sleeper} >/dev/null 2>&1 &); sleep 1008",
        cwd=project,
        timeout_ms=1000,
        config=FAST,
        output_dir=tmp_path,
    )
    assert result.timed_out
    assert _running(sleeper) == []


async def test_a_setsid_child_still_below_the_shell_is_killed_on_abort(project: Path, tmp_path: Path) -> None:
    sleeper = f"sleep 1009.{os.getpid()}"
    abort = asyncio.Event()

    def on_output(preview: str) -> None:
        if "started" in preview:
            abort.set()

    result = await run(
        f"echo started; setsid {sleeper} & wait",
        cwd=project,
        abort=abort,
        on_output=on_output,
        config=FAST,
        output_dir=tmp_path,
    )
    assert result.aborted
    assert _running(sleeper) == []


async def test_an_escaped_child_that_outlives_the_command_is_listed(project: Path, tmp_path: Path) -> None:
    sleeper = f"sleep 1006.{os.getpid()}"
    result = await run(f"setsid {sleeper}", cwd=project, config=FAST, output_dir=tmp_path)
    try:
        alive = _running(sleeper)
        assert len(alive) == 1 and result.background_pids == alive
        assert f"pid {alive[0]}" in result.output
        assert become_subreaper() and is_alive(alive[0])
        environ = Path(f"/proc/{alive[0]}/environ").read_bytes()
        assert f"{RUN_ENV}=".encode() in environ
    finally:
        _kill(_running(sleeper))
