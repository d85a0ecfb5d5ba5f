"""The agent definition: who answers a prompt, with which prompt, model and rule layers.

Owns: the ``Agent`` value and the builtin agents ``build``, ``plan`` and ``general``.
Must not touch: config files, the permission engine's evaluation, the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal

from shellpilot.config.model import PermissionConfig

AgentMode = Literal["primary", "subagent", "all"]


def prompt_text(name: str) -> str:
    """The text of ``shellpilot/prompts/<name>.txt`` (package data), stripped."""
    return resources.files("shellpilot").joinpath("prompts", f"{name}.txt").read_text("utf-8").strip()


@dataclass(frozen=True)
class Agent:
    """One agent: its prompt, model, mode and permission layers (presets: build, plan, general).

    ``mode``: ``primary`` answers the user, ``subagent`` runs only through the ``task``
    tool, ``all`` does both. ``permission`` holds the agent's own rule layers in config
    shape (builtin preset first, then the user's ``agent.<name>.permission``); they merge
    over the user's ``permission`` config, so an agent's rules win. ``model`` is a
    ``provider/model`` id or None (the caller's model is used).
    """

    name: str
    mode: AgentMode
    description: str
    prompt: str
    model: str | None = None
    temperature: float | None = None
    permission: tuple[PermissionConfig, ...] = ()
    builtin: bool = False

    @property
    def is_primary(self) -> bool:
        """True when the agent may answer the user directly."""
        return self.mode in ("primary", "all")

    @property
    def is_subagent(self) -> bool:
        """True when the ``task`` tool may run it."""
        return self.mode in ("subagent", "all")


PLAN_PERMISSION: PermissionConfig = {
    "edit": "deny",
    "write": "deny",
    "bash": {"*": "ask"},
}
"""Plan never writes; every shell command not judged read-only asks (the permission
engine lets the read-only set pass without a prompt)."""


def builtin_agents() -> list[Agent]:
    """The builtin agents, ``build`` first (the default primary agent)."""
    return [
        Agent(
            name="build",
            mode="primary",
            description="The default agent: works on the project with every tool the rules allow.",
            prompt=prompt_text("agent_build"),
            builtin=True,
        ),
        Agent(
            name="plan",
            mode="primary",
            description="Studies the project and proposes a plan; read-only, never writes.",
            prompt=prompt_text("agent_plan"),
            permission=(PLAN_PERMISSION,),
            builtin=True,
        ),
        Agent(
            name="general",
            mode="subagent",
            description="General-purpose agent for self-contained multi-step tasks "
            "(research, searches, reviews); returns one report.",
            prompt=prompt_text("agent_general"),
            builtin=True,
        ),
    ]
