"""Slash-command arguments on the real command line (a subprocess): words that start with
``-`` reach the command, ``--`` passes our own option names on, ``-m`` beats the file's
model, and a Claude ``model: sonnet`` runs on the session's model when only an
OpenAI-compatible provider exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import shellpilot
from shellpilot.testing import ScriptedModelServer, Turn


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


SOURCE = str(Path(shellpilot.__file__).resolve().parents[1])
"""The tree under test, first on the child's path (it runs in the project dir)."""


def sp(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([SOURCE, env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def setup(project: Path, server: ScriptedModelServer) -> None:
    config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/test-model"}
    (project / "shellpilot.json").write_text(json.dumps(config))
    (project / ".opencode" / "commands").mkdir(parents=True)
    (project / ".opencode" / "commands" / "ph.md").write_text("1=[$1] 2=[$2] all=[$ARGUMENTS]")
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "think.md").write_text(
        "---\nmodel: sonnet\n---\nThink about $ARGUMENTS"
    )


def test_render_passes_dash_words_through(project: Path, server: ScriptedModelServer) -> None:
    setup(project, server)
    done = sp(project, "command", "render", "ph", "x", "--flag", "-5", "--level=3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1=[x] 2=[--flag -5 --level=3] all=[x --flag -5 --level=3]"
    ours = sp(project, "command", "render", "ph", "--", "--yes", "-y")
    assert ours.stdout.strip() == "1=[--yes] 2=[-y] all=[--yes -y]"


def test_a_misused_option_of_ours_says_to_use_dash_dash(project: Path, server: ScriptedModelServer) -> None:
    setup(project, server)
    done = sp(project, "command", "render", "ph", "x", "--allow")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "requires an argument" in done.stderr and "put -- before the command's arguments" in done.stderr


def test_run_passes_dash_words_and_minus_m_wins(project: Path, server: ScriptedModelServer) -> None:
    setup(project, server)
    server.add(Turn(text="ok"), Turn(text="thought"), Turn(text="picked"))
    done = sp(project, "run", "/ph", "x", "--flag", "-v")
    assert done.returncode == 0, done.stderr
    assert server.requests[0].user_texts()[-1] == "1=[x] 2=[--flag -v] all=[x --flag -v]"
    think = sp(project, "run", "/think", "deeply")
    assert think.returncode == 0, think.stderr
    assert server.requests[1].body["model"] == "test-model"  # the session's model, not a failure
    assert 'warning: model "sonnet" (from /think) is an Anthropic model' in think.stderr
    chosen = sp(project, "run", "-m", "fake/chosen", "/think", "again")
    assert chosen.returncode == 0, chosen.stderr
    assert server.requests[2].body["model"] == "chosen" and "sonnet" not in chosen.stderr
