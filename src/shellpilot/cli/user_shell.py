"""What ``shellpilot shell "CMD"`` does: run the command in a session, echo it live, exit with its code.

Owns: session choice, Ctrl-C, exit status, notices and footer. Must not touch: parsing the
command line (shell_cmd.py with typer, fast_path.py with click), recording (SessionService.shell);
nothing heavy (typer included) is imported at module level.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shellpilot.cli.context import CliContext
    from shellpilot.cli.echo import LiveEcho
    from shellpilot.session.models import Session, ToolPart

EXIT_ABORTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""


def exit_status(part: ToolPart, *, signal_received: int | None = None) -> int:
    """The CLI's exit status for a finished user-shell part.

    The command's own exit code; 128 + signal when it was killed by one; 128 + the
    signal the CLI received (SIGINT: 130) when the user cancelled; 1 if it never ran. A part
    saved as failed only because the disk was full still gives the command's status.
    """
    state = part.state
    meta: dict[str, Any] = dict(getattr(state, "metadata", {}))
    if state.status != "completed" and not meta.get("storage_error"):
        return EXIT_ABORTED if signal_received is not None else 1
    if meta.get("aborted"):
        return 128 + (signal_received or 2)
    exit_code = meta.get("exit")
    if isinstance(exit_code, int):
        return exit_code
    sig = meta.get("signal")
    if isinstance(sig, int):
        return 128 + sig
    return 1


def _title(command: str) -> str:
    line = " ".join(command.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _pick_session(
    ctx: CliContext, session_id: str | None, cont: bool, command: str, *, dir_given: bool = False
) -> Session:
    """The session to record in: ``--session``, the latest (``--continue``) or a new one.

    A session runs in its own project dir, so ``--session`` with a ``--dir`` naming another
    project is a UsageError rather than silently running elsewhere than asked.
    """
    from shellpilot.errors import UsageError

    if session_id and cont:
        raise UsageError("Use either --session ID or --continue, not both.")
    if session_id:
        session = ctx.sessions.get(session_id)
        if dir_given and Path(session.project_dir) != ctx.project_dir:
            raise UsageError(
                f"Session {session.id} belongs to {session.project_dir}, but --dir names "
                f"{ctx.project_dir}. Drop --dir (the command runs in the session's directory) "
                "or start a new session there."
            )
        return session
    if cont:
        latest = ctx.sessions.latest(ctx.project_dir)
        if latest is not None:
            return latest
    return ctx.sessions.create(ctx.project_dir, title=_title(command))


async def _run(
    ctx: CliContext, session: Session, command: str, timeout: int | None, echo: LiveEcho
) -> tuple[int, ToolPart | None]:
    """Run the command; its exit status and part (None when a cancelled run could not be
    saved: the error was printed)."""
    import asyncio
    import signal

    from shellpilot.errors import StorageError

    loop = asyncio.get_running_loop()
    received: list[int] = []
    cancels: list[asyncio.Task[None]] = []

    def on_signal(signum: int) -> None:
        if received:
            return  # already cancelling; the runner forces the kill after its grace period
        received.append(signum)
        sys.stderr.write("\nshellpilot: cancelling the command...\n")
        sys.stderr.flush()
        reason = "terminated by SIGTERM" if signum == signal.SIGTERM else None  # else: the user's Ctrl-C
        cancels.append(loop.create_task(ctx.run_state.cancel(session.id, reason)))

    handled = (signal.SIGINT, signal.SIGTERM)
    for signum in handled:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        _, part = await ctx.sessions.shell(
            session.id, command, timeout_ms=timeout, on_output=echo.preview, on_data=echo.data
        )
    except StorageError as exc:
        if not received:
            raise
        # Cancelled on a full disk: the result could not be saved, but this is still a cancel.
        from shellpilot.cli.render import print_error

        print_error(exc)
        return 128 + received[0], None
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        for task in cancels:
            await task
    echo.finish(str(getattr(part.state, "metadata", {}).get("output") or ""))
    return exit_status(part, signal_received=received[0] if received else None), part


def outcome_notice(part: ToolPart) -> str | None:
    """One-line stderr notices when shellpilot, not the command, ended it (timeout, Ctrl-C),
    and when its result could not be saved whole (a full disk); None when there is nothing to say."""
    meta: dict[str, Any] = dict(getattr(part.state, "metadata", {}))
    lines: list[str] = []
    if meta.get("timed_out"):
        limit = meta.get("timeout_ms")
        after = f" after {limit} ms" if isinstance(limit, int) else ""
        lines.append(f"shellpilot: command timed out{after} and was killed")
    elif meta.get("aborted"):
        lines.append(f"shellpilot: command {meta.get('abort_reason') or 'aborted by the user'}")
    if meta.get("storage_error"):
        lines.append(f"shellpilot: error: {getattr(part.state, 'error', '')}")
    elif part.state.status == "error":
        lines.append(f"shellpilot: the command did not finish: {getattr(part.state, 'error', '')}")
    return "\n".join(lines) or None


def _notice(part: ToolPart, echo: LiveEcho) -> None:
    text = outcome_notice(part)
    if text is None:
        return
    lead = "\n" if sys.stderr.isatty() and not echo.ends_with_newline else ""
    sys.stderr.write(f"{lead}{text}\n")
    sys.stderr.flush()
    echo.ends_with_newline = True  # the terminal's cursor is at a line start again


def _footer(session: Session, part: ToolPart, code: int, echo: LiveEcho) -> None:
    """The dim summary line on a terminal's stderr; stdout keeps the command's bytes exactly."""
    if not sys.stderr.isatty():
        return
    if not echo.ends_with_newline:
        sys.stderr.write("\n")  # start the footer on its own line (on stderr, not in the output)
    meta: dict[str, Any] = dict(getattr(part.state, "metadata", {}))
    bits = [f"exit {code}", f"session {session.id}"]
    if meta.get("duration_ms") is not None:
        bits.insert(1, f"{meta['duration_ms'] / 1000:.1f} s")
    sys.stderr.write("\x1b[2m── " + " · ".join(bits) + "\x1b[0m\n")
    if meta.get("truncated") and meta.get("output_path"):
        sys.stderr.write(f"\x1b[2m   full output: {meta['output_path']}\x1b[0m\n")
    sys.stderr.flush()


def run_shell(
    command: str,
    *,
    session_id: str | None = None,
    cont: bool = False,
    directory: str | None = None,
    timeout: int | None = None,
    data_dir: str | None = None,
    trust: bool = False,
) -> int:
    """Run ``command`` for the CLI and return the process exit status (see ``exit_status``).

    ``trust`` (``--trust``) applies the project's own config files whole; otherwise keys an
    untrusted project set (shell.path/env...) are dropped with one warning on stderr.
    """
    import asyncio

    from shellpilot.cli.context import open_context, untrusted_warning
    from shellpilot.cli.echo import LiveEcho
    from shellpilot.errors import InvalidTimeout, UsageError
    from shellpilot.process.runner import check_command

    # Refuse bad input before a session is created for it.
    if timeout is not None and timeout <= 0:
        raise InvalidTimeout(timeout)
    check_command(command)  # empty, a NUL byte, too long for one argument
    try:
        command.encode("utf-8")
    except UnicodeEncodeError as err:  # argv bytes that are not UTF-8 arrive as surrogates
        byte = ord(command[err.start]) - 0xDC00
        raise UsageError(
            f"The command is not valid UTF-8 (byte 0x{byte:02x} at character {err.start}); "
            "sessions record commands as text. Let the shell make the byte instead, "
            "e.g. printf '\\xff'."
        ) from None
    with open_context(directory=directory, data_dir=data_dir, trust=trust) as ctx:
        ignored = untrusted_warning(ctx.loaded)
        if ignored is not None:
            sys.stderr.write(f"warning: {ignored}\n")
        warning = refused_shell_warning(ctx.loaded.config.shell.path)
        if warning is not None:
            sys.stderr.write(warning + "\n")
            sys.stderr.flush()
        session = _pick_session(ctx, session_id, cont, command, dir_given=directory is not None)
        echo = LiveEcho(sys.stdout, getattr(sys.stdout, "buffer", None), raw=True)
        code, part = asyncio.run(_run(ctx, session, command, timeout, echo))
        if part is None:
            return code
        _notice(part, echo)
        if echo.closed:
            silence_stdout()
        else:
            _footer(session, part, code, echo)
        return code


def refused_shell_warning(configured: str | None) -> str | None:
    """The warning when config ``shell.path`` names a shell shellpilot will not use (fish,
    python3...): which one was refused and which one runs instead; None when it is used."""
    if not configured:
        return None
    from shellpilot.errors import ShellNotFound
    from shellpilot.process.detect import POSIX_SHELLS, detect_shell

    try:
        choice = detect_shell(configured=configured)
    except ShellNotFound:
        return None  # a missing configured shell is the runner's error, reported with the part
    if choice.source == "config":
        return None
    return (
        f"shellpilot: warning: shell.path {configured} is not a supported shell "
        f"({', '.join(sorted(POSIX_SHELLS))} or pwsh); using {choice.path} instead"
    )


def silence_stdout() -> None:
    """The reader of our stdout left (``| head``): point stdout at /dev/null so exit is quiet."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
