"""Subtasks: child sessions run by the ``task`` tool, and command subtasks in the loop.

Owns: creating/resuming a child session, running it, cascading a cancel to it, and the
"run a pending subtask part" step. Must not touch: the
task tool's text (tool/task.py) or the step loop (loop.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from shellpilot.errors import Aborted, SessionNotFound, ToolError
from shellpilot.process.abort import AbortSignal
from shellpilot.session.dispatch import CallEnv, run_calls
from shellpilot.session.models import (
    AssistantMessage,
    MessageWithParts,
    Session,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolPending,
    UserMessage,
)
from shellpilot.session.turn import aborted_error
from shellpilot.tool.base import ToolContext
from shellpilot.tool.registry import ToolRegistry
from shellpilot.tool.task import BYPASS_AGENT_CHECK, CALLER_MODEL, SubtaskOutcome, SubtaskRequest, TaskTool

if TYPE_CHECKING:
    from shellpilot.session.ops import LoopOps

TURN_RULES = "turn_rules"
"""``ctx.extra`` key of the calling turn's extra permission rules (``AgentLoop.turn_rules``)."""

SUMMARIZE = "Summarize the task tool output above and continue with your task."
"""The synthetic user turn added after a command subtask, so the parent agent carries on."""


class ChildSessions:
    """The ``TaskPromptOps`` of an agent loop: runs a subagent in a child session.

    The child is a new session (title ``<description> (@<agent> subagent)``, ``parent_id``
    set) or the one named by ``task_id`` when it is a child of the same parent. Its tool
    permissions go to the same permission service (so the same UI answers them). If the
    parent's call is cancelled or aborted, the child is cancelled through the run state.
    """

    def __init__(self, loop: LoopOps) -> None:
        self.loop = loop

    def _session(self, request: SubtaskRequest) -> Session:
        if request.task_id:
            try:
                found = self.loop.store.get_session(request.task_id)
            except SessionNotFound:
                found = None
            if found is not None and found.parent_id == request.parent_session_id:
                return found
        title = f"{request.description} (@{request.agent.name} subagent)"
        child = Session(
            project_dir=str(self.loop.project_dir), title=title, parent_id=request.parent_session_id
        )
        return self.loop.writer.create_session(child)

    async def run_subtask(self, request: SubtaskRequest, ctx: ToolContext) -> SubtaskOutcome:
        """Run ``request`` to its end; raises Aborted when cancelled, ToolError when the child
        failed without any answer."""
        loop = self.loop
        child = self._session(request)
        ctx.metadata(request.description, {"sessionId": child.id, "model": request.model})
        user = loop.new_user_message(child.id, agent=request.agent.name, model=request.model)
        inherited = ctx.extra.get(TURN_RULES)
        if inherited:
            loop.turn_rules[user.id] = list(inherited)
        loop.post(user, [TextPart(session_id=child.id, message_id=user.id, text=request.prompt)])
        task = asyncio.ensure_future(loop.resume(child.id))
        aborted = asyncio.ensure_future(ctx.abort.wait())
        try:
            await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            await self._cancel(child.id, task)
            raise
        finally:
            aborted.cancel()
            loop.turn_rules.pop(user.id, None)
        if not task.done():
            await self._cancel(child.id, task)
            raise Aborted("The subtask was cancelled.")
        result = task.result()
        if result.error is not None and result.error.name == "Aborted":
            raise Aborted("The subtask was cancelled.")
        if result.error is not None and not result.text:
            raise ToolError(f"The subtask failed: {result.error.message} (task_id: {child.id})")
        return SubtaskOutcome(child.id, result.text)

    async def _cancel(self, child_id: str, task: asyncio.Future[Any]) -> None:
        await self.loop.run_state.cancel(child_id)
        await asyncio.wait({task})


async def run_pending_subtask(loop: LoopOps, user: MessageWithParts, part: SubtaskPart) -> None:
    """Run a command's subtask part through the ``task`` tool (no ``task`` permission ask),
    then add the synthetic "summarize" user turn so the parent agent continues."""
    info = user.info
    assert isinstance(info, UserMessage)
    agent = loop.resolve_agent(part.agent)
    message = AssistantMessage(
        session_id=info.session_id, parent_id=info.id, agent=agent.name, model=part.model or info.model
    )
    loop.writer.message(message)
    call = ToolPart(
        session_id=info.session_id,
        message_id=message.id,
        tool="task",
        state=ToolPending(
            input={
                "prompt": part.prompt,
                "description": part.description,
                "subagent_type": part.agent,
                "command": part.command,
            }
        ),
    )
    loop.writer.part(call)
    rules = loop.turn_rules.get(info.id, [])
    env = CallEnv(
        tools=ToolRegistry([TaskTool(loop.agents, ChildSessions(loop))]),
        writer=loop.writer,
        project_dir=loop.project_dir,
        agent=agent.name,
        abort=AbortSignal(),
        ask=loop.asker(info.session_id, agent, rules),
        extra={CALLER_MODEL: part.model or info.model, BYPASS_AGENT_CHECK: True, TURN_RULES: rules},
    )
    try:
        await run_calls(env, [call])
    except asyncio.CancelledError:
        loop.close_message(message, None, error=aborted_error(env.abort))
        raise
    loop.close_message(message, None)
    follow = UserMessage(session_id=info.session_id, agent=info.agent, model=info.model)
    loop.post(
        follow, [TextPart(session_id=info.session_id, message_id=follow.id, text=SUMMARIZE, synthetic=True)]
    )
