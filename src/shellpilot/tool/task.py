"""The ``task`` tool: run a subagent in a child session and return its final answer.

Owns: the tool's parameters, description, agent check and result text. Must
not touch: sessions or the loop; the child run goes through ``TaskPromptOps``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from shellpilot.agent.model import Agent, prompt_text
from shellpilot.agent.registry import AgentRegistry
from shellpilot.errors import AgentNotFound, ToolError
from shellpilot.permission.request import AskRequest
from shellpilot.tool.base import ToolContext, ToolResult

BYPASS_AGENT_CHECK = "bypass_agent_check"
"""``ctx.extra`` key: True when the call comes from a command subtask (no ``task`` prompt)."""
CALLER_MODEL = "model"
"""``ctx.extra`` key: the calling turn's ``provider/model`` (the child's fallback model)."""


class TaskParams(BaseModel):
    """Arguments of a ``task`` call."""

    model_config = ConfigDict(extra="ignore")
    description: str = Field(description="A short (3-5 words) description of the task")
    prompt: str = Field(description="The task for the subagent to perform")
    subagent_type: str = Field(description="The type of specialized agent to use for this task")
    task_id: str | None = Field(
        None, description="Pass a prior task_id to continue that child session instead of a new one"
    )
    command: str | None = Field(None, description="The command that triggered this task, if any")


@dataclass(frozen=True)
class SubtaskRequest:
    """One child run: ``agent`` answers ``prompt`` with ``model`` (``provider/model`` or None
    for the default) in a new child of ``parent_session_id`` or in ``task_id``'s session."""

    parent_session_id: str
    agent: Agent
    prompt: str
    description: str
    model: str | None
    task_id: str | None = None
    command: str | None = None


@dataclass(frozen=True)
class SubtaskOutcome:
    """The child's session id and its last text (empty when it wrote none)."""

    session_id: str
    text: str


class TaskPromptOps(Protocol):
    """What the task tool needs of the session layer: run a child session to its end. It must
    cancel the child when ``ctx.abort`` is set and raise ``Aborted`` then; the child's
    permission asks go to the same service as the caller's."""

    async def run_subtask(self, request: SubtaskRequest, ctx: ToolContext) -> SubtaskOutcome: ...


def task_output(outcome: SubtaskOutcome) -> str:
    """The text the calling model sees: the child's id (to resume it) and its answer."""
    return (
        f"task_id: {outcome.session_id} (for resuming to continue this task if needed)\n\n"
        f"<task_result>\n{outcome.text}\n</task_result>"
    )


class TaskTool:
    """Tool id ``task``: parameters ``TaskParams``; ``execute`` checks the agent (a model
    may start only subagents; a command subtask may name any agent), asks the ``task``
    permission (pattern: the agent's name) unless the call is a command subtask, and runs
    the child through ``TaskPromptOps``."""

    id: ClassVar[str] = "task"
    parameters: ClassVar[type[BaseModel]] = TaskParams

    def __init__(self, agents: AgentRegistry, ops: TaskPromptOps) -> None:
        self._agents = agents
        self._ops = ops

    def description(self) -> str:
        """The tool text with the list of subagents (``- name: description``)."""
        manual = "This subagent should only be called manually by the user."
        lines = [f"- {agent.name}: {agent.description or manual}" for agent in self._agents.subagents()]
        return prompt_text("task").replace("{agents}", "\n".join(lines) or "(none)")

    def _agent(self, name: str, any_mode: bool) -> Agent:
        try:
            agent = self._agents.get(name)
        except AgentNotFound:
            agent = None
        if agent is None or not (agent.is_subagent or any_mode):
            names = ", ".join(a.name for a in self._agents.subagents()) or "none"
            raise ToolError(
                f"Unknown agent type: {name} is not a valid agent type. Available subagents: {names}."
            )
        return agent

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Run the subtask; returns ``task_output`` with metadata ``sessionId`` and ``model``."""
        p = params if isinstance(params, TaskParams) else TaskParams.model_validate(params)
        bypass = bool(ctx.extra.get(BYPASS_AGENT_CHECK))
        agent = self._agent(p.subagent_type, any_mode=bypass)
        if not bypass:
            await ctx.ask(AskRequest("task", [agent.name], [agent.name], {"description": p.description}))
        caller_model = ctx.extra.get(CALLER_MODEL)
        model = agent.model or (caller_model if isinstance(caller_model, str) else None)
        request = SubtaskRequest(
            parent_session_id=ctx.session_id,
            agent=agent,
            prompt=p.prompt,
            description=p.description,
            model=model,
            task_id=p.task_id,
            command=p.command,
        )
        outcome = await self._ops.run_subtask(request, ctx)
        return ToolResult(
            title=p.description,
            output=task_output(outcome),
            metadata={"sessionId": outcome.session_id, "model": model},
        )
