"""Running the shell blocks of a template: scan, ask permission, run, inline the result.

Owns: the per-block safety path and how a block's outcome reads inline. Must not touch:
template parsing (substitution.py) or how processes run (process/runner.py does that).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from shellpilot.command.references import rejection_reason
from shellpilot.errors import PermissionDenied, PermissionRejected, ShellpilotError
from shellpilot.tool.base import Ask

if TYPE_CHECKING:
    from shellpilot.config.model import Config

DEFAULT_BLOCK_TIMEOUT_MS = 30_000
"""Timeout of one shell block, in ms (OpenCode has none)."""

BlockStatus = Literal["ok", "failed", "timed_out", "aborted", "denied", "rejected", "not_run"]


@dataclass(frozen=True)
class BlockCheck:
    """What a block asks permission for: ``bash`` patterns and outside directories.

    ``read_only`` lists the patterns judged read-only from their parsed argv.
    """

    patterns: list[str]
    always: list[str]
    dirs: list[str] = field(default_factory=list)
    read_only: list[str] = field(default_factory=list)
    unknown: bool = False


@dataclass(frozen=True)
class BlockRun:
    """What running a block produced: merged stdout+stderr and how it ended.

    ``annotated``: the output already says how the command ended (the runner's
    ``<shell_metadata>`` notes: exit code, timeout, truncation), so nothing is added.
    """

    output: str
    exit_code: int | None
    timed_out: bool = False
    aborted: bool = False
    annotated: bool = False


@dataclass(frozen=True)
class BlockReport:
    """One block's outcome; ``inline()`` is the text that replaces it in the prompt."""

    command: str
    status: BlockStatus
    output: str = ""
    exit_code: int | None = None
    check: BlockCheck | None = None
    reason: str = ""
    timeout_ms: int = DEFAULT_BLOCK_TIMEOUT_MS
    annotated: bool = False

    def inline(self) -> str:
        """Output (trailing newlines dropped); failures add ``[exit code N]`` unless the
        runner's notes already say how it ended."""
        out = self.output.rstrip("\n")
        note: str | None = None
        if self.annotated and self.status in ("ok", "failed", "timed_out", "aborted"):
            return out
        if self.status == "failed":
            note = f"[exit code {self.exit_code}]" if self.exit_code is not None else f"[{self.reason}]"
        elif self.status == "timed_out":
            note = f"[timed out after {self.timeout_ms} ms]"
        elif self.status == "aborted":
            note = "[aborted]"
        elif self.status in ("denied", "rejected"):
            return f"[shell block not run: {self.reason}]"
        elif self.status == "not_run":
            return f"!`{self.command}`"
        if note is None:
            return out
        return f"{out}\n{note}" if out else note


CheckFn = Callable[[str, Path], BlockCheck]
"""``check(command, project_dir) -> BlockCheck`` (default: the scanner, ``scan_block``)."""

RunFn = Callable[[str, Path, int, "asyncio.Event | None"], Awaitable[BlockRun]]
"""``await run(command, cwd, timeout_ms, abort) -> BlockRun`` (default: the shell runner)."""


def scan_block(command: str, project_dir: Path, shell: str = "bash") -> BlockCheck:
    """Scan a block like the bash tool does (``shellpilot.scanner.scan``).

    Patterns and ``always`` come from the scan; when the scanner could not understand
    the command (``unknown``) the whole text is the one pattern. Outside directories
    become ``external_directory`` asks.
    """
    from shellpilot.scanner.scan import scan

    result = scan(command, cwd=project_dir, project_dir=project_dir, shell=shell)
    if result.unknown or not result.patterns:
        return BlockCheck([command], [command], list(result.dirs), [], True)
    from shellpilot.paths import data_dir, tool_output_dir
    from shellpilot.permission.readonly import is_read_only

    spills = (tool_output_dir(data_dir()),)
    read_only = [
        c.text
        for c in result.commands
        if is_read_only(list(c.argv), cwd=project_dir, project_dir=project_dir, text=c.text, readable=spills)
    ]
    return BlockCheck(list(result.patterns), list(result.always), list(result.dirs), read_only)


def runner_for(config: Config | None = None) -> RunFn:
    """A ``RunFn`` over ``shellpilot.process.runner.run``: the configured shell, and output
    limited like a tool's (config ``tool_output``: lines and bytes, tail kept)."""

    async def run(command: str, cwd: Path, timeout_ms: int, abort: asyncio.Event | None) -> BlockRun:
        from shellpilot.process.output import OutputLimits
        from shellpilot.process.runner import run as run_shell

        limits = OutputLimits.from_config(config.tool_output) if config is not None else OutputLimits()
        result = await run_shell(
            command, cwd=cwd, timeout_ms=timeout_ms, abort=abort, limits=limits, config=config
        )
        annotated = "<shell_metadata>" in result.output
        return BlockRun(result.output, result.exit_code, result.timed_out, result.aborted, annotated)

    return run


async def run_block(
    command: str,
    *,
    project_dir: Path,
    ask: Ask,
    check: CheckFn,
    run: RunFn,
    timeout_ms: int = DEFAULT_BLOCK_TIMEOUT_MS,
    abort: asyncio.Event | None = None,
    origin: str = "",
) -> BlockReport:
    """Scan, ask (``external_directory`` for outside dirs, then ``bash``), run in the project.

    A denied or rejected ask yields a report that says so (expansion goes on; a rejection
    keeps the asker's reason, e.g. ``not allowed without a terminal ...``); a
    non-zero exit, a timeout or a spawn error keeps the output and says how it ended.
    """
    try:
        checked = check(command, project_dir)
    except ShellpilotError:
        checked = BlockCheck([command], [command], unknown=True)
    meta: dict[str, object] = {
        "command": command,
        "description": f"shell block of {origin}" if origin else "shell block",
        "unknown": checked.unknown,
    }
    try:
        if checked.dirs:
            globs = [f"{d.rstrip('/')}/*" for d in checked.dirs]
            await ask("external_directory", globs, globs, meta)
        unanalysed = [command] if checked.unknown else []
        await ask(
            "bash", checked.patterns, checked.always, meta, read_only=checked.read_only, unanalysed=unanalysed
        )
    except PermissionDenied as exc:
        return BlockReport(command, "denied", check=checked, reason=f'denied by rule for "{exc.pattern}"')
    except PermissionRejected as exc:
        return BlockReport(command, "rejected", check=checked, reason=rejection_reason(exc))
    try:
        done = await run(command, project_dir, timeout_ms, abort)
    except ShellpilotError as exc:
        return BlockReport(command, "failed", check=checked, reason=exc.message)
    status: BlockStatus = "ok"
    if done.timed_out:
        status = "timed_out"
    elif done.aborted:
        status = "aborted"
    elif done.exit_code != 0:
        status = "failed"
    return BlockReport(
        command, status, done.output, done.exit_code, checked, timeout_ms=timeout_ms, annotated=done.annotated
    )
