"""Build the ``ModelRequest`` of one step: system prompt, history, tools, tool choice.

Owns: that assembly and the capped reader of attached files. Must not touch: the store
(the conversation is passed in, converted), providers' wire formats, tool execution.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shellpilot.agent.model import Agent
from shellpilot.provider.base import Message as ModelMessage
from shellpilot.provider.base import ModelRequest, ToolChoice, ToolSpec
from shellpilot.provider.transcript import Transcript
from shellpilot.session.system import Environment, system_prompt
from shellpilot.tool.registry import ToolRegistry

FILE_MAX_BYTES = 100 * 1024
"""Largest part of an attached file inlined into a user turn, in bytes."""

LAST_STEP = (
    "This is the last step allowed for this request (max_steps). Do not call tools: answer "
    "with text only, summarising what was done and what remains."
)


def read_attachment(path: str) -> str | None:
    """The text of an attached file (first FILE_MAX_BYTES bytes) or a directory listing;
    None when it cannot be read or is not text."""
    target = Path(path)
    try:
        if target.is_dir():
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
            return "\n".join(names[:500])
        with target.open("rb") as handle:
            data = handle.read(FILE_MAX_BYTES + 1)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    text = data[:FILE_MAX_BYTES].decode("utf-8", errors="replace")
    return text + ("\n[... file truncated ...]" if len(data) > FILE_MAX_BYTES else "")


def tool_specs(tools: ToolRegistry) -> list[ToolSpec]:
    """The provider-side specs of a registry's tools (JSON schemas built once per turn plan)."""
    return [ToolSpec(**schema) for schema in tools.schemas()]


def build_request(
    *,
    model: str,
    agent: Agent,
    env: Environment,
    agents_md: str | None,
    messages: Transcript[ModelMessage],
    tools: Sequence[ToolSpec],
    structured_line: str | None = None,
    last_step: bool = False,
) -> ModelRequest:
    """The request for one step, sending ``messages`` (``Conversation.transcript()``). Tool
    choice: ``required`` with structured output, ``none`` on the last allowed step, else ``auto``."""
    extra = [line for line in (structured_line, LAST_STEP if last_step else None) if line]
    choice: ToolChoice = "required" if structured_line else ("none" if last_step else "auto")
    return ModelRequest(
        model=model,
        system=system_prompt(agent, env, agents_md, extra),
        messages=messages,
        tools=list(tools),
        tool_choice=choice,
        temperature=agent.temperature,
    )
