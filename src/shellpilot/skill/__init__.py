"""Skills: ``SKILL.md`` folders that become slash commands (``/<slug>`` or ``skill:<slug>``)."""

from shellpilot.skill.discovery import Skill, SkillRoot, discover_skills, skill_dirs, slash_name

__all__ = ["Skill", "SkillRoot", "discover_skills", "skill_dirs", "slash_name"]
