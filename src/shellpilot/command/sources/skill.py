"""Skills as commands: one ``SKILL.md`` -> one ``Command`` with the rules of its root's format.

Owns: the skill -> command mapping (slash name, display name, trust, Claude fields).
Must not touch: finding skills (skill/discovery.py) or precedence (registry.py).
"""

from __future__ import annotations

from typing import Any

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.hints import hints
from shellpilot.command.model import Command, TemplateSyntax
from shellpilot.command.sources.claude import claude_fields, tool_list
from shellpilot.skill.discovery import Skill


def skill_command(skill: Skill, *, project_trusted: bool) -> tuple[Command, list[LoadWarning]]:
    """The command of ``skill`` and the warnings its frontmatter gave.

    Its name is ``skill.slash_name`` (``Plugin Settings`` -> ``plugin-settings``), the
    written name kept as ``display_name``; a skill from a Claude root follows Claude
    Code's rules (``claude_fields``), the others their root's format with only
    ``allowed-tools``/``disallowed-tools`` read (an Agent Skills field). A skill from a
    project root is trusted only with the project.
    """
    root = skill.root
    warnings: list[LoadWarning] = []
    template = skill.template()
    fields: dict[str, Any]
    syntax: TemplateSyntax
    if root is not None and root.format == "claude":
        fields = claude_fields(skill.data, skill.body, skill.path, warnings)
        syntax = fields.pop("syntax")
    else:
        syntax = root.format if root is not None else "shellpilot"
        fields = {
            "allowed_tools": tool_list(skill.data.get("allowed-tools")),
            "disallowed_tools": tool_list(skill.data.get("disallowed-tools")),
        }
    name = skill.slash_name
    command = Command(
        name=name,
        display_name=skill.name if skill.name != name else None,
        description=skill.description,
        source="skill",
        template=template,
        syntax=syntax,
        hints=hints(template, syntax, fields.get("named_arguments", ())),
        origin=str(skill.path),
        trusted=(root.user if root is not None else False) or project_trusted,
        directory=str(skill.folder),
        **fields,
    )
    return command, warnings
