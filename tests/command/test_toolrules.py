"""allowed-tools / disallowed-tools -> rules for one command's turn, and who may loosen."""

from __future__ import annotations

import dataclasses

import pytest

from shellpilot.command.model import Command
from shellpilot.command.toolrules import bash_pattern, turn_rules
from shellpilot.permission.rules import Rule, evaluate, rules_from_config


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ("Bash(git add:*)", "git add *"),
        ("Bash(git:*)", "git *"),
        ("Bash(npm test *)", "npm test *"),
        ("Bash(npm run build)", "npm run build"),
        ("Bash", "*"),
        ("Bash(*)", "*"),
        ("Read", None),
        ("Edit(src/**)", None),
        ("mcp__github__create_issue", None),
        ("Bash(${CLAUDE_PLUGIN_ROOT}/scripts/check.sh:*)", "/plug/scripts/check.sh *"),
    ],
)
def test_bash_patterns(spec: str, pattern: str | None) -> None:
    command = Command(name="x", template="", plugin_root="/plug")
    assert bash_pattern(spec, command) == pattern


def test_trusted_allows_and_any_denies() -> None:
    command = Command(
        name="ship",
        template="",
        allowed_tools=["Bash(git add:*)", "Read", "Bash(npm test *)"],
        disallowed_tools=["Bash(git push:*)"],
    )
    assert turn_rules(command).rules == [
        Rule("bash", "git add *", "allow", "command"),
        Rule("bash", "npm test *", "allow", "command"),
        Rule("bash", "git push *", "deny", "command"),
    ]
    untrusted = turn_rules(dataclasses.replace(command, trusted=False, origin="/p/.claude/commands/ship.md"))
    assert untrusted.rules == [Rule("bash", "git push *", "deny", "command")]
    assert untrusted.warnings == [
        "allowed-tools of /ship ignored: /p/.claude/commands/ship.md belongs to a project that is "
        "not trusted (pass --trust, or add the project to trusted_projects in your config)"
    ]


def test_a_users_deny_beats_a_command_allow_however_specific() -> None:
    user = rules_from_config({"bash": {"git *": "deny", "npm *": "ask"}})
    command = [Rule("bash", "git add *", "allow", "command"), Rule("bash", "npm test *", "allow", "command")]
    rules = [*user, *command]
    assert evaluate("bash", "git add x", rules).action == "deny"
    assert evaluate("bash", "npm test", rules).action == "allow"  # an ask is pre-approved
    assert evaluate("bash", "npm install", rules).action == "ask"
    agent = [Rule("bash", "git add secret*", "deny", "agent")]
    assert evaluate("bash", "git add secret.txt", [*agent, *command]).action == "deny"
