"""Running a slash command in a session: expand it, post it, run the loop, announce it.

Owns: the command -> user message | subtask part decision and ``command.executed``
Must not touch: template expansion
(``shellpilot.command``), the step loop (loop.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shellpilot.paths import tool_output_dir
from shellpilot.session.history import render_file
from shellpilot.session.models import AgentPart, FilePart, OutputFormat, Part, SubtaskPart, TextPart
from shellpilot.session.request import read_attachment
from shellpilot.session.turn import TurnResult

if TYPE_CHECKING:
    from shellpilot.command.model import Command
    from shellpilot.command.references import FileReference
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.session.ops import LoopOps


def _file_part(session_id: str, message_id: str, ref: FileReference) -> FilePart:
    return FilePart(
        session_id=session_id,
        message_id=message_id,
        url=ref.path.as_uri(),
        mime=ref.mime,
        filename=ref.name,
        path=str(ref.path),
    )


async def run_command(
    loop: LoopOps,
    commands: CommandRegistry,
    session_id: str,
    name: str,
    arguments: str = "",
    *,
    agent: str | None = None,
    model: str | None = None,
    format: OutputFormat | dict[str, Any] | None = None,
    files: Sequence[Path] = (),
) -> TurnResult:
    """Run ``/name arguments`` in ``session_id``; the turn's result with expansion warnings.

    Agent: the command's, else ``agent``, else the default; its rules judge the command's
    shell blocks (a ``plan`` command's ``!`touch x``` is denied ``edit``). Model: ``model``
    (the caller's explicit choice, ``-m``, always wins), else the command's
    (``command_model``), else its agent's, else the session's last, else the default. The
    command's ``allowed-tools`` / ``disallowed-tools`` (``toolrules.turn_rules``) join the
    rules of its shell blocks and of the turn that answers it (child sessions included),
    and are dropped when that turn ends. A subtask command
    posts a ``SubtaskPart`` (the user message keeps the caller's agent and model) that the
    loop runs through the ``task`` tool in a child session; its ``@file`` attachments are
    inlined into the subtask prompt (OpenCode drops them). Otherwise the text,
    attachments and ``files`` become the user's message. Publishes ``command.executed``.
    Raises CommandNotFound, SessionBusy (another process runs the session: checked before
    the template's shell blocks run), AgentNotFound, ModelNotFound, ProviderNotConfigured
    before anything is posted.
    """
    loop.store.get_session(session_id)
    with loop.run_state.reserve(session_id):
        return await _run_command(
            loop, commands, session_id, name, arguments, agent=agent, model=model, format=format, files=files
        )


async def _run_command(
    loop: LoopOps,
    commands: CommandRegistry,
    session_id: str,
    name: str,
    arguments: str,
    *,
    agent: str | None,
    model: str | None,
    format: OutputFormat | dict[str, Any] | None,
    files: Sequence[Path],
) -> TurnResult:
    from shellpilot.command.events import CommandExecuted
    from shellpilot.command.template import ExpandContext, expand
    from shellpilot.command.toolrules import turn_rules

    command = await commands.get(name)
    caller = loop.resolve_agent(agent)
    scoped = turn_rules(command)
    own_model, model_warning = command_model(loop, command, model)
    # The command's shell blocks are judged by the rules of the agent that runs it.
    judge = loop.resolve_agent(command.agent) if command.agent else caller
    ctx = ExpandContext(
        project_dir=loop.project_dir,
        ask=loop.asker(session_id, judge, scoped.rules),
        config=loop.config,
        output_dir=tool_output_dir(loop.data_dir, loop.project_dir),
        agents={a.name: a.mode for a in loop.agents.agents()},
        default_agent=caller.name,
        session_id=session_id,
    )
    expanded = await expand(command, arguments, ctx)
    runner = loop.resolve_agent(expanded.agent or agent)
    task_model = model or own_model or (runner.model if expanded.agent else None)
    if expanded.subtask:
        user = loop.new_user_message(session_id, agent=agent, model=model, format=format)
        resolved = loop.resolve_model(task_model, runner, session_id)
        inlined = [
            render_file(_file_part(session_id, user.id, ref), read_attachment) for ref in expanded.files
        ]
        subtask = SubtaskPart(
            session_id=session_id,
            message_id=user.id,
            agent=runner.name,
            prompt="\n\n".join([expanded.text, *inlined]),
            description=command.description or f"/{command.name}",
            command=command.name,
            model=resolved.id,
        )
        loop.post(user, [subtask])
    else:
        user = loop.new_user_message(session_id, agent=runner.name, model=task_model, format=format)
        parts: list[Part] = [TextPart(session_id=session_id, message_id=user.id, text=expanded.text)]
        parts += [_file_part(session_id, user.id, ref) for ref in expanded.files]
        parts += [AgentPart(session_id=session_id, message_id=user.id, name=n) for n in expanded.agents]
        parts += loop.file_parts(user, files)
        loop.post(user, parts)
    if scoped.rules:
        loop.turn_rules[user.id] = list(scoped.rules)
    try:
        result = await loop.resume(session_id)
    finally:
        loop.turn_rules.pop(user.id, None)
    message_id = result.message.id if result.message is not None else user.id
    loop.bus.publish(
        CommandExecuted(name=command.name, session_id=session_id, arguments=arguments, message_id=message_id)
    )
    notes = [*scoped.warnings, *([model_warning] if model_warning else []), *expanded.warnings]
    return replace(result, warnings=tuple(notes))


def command_model(loop: LoopOps, command: Command, model: str | None) -> tuple[str | None, str | None]:
    """The ``provider/model`` the command's own ``model:`` resolves to (None: it has none,
    the caller chose ``model``, or no configured provider can run it) and a warning for the
    last case (``ProviderRegistry.command_model``)."""
    if model or not command.model:
        return None, None
    return loop.providers.command_model(command.model, f"/{command.name}")
