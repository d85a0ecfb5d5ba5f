"""The set of agents of one project: builtins with the config's ``agent`` section merged in.

Owns: agent lookup, the default agent and an agent's permission ruleset. Must not touch:
config files (it gets a ``Config``) or rule evaluation (``shellpilot.permission``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from shellpilot.agent.model import Agent, builtin_agents
from shellpilot.config.model import AgentConfig, Config
from shellpilot.errors import AgentNotFound, ConfigError

if TYPE_CHECKING:
    from shellpilot.permission.rules import Rule


def _merge(base: Agent | None, name: str, cfg: AgentConfig) -> Agent:
    """``cfg`` over ``base`` (fields that are set win; permission layers append)."""
    if base is None:
        base = Agent(name=name, mode="all", description="", prompt="")
    extra = (cfg.permission,) if cfg.permission is not None else ()
    return replace(
        base,
        mode=cfg.mode or base.mode,
        description=cfg.description if cfg.description is not None else base.description,
        prompt=cfg.prompt if cfg.prompt is not None else base.prompt,
        model=cfg.model or base.model,
        temperature=cfg.temperature if cfg.temperature is not None else base.temperature,
        permission=base.permission + extra,
    )


class AgentRegistry:
    """Agents by name: builtins (build, plan, general) then ``config.agent`` over them.

    A config entry with the name of a builtin overrides its fields; a new name adds an
    agent (mode ``all`` unless set); ``disable: true`` removes it.
    """

    def __init__(self, config: Config) -> None:
        self._config = config
        agents = {agent.name: agent for agent in builtin_agents()}
        for name, cfg in config.agent.items():
            if cfg.disable:
                agents.pop(name, None)
                continue
            agents[name] = _merge(agents.get(name), name, cfg)
        self._agents = agents

    def names(self) -> list[str]:
        """Agent names in definition order (builtins first)."""
        return list(self._agents)

    def agents(self) -> list[Agent]:
        """Every enabled agent, builtins first."""
        return list(self._agents.values())

    def subagents(self) -> list[Agent]:
        """Agents the ``task`` tool may run (mode subagent or all)."""
        return [agent for agent in self._agents.values() if agent.is_subagent]

    def get(self, name: str) -> Agent:
        """The agent called ``name``; AgentNotFound listing the available names otherwise."""
        try:
            return self._agents[name]
        except KeyError:
            raise AgentNotFound(name, self.names()) from None

    def default(self) -> Agent:
        """``config.default_agent`` or ``build``; it must exist and be a primary agent.

        Raises ConfigError when the configured default is a subagent, AgentNotFound when
        it does not exist.
        """
        name = self._config.default_agent or "build"
        agent = self.get(name)
        if not agent.is_primary:
            raise ConfigError(f'default_agent "{name}" is a subagent; choose a primary agent')
        return agent

    def ruleset(self, agent: Agent, data_dir: Path, project_dir: Path | None = None) -> list[Rule]:
        """Rules for ``agent``: defaults, the user's ``permission``, then the agent's layers,
        then the project's own rules (``Config.project_rules``, source ``project``).

        Evaluation is most-specific-wins, so "merge over" is done here: an agent rule
        replaces the user's rule with the same permission and pattern, and an agent's
        catch-all (``"bash": {"*": "ask"}``, ``"edit": "deny"``) replaces every user rule of
        that permission, as a later layer did in the source's last-match-wins order. The
        user's ``deny`` rules always stay (an agent never loosens a deny). Project rules
        replace nothing: ``rules.evaluate`` lets them only tighten.
        """
        from shellpilot.permission.defaults import default_rules
        from shellpilot.permission.rules import merge, rules_from_config

        user = rules_from_config(self._config.permission)
        for layer in agent.permission:
            own = rules_from_config(layer, source="agent")
            shadowed = {(r.permission, r.pattern) for r in own}
            caught = {r.permission for r in own if r.catch_all}
            user = [
                r
                for r in user
                if r.action == "deny"
                or ((r.permission, r.pattern) not in shadowed and r.permission not in caught)
            ]
            user = merge(user, own)
        layers = self._config.project_rules
        project = [
            rule
            for layer in (*layers.permission, *layers.agent.get(agent.name, ()))
            for rule in rules_from_config(layer, source="project")
        ]
        return merge(default_rules(data_dir, project_dir), user, project)
