"""``shellpilot run`` killed with SIGKILL in the middle of the model's ``bash`` call: the next
start of shellpilot stops the orphaned command and marks its part interrupted.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from shellpilot.process.process_group import group_members
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn


def _store() -> Path:
    return Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db"


def _tool_parts() -> list[dict[str, Any]]:
    if not _store().is_file():
        return []
    conn = sqlite3.connect(f"file:{_store()}?mode=ro", uri=True, timeout=5)
    try:
        rows = conn.execute("SELECT body FROM part WHERE type='tool' ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the schema is not there yet
        return []
    finally:
        conn.close()
    return [json.loads(row[0]) for row in rows]


def _running_record() -> dict[str, Any] | None:
    for part in _tool_parts():
        state = part["state"]
        if state["status"] == "running" and "process" in state.get("metadata", {}):
            record: dict[str, Any] = state["metadata"]["process"]
            return record
    return None


def test_kill_9_mid_tool_call_then_restart_stops_the_command(project: Path) -> None:
    with ScriptedModelServer() as server:
        config = {
            "provider": {"fake": server.provider_config("openai")},
            "model": "fake/test-model",
            "permission": {"bash": {"sleep *": "allow"}},
            # Unsandboxed: a sandboxed command dies with the CLI (see the next test).
            "sandbox": {"mode": "off"},
        }
        (project / "shellpilot.json").write_text(json.dumps(config))
        call = ToolCall("bash", {"command": "sleep 30", "description": "wait", "timeout": 120_000})
        server.add(Turn(tool_calls=[call]), Turn(text="never asked"))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "shellpilot", "run", "--dir", str(project), "wait please"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        record: dict[str, Any] | None = None
        try:
            end = time.monotonic() + 30
            while record is None and proc.poll() is None and time.monotonic() < end:
                time.sleep(0.05)
                record = _running_record()
            assert record is not None, "the running bash part never got its process record"
            pgid = record["pgid"]
            assert record["pid"] == pgid and record["start"]
            assert group_members(pgid)
            proc.kill()
            proc.wait(10)
            assert group_members(pgid)  # the command outlives the CLI: it has its own group
            listed = subprocess.run(
                [sys.executable, "-m", "shellpilot", "session", "list", "--dir", str(project)],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            assert listed.returncode == 0, listed.stderr
            assert not group_members(pgid)  # opening the store stopped the orphaned `sleep 30`
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            if record is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(record["pgid"], signal.SIGKILL)
        (part,) = _tool_parts()
        state = part["state"]
        assert state["status"] == "error" and state["error"] == "interrupted"
        assert state["metadata"]["interrupted"]["killed"] is True
        assert len(server.requests) == 1


def test_kill_9_mid_sandboxed_tool_call_takes_the_command_with_it(project: Path) -> None:
    """bwrap runs with --die-with-parent: the sandbox and all in it end with the CLI."""
    from shellpilot.process.bwrap import find_mechanism

    if not find_mechanism().works:
        pytest.skip(f"bwrap cannot run here: {find_mechanism().reason}")
    with ScriptedModelServer() as server:
        config = {
            "provider": {"fake": server.provider_config("openai")},
            "model": "fake/test-model",
            "permission": {"bash": {"sleep *": "allow"}},
        }
        (project / "shellpilot.json").write_text(json.dumps(config))
        call = ToolCall("bash", {"command": "sleep 31", "description": "wait", "timeout": 120_000})
        server.add(Turn(tool_calls=[call]), Turn(text="never asked"))
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "shellpilot", "run", "--dir", str(project), "wait please"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        record: dict[str, Any] | None = None
        try:
            end = time.monotonic() + 30
            while record is None and proc.poll() is None and time.monotonic() < end:
                time.sleep(0.05)
                record = _running_record()
            assert record is not None, "the running bash part never got its process record"
            pgid = record["pgid"]
            while len(group_members(pgid)) < 3 and time.monotonic() < end:  # bwrap, its init, sleep
                time.sleep(0.05)
            assert len(group_members(pgid)) >= 3
            proc.kill()
            proc.wait(10)
            end = time.monotonic() + 30
            while group_members(pgid) and time.monotonic() < end:
                time.sleep(0.05)
            assert group_members(pgid) == []
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            if record is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(record["pgid"], signal.SIGKILL)
