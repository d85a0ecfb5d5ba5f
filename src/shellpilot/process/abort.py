"""The abort event handed to a running command, carrying why it was aborted.

Owns: ``AbortSignal`` (an ``asyncio.Event`` plus a reason). Must not touch: processes;
the runner reads the reason when it writes the outcome note.
"""

from __future__ import annotations

import asyncio

USER_ABORT = "aborted by the user"
"""The reason when none is given: a person cancelled (Ctrl-C, ``abort`` in the API)."""


class AbortSignal(asyncio.Event):
    """An ``asyncio.Event`` that also says why it was set (``reason``, words that follow
    "The command was ...", e.g. ``terminated by SIGTERM``)."""

    def __init__(self) -> None:
        super().__init__()
        self.reason = USER_ABORT

    def abort(self, reason: str | None = None) -> None:
        """Set the event; ``reason`` replaces the default ``aborted by the user``."""
        if reason:
            self.reason = reason
        self.set()


def stop(abort: asyncio.Event, cancelled: BaseException | None = None) -> None:
    """Set ``abort``; for an ``AbortSignal``, with the reason a task's cancellation carried
    (``task.cancel("terminated by SIGTERM")``), if it carried one as text."""
    reason = cancelled.args[0] if cancelled is not None and cancelled.args else None
    if isinstance(abort, AbortSignal):
        abort.abort(reason if isinstance(reason, str) else None)
    else:
        abort.set()


def abort_reason(abort: asyncio.Event | None) -> str:
    """Why ``abort`` was set: its ``reason`` for an ``AbortSignal``, else ``aborted by the user``."""
    return abort.reason if isinstance(abort, AbortSignal) else USER_ABORT


__all__ = ["USER_ABORT", "AbortSignal", "abort_reason", "stop"]
