"""The sandbox from the command line: `run` with the plan agent, `sandbox`, `doctor`, `shell`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shellpilot.process.bwrap import find_mechanism
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn

MECHANISM = find_mechanism()
needs_bwrap = pytest.mark.skipif(
    not MECHANISM.works, reason=f"bwrap cannot run here: {MECHANISM.reason} (fix: {MECHANISM.fix})"
)


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as running:
        yield running


def cli(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        timeout=60,
    )


def bash(command: str, **extra: Any) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run a command", **extra})


@needs_bwrap
def test_the_plan_agent_cannot_write_through_python_even_with_yes(
    project: Path, server: ScriptedModelServer
) -> None:
    config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/test-model"}
    (project / "shellpilot.json").write_text(json.dumps(config))
    write = "python3 -c \"open('planned.txt', 'w').write('x')\""
    server.add(Turn(tool_calls=[bash(write)]), Turn(text="Could not write."))
    done = cli(project, "run", "--agent", "plan", "--yes", "--dir", str(project), "write a file")
    assert done.returncode == 0, done.stderr
    assert not (project / "planned.txt").exists()
    [result] = server.requests[1].tool_results()
    assert "Read-only file system" in result.content and "read-only profile" in result.content


@needs_bwrap
def test_sandbox_command_runs_like_the_bash_tool(project: Path) -> None:
    done = cli(project, "sandbox", "--", "sh", "-c", "echo inside; touch made; touch ~/.sp-cli-x")
    assert done.returncode == 1
    # The command's stdout and stderr come merged, as the model sees them.
    assert done.stdout.startswith("inside\n") and "Read-only file system" in done.stdout
    assert (project / "made").exists()
    assert "workspace-write profile" in done.stderr and "--allow" in done.stderr
    assert not (Path.home() / ".sp-cli-x").exists()
    strict = cli(project, "sandbox", "--mode", "read-only", "--", "touch", "ro")
    assert strict.returncode == 1 and not (project / "ro").exists()
    assert "read-only profile" in strict.stderr


@needs_bwrap
def test_sandbox_timeout_is_said_once_for_a_person(project: Path) -> None:
    done = cli(project, "sandbox", "--timeout", "300", "--", "sh", "-c", "echo up; sleep 20")
    assert done.returncode == 124 and done.stdout == "up\n"
    assert done.stderr == "shellpilot: command timed out after 300 ms and was killed\n"


def test_sandbox_command_refuses_when_no_sandbox_can_run(project: Path, tmp_path: Path) -> None:
    done = cli(project, "sandbox", "--", "touch", "x", env={"SHELLPILOT_BWRAP": str(tmp_path / "missing")})
    assert done.returncode == 1 and not (project / "x").exists()
    assert "sandbox is required" in done.stderr and "Fix:" in done.stderr


def test_doctor_reports_mechanisms_shell_config_and_trust(project: Path) -> None:
    (project / "shellpilot.json").write_text(json.dumps({"sandbox": {"mode": "off"}}))
    done = cli(project, "doctor", "--dir", str(project), env={"SHELLPILOT_TRUST_PROJECT": "0"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Sandbox" in out and "bwrap (PATH)" in out
    assert ("works" in out) == MECHANISM.works
    assert "Shell" in out and "Config" in out
    assert f"read: {project / 'shellpilot.json'}" in out
    assert "not trusted" in out and "ignored: sandbox.mode" in out


def test_doctor_says_why_bwrap_does_not_work(project: Path, tmp_path: Path) -> None:
    done = cli(project, "doctor", env={"SHELLPILOT_BWRAP": str(tmp_path / "missing")})
    assert done.returncode == 0
    assert "does not work" in done.stdout and "Fix:" in done.stdout and "in use: none" in done.stdout


@needs_bwrap
def test_the_users_own_shell_is_not_sandboxed(project: Path) -> None:
    target = Path.home() / f".sp-user-shell-{os.getpid()}"
    try:
        done = cli(project, "shell", "--dir", str(project), f"touch {target}")
        assert done.returncode == 0, done.stderr
        assert target.exists()
    finally:
        target.unlink(missing_ok=True)
