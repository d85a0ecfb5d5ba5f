"""The agent loop: a prompt becomes model turns and tool calls until the model stops.

Owns: ``AgentLoop`` (``prompt``, ``command``, ``resume``) and the step loop: stream a turn,
run its tool calls, write results, repeat until no tool call or ``max_steps``. Must not
touch: SQL, wire formats, processes; each step's parts are in step.py, dispatch.py,
request.py, subtasks in subtask.py, commands in command_run.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from shellpilot.agent.model import Agent
from shellpilot.agent.registry import AgentRegistry
from shellpilot.config.model import Config
from shellpilot.errors import ProviderError, ShellpilotError, StorageError
from shellpilot.process.abort import AbortSignal, stop
from shellpilot.provider.base import ToolSpec
from shellpilot.session.conversation import Conversation
from shellpilot.session.dispatch import CallEnv, CallOutcome, run_calls
from shellpilot.session.models import (
    AssistantMessage,
    FilePart,
    MessageError,
    MessageWithParts,
    OutputFormat,
    Part,
    TextPart,
    UserMessage,
)
from shellpilot.session.outcome import close_message, error_of, verdict
from shellpilot.session.request import build_request, read_attachment, tool_specs
from shellpilot.session.step import StepResult, stream_step
from shellpilot.session.stream_events import TurnFinished
from shellpilot.session.subtask import TURN_RULES, ChildSessions, run_pending_subtask
from shellpilot.session.system import Environment, environment, read_agents_md
from shellpilot.session.turn import TurnResult, aborted_error, last_user, pending_subtask, result_of
from shellpilot.tool.base import Ask, Tool, ToolContext, allow_all
from shellpilot.tool.registry import ToolRegistry
from shellpilot.tool.structured import StructuredOutputTool, structured_output_tool, system_line
from shellpilot.tool.task import SubtaskOutcome, SubtaskRequest, TaskTool

if TYPE_CHECKING:
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.permission.rules import Rule
    from shellpilot.provider.registry import ProviderRegistry, ResolvedModel
    from shellpilot.session.service import SessionService


@dataclass
class _Plan:
    """What the steps answering one user message share."""

    agent: Agent
    model: ResolvedModel
    structured: StructuredOutputTool | None
    env: CallEnv
    context: Environment
    agents_md: str | None
    specs: list[ToolSpec]

    @property
    def captured(self) -> bool:
        """True once structured output was captured (the loop ends)."""
        return self.structured is not None and self.structured.captured is not None


class PermissionGate(Protocol):
    """What the loop needs of the permission service: an ``Ask`` bound to a session's rules."""

    def asker(self, session_id: str, ruleset: list[Rule]) -> Ask: ...


def default_tools(config: Config, data_dir: Path, project_dir: Path | None = None) -> list[Tool]:
    """The tools every agent starts with: the shell tool (``bash``), spilling into the
    project's tool-output folder."""
    from shellpilot.tool.shell import ShellTool

    return [ShellTool(config, data_dir, project_dir=project_dir)]


class AgentLoop:
    """Runs prompts and commands on the sessions of one project.

    Built once at start-up on a ``SessionService`` (its store, bus, run state, config and
    data dir), with the providers and the permission service. ``prompt`` writes the
    user's message and runs the loop through ``RunState.ensure_running`` (one run per
    session; cancel via ``RunState.cancel``).
    ``tools`` replaces the default tool list (the shell tool); ``task`` is added outside
    child sessions. ``shell`` names the shell for the system prompt (default: detected as
    the shell tool does).
    """

    def __init__(
        self,
        service: SessionService,
        *,
        project_dir: Path,
        providers: ProviderRegistry,
        permissions: PermissionGate | None = None,
        tools: Sequence[Tool] | None = None,
        agents: AgentRegistry | None = None,
        commands: CommandRegistry | None = None,
        shell: str | None = None,
    ) -> None:
        self.service = service
        self.store, self.bus, self.run_state = service.store, service.bus, service.run_state
        self.config, self.data_dir = service.config, service.data_dir
        self.project_dir = Path(project_dir).resolve()
        self.providers, self.permissions, self.commands = providers, permissions, commands
        self.writer = service.writer
        self.agents = agents or AgentRegistry(self.config)
        self.turn_rules: dict[str, list[Rule]] = {}
        """Extra rules for the turn answering a user message (by its id): a command's
        ``allowed-tools``; child sessions that turn starts inherit them."""
        tools = tools if tools is not None else default_tools(self.config, self.data_dir, self.project_dir)
        self._tools = list(tools)
        self._shell = shell
        self.children = ChildSessions(self)

    def shell_name(self) -> str:
        """The shell the model's commands run in (what the system prompt tells it)."""
        if self._shell is None:
            from shellpilot.process.detect import detect_shell

            try:
                self._shell = detect_shell(configured=self.config.shell.path).name
            except ShellpilotError:
                self._shell = "sh"
        return self._shell

    # -- entry points ---------------------------------------------------------------------

    async def prompt(
        self,
        session_id: str,
        text: str,
        *,
        files: Sequence[Path] = (),
        agent: str | None = None,
        model: str | None = None,
        format: OutputFormat | dict[str, Any] | None = None,
        parts: Sequence[Part] = (),
    ) -> TurnResult:
        """Post ``text`` (+ ``files`` attached, + extra ``parts``) as the user's message and
        run the loop; returns the turn's result (``ok`` False with the error recorded).

        Raises before anything is written: SessionNotFound, SessionBusy (another process
        runs the session), AgentNotFound, ModelNotFound, ProviderNotConfigured, UsageError
        (a bad ``format`` schema).
        """
        with self.run_state.reserve(session_id):
            user = self.new_user_message(session_id, agent=agent, model=model, format=format)
            extra = [TextPart(session_id=session_id, message_id=user.id, text=text)] if text else []
            self.post(user, [*extra, *self.file_parts(user, files), *parts])
            return await self.resume(session_id)

    async def command(
        self,
        session_id: str,
        name: str,
        arguments: str = "",
        *,
        agent: str | None = None,
        model: str | None = None,
        format: OutputFormat | dict[str, Any] | None = None,
        files: Sequence[Path] = (),
    ) -> TurnResult:
        """Run the slash command ``/name arguments`` (see ``command_run.run_command``)."""
        from shellpilot.session.command_run import run_command

        if self.commands is None:
            from shellpilot.command.registry import CommandRegistry

            self.commands = CommandRegistry(self.project_dir, self.config)
        return await run_command(
            self,
            self.commands,
            session_id,
            name,
            arguments,
            agent=agent,
            model=model,
            format=format,
            files=files,
        )

    async def resume(self, session_id: str) -> TurnResult:
        """Run (or join) the loop on the session's stored history."""
        return await self.run_state.ensure_running(
            session_id, lambda: self._run(session_id), on_interrupt=lambda: self._interrupted(session_id)
        )

    async def run_subtask(self, request: SubtaskRequest, ctx: ToolContext) -> SubtaskOutcome:
        """``TaskPromptOps`` for the task tool: a child session (see subtask.py)."""
        return await self.children.run_subtask(request, ctx)

    # -- building messages ----------------------------------------------------------------

    def resolve_agent(self, name: str | None) -> Agent:
        """The named agent, else the default primary agent (AgentNotFound lists the names)."""
        return self.agents.get(name) if name else self.agents.default()

    def resolve_model(self, model: str | None, agent: Agent, session_id: str) -> ResolvedModel:
        """``model`` > the agent's > the session's last > the configured default, checked."""
        if not model and not agent.model:
            previous = self.store.last_message(session_id, "user")
            model = previous.model if previous is not None else None
        return self.providers.resolve(model or agent.model)

    def new_user_message(
        self,
        session_id: str,
        *,
        agent: str | None = None,
        model: str | None = None,
        format: OutputFormat | dict[str, Any] | None = None,
    ) -> UserMessage:
        """A user message with agent and model resolved and the format checked (not saved)."""
        self.store.get_session(session_id)
        chosen = self.resolve_agent(agent)
        resolved = self.resolve_model(model, chosen, session_id)
        fmt = OutputFormat.model_validate(format) if isinstance(format, dict) else format
        if fmt is not None and fmt.type == "json_schema":
            structured_output_tool(fmt.json_schema or {}, fmt.retry_count)
        return UserMessage(session_id=session_id, agent=chosen.name, model=resolved.id, format=fmt)

    def file_parts(self, user: UserMessage, files: Sequence[Path]) -> list[Part]:
        """File parts for paths (relative ones against the project dir)."""
        out: list[Part] = []
        for path in files:
            full = path if path.is_absolute() else self.project_dir / path
            mime = "application/x-directory" if full.is_dir() else "text/plain"
            out.append(
                FilePart(
                    session_id=user.session_id,
                    message_id=user.id,
                    url=full.resolve().as_uri(),
                    mime=mime,
                    filename=str(path),
                    path=str(full),
                )
            )
        return out

    def close_message(
        self,
        message: AssistantMessage,
        result: StepResult | None,
        *,
        error: MessageError | None = None,
        structured: StructuredOutputTool | None = None,
    ) -> None:
        """Complete and save an assistant message (see ``outcome.close_message``)."""
        close_message(self.writer, message, result, error=error, structured=structured)

    def post(self, message: UserMessage | AssistantMessage, parts: Sequence[Part]) -> None:
        """Save a message and its parts (each announced on the bus)."""
        self.writer.message(message)
        for part in parts:
            self.writer.part(part)

    # -- the loop -------------------------------------------------------------------------

    async def _interrupted(self, session_id: str) -> TurnResult:
        last = self.store.last_message(session_id, "assistant")
        if last is None:
            return result_of(session_id, [])
        return result_of(session_id, [MessageWithParts(info=last, parts=self.store.parts_of(last.id))])

    async def _run(self, session_id: str) -> TurnResult:
        # The one read of the session for this run: from here on the conversation follows
        # every write on the bus, and each step only appends to what the model is sent.
        with Conversation.load(self.store, self.bus, session_id, read_attachment) as conversation:
            history = conversation.items
            handled: str | None = None
            while True:
                subtask = pending_subtask(history)
                if subtask is not None:
                    await run_pending_subtask(self, *subtask)
                    continue
                user = last_user(history)
                if user is None or user.info.id == handled:
                    break
                handled = user.info.id
                assert isinstance(user.info, UserMessage)
                if not await self._steps(conversation, user.info):
                    break
            result = result_of(session_id, history)
        self.bus.publish(
            TurnFinished(
                session_id=session_id,
                message_id=result.message.id if result.message else None,
                ok=result.ok,
                error=result.error.model_dump() if result.error else None,
                structured=result.structured,
            )
        )
        return result

    def ruleset(self, agent: Agent) -> list[Rule]:
        """The agent's permission rules (defaults < user config < agent presets)."""
        return self.agents.ruleset(agent, self.data_dir, self.project_dir)

    def asker(self, session_id: str, agent: Agent, extra: Sequence[Rule] = ()) -> Ask:
        """The ``ctx.ask`` of tools run for ``agent`` in ``session_id``; ``extra`` rules
        (one turn's, see ``turn_rules``) join the agent's ruleset."""
        if self.permissions is None:
            return allow_all
        return self.permissions.asker(session_id, [*self.ruleset(agent), *extra])

    def registry(self, agent: Agent, child: bool, structured: StructuredOutputTool | None) -> ToolRegistry:
        """The tools offered: base tools, ``task`` (not in child sessions, so subagents do not
        recurse), and ``structured_output`` when a format asks for it."""
        tools: list[Tool] = list(self._tools)
        if not child and self.agents.subagents():
            tools.append(TaskTool(self.agents, self))
        if structured is not None:
            tools.append(structured)
        return ToolRegistry(tools)

    def _plan(self, session_id: str, user: UserMessage) -> _Plan:
        """What every step answering ``user`` shares: agent, model, tools, call env, prompt bits."""
        agent = self.resolve_agent(user.agent)
        resolved = self.resolve_model(user.model, agent, session_id)
        fmt = user.format
        structured = None
        if fmt is not None and fmt.type == "json_schema":
            structured = structured_output_tool(fmt.json_schema or {}, fmt.retry_count)
        child = self.store.get_session(session_id).parent_id is not None
        tools = self.registry(agent, child, structured)
        extra = self.turn_rules.get(user.id, [])
        env = CallEnv(
            tools=tools,
            writer=self.writer,
            project_dir=self.project_dir,
            agent=agent.name,
            abort=AbortSignal(),
            ask=self.asker(session_id, agent, extra),
            extra={"model": resolved.id, TURN_RULES: extra} if extra else {"model": resolved.id},
        )
        return _Plan(
            agent,
            resolved,
            structured,
            env,
            environment(self.project_dir, self.shell_name()),
            read_agents_md(self.project_dir),
            tool_specs(tools),
        )

    async def _step(
        self, plan: _Plan, conversation: Conversation, message: AssistantMessage, last: bool
    ) -> tuple[StepResult, list[CallOutcome]]:
        """One model turn and its tool calls."""
        request = build_request(
            model=plan.model.api_model,
            agent=plan.agent,
            env=plan.context,
            agents_md=plan.agents_md,
            messages=conversation.transcript(),
            tools=plan.specs,
            structured_line=system_line() if plan.structured is not None else None,
            last_step=last,
        )
        result = await stream_step(plan.model.provider, request, message, self.writer, self.bus)
        plan.env.parse_errors = result.parse_errors
        outcomes = [o for _, o in await run_calls(plan.env, result.calls)] if result.calls else []
        return result, outcomes

    async def _steps(self, conversation: Conversation, user: UserMessage) -> bool:
        """Model turns answering ``user`` until the model stops calling tools, an error, or
        ``max_steps``; True when it ended normally (a newer user message may follow)."""
        session_id = conversation.session_id
        plan = self._plan(session_id, user)
        for step in range(1, self.config.max_steps + 1):
            last = step == self.config.max_steps
            message = AssistantMessage(
                session_id=session_id, parent_id=user.id, agent=plan.agent.name, model=plan.model.id
            )
            self.writer.message(message)
            try:
                result, outcomes = await self._step(plan, conversation, message, last)
            except asyncio.CancelledError as exc:
                stop(plan.env.abort, exc)
                self.close_message(message, None, error=aborted_error(plan.env.abort))
                raise
            except ProviderError as exc:
                self.close_message(message, None, error=error_of(exc))
                return False
            except StorageError as exc:  # a full disk: end the message saying so if it fits
                with contextlib.suppress(StorageError):
                    self.close_message(message, None, error=error_of(exc))
                raise
            ended = verdict(result, outcomes, plan.structured, last=last, max_steps=self.config.max_steps)
            self.close_message(message, result, error=ended, structured=plan.structured)
            if ended is not None:
                return False
            if not result.calls or plan.captured:
                return True
        return False


__all__ = ["TURN_RULES", "AgentLoop", "PermissionGate", "default_tools", "error_of"]
