"""The system prompt of one model turn: agent prompt, environment and project notes.

Owns: composing that text. Must not touch: providers, the store or the agent registry;
the only effects are reading ``AGENTS.md`` and the clock/platform in ``environment``.
"""

from __future__ import annotations

import datetime as dt
import os
import platform as platform_mod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shellpilot.agent.model import Agent, prompt_text

AGENTS_FILE = "AGENTS.md"
AGENTS_MAX_BYTES = 64 * 1024
"""Largest part of ``AGENTS.md`` put into the prompt, in bytes (the rest is cut)."""


@dataclass(frozen=True)
class Environment:
    """What the model is told about where it runs: directory, platform, date, shell."""

    cwd: Path
    platform: str
    date: dt.date
    shell: str
    is_git: bool


def environment(project_dir: Path, shell: str | None = None, today: dt.date | None = None) -> Environment:
    """The environment of ``project_dir``; ``shell`` defaults to $SHELL's name, else ``sh``."""
    name = shell or os.environ.get("SHELL") or "sh"
    return Environment(
        cwd=project_dir,
        platform=f"{platform_mod.system().lower()} ({platform_mod.machine()})",
        date=today or dt.date.today(),
        shell=Path(name).name,
        is_git=(project_dir / ".git").exists(),
    )


def read_agents_md(project_dir: Path) -> str | None:
    """The project's ``AGENTS.md`` text (first AGENTS_MAX_BYTES bytes), None when absent."""
    path = project_dir / AGENTS_FILE
    try:
        with path.open("rb") as handle:
            data = handle.read(AGENTS_MAX_BYTES + 1)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    text = data[:AGENTS_MAX_BYTES].decode("utf-8", errors="replace").strip()
    if len(data) > AGENTS_MAX_BYTES:
        text += "\n[... AGENTS.md truncated ...]"
    return text or None


def system_prompt(
    agent: Agent,
    env: Environment,
    agents_md: str | None = None,
    extra: Sequence[str] = (),
) -> str:
    """Join the agent's prompt (the ``build`` prompt when it has none), the environment,
    the project's ``AGENTS.md`` and ``extra`` lines (e.g. the structured-output rule).

    Pure: the same inputs give the same text.
    """
    sections = [agent.prompt or prompt_text("agent_build")]
    sections.append(
        "<env>\n"
        f"Working directory: {env.cwd}\n"
        f"Is a git repository: {'yes' if env.is_git else 'no'}\n"
        f"Platform: {env.platform}\n"
        f"Shell: {env.shell}\n"
        f"Today's date: {env.date.isoformat()}\n"
        "</env>"
    )
    if agents_md:
        sections.append(
            f"Instructions from the project's {AGENTS_FILE} ({env.cwd / AGENTS_FILE}):\n{agents_md}"
        )
    sections.extend(line for line in extra if line)
    return "\n\n".join(sections)
