"""Expanding a command into the prompt a model receives: arguments, shell blocks, ``@path``.

Owns: ``expand`` (steps 1-5), its context and result. Must not touch: sessions, the loop
or the bus; permission and processes are reached only through ``ExpandContext``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from shellpilot.command.arguments import split_arguments
from shellpilot.command.model import Command
from shellpilot.command.references import FileReference, resolve_references
from shellpilot.command.shellblocks import (
    DEFAULT_BLOCK_TIMEOUT_MS,
    BlockReport,
    RunFn,
    plan_block,
    run_block,
    runner_for,
)
from shellpilot.command.substitution import BlockSegment, Segment, TextSegment, substitute, substitution
from shellpilot.command.values import Variables
from shellpilot.errors import ShellpilotError, TemplateError
from shellpilot.permission.request import Ask

if TYPE_CHECKING:
    from shellpilot.config.model import Config


@dataclass
class ExpandContext:
    """What expansion may use (built by the loop or the CLI and passed down).

    ``ask`` is the permission asker every shell block's gate goes through (bound to the
    caller's agent ``default_agent``); ``run`` defaults to ``runner_for(config,
    output_dir)``; ``output_dir`` is the session's tool-output folder (``<data>/tool-output``
    of its data dir; None: the default data dir's); ``agents`` maps known agent names to
    their mode (``primary`` | ``subagent`` | ``all``) for ``@agent`` and the subtask
    decision; ``run_shell=False`` leaves blocks unrun (reported with status ``not_run``);
    ``session_id`` is ``${CLAUDE_SESSION_ID}`` (None: kept as written, with a warning).
    """

    project_dir: Path
    ask: Ask
    config: Config | None = None
    run: RunFn | None = None
    output_dir: Path | None = None
    agents: Mapping[str, str] = field(default_factory=dict)
    default_agent: str = "build"
    timeout_ms: int = DEFAULT_BLOCK_TIMEOUT_MS
    abort: asyncio.Event | None = None
    home: Path | None = None
    run_shell: bool = True
    session_id: str | None = None


@dataclass(frozen=True)
class ExpandedPrompt:
    """The expanded command: the text, its attachments and how to run it.

    ``agent``/``model`` are the command's own (None = caller's choice); ``blocks``
    reports each shell block in document order.
    """

    text: str
    files: list[FileReference] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    agent: str | None = None
    model: str | None = None
    subtask: bool = False
    warnings: list[str] = field(default_factory=list)
    blocks: list[BlockReport] = field(default_factory=list)


def is_subtask(command: Command, agent_mode: str | None) -> bool:
    """A subtask when the agent's mode is ``subagent`` and ``subtask`` is not False, or it is True."""
    return command.subtask is True or (agent_mode == "subagent" and command.subtask is not False)


async def _parts(
    command: Command, arguments: str, ctx: ExpandContext
) -> tuple[list[Segment], bool, list[str]]:
    """The segments of a command's template, whether they came from a remote server, and
    the substitution's warnings."""
    template = command.template
    if isinstance(template, str):
        variables = Variables(command.plugin_root, command.directory, ctx.session_id)
        done = substitution(
            template,
            arguments,
            command.syntax,
            named=command.named_arguments,
            variables=variables,
            name=command.name,
        )
        return done.parts, False, done.warnings
    try:
        text = await template(arguments)
    except ShellpilotError:
        raise
    except Exception as exc:
        raise TemplateError(f"fetching the prompt failed: {exc}", origin=command.origin) from exc
    # A server rendered this with the arguments bound: plain data, no placeholders, no blocks.
    return [TextSegment(text)], True, []


async def expand(command: Command, arguments: str, ctx: ExpandContext) -> ExpandedPrompt:
    """Expand ``command`` with the raw ``arguments`` text.

    1-2. placeholders in one pass over the template, by the rules of the command's
       format (``substitution.substitution``; Claude's ``${CLAUDE_*}`` variables too);
    3. each shell block, in document order: the shell gate (``external_directory``,
       ``edit``, ``bash``), run in the project dir with ``ctx.timeout_ms``; its
       output (or the failure, with the exit code) replaces it and expansion goes on;
    4. ``@path`` references resolve to files, directory listings or agents (not inside
       shell output); a path outside the project (symlinks resolved) is read only when
       ``ctx.ask(AskRequest("external_directory", ["<dir>/*"], ...))`` allows it (MCP text
       never), except under a trusted command's own directory (a skill's files);
    5. the text is trimmed; ``subtask`` follows ``is_subtask``.
    Raises CommandArgumentError (MCP prompt without a required argument, a Codex prompt
    without its ``KEY=value`` arguments) or TemplateError (an MCP server failed to render
    the prompt).
    """
    parts, remote, warnings = await _parts(command, arguments, ctx)
    shell = _shell_name(ctx)
    run = ctx.run or runner_for(ctx.config, ctx.output_dir)
    pieces: list[str] = []
    opaque: list[tuple[int, int]] = []
    reports: list[BlockReport] = []
    length = 0
    for part in parts:
        if isinstance(part, TextSegment):
            piece = part.text
        elif part.refused:
            reason = f"argument {part.refused} contains shell metacharacters"
            reports.append(BlockReport(part.command, "denied", reason=reason))
            warnings.append(f"shell block not run: {reason}")
            piece = part.written
        elif ctx.run_shell:
            report = await run_block(
                part.command,
                project_dir=ctx.project_dir,
                ask=ctx.ask,
                run=run,
                shell=shell,
                output_dir=ctx.output_dir,
                agent=command.agent or ctx.default_agent,
                timeout_ms=ctx.timeout_ms,
                abort=ctx.abort,
                origin=f"/{command.name}",
            )
            reports.append(report)
            if report.status in ("denied", "rejected"):
                warnings.append(f"shell block `{part.command}` not run: {report.reason}")
            elif report.status != "ok":
                warnings.append(f"shell block `{part.command}`: {report.status} {report.reason}".rstrip())
            piece = report.inline()
        else:
            plan = plan_block(part.command, ctx.project_dir, shell=shell, output_dir=ctx.output_dir)
            reports.append(BlockReport(part.command, "not_run", plan=plan))
            piece = part.written
        if isinstance(part, BlockSegment):
            opaque.append((length, length + len(piece)))
        pieces.append(piece)
        length += len(piece)
    text = "".join(pieces)
    refs = await resolve_references(
        text,
        project_dir=ctx.project_dir,
        ask=ctx.ask,
        agents=ctx.agents.keys(),
        home=ctx.home,
        exclude=opaque,
        inside_project_only=remote,
        origin=f"/{command.name}",
        own_dirs=[Path(command.directory)] if command.directory and command.trusted else [],
    )
    mode = ctx.agents.get(command.agent or ctx.default_agent)
    return ExpandedPrompt(
        text=text.strip(),
        files=refs.files,
        agents=refs.agents,
        agent=command.agent,
        model=command.model,
        subtask=is_subtask(command, mode),
        warnings=warnings + refs.warnings,
        blocks=reports,
    )


def _shell_name(ctx: ExpandContext) -> str:
    path = ctx.config.shell.path if ctx.config is not None else None
    name = Path(path).name if path else "bash"
    return "powershell" if name in ("pwsh", "powershell", "pwsh.exe", "powershell.exe") else "bash"


__all__ = [
    "ExpandContext",
    "ExpandedPrompt",
    "expand",
    "is_subtask",
    "split_arguments",
    "substitute",
]
