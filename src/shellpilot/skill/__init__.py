"""Skills: ``SKILL.md`` folders that become commands named ``skill:<name>``."""

from shellpilot.skill.discovery import Skill, discover_skills, skill_dirs

__all__ = ["Skill", "discover_skills", "skill_dirs"]
