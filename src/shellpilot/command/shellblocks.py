"""Running the shell blocks of a template through the shell gate, and inlining the result.

Owns: a block's report and how its outcome reads inline. Must not touch: template parsing
(substitution.py), what is asked (tool/gate.py) or how processes run (tool/shell.run_gated).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from shellpilot.command.references import rejection_reason
from shellpilot.errors import PermissionDenied, PermissionRejected, PermissionUnanalysed, ShellpilotError
from shellpilot.permission.request import Ask
from shellpilot.tool.gate import GateVerdict, ShellPlan, admit, plan_command

if TYPE_CHECKING:
    from shellpilot.config.model import Config

DEFAULT_BLOCK_TIMEOUT_MS = 30_000
"""Timeout of one shell block, in ms (OpenCode has none)."""

BlockStatus = Literal["ok", "failed", "timed_out", "aborted", "denied", "rejected", "not_run"]


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
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BlockReport:
    """One block's outcome; ``inline()`` is the text that replaces it in the prompt.

    ``plan``: what the gate saw (None when the block was refused before it was scanned);
    ``metadata``: the run's record (``ShellResult.part_metadata``), empty when not run.
    """

    command: str
    status: BlockStatus
    output: str = ""
    exit_code: int | None = None
    plan: ShellPlan | None = None
    reason: str = ""
    timeout_ms: int = DEFAULT_BLOCK_TIMEOUT_MS
    annotated: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)

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


RunFn = Callable[[GateVerdict, int, "asyncio.Event | None"], Awaitable[BlockRun]]
"""``await run(verdict, timeout_ms, abort) -> BlockRun`` (default: ``runner_for``)."""


def runner_for(config: Config | None = None, output_dir: Path | None = None) -> RunFn:
    """A ``RunFn`` over ``tool.shell.run_gated``: the configured shell, output limited like a
    tool's (config ``tool_output``: lines and bytes, tail kept), full output spilled under
    ``output_dir`` (the session's ``<data>/tool-output``; None: the default data dir's)."""

    async def run(verdict: GateVerdict, timeout_ms: int, abort: asyncio.Event | None) -> BlockRun:
        from shellpilot.process.output import OutputLimits
        from shellpilot.tool.shell import run_gated

        limits = OutputLimits.from_config(config.tool_output) if config is not None else OutputLimits()
        result = await run_gated(
            verdict, timeout_ms=timeout_ms, abort=abort, limits=limits, config=config, output_dir=output_dir
        )
        annotated = "<shell_metadata>" in result.output
        metadata = result.part_metadata(verdict.plan.record())
        return BlockRun(
            result.output, result.exit_code, result.timed_out, result.aborted, annotated, metadata
        )

    return run


def plan_block(
    command: str, project_dir: Path, *, shell: str = "bash", output_dir: Path | None = None
) -> ShellPlan | None:
    """What the gate would ask for a block run in the project (``tool.gate.plan_command``),
    without asking; None when the scanner could not be used at all."""
    try:
        return plan_command(
            command, cwd=project_dir, project_dir=project_dir, shell=shell, output_dir=output_dir
        )
    except Exception:  # a dry run only reports
        return None


async def run_block(
    command: str,
    *,
    project_dir: Path,
    ask: Ask,
    run: RunFn,
    shell: str = "bash",
    output_dir: Path | None = None,
    agent: str | None = None,
    timeout_ms: int = DEFAULT_BLOCK_TIMEOUT_MS,
    abort: asyncio.Event | None = None,
    origin: str = "",
) -> BlockReport:
    """Pass the shell gate like the model's ``bash`` tool (``external_directory`` for
    outside dirs, ``edit`` for the files it writes, then ``bash``), then run in the project.

    A denied or rejected ask yields a report that says so (expansion goes on; a rejection
    keeps the asker's reason, e.g. ``not allowed without a terminal ...``); a
    non-zero exit, a timeout or a spawn error keeps the output and says how it ended.
    ``output_dir`` is the session's tool-output folder (readable, never asked about).
    """
    plan = plan_command(command, cwd=project_dir, project_dir=project_dir, shell=shell, output_dir=output_dir)
    meta = {"description": f"shell block of {origin}" if origin else "shell block"}
    try:
        verdict = await admit(plan, caller="block", ask=ask, agent=agent, metadata=meta)
    except PermissionDenied as exc:
        return BlockReport(
            command, "denied", plan=plan, reason=f'{exc.permission} denied by rule for "{exc.pattern}"'
        )
    except PermissionRejected as exc:
        return BlockReport(command, "rejected", plan=plan, reason=rejection_reason(exc))
    except PermissionUnanalysed:
        why = "it could not be analysed and deny rules exist for it, so only a person may allow it"
        return BlockReport(command, "rejected", plan=plan, reason=f"not allowed without a terminal ({why})")
    try:
        done = await run(verdict, timeout_ms, abort)
    except ShellpilotError as exc:
        return BlockReport(command, "failed", plan=plan, reason=exc.message)
    status: BlockStatus = "ok"
    if done.timed_out:
        status = "timed_out"
    elif done.aborted:
        status = "aborted"
    elif done.exit_code != 0:
        status = "failed"
    return BlockReport(
        command,
        status,
        done.output,
        done.exit_code,
        plan,
        timeout_ms=timeout_ms,
        annotated=done.annotated,
        metadata=done.metadata,
    )
