"""Execute the tool calls of one model turn and record each as a tool part.

Owns: pending -> running -> completed | error for every call, the ``ToolContext`` each
tool gets (ask, live metadata, abort), running independent calls concurrently, and the
outcome of permission errors. Must not touch: providers, the loop's step count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from shellpilot.errors import PermissionCorrected, PermissionRejected, ShellpilotError, StorageFull
from shellpilot.process.abort import abort_reason, stop
from shellpilot.session.models import ToolCompleted, ToolFailed, ToolPart, ToolRunning, now_ms
from shellpilot.session.writer import SessionWriter
from shellpilot.tool.base import Ask, ToolContext, allow_all
from shellpilot.tool.registry import ToolRegistry

ABORTED = "Tool execution aborted by the user."
"""A tool part's error after a cancel that gave no other reason (see `aborted_text`)."""
ABORT_GRACE_S = 10.0
"""After a cancel, how long running tools get to stop on their own (the shell tool kills
its process group at once and forces it after ``shell.kill_grace_ms``) before they are
cancelled outright, in seconds."""
STOPPED_BY_ERROR = "stopped: another call of the same step could not be saved"
"""The abort reason of calls stopped because a sibling call raised (its result did not fit
on the disk), read as ``Tool execution stopped: ...``."""


def aborted_text(abort: asyncio.Event) -> str:
    """A stopped tool part's error: ``Tool execution <reason>.``, the reason an
    ``AbortSignal`` carries (``terminated by SIGTERM``), else ``aborted by the user``."""
    return f"Tool execution {abort_reason(abort)}."


class CallOutcome(StrEnum):
    """How one call ended, as the loop cares: ``rejected`` (no feedback) ends the turn."""

    COMPLETED = "completed"
    ERROR = "error"
    REJECTED = "rejected"
    ABORTED = "aborted"


@dataclass
class CallEnv:
    """What every call of one turn shares: the registry, where it runs and how it asks.

    ``extra`` goes into each ``ToolContext.extra`` (caller model, subtask flag).
    """

    tools: ToolRegistry
    writer: SessionWriter
    project_dir: Path
    agent: str
    abort: asyncio.Event
    ask: Ask = allow_all
    extra: dict[str, Any] = field(default_factory=dict)
    parse_errors: Mapping[str, str] = field(default_factory=dict)


def _finish(env: CallEnv, part: ToolPart, state: ToolCompleted | ToolFailed) -> ToolPart:
    """Save the call's final state. On a full disk the part is saved failed, saying why
    (``SessionWriter.part_on_full_disk``), and ``StorageFull`` still ends the turn."""
    done = part.model_copy(update={"state": state})
    try:
        env.writer.part(done)
    except StorageFull as full:
        env.writer.part_on_full_disk(done, full)
        raise
    return done


async def run_call(env: CallEnv, part: ToolPart) -> tuple[ToolPart, CallOutcome]:
    """Run one pending call to its end; returns the final part and its outcome.

    Errors become the part's error text (what the model reads): PermissionDenied and
    PermissionCorrected -> ERROR, PermissionRejected without feedback -> REJECTED, a
    cancellation -> ABORTED (re-raised after the part is written).
    """
    started = ToolRunning(input=part.state.input, start_ms=now_ms())
    live = part.model_copy(update={"state": started})
    env.writer.part(live)
    holder = [live]

    def metadata(title: str | None, values: Mapping[str, Any]) -> None:
        holder[0] = env.writer.live(holder[0], title, values)

    def failed(error: str) -> ToolFailed:
        state = holder[0].state
        title = state.title if isinstance(state, ToolRunning) else ""
        meta = state.metadata if isinstance(state, ToolRunning) else {}
        return ToolFailed(
            input=started.input, error=error, title=title, metadata=meta, start_ms=started.start_ms
        )

    ctx = ToolContext(
        session_id=part.session_id,
        call_id=part.call_id,
        project_dir=env.project_dir,
        agent=env.agent,
        message_id=part.message_id,
        abort=env.abort,
        ask=env.ask,
        metadata=metadata,
        extra=dict(env.extra),
    )
    try:
        if part.call_id in env.parse_errors:
            raise ShellpilotError(env.parse_errors[part.call_id])
        params = env.tools.parse(part.tool, started.input)
        result = await env.tools.get(part.tool).execute(params, ctx)
    except asyncio.CancelledError as exc:
        stop(env.abort, exc)
        _finish(env, holder[0], failed(aborted_text(env.abort)))
        raise
    except PermissionCorrected as exc:
        return _finish(env, holder[0], failed(str(exc))), CallOutcome.ERROR
    except PermissionRejected as exc:
        return _finish(env, holder[0], failed(str(exc))), CallOutcome.REJECTED
    except ShellpilotError as exc:
        return _finish(env, holder[0], failed(str(exc))), CallOutcome.ERROR
    except Exception as exc:  # a tool's own bug: the model and the user still get a result
        return _finish(env, holder[0], failed(f"Tool execution failed: {exc!r}")), CallOutcome.ERROR
    state = holder[0].state
    meta = {**(state.metadata if isinstance(state, ToolRunning) else {}), **result.metadata}
    if env.abort.is_set():
        why = aborted_text(env.abort)
        text = f"{why}\n\nOutput before the abort:\n{result.output}" if result.output else why
        aborted = ToolFailed(
            input=started.input, error=text, title=result.title, metadata=meta, start_ms=started.start_ms
        )
        return _finish(env, holder[0], aborted), CallOutcome.ABORTED
    done = ToolCompleted(
        input=started.input,
        output=result.output,
        title=result.title,
        metadata=meta,
        start_ms=started.start_ms,
    )
    return _finish(env, holder[0], done), CallOutcome.COMPLETED


async def run_calls(
    env: CallEnv, parts: Sequence[ToolPart], on_done: Callable[[ToolPart], None] | None = None
) -> list[tuple[ToolPart, CallOutcome]]:
    """Run ``parts`` concurrently (independent calls); results in the calls' order.

    If the caller is cancelled, ``env.abort`` is set (tools stop what they run and their
    parts are recorded as aborted, output so far kept); a tool still running after
    ABORT_GRACE_S is cancelled. Only then does the cancellation propagate: nothing keeps
    running. A call that raises (its result could not be saved: ``StorageFull``) stops the
    others the same way, with the reason ``STOPPED_BY_ERROR``, before its error propagates.
    """
    tasks = [asyncio.ensure_future(run_call(env, part)) for part in parts]
    try:
        results = list(await asyncio.gather(*tasks))
    except BaseException as exc:  # cancelled, or a call could not be saved (a full disk)
        if isinstance(exc, asyncio.CancelledError):
            stop(env.abort, exc)
        else:
            stop(env.abort, asyncio.CancelledError(STOPPED_BY_ERROR))
        _, running = await asyncio.wait(tasks, timeout=ABORT_GRACE_S)
        for task in running:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    if on_done is not None:
        for final, _ in results:
            on_done(final)
    return results
