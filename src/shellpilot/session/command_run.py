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

from shellpilot.session.history import render_file
from shellpilot.session.models import AgentPart, FilePart, OutputFormat, Part, SubtaskPart, TextPart
from shellpilot.session.request import read_attachment
from shellpilot.session.turn import TurnResult

if TYPE_CHECKING:
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

    Agent: the command's, else ``agent``, else the default. Model: the command's, else its
    agent's, else ``model``, else the session's last, else the default. A subtask command
    posts a ``SubtaskPart`` (the user message keeps the caller's agent and model) that the
    loop runs through the ``task`` tool in a child session; its ``@file`` attachments are
    inlined into the subtask prompt (OpenCode drops them). Otherwise the text,
    attachments and ``files`` become the user's message. Publishes ``command.executed``.
    Raises CommandNotFound, AgentNotFound, ModelNotFound, ProviderNotConfigured before
    anything is posted.
    """
    from shellpilot.command.events import CommandExecuted
    from shellpilot.command.template import ExpandContext, expand

    loop.store.get_session(session_id)
    command = await commands.get(name)
    caller = loop.resolve_agent(agent)
    ctx = ExpandContext(
        project_dir=loop.project_dir,
        ask=loop.asker(session_id, caller),
        config=loop.config,
        agents={a.name: a.mode for a in loop.agents.agents()},
        default_agent=caller.name,
    )
    expanded = await expand(command, arguments, ctx)
    runner = loop.resolve_agent(expanded.agent or agent)
    task_model = expanded.model or (runner.model if expanded.agent else None) or model
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
    result = await loop.resume(session_id)
    message_id = result.message.id if result.message is not None else user.id
    loop.bus.publish(
        CommandExecuted(name=command.name, session_id=session_id, arguments=arguments, message_id=message_id)
    )
    return replace(result, warnings=tuple(expanded.warnings))
