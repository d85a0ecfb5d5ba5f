"""Finding skills: ``<root>/<name>/SKILL.md`` with frontmatter ``name`` and ``description``.

Owns: where skills live (each root with its format and scope), reading them, their slash
names and which root wins a name. Must not touch: commands or expansion (the command
registry turns skills into commands and decides which names they may take).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import FrontmatterError, parse_markdown

SKILL_FILE = "SKILL.md"
SkillFormat = Literal["shellpilot", "opencode", "claude"]
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class SkillRoot:
    """A folder of skill folders: its format (whose rules the skills follow) and whether
    it is the user's (True) or the project's (False; trusted only with the project)."""

    path: Path
    format: SkillFormat
    user: bool
    within: Path | None = None
    """A project root of an untrusted project: each skill folder must really be under
    this folder (the project), not reached through a link that leads out of it."""


@dataclass(frozen=True)
class Skill:
    """One skill: its name as written, description, body, folder (for relative paths),
    frontmatter ``data`` and the ``root`` it came from."""

    name: str
    description: str | None
    body: str
    folder: Path
    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    root: SkillRoot | None = None

    @property
    def slash_name(self) -> str:
        """The name to type after ``/`` (see ``slash_name``)."""
        return slash_name(self.name) or slash_name(self.folder.name) or self.folder.name

    def template(self) -> str:
        """The body plus a line naming the folder."""
        return f"{self.body}\n\nBase directory for this skill: {self.folder}"


def slash_name(name: str) -> str:
    """A skill name as a slash command: lower case, runs of other characters as one ``-``
    (``Plugin Settings`` -> ``plugin-settings``, the Agent Skills name form)."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


def skill_dirs(
    project_dir: Path, config_dir: Path | None, home: Path | None = None, *, confine: bool = False
) -> list[SkillRoot]:
    """Roots searched, weakest first (a later root wins a name):

    shellpilot's user ``skill(s)/``; OpenCode's ``~/.config/opencode/skill(s)`` and the
    project's ``.opencode/skill(s)`` (OpenCode: the project wins); the project's
    ``.claude/skills`` then ``~/.claude/skills`` (Claude Code: personal skills win over
    project ones); the project's ``.shellpilot/skill(s)`` last. ``home`` None: no
    ``~`` roots. ``confine`` (an untrusted project): the project's roots only yield skill
    folders that really lie in the project (``SkillRoot.within``).
    """
    within = project_dir if confine else None
    roots: list[SkillRoot] = []
    if config_dir is not None:
        roots += [SkillRoot(config_dir / d, "shellpilot", True) for d in ("skill", "skills")]
    if home is not None:
        roots += [SkillRoot(home / ".config" / "opencode" / d, "opencode", True) for d in ("skill", "skills")]
    pairs = ("skill", "skills")
    roots += [SkillRoot(project_dir / ".opencode" / d, "opencode", False, within) for d in pairs]
    roots.append(SkillRoot(project_dir / ".claude" / "skills", "claude", False, within))
    if home is not None:
        roots.append(SkillRoot(home / ".claude" / "skills", "claude", True))
    roots += [SkillRoot(project_dir / ".shellpilot" / d, "shellpilot", False, within) for d in pairs]
    return roots


def _read(folder: Path, path: Path, root: SkillRoot | None) -> Skill | LoadWarning:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return LoadWarning(f"skipped: cannot read ({exc})", str(path))
    if "\0" in text:
        return LoadWarning(f"skipped: a binary file (NUL byte at offset {text.find(chr(0))})", str(path))
    try:
        parsed = parse_markdown(text, str(path), warn_sanitised=root is None or root.format != "claude")
    except FrontmatterError as exc:
        return LoadWarning(f"skipped: {exc.message}", str(path), exc.line)
    name = parsed.data.get("name")
    description = parsed.data.get("description")
    return Skill(
        name=str(name).strip() if isinstance(name, str | int | float) and str(name).strip() else folder.name,
        description=str(description).strip() if description is not None else None,
        body=parsed.body,
        folder=folder,
        path=path,
        data=parsed.data,
        root=root,
    )


def _outside(path: Path, folder: Path) -> LoadWarning | None:
    """A warning when ``SKILL.md`` resolves outside its own folder through a symlink."""
    try:
        target = path.resolve()
        inside = target.is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return LoadWarning("skipped: cannot resolve the symlink", str(path))
    return None if inside else LoadWarning(f"skipped: a symlink to {target}, outside {folder}", str(path))


def outside_project(folder: Path, project: Path) -> LoadWarning | None:
    """A warning when ``folder`` of an untrusted project resolves outside ``project``
    through a link (``.claude/skills -> /elsewhere``): its files are not the project's own,
    and must not reach a model; None when it lies in the project."""
    try:
        target = folder.resolve()
        inside = target.is_relative_to(project.resolve())
    except (OSError, RuntimeError):
        return LoadWarning("skipped: cannot resolve the symlink", str(folder))
    if inside:
        return None
    return LoadWarning(
        f"skipped: it leads to {target}, outside the untrusted project (trust the project to read it)",
        str(folder),
    )


def discover_skills(roots: list[SkillRoot] | list[Path]) -> tuple[list[Skill], list[LoadWarning]]:
    """Every ``<root>/<name>/SKILL.md``; a later root's skill replaces an earlier one's
    slash name, with a warning naming both files.

    Broken or binary files, and a ``SKILL.md`` that is a symlink out of its folder, are
    skipped with a warning naming the path (and line). Skills with ``user-invocable:
    false`` are not listed (they are not slash commands).
    """
    found: dict[str, Skill] = {}
    warnings: list[LoadWarning] = []
    for item in roots:
        root = item if isinstance(item, SkillRoot) else None
        base = item.path if isinstance(item, SkillRoot) else item
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            folder = Path(entry.path)
            path = folder / SKILL_FILE
            if not entry.is_dir() or not path.is_file():
                continue
            problem = _outside(path, folder) if path.is_symlink() else None
            if problem is None and root is not None and root.within is not None:
                problem = outside_project(folder, root.within)
            skill = problem or _read(folder, path, root)
            if isinstance(skill, LoadWarning):
                warnings.append(skill)
                continue
            if str(skill.data.get("user-invocable", "")).strip().lower() in ("false", "no", "off"):
                continue
            key = skill.slash_name
            if key in found:
                old = found[key]
                warnings.append(LoadWarning(f'skill "{key}" replaces the one in {old.path}', str(path)))
            found[key] = skill
    return list(found.values()), warnings
