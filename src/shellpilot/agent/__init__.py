"""Agents: who answers a prompt (prompt, model, permission presets); builtins + config.

Owns: agent definitions and lookup. Must not touch: the loop, providers or tools.
"""

from shellpilot.agent.model import Agent, AgentMode, builtin_agents, prompt_text
from shellpilot.agent.registry import AgentRegistry

__all__ = ["Agent", "AgentMode", "AgentRegistry", "builtin_agents", "prompt_text"]
