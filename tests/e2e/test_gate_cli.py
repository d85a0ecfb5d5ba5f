"""The shell gate end to end: ``shellpilot run`` (a subprocess) against ``ScriptedModelServer``.

Shell blocks pass the same gate as the model's ``bash`` tool (the ``plan`` agent's ``edit``
deny stops a template's ``touch``), take their spill folder from ``--data-dir``, a project's
rules only tighten the user's, and an unanalysable command under a deny rule needs a person.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shellpilot.paths import tool_output_dir
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


def configure(project: Path, server: ScriptedModelServer, **extra: Any) -> None:
    config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/test-model", **extra}
    (project / "shellpilot.json").write_text(json.dumps(config))


def user_config(config: dict[str, Any]) -> None:
    """Write the USER config file (the conftest points SHELLPILOT_CONFIG_DIR at a temp dir)."""
    folder = Path(os.environ["SHELLPILOT_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shellpilot.json").write_text(json.dumps(config))


def command_file(project: Path, name: str, text: str) -> None:
    folder = project / ".shellpilot" / "command"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", *args, "--dir", str(project)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run a command"})


def test_a_plan_command_block_cannot_write_even_with_yes(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server)
    command_file(project, "mk", "---\nagent: plan\n---\nMade: !`touch x` done")
    server.add(Turn(text="Noted."))
    done = cli(project, "run", "--yes", "/mk")
    assert done.returncode == 0, done.stderr
    assert not (project / "x").exists()
    assert 'shell block `touch x` not run: edit denied by rule for "x"' in done.stderr
    (prompt,) = server.requests[0].user_texts()[-1:]
    assert 'Made: [shell block not run: edit denied by rule for "x"] done' in prompt


def test_the_same_block_writes_under_the_build_agent(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server)
    command_file(project, "mk", "Made: !`touch x && echo yes`")
    server.add(Turn(text="Noted."))
    done = cli(project, "run", "--yes", "/mk")
    assert done.returncode == 0, done.stderr
    assert (project / "x").exists()
    assert "Made: yes" in server.requests[0].user_texts()[-1]


def test_shell_blocks_spill_under_the_sessions_data_dir(
    project: Path, server: ScriptedModelServer, tmp_path: Path
) -> None:
    configure(project, server, tool_output={"max_lines": 5})
    command_file(project, "long", "Lines: !`seq 1 500`")
    server.add(Turn(text="Noted."))
    chosen = tmp_path / "chosen-data"
    done = cli(project, "run", "--yes", "--data-dir", str(chosen), "/long")
    assert done.returncode == 0, done.stderr
    prompt = server.requests[0].user_texts()[-1]
    found = re.search(r"saved to: (\S+)", prompt)
    assert found is not None, prompt
    spill = Path(found.group(1))
    assert spill.parent == tool_output_dir(chosen, project)
    assert spill.read_text().splitlines() == [str(n) for n in range(1, 501)]
    assert not (Path(os.environ["SHELLPILOT_DATA_DIR"]) / "tool-output").exists()


def test_a_project_ask_never_replaces_the_users_deny(project: Path, server: ScriptedModelServer) -> None:
    user_config({"permission": {"bash": {"rm *": "deny"}}})
    configure(project, server, permission={"bash": {"rm *": "ask"}})
    (project / "victim").write_text("keep me\n")
    server.add(Turn(tool_calls=[bash("rm victim")]), Turn(text="It was denied."))
    done = cli(project, "run", "--yes", "remove it")
    assert done.returncode == 0, done.stderr
    assert (project / "victim").exists()
    (result,) = server.requests[1].tool_results()
    assert 'denies "bash" for "rm victim"' in result.content


def test_an_unanalysed_command_under_a_deny_rule_is_not_run_by_yes(
    project: Path, server: ScriptedModelServer
) -> None:
    user_config({"permission": {"bash": {"*": "allow", "rm *": "deny"}}})
    configure(project, server)
    (project / "victim").write_text("keep me\n")
    server.add(Turn(tool_calls=[bash("X=r; ${X}m victim")]), Turn(text="I will not."))
    done = cli(project, "run", "--yes", "remove it")
    assert done.returncode == 0, done.stderr
    assert (project / "victim").exists()
    (result,) = server.requests[1].tool_results()  # the model reads why and goes on
    assert "could not be analysed" in result.content and "dynamic command name" in result.content
    assert "neither --yes nor --allow" in done.stderr


def test_without_a_deny_rule_yes_still_allows_an_unanalysed_command(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server)
    server.add(Turn(tool_calls=[bash("X=ech; ${X}o made > made.txt")]), Turn(text="Done."))
    done = cli(project, "run", "--yes", "make it")
    assert done.returncode == 0, done.stderr
    assert (project / "made.txt").read_text() == "made\n"
