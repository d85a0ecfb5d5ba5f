"""A command's ``allowed-tools`` and ``disallowed-tools`` as permission rules for its own turn.

Owns: turning Claude Code tool specs (``Bash(git add:*)``, ``Bash(npm test *)``) into
``bash`` rules and the trust decision for them. Must not touch: evaluation (the
permission engine) or when the turn ends (the session loop drops the rules then).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shellpilot.command.model import Command
from shellpilot.permission.rules import Action, Rule

_BASH = re.compile(r"^Bash(?:\((.*)\))?$", re.DOTALL)


@dataclass(frozen=True)
class TurnRules:
    """Rules that hold only while one command's turn runs, and why some were dropped."""

    rules: list[Rule] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def bash_pattern(spec: str, command: Command | None = None) -> str | None:
    """The ``bash`` pattern of a Claude Code tool spec, None for tools shellpilot lacks.

    ``Bash`` and ``Bash(*)`` -> ``*``; ``Bash(git add:*)`` (the prefix form) -> ``git add *``;
    ``Bash(npm test *)`` stays ``npm test *``. ``${CLAUDE_PLUGIN_ROOT}`` and
    ``${CLAUDE_SKILL_DIR}`` expand to the command's own folders, as Claude Code does.
    """
    match = _BASH.match(spec.strip())
    if match is None:
        return None
    inner = (match.group(1) or "").strip()
    if command is not None:
        folders = {"CLAUDE_PLUGIN_ROOT": command.plugin_root, "CLAUDE_SKILL_DIR": command.directory}
        for name, value in folders.items():
            if value:
                inner = inner.replace("${" + name + "}", value)
    if not inner or inner == "*":
        return "*"
    if inner.endswith(":*"):
        return inner[:-2].rstrip() + " *"
    return inner


def _rules(specs: list[str], action: Action, command: Command) -> list[Rule]:
    patterns = [bash_pattern(spec, command) for spec in specs]
    return [Rule("bash", p, action, "command") for p in dict.fromkeys(patterns) if p is not None]


def turn_rules(command: Command) -> TurnRules:
    """The rules of ``command``'s turn: each ``Bash(...)`` of ``allowed-tools`` an allow
    rule, of ``disallowed-tools`` a deny rule (source ``command``). Allow rules come only
    from a trusted file (the user's, or a trusted project's); from another file they are
    dropped with a warning. A deny the user or an agent wrote still beats them (see
    ``permission.rules.evaluate``). Entries for tools shellpilot does not have are ignored.
    """
    denies = _rules(command.disallowed_tools, "deny", command)
    allows = _rules(command.allowed_tools, "allow", command)
    warnings: list[str] = []
    if allows and not command.trusted:
        warnings.append(
            f"allowed-tools of /{command.name} ignored: {command.origin} belongs to a project that is "
            "not trusted (pass --trust, or add the project to trusted_projects in your config)"
        )
        allows = []
    return TurnRules(allows + denies, warnings)
