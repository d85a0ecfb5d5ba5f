"""The system prompt: agent prompt, environment block, AGENTS.md and extra lines."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from shellpilot.agent import AgentRegistry
from shellpilot.config import Config
from shellpilot.session.system import AGENTS_MAX_BYTES, environment, read_agents_md, system_prompt


def test_environment_and_agent_prompt(project: Path) -> None:
    env = environment(project, shell="/usr/bin/zsh", today=dt.date(2026, 1, 2))
    agent = AgentRegistry(Config()).get("plan")
    text = system_prompt(agent, env)
    assert text.startswith(agent.prompt)
    assert f"Working directory: {project}" in text
    assert "Shell: zsh" in text
    assert "Today's date: 2026-01-02" in text
    assert "Is a git repository: no" in text
    assert "AGENTS.md" not in text


def test_agents_md_is_included_when_present(project: Path) -> None:
    assert read_agents_md(project) is None
    (project / "AGENTS.md").write_text("Run tests with `make check`.\n")
    env = environment(project, shell="bash")
    text = system_prompt(AgentRegistry(Config()).get("build"), env, read_agents_md(project), ["EXTRA LINE"])
    assert "Run tests with `make check`." in text
    assert str(project / "AGENTS.md") in text
    assert text.endswith("EXTRA LINE")


def test_agents_md_is_capped(project: Path) -> None:
    (project / "AGENTS.md").write_text("x" * (AGENTS_MAX_BYTES + 10))
    text = read_agents_md(project)
    assert text is not None and text.endswith("[... AGENTS.md truncated ...]")
    assert len(text) < AGENTS_MAX_BYTES + 100


def test_agent_without_prompt_gets_the_build_prompt(project: Path) -> None:
    registry = AgentRegistry(Config.model_validate({"agent": {"bare": {}}}))
    text = system_prompt(registry.get("bare"), environment(project))
    assert text.startswith(registry.get("build").prompt)


def test_prompt_describes_truncation_as_head_and_tail(project: Path) -> None:
    text = system_prompt(AgentRegistry(Config()).get("build"), environment(project))
    assert "truncated to their tail" not in text
    assert "first and last lines" in text and "sed -n 'A,Bp' <file>" in text
