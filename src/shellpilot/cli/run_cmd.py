"""What ``shellpilot run [MESSAGE...]`` does: one prompt or slash command through the agent loop.

Owns: the run sub-command's work (message/stdin/``/command`` parsing, session choice, live
rendering, the permission prompt, Ctrl-C, exit status). Must not touch: parsing the command
line (run_decl.py with typer, fast_path.py with click), the loop's behaviour
(session/loop.py); nothing imports typer here, and HTTP loads only when a model is called.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from shellpilot.errors import Aborted, ShellpilotError, UsageError

if TYPE_CHECKING:
    from shellpilot.cli.context import CliContext
    from shellpilot.permission.request import Ask, AskRequest
    from shellpilot.permission.rules import Rule
    from shellpilot.permission.service import PermissionService
    from shellpilot.session.loop import AgentLoop
    from shellpilot.session.models import Session
    from shellpilot.session.turn import TurnResult

EXIT_ABORTED = 130


@dataclass(frozen=True)
class RunOptions:
    """Everything ``shellpilot run`` was asked to do (see ``register`` for the flags)."""

    message: str = ""
    command: str | None = None
    model: str | None = None
    agent: str | None = None
    session_id: str | None = None
    cont: bool = False
    format: Literal["text", "json"] = "text"
    schema: dict[str, Any] | None = None
    yes: bool = False
    allow: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()
    directory: str | None = None
    data_dir: str | None = None
    interactive: bool | None = None
    trust: bool = False
    read_line: Any = field(default=None, compare=False)


def split_command(message: str, command: str | None) -> tuple[str | None, str]:
    """``("/review HEAD~1", None)`` -> ``("review", "HEAD~1")``; ``--command`` takes the
    whole message as arguments; a plain message -> ``(None, message)``."""
    if command:
        return command.lstrip("/"), message
    text = message.strip()
    if text.startswith("/") and len(text) > 1 and not text[1].isspace() and not text.startswith("//"):
        name, _, rest = text[1:].partition(" ")
        return name, rest.strip()
    return None, message


def exit_code(result: TurnResult, interrupted: bool = False, signum: int | None = None) -> int:
    """0 when the turn succeeded; when cancelled, 128 + the signal's number (130 for SIGINT
    or no signal, 143 for SIGTERM, like ``shellpilot shell``); else the exit code of the
    error that ended it, as recorded from its class (ProviderError 3, PermissionRejected 4, ...)."""
    error = result.error
    if error is None:
        return 0
    if interrupted or signum is not None or error.exit_code == Aborted.exit_code:
        return 128 + signum if signum is not None else EXIT_ABORTED
    return error.exit_code


def load_schema(value: str) -> dict[str, Any]:
    """``--schema``: inline JSON or a path to a JSON file; UsageError when neither parses."""
    text = value
    if not value.lstrip().startswith("{"):
        try:
            text = Path(value).read_text("utf-8")
        except OSError as exc:
            raise UsageError(f"--schema: cannot read {value}: {exc.strerror}") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--schema: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(schema, dict):
        raise UsageError("--schema must be a JSON object (a JSON schema).")
    return schema


async def _preflight(loop: AgentLoop, opts: RunOptions, command: str | None) -> None:
    """Fail before a session is touched: unknown command or agent, missing provider/key/model
    (the error names what to set). The model checked is ``--model``, else the command's
    (when a configured provider can run it; otherwise the session's is used, with a warning
    when the command runs), else the agent's, else the default; a continued session may
    still use its last model."""
    agent = loop.resolve_agent(opts.agent)
    model = opts.model
    if command is not None and loop.commands is not None:
        found = await loop.commands.get(command)
        if not model and found.model:
            model = loop.providers.command_model(found.model, note=False)[0]
        if found.agent:
            agent = loop.resolve_agent(found.agent)
    if model or not (opts.session_id or opts.cont):
        loop.providers.resolve(model or agent.model)


def _session(ctx: CliContext, opts: RunOptions, title: str) -> Session:
    if opts.session_id and opts.cont:
        raise UsageError("Use either --session ID or --continue, not both.")
    if opts.session_id:
        return ctx.sessions.get(opts.session_id)
    if opts.cont:
        latest = ctx.sessions.latest(ctx.project_dir)
        if latest is not None:
            return latest
    line = " ".join(title.split())
    return ctx.sessions.create(ctx.project_dir, title=line if len(line) <= 60 else line[:57] + "...")


class _NoTerminalReasons:
    """The permission gate the loop asks through: the project's service, except that a
    plain rejection made because nobody could be asked (no terminal, not cancelled) says
    so, ``not allowed without a terminal (pass --yes or --allow 'touch *')``, where it is
    shown (shell blocks, tool errors). The turn still ends as on a person's reject."""

    def __init__(
        self, service: PermissionService, refusing: Callable[[], bool], allowed: Sequence[str] = ()
    ) -> None:
        self.service, self.refusing, self.allowed = service, refusing, tuple(allowed)

    def asker(self, session_id: str, ruleset: list[Rule]) -> Ask:
        """``service.asker`` with rejections relabelled while ``refusing()`` is true."""
        from shellpilot.cli.permission_prompt import refusal
        from shellpilot.errors import PermissionRejected

        inner = self.service.asker(session_id, ruleset)
        refusing, service, allowed = self.refusing, self.service, self.allowed

        class Relabelled:
            """``inner`` with the no-terminal reason; ``RuleAware`` like ``inner``."""

            async def __call__(self, request: AskRequest, /) -> None:
                try:
                    await inner(request)
                except PermissionRejected as exc:
                    if type(exc) is not PermissionRejected or not refusing():
                        raise
                    verdict = service.check(request, ruleset)
                    raise refusal(request, verdict, allowed) from None

            def denies_all(self, permission: str, /) -> bool:
                return inner.denies_all(permission)

        return Relabelled()


def _build_loop(
    ctx: CliContext,
    err: TextIO,
    refusing: Callable[[], bool] = lambda: False,
    allowed: Sequence[str] = (),
    commands: bool = True,
) -> AgentLoop:
    """The loop a run uses; ``commands`` False leaves the command registry (and every command
    source module) unloaded, for a plain message."""
    import os

    from shellpilot.provider.registry import ProviderRegistry
    from shellpilot.session.loop import AgentLoop

    def on_retry(error: ShellpilotError, attempt: int, delay_s: float) -> None:
        err.write(f"shellpilot: {error} - retry {attempt} in {delay_s:.1f} s\n")
        err.flush()

    providers = ProviderRegistry(ctx.loaded.config, env=os.environ, on_retry=on_retry)
    registry = None
    if commands:
        from shellpilot.command.cache import ParseCache
        from shellpilot.command.registry import CommandRegistry

        cache = ParseCache.for_project(ctx.data_dir, ctx.project_dir)
        registry = CommandRegistry(ctx.project_dir, ctx.loaded, cache=cache)
    return AgentLoop(
        ctx.sessions,
        project_dir=ctx.project_dir,
        providers=providers,
        permissions=_NoTerminalReasons(ctx.permissions, refusing, allowed),
        commands=registry,
    )


async def _turn(ctx: CliContext, opts: RunOptions, out: TextIO, err: TextIO) -> int:
    import asyncio
    import signal

    from shellpilot.cli.permission_prompt import NonInteractivePolicy, PermissionPrompt
    from shellpilot.cli.run_render import JsonRenderer, TextRenderer

    name, text = split_command(opts.message, opts.command)
    interrupted: list[int] = []
    for warning in ctx.permissions.grant_warnings:
        err.write(f"warning: {warning}\n")
    prompt = PermissionPrompt(
        ctx.permissions,
        ctx.bus,
        policy=NonInteractivePolicy(yes=opts.yes, allow_patterns=opts.allow),
        interactive=opts.interactive,
        read_line=opts.read_line,
    )
    loop = _build_loop(
        ctx, err, lambda: not prompt.interactive and not interrupted, opts.allow, commands=name is not None
    )
    await _preflight(loop, opts, name)
    session = _session(ctx, opts, f"/{name} {text}" if name else text)
    renderer: Any = (
        JsonRenderer(out)
        if opts.format == "json"
        else TextRenderer(session.id, out, err, color=err.isatty(), live=err.isatty())
    )
    unlisten = ctx.bus.listen(renderer)
    fmt = {"type": "json_schema", "schema": opts.schema} if opts.schema else None
    running = asyncio.get_running_loop()
    cancels: list[asyncio.Task[None]] = []

    def on_signal(signum: int) -> None:
        if not interrupted:
            interrupted.append(signum)
            err.write("\nshellpilot: cancelling...\n")
            err.flush()
            reason = "terminated by SIGTERM" if signum == signal.SIGTERM else None  # else: Ctrl-C
            cancels.append(running.create_task(ctx.run_state.cancel(session.id, reason)))

    for signum in (signal.SIGINT, signal.SIGTERM):
        running.add_signal_handler(signum, on_signal, signum)
    try:
        async with prompt:
            if name is not None:
                result = await loop.command(
                    session.id, name, text, agent=opts.agent, model=opts.model, format=fmt, files=opts.files
                )
            else:
                result = await loop.prompt(
                    session.id, text, agent=opts.agent, model=opts.model, format=fmt, files=opts.files
                )
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            running.remove_signal_handler(signum)
        for task in cancels:
            await task
        unlisten()
        await loop.providers.aclose()
        if loop.commands is not None:
            await loop.commands.aclose()
    code = exit_code(result, bool(interrupted), interrupted[0] if interrupted else None)
    _report(result, opts, renderer, out, err, code)
    return code


def _report(result: TurnResult, opts: RunOptions, renderer: Any, out: TextIO, err: TextIO, code: int) -> None:
    from shellpilot.cli.render import printable

    for warning in result.warnings:  # may quote a model's command: never its raw escapes
        err.write(f"warning: {printable(str(warning))}\n")
    if opts.format == "json":
        renderer.emit(
            {
                "type": "result",
                "ok": result.ok,
                "exit_code": code,
                "session_id": result.session_id,
                "message_id": result.message.id if result.message else None,
                "text": result.text,
                "structured": result.structured,
                "error": result.error.model_dump() if result.error else None,
            }
        )
        return
    renderer.close()
    if result.structured is not None:
        out.write(json.dumps(result.structured, ensure_ascii=False) + "\n")
        out.flush()
    if result.error is not None:
        err.write(f"error: {printable(result.error.message)}\n")
    if err.isatty():
        err.write(f"\x1b[2m── session {result.session_id}\x1b[0m\n")
    err.flush()


def check_files(files: Sequence[Path], project_dir: Path) -> None:
    """``--file``: each must be a readable file or directory (relative paths against the
    project dir, as the loop attaches them). Raises UsageError naming the first that is not,
    before any session or model call."""
    import os

    for path in files:
        full = path if path.is_absolute() else project_dir / path
        if not full.exists():
            raise UsageError(f"--file {path}: no such file ({full}).")
        try:
            if full.is_dir():
                os.scandir(full).close()
            else:
                with full.open("rb") as handle:
                    handle.read(1)
        except OSError as exc:
            raise UsageError(f"--file {path}: cannot read {full}: {exc.strerror or exc}.") from None


def read_message(parts: list[str], stdin: TextIO, command: str | None = None) -> str:
    """The message from argv words; when none were given and stdin is not a TTY, stdin's text.

    One word is used as is (``run "/ph a 'b c'"``: the text after the name stays raw).
    Several words after a ``/name`` (or all of them with ``--command``) are the command's
    arguments: joined by ``command.arguments.join_arguments``, like ``command render``
    does, so ``$1..$N`` are exactly the words typed. A plain message is joined by spaces.
    """
    from shellpilot.command.arguments import join_arguments

    if command and parts:
        return join_arguments(parts)
    if len(parts) > 1 and split_command(parts[0], None)[0] == parts[0][1:]:
        return f"{parts[0]} {join_arguments(parts[1:])}"
    if parts:
        return " ".join(parts)
    if stdin is not None and not stdin.isatty():
        return stdin.read().strip()
    return ""


def execute(opts: RunOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one prompt or command for the CLI; returns the exit status (see ``exit_code``).

    Raises ShellpilotError before anything runs for bad input (UsageError: no message, a
    missing or unreadable ``--file``) or a missing provider (ProviderNotConfigured names
    the variable or config key to set).
    """
    import asyncio

    from shellpilot.cli.context import open_context, untrusted_warning

    if not opts.message.strip() and not opts.command:
        raise UsageError(
            'Nothing to do: give a message (shellpilot run "fix the test"), "/command args", '
            "or pipe the message on stdin."
        )
    if opts.files:
        from shellpilot.cli.context import project_dir_of

        check_files(opts.files, project_dir_of(opts.directory))
    with open_context(directory=opts.directory, data_dir=opts.data_dir, trust=opts.trust) as ctx:
        ignored = untrusted_warning(ctx.loaded)
        if ignored is not None:
            (err or sys.stderr).write(f"warning: {ignored}\n")
        return asyncio.run(_turn(ctx, opts, out or sys.stdout, err or sys.stderr))


def run_words(
    *,
    message: Sequence[str] | None,
    command: str | None,
    model: str | None,
    agent: str | None,
    session: str | None,
    cont: bool,
    output_format: str,
    schema: str | None,
    yes: bool,
    allow: Sequence[str] | None,
    file: Sequence[Path] | None,
    directory: Path | None,
    data_dir: Path | None,
    trust: bool,
) -> int:
    """``shellpilot run`` with its parsed parameters (named as the options are); returns the
    exit status. Raises UsageError for a ``--format`` other than text or json, and what
    ``execute`` raises."""
    if output_format not in ("text", "json"):
        raise UsageError(f"--format must be text or json, not {output_format!r}.")
    opts = RunOptions(
        message=read_message(list(message or []), sys.stdin, command),
        command=command,
        model=model,
        agent=agent,
        session_id=session,
        cont=cont,
        format="json" if output_format == "json" else "text",
        schema=load_schema(schema) if schema else None,
        yes=yes,
        allow=tuple(allow or ()),
        files=tuple(file or ()),
        directory=str(directory) if directory else None,
        data_dir=str(data_dir) if data_dir else None,
        trust=trust,
    )
    return execute(opts)
