"""``shellpilot run`` when the data dir's disk fills up during a tool call: the real CLI, a
real 1 MB tmpfs and the scripted model server.

Nothing is lost: the call whose result no longer fits is saved failed with the reason, its
exit code and spill file kept; a call running beside it is stopped, not left behind; the
assistant message ends with a ``StorageFull`` error; the CLI prints one clear error and exits 6.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from shellpilot.session.dispatch import STOPPED_BY_ERROR
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn


def _bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run a command"})


def test_a_full_disk_during_run_saves_the_call_failed_and_stops_the_turn(
    tmp_path: Path, small_tmpfs: Any
) -> None:
    data = small_tmpfs("1m") / "data"
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env |= {"SHELLPILOT_DATA_DIR": str(data), "SHELLPILOT_CONFIG_DIR": str(tmp_path / "config")}
    with ScriptedModelServer() as server:
        config = {
            "provider": {"fake": server.provider_config("openai")},
            "model": "fake/test-model",
            "permission": {"bash": {"seq *": "allow", "sleep *": "allow"}},
        }
        (project / "shellpilot.json").write_text(json.dumps(config))
        # seq writes about 4.8 MB: its spill file fills the disk and its result cannot be saved.
        server.add(Turn(text="Running.", tool_calls=[_bash("seq 1 700000"), _bash("sleep 30")]))
        server.add(Turn(text="never asked"))
        done = subprocess.run(
            [sys.executable, "-m", "shellpilot", "run", "go", "--dir", str(project), "--trust"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert len(server.requests) == 1  # the turn stopped at the full disk
    assert done.returncode == 6, done.stderr
    assert "Traceback" not in done.stderr and "Exception in callback" not in done.stderr
    assert f"error: cannot save a part: the disk holding {data} is full" in done.stderr
    with contextlib.closing(sqlite3.connect(data / "shellpilot.db")) as db:
        tools = db.execute("SELECT body FROM part WHERE type='tool' ORDER BY id")
        parts = [json.loads(row[0]) for row in tools]
        messages = db.execute("SELECT body FROM message WHERE role='assistant'")
        [assistant] = [json.loads(row[0]) for row in messages]
    by_command = {p["state"]["input"]["command"]: p["state"] for p in parts}
    filled = by_command["seq 1 700000"]
    assert filled["status"] == "error"
    assert filled["error"].startswith("the result could not be saved whole: cannot save a part")
    assert filled["metadata"]["exit"] == 0 and "storage_error" in filled["metadata"]
    stopped = by_command["sleep 30"]
    assert stopped["status"] == "error" and STOPPED_BY_ERROR in stopped["error"]
    assert assistant["error"]["name"] == "StorageFull" and assistant["completed_ms"] is not None
