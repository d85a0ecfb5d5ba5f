"""Finding skills: ``<root>/<name>/SKILL.md`` with frontmatter ``name`` and ``description``.

Owns: skill discovery and parsing. Must not touch: commands or precedence (the command
registry turns skills into commands and decides which names they may take).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import FrontmatterError, parse_markdown

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    """One skill: its name, description, body and folder (for relative paths)."""

    name: str
    description: str | None
    body: str
    folder: Path
    path: Path

    def template(self) -> str:
        """The body plus a line naming the folder."""
        return f"{self.body}\n\nBase directory for this skill: {self.folder}"


def skill_dirs(project_dir: Path, config_dir: Path | None) -> list[Path]:
    """Roots searched, weakest first: user config ``skill(s)/``, then project ``.claude/skills``,
    ``.shellpilot/skill``, ``.shellpilot/skills`` (a later root wins a name)."""
    roots: list[Path] = []
    if config_dir is not None:
        roots += [config_dir / "skill", config_dir / "skills"]
    roots += [
        project_dir / ".claude" / "skills",
        project_dir / ".shellpilot" / "skill",
        project_dir / ".shellpilot" / "skills",
    ]
    return roots


def _read(folder: Path, path: Path) -> Skill | LoadWarning:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return LoadWarning(f"skipped: cannot read ({exc})", str(path))
    try:
        parsed = parse_markdown(text, str(path))
    except FrontmatterError as exc:
        return LoadWarning(f"skipped: {exc.message}", str(path), exc.line)
    name = parsed.data.get("name")
    description = parsed.data.get("description")
    return Skill(
        name=name.strip() if isinstance(name, str) and name.strip() else folder.name,
        description=str(description).strip() if description is not None else None,
        body=parsed.body,
        folder=folder,
        path=path,
    )


def discover_skills(roots: list[Path]) -> tuple[list[Skill], list[LoadWarning]]:
    """Every ``<root>/<name>/SKILL.md``; a later root's skill replaces an earlier one's name.

    Broken files are skipped with a warning naming the path and line.
    """
    found: dict[str, Skill] = {}
    warnings: list[LoadWarning] = []
    for root in roots:
        try:
            entries = sorted(os.scandir(root), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path) / SKILL_FILE
            if not entry.is_dir() or not path.is_file():
                continue
            skill = _read(Path(entry.path), path)
            if isinstance(skill, LoadWarning):
                warnings.append(skill)
                continue
            if skill.name in found:
                old = found[skill.name]
                warnings.append(
                    LoadWarning(f'skill "{skill.name}" replaces the one in {old.path}', str(path))
                )
            found[skill.name] = skill
    return list(found.values()), warnings
