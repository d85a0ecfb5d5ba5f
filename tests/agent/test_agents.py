"""Agents: builtins, config merge, lookup errors, default agent and rule layering."""

from __future__ import annotations

import pytest

from shellpilot.agent import AgentRegistry, builtin_agents
from shellpilot.config import Config
from shellpilot.errors import AgentNotFound, ConfigError


def test_builtins_have_modes_and_prompts() -> None:
    agents = {agent.name: agent for agent in builtin_agents()}
    assert list(agents) == ["build", "plan", "general"]
    assert agents["build"].mode == "primary"
    assert agents["plan"].mode == "primary"
    assert agents["general"].mode == "subagent"
    for agent in agents.values():
        assert agent.prompt and agent.builtin
    assert "plan mode" in agents["plan"].prompt
    assert agents["plan"].permission[0]["edit"] == "deny"
    assert agents["plan"].permission[0]["bash"] == {"*": "ask"}


def test_default_is_build_and_configurable() -> None:
    assert AgentRegistry(Config()).default().name == "build"
    assert AgentRegistry(Config.model_validate({"default_agent": "plan"})).default().name == "plan"


def test_default_agent_must_be_primary() -> None:
    with pytest.raises(ConfigError, match="subagent"):
        AgentRegistry(Config.model_validate({"default_agent": "general"})).default()


def test_unknown_agent_lists_available() -> None:
    with pytest.raises(AgentNotFound) as info:
        AgentRegistry(Config()).get("nope")
    assert info.value.available == ["build", "plan", "general"]
    assert "Available agents: build, plan, general" in str(info.value)


def test_config_overrides_builtin_and_adds_new() -> None:
    cfg = Config.model_validate(
        {
            "agent": {
                "build": {"model": "local/qwen", "temperature": 0.2},
                "plan": {"permission": {"bash": {"git log*": "allow"}}},
                "reviewer": {"mode": "subagent", "description": "Reviews diffs", "prompt": "Review."},
                "general": {"disable": True},
            }
        }
    )
    registry = AgentRegistry(cfg)
    build = registry.get("build")
    assert build.model == "local/qwen" and build.temperature == 0.2
    assert build.prompt == builtin_agents()[0].prompt
    plan = registry.get("plan")
    assert len(plan.permission) == 2 and plan.permission[1] == {"bash": {"git log*": "allow"}}
    reviewer = registry.get("reviewer")
    assert reviewer.is_subagent and not reviewer.is_primary and reviewer.prompt == "Review."
    assert [a.name for a in registry.subagents()] == ["reviewer"]
    assert "general" not in registry.names()


def test_new_agent_defaults_to_mode_all() -> None:
    registry = AgentRegistry(Config.model_validate({"agent": {"helper": {"prompt": "Help."}}}))
    helper = registry.get("helper")
    assert helper.mode == "all" and helper.is_primary and helper.is_subagent
