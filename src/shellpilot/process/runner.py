"""Runs one shell command in its own process group and always comes back with a result.

Owns: spawn, environment, the exit/abort/timeout race, draining, the kill path (its result
type is process/result.py's ShellResult).
Must not touch: permissions, parsing, sessions; output shaping lives in output.py and text.py.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import signal as signals
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from shellpilot.config.model import Config, ShellConfig
from shellpilot.errors import InvalidCommand, InvalidTimeout, ShellNotFound, ToolError, WorkdirNotFound
from shellpilot.ids import ascending
from shellpilot.paths import data_dir, tool_output_dir
from shellpilot.process.abort import USER_ABORT, abort_reason
from shellpilot.process.child import ExitWatch, WatchKind
from shellpilot.process.detect import ShellChoice, detect_shell
from shellpilot.process.launch import launch, sandbox_notes, sandboxed
from shellpilot.process.output import OutputBuffer, OutputLimits
from shellpilot.process.process_group import group_members, terminate_group
from shellpilot.process.result import RunOutcome, ShellResult
from shellpilot.process.sandbox import SandboxProfile, Wrapped, scrubbed_env
from shellpilot.process.subreaper import (
    RUN_ENV,
    become_subreaper,
    escaped,
    reap_adopted,
    reap_group,
    run_token,
)
from shellpilot.process.text import PREVIEW_CHARS, LivePreview

log = logging.getLogger(__name__)

NONINTERACTIVE_ENV: Mapping[str, str] = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "TERM": "dumb",
    "NO_COLOR": "1",
}
"""Set for every command so nothing waits on a pager, an editor or a password prompt."""

HIDDEN_ENV = ("BASH_ENV", "ENV", "CDPATH", "BASHOPTS", "SHELLOPTS", "PS4", "BASH_XTRACEFD")
"""Removed from every command's environment (with exported functions, ``BASH_FUNC_*``):
through them bash would run a file before the command, send `cd` elsewhere, turn on
options (`expand_aliases`, `xtrace`) or run a function in place of a program, all out of
sight of the scanner, which judges the command text alone."""

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_EXIT_WAIT_S = 2.0
"""After killing the group, how long to wait for the shell's own exit status."""


def resolve_timeout(timeout_ms: int | None, cfg: ShellConfig) -> int:
    """The timeout to use in ms: ``timeout_ms`` or the configured default.

    Raises InvalidTimeout (a ValueError) when it is <= 0 or above ``cfg.max_timeout_ms``.
    """
    if timeout_ms is None:
        return min(cfg.timeout_ms, cfg.max_timeout_ms)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise InvalidTimeout(timeout_ms, cfg.max_timeout_ms)
    if timeout_ms <= 0 or timeout_ms > cfg.max_timeout_ms:
        raise InvalidTimeout(timeout_ms, cfg.max_timeout_ms)
    return timeout_ms


def spill_name(call_id: str | None) -> str:
    """A safe file name for a call's spill file: ``call_id`` with anything but letters,
    digits, ``_ . -`` replaced (no path tricks), or a fresh ``tool_`` id."""
    if not call_id:
        return ascending("tool")
    name = _UNSAFE_NAME.sub("_", call_id)[:128]
    return "_" + name if name.startswith(".") else name


def build_env(
    cfg: ShellConfig, extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: ``base`` (default os.environ) without HIDDEN_ENV and
    exported functions + NONINTERACTIVE_ENV + config ``shell.env`` + ``extra`` (e.g. the
    ``shell.env`` hook), later ones winning (what the user configures is kept)."""
    env = {
        name: value
        for name, value in (os.environ if base is None else base).items()
        if name not in HIDDEN_ENV and not name.startswith("BASH_FUNC_")
    }
    env.update(NONINTERACTIVE_ENV)
    env.update(cfg.env)
    if extra:
        env.update(extra)
    return env


class _Reader(asyncio.Protocol):
    """Feeds the merged stdout/stderr pipe into the buffer; resolves ``eof`` when it closes."""

    def __init__(self, loop: asyncio.AbstractEventLoop, buffer: OutputBuffer) -> None:
        self.buffer = buffer
        self.preview: LivePreview | None = None
        self.on_data: Callable[[bytes], None] | None = None
        self.eof: asyncio.Future[None] = loop.create_future()

    def data_received(self, data: bytes) -> None:
        self.buffer.feed(data)
        if self.on_data is not None:
            try:
                self.on_data(data)
            except Exception:  # a broken viewer must not cost the command its output
                log.exception("on_data callback failed; live echo stopped")
                self.on_data = None
        if self.preview is not None:
            try:
                self.preview.poke()
            except Exception:
                log.exception("on_output callback failed; live preview stopped")
                self.preview = None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.eof.done():
            self.eof.set_result(None)


async def _race(
    exited: asyncio.Future[int], abort: asyncio.Event | None, timeout_s: float | None
) -> RunOutcome:
    """The one race point: shell exit vs user abort vs wall-clock timeout."""
    abort_task = asyncio.ensure_future(abort.wait()) if abort is not None else None
    waiters: set[asyncio.Future[object]] = {exited}  # type: ignore[arg-type]
    if abort_task is not None:
        waiters.add(abort_task)  # type: ignore[arg-type]
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if abort_task is not None:
            abort_task.cancel()
    if exited in done:
        return RunOutcome.EXITED
    if abort_task is not None and abort_task in done:
        # A wait that failed (an Event bound to another event loop raises RuntimeError)
        # is an error, not the user's abort: re-raise it (the caller's kill path runs).
        abort_task.result()
        return RunOutcome.ABORTED
    return RunOutcome.TIMED_OUT


async def _settle(future: asyncio.Future[Any], seconds: float) -> bool:
    """Wait up to ``seconds`` for ``future``; True if it completed."""
    if not future.done() and seconds > 0:
        await asyncio.wait({future}, timeout=seconds)
    return future.done()


MAX_COMMAND_BYTES = 131_071
"""The longest command text, in UTF-8 bytes, that can start: the shell gets it as one argv
string, and Linux refuses (E2BIG) a single argument of 128 KiB or more with its NUL."""


def check_command(command: str) -> None:
    """Raise InvalidCommand, saying what to do instead, for a command that cannot be run:
    empty (or only white space), holding a NUL byte, or over ``MAX_COMMAND_BYTES``."""
    if not command.strip():
        raise InvalidCommand("The command is empty: give the shell command to run.")
    nul = command.find("\0")
    if nul >= 0:
        raise InvalidCommand(
            f"The command holds a NUL byte (\\0) at character {nul}: a command line cannot carry "
            "one. Let the shell make the byte instead, e.g. printf '\\0'."
        )
    size = len(command.encode("utf-8", "surrogatepass"))
    if size > MAX_COMMAND_BYTES:
        raise InvalidCommand(
            f"The command is {size:,} bytes; the kernel passes at most {MAX_COMMAND_BYTES:,} bytes "
            "as one command line. Write long text to a file in parts (several `cat >> FILE <<'EOF'` "
            "calls), or put the script in a file and run that file."
        )


def _spawn_error(exc: OSError, choice: ShellChoice, cwd: Path, wrapped: Wrapped | None = None) -> Exception:
    if not cwd.is_dir():
        return WorkdirNotFound(str(cwd))
    if exc.errno == errno.E2BIG:
        return ToolError(
            f"Could not start the command: its environment and text are too large for the kernel "
            f"({exc.strerror}). Shorten the command or the variables set in shell.env."
        )
    if wrapped is not None:
        return ToolError(f"Could not start the sandbox ({wrapped.argv[0]}) in {cwd}: {exc}")
    if not os.access(choice.path, os.X_OK):
        return ShellNotFound(choice.path, str(exc))
    return ToolError(f"Could not start {choice.path} in {cwd}: {exc}")


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _outcome_notes(
    outcome: RunOutcome,
    exit_code: int | None,
    signal: int | None,
    timeout_ms: int | None,
    max_timeout_ms: int,
    aborted_because: str = USER_ABORT,
) -> list[str]:
    if outcome is RunOutcome.TIMED_OUT:
        return [
            f"shellpilot terminated the command after exceeding the {timeout_ms} ms timeout. "
            "If the command is not waiting for input and needs longer, retry with a larger "
            f"timeout (at most {max_timeout_ms} ms)."
        ]
    if outcome is RunOutcome.ABORTED:
        return [f"The command was {aborted_because}."]
    if signal is not None:
        return [f"The command was killed by signal {signal} ({_signal_name(signal)})."]
    if exit_code:
        return [f"Exit code: {exit_code}."]
    return []


def _group_exists(leader: int) -> bool:
    try:
        os.killpg(leader, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _namespace_gone(leader: int, seconds: float = 2.0) -> None:
    """Wait (1 ms steps) until nothing of the sandbox's group is left; SIGKILL what is still
    there after ``seconds`` (it was being killed already: its PID namespace's init died)."""
    deadline = time.monotonic() + seconds
    while _group_exists(leader) and not (reap_group(leader) and not _group_exists(leader)):
        if time.monotonic() >= deadline:
            await terminate_group(leader, 0, spare_leader=True)
            return
        await asyncio.sleep(0.001)


async def _drive(
    proc: subprocess.Popen[bytes],
    protocol: _Reader,
    abort: asyncio.Event | None,
    timeout_ms: int | None,
    cfg: ShellConfig,
    exit_watch: WatchKind,
    token: str,
    sandboxed: bool,
) -> tuple[RunOutcome, int | None, list[int]]:
    """Read the pipe, race exit/abort/timeout, and stop the group on any way out but exit.

    Returns ``(outcome, return code or None, background pids)``; the background pids
    include processes of the run (marker ``token``) that left its group. The ``finally``
    is the one kill path: timeout, abort, cancellation of the caller or an error all pass
    there, so no path leaves the group (or what escaped it) running or the pipe unread.
    """
    loop = asyncio.get_running_loop()
    watch = ExitWatch(proc, exit_watch)
    transport: asyncio.ReadTransport | None = None
    outcome: RunOutcome | None = None
    background: list[int] = []
    try:
        assert proc.stdout is not None
        transport, _ = await loop.connect_read_pipe(lambda: protocol, proc.stdout)
        outcome = await _race(watch.exited, abort, None if timeout_ms is None else timeout_ms / 1000)
        if outcome is RunOutcome.EXITED and sandboxed:
            # bwrap reports the command's exit before its namespace is gone; the rest of
            # the namespace is being killed (die-with-parent): wait for that, list nothing.
            await _settle(protocol.eof, cfg.drain_ms / 1000)
            await _namespace_gone(proc.pid)
        elif outcome is RunOutcome.EXITED and not await _settle(protocol.eof, cfg.drain_ms / 1000):
            background = group_members(proc.pid)
        elif outcome is RunOutcome.EXITED:
            background = group_members(proc.pid, quick=True)
        if outcome is RunOutcome.EXITED and not sandboxed:
            gone = escaped(token, proc.pid)
            background = sorted({*background, *(escaped(token, proc.pid, deep=True) if gone else ())})
    finally:
        if outcome is not RunOutcome.EXITED:
            await terminate_group(
                proc.pid,
                cfg.kill_grace_ms / 1000,
                also=lambda: escaped(token, proc.pid, deep=True),
                spare_leader=sandboxed,
            )
            reap_adopted()
            await _settle(watch.exited, _EXIT_WAIT_S)
            if transport is not None:
                await _settle(protocol.eof, cfg.drain_ms / 1000)
        if transport is not None:
            transport.close()
        elif proc.stdout is not None:
            proc.stdout.close()
        watch.close()
        protocol.buffer.close()
    returncode = watch.exited.result() if watch.exited.done() else proc.poll()
    return outcome, returncode, background


async def run(
    command: str,
    *,
    cwd: str | os.PathLike[str],
    shell: str | ShellChoice | None = None,
    env: Mapping[str, str] | None = None,
    timeout_ms: int | None = None,
    abort: asyncio.Event | None = None,
    on_output: Callable[[str], None] | None = None,
    limits: OutputLimits | None = None,
    output_dir: Path | None = None,
    call_id: str | None = None,
    config: Config | None = None,
    no_timeout: bool = False,
    on_data: Callable[[bytes], None] | None = None,
    exit_watch: WatchKind = "auto",
    on_spawn: Callable[[int], None] | None = None,
    sandbox: SandboxProfile | None = None,
) -> ShellResult:
    """Run ``command`` with the chosen shell as ``<shell> -c -- <command>`` (one argv string).

    The child gets stdin from /dev/null, its own session/process group, stdout and stderr
    merged into one pipe, and ``build_env(config.shell, env)``. Completion is the shell's
    exit; then output is drained for at most ``shell.drain_ms`` and processes still
    holding on are listed in ``background_pids`` (left running). On timeout (``timeout_ms``,
    default ``shell.timeout_ms``; ``no_timeout=True`` for none), abort (``abort`` set; the
    note says why when it is a ``process.abort.AbortSignal``) or
    cancellation of this coroutine, the whole group gets SIGTERM, then SIGKILL after
    ``shell.kill_grace_ms`` if anything is still alive. ``on_output(preview)`` is called
    throttled (<= ~10/s, always a final call) with the latest <= 30,000 characters,
    starting with ``...\\n\\n`` and then a whole line when earlier output was left out;
    ``on_data(chunk)`` with every raw chunk as read (unthrottled, uncleaned: for a terminal).
    ``exit_watch`` picks how the exit is noticed (pidfd when available, else a thread).
    ``on_spawn(pid)`` is called once right after the shell starts (its pid is also its
    process-group id), so a caller can record it for crash recovery; an exception from it
    is logged and does not stop the command.

    ``sandbox``: run inside bubblewrap with that profile (``process/sandbox.py``); the
    sandbox is the group leader and its PID namespace dies with it, so a timeout or abort
    takes everything the command started. When bubblewrap cannot run here the command runs
    without it (one warning per process), unless the profile is ``required``. A failure the
    sandbox caused gets a note saying what it blocked (``process/denial.py``). Without a
    sandbox this process becomes a child subreaper, so processes that leave the group
    (``setsid``) are still listed in ``background_pids`` and killed on timeout and abort.

    Raises InvalidCommand (``check_command``) or InvalidTimeout before anything runs;
    SandboxUnavailable (a required sandbox that cannot run); WorkdirNotFound, ShellNotFound
    or ToolError if the process cannot start.
    """
    check_command(command)
    cfg = config if config is not None else Config()
    timeout = None if no_timeout else resolve_timeout(timeout_ms, cfg.shell)
    choice = shell if isinstance(shell, ShellChoice) else detect_shell(shell, configured=cfg.shell.path)
    workdir = Path(cwd)
    if not workdir.is_dir():
        raise WorkdirNotFound(str(workdir))
    folder = output_dir if output_dir is not None else tool_output_dir(data_dir())
    buffer = OutputBuffer(limits or OutputLimits.from_config(cfg.tool_output), folder / spill_name(call_id))
    loop = asyncio.get_running_loop()
    protocol = _Reader(loop, buffer)
    protocol.on_data = on_data
    if on_output is not None:
        protocol.preview = LivePreview(lambda: buffer.latest_lines(PREVIEW_CHARS), on_output, loop.call_later)
    started = time.monotonic()
    outcome = RunOutcome.ABORTED
    background: list[int] = []
    returncode: int | None = None
    pid: int | None = None
    wrapped: Wrapped | None = None
    if abort is None or not abort.is_set():
        token = run_token()
        child_env = build_env(cfg.shell, {**(env or {}), RUN_ENV: token}, scrubbed_env() if sandbox else None)
        argv = choice.argv(command)
        try:
            wrapped = sandboxed(sandbox, argv, workdir)
        except BaseException:
            buffer.close()
            raise
        # Unsandboxed: to catch what leaves the group. Sandboxed: bwrap's init outlives bwrap
        # for a moment and is re-parented to us, so we reap it at once (not some slow init).
        become_subreaper()
        reap_adopted()
        try:
            proc = launch(wrapped, argv, workdir, child_env)
        except OSError as exc:
            buffer.close()
            raise _spawn_error(exc, choice, workdir, wrapped) from exc
        pid = proc.pid
        if on_spawn is not None:
            try:
                on_spawn(pid)
            except Exception:
                log.exception("on_spawn callback failed")
        outcome, returncode, background = await _drive(
            proc, protocol, abort, timeout, cfg.shell, exit_watch, token, wrapped is not None
        )
    final_preview = ""
    if protocol.preview is not None:  # None too when the callback failed earlier
        try:
            final_preview = protocol.preview.finish()
        except Exception:
            log.exception("on_output callback failed on the final preview")
    captured = buffer.finish()
    exit_code = (
        returncode if outcome is RunOutcome.EXITED and returncode is not None and returncode >= 0 else None
    )
    signal = -returncode if returncode is not None and returncode < 0 else None
    notes = list(captured.notes)
    notes += _outcome_notes(
        outcome, exit_code, signal, timeout, cfg.shell.max_timeout_ms, abort_reason(abort)
    )
    if background:
        notes.append(
            "Still running in the background (its output is no longer captured): pid "
            + ", ".join(str(p) for p in background)
            + "."
        )
    request: tuple[str, ...] = ()
    if wrapped is not None and sandbox is not None:
        extra, request = sandbox_notes(
            sandbox, wrapped, captured.text, workdir, bool(exit_code) and outcome is RunOutcome.EXITED
        )
        notes += extra
    output = captured.text
    if notes:
        output = output.rstrip("\n") + "\n\n<shell_metadata>\n" + "\n".join(notes) + "\n</shell_metadata>"
    return ShellResult(
        exit_code=exit_code,
        signal=signal,
        timed_out=outcome is RunOutcome.TIMED_OUT,
        aborted=outcome is RunOutcome.ABORTED,
        output=output,
        truncated=captured.truncated,
        output_path=captured.output_path,
        total_bytes=captured.total_bytes,
        duration_ms=int((time.monotonic() - started) * 1000),
        background_pids=background,
        shell=choice.path,
        outcome=outcome,
        total_lines=captured.total_lines,
        preview=final_preview,
        notes=notes,
        pid=pid,
        spill_capped=captured.spill_capped,
        sandbox=sandbox.name if wrapped is not None and sandbox is not None else None,
        sandbox_request=request,
    )
