"""Agents: builtins, config merge, lookup errors, default agent and rule layering."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.agent import AgentRegistry, builtin_agents
from shellpilot.config import Config
from shellpilot.errors import AgentNotFound, ConfigError
from shellpilot.permission.rules import Rule, evaluate


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


def _decide(rules: list[Rule], permission: str, pattern: str) -> str:
    return evaluate(permission, pattern, rules).action


def test_plan_rules_win_over_the_users_but_keep_user_denies(tmp_path: Path) -> None:
    cfg = Config.model_validate(
        {"permission": {"edit": "allow", "bash": {"*": "allow", "npm test *": "allow", "rm *": "deny"}}}
    )
    registry = AgentRegistry(cfg)
    plan = registry.ruleset(registry.get("plan"), tmp_path)
    assert _decide(plan, "edit", "src/a.py") == "deny"
    assert _decide(plan, "bash", "npm test -x") == "ask"
    assert _decide(plan, "bash", "rm -rf x") == "deny"
    build = registry.ruleset(registry.get("build"), tmp_path)
    assert _decide(build, "edit", "src/a.py") == "allow"
    assert _decide(build, "bash", "npm test -x") == "allow"


def test_agent_config_permission_replaces_same_user_pattern(tmp_path: Path) -> None:
    cfg = Config.model_validate(
        {
            "permission": {"bash": {"git push *": "ask"}},
            "agent": {"build": {"permission": {"bash": {"git push *": "allow"}}}},
        }
    )
    registry = AgentRegistry(cfg)
    rules = registry.ruleset(registry.get("build"), tmp_path)
    assert _decide(rules, "bash", "git push origin") == "allow"
    assert _decide(rules, "bash", "make") == "ask"
