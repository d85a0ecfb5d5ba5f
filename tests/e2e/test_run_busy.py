"""``shellpilot run`` in a session another process runs: refused before anything is written or run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.testing import ScriptedModelServer, Turn


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", *args, "--dir", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def holder(project: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A ``shellpilot shell`` process running in a session (its pid, the session id)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellpilot", "shell", "--dir", str(project), "echo go; sleep 60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline() == "go\n"
        with sqlite3.connect(Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db") as db:
            (sid,) = db.execute("SELECT id FROM session").fetchone()
        yield proc, sid
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


def _stored() -> tuple[list[str], str]:
    """The ids of every stored message and part, and all their bodies as one text."""
    with sqlite3.connect(Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db") as db:
        rows = db.execute("SELECT id, body FROM message UNION ALL SELECT id, body FROM part").fetchall()
    return sorted(row[0] for row in rows), json.dumps([row[1] for row in rows])


def test_a_prompt_to_a_busy_session_is_refused_before_it_is_stored(
    project: Path, server: ScriptedModelServer, holder: tuple[subprocess.Popen[str], str]
) -> None:
    proc, sid = holder
    (project / "shellpilot.json").write_text(
        json.dumps({"provider": {"fake": server.provider_config("openai")}, "model": "fake/m"})
    )
    server.add(Turn(text="should never be asked"))
    before = _stored()
    done = _cli(project, "run", "--session", sid, "--yes", "second-request-text")
    assert done.returncode == 5, done.stderr
    ids, bodies = _stored()
    assert ids == before[0] and "second-request-text" not in bodies
    assert f"process {proc.pid}" in done.stderr and " since " in done.stderr
    assert "nothing was recorded" in done.stderr
    assert server.requests == []


def test_a_command_in_a_busy_session_runs_no_shell_block(
    project: Path, server: ScriptedModelServer, holder: tuple[subprocess.Popen[str], str]
) -> None:
    _, sid = holder
    (project / "shellpilot.json").write_text(
        json.dumps({"provider": {"fake": server.provider_config("openai")}, "model": "fake/m"})
    )
    commands = project / ".shellpilot" / "command"
    commands.mkdir(parents=True)
    (commands / "mk.md").write_text("Made: !`touch made-by-block`\n")
    before = _stored()
    done = _cli(project, "run", "--session", sid, "--yes", "/mk")
    assert done.returncode == 5, done.stderr
    assert not (project / "made-by-block").exists()
    assert _stored()[0] == before[0] and server.requests == []
