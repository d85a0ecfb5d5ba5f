"""The session service: create/list/delete sessions and run the user's own shell commands in them.

Owns: the user-shell path (synthetic user message + assistant message + ``bash`` tool part,
streamed, recorded). Must not touch: SQL (store), process details (shell.runner), terminals.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from shellpilot.bus import Bus
from shellpilot.config.model import Config
from shellpilot.errors import Aborted, InvalidTimeout, SessionBusy, ToolError, UsageError
from shellpilot.paths import tool_output_dir
from shellpilot.session.models import (
    AssistantMessage,
    MessageError,
    MessageWithParts,
    Session,
    SessionSummary,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    ToolRunning,
    UserMessage,
    now_ms,
)
from shellpilot.session.run_state import RunState
from shellpilot.session.writer import SessionWriter
from shellpilot.storage.store import SessionStore

USER_SHELL_TEXT = "The following tool was executed by the user"
"""Text of the synthetic user part before a user shell, so the model knows the user ran it."""

ABORTED_TEXT = "aborted by the user"

OutputFn = Callable[[str], None]
DataFn = Callable[[bytes], None]


def _scan_metadata(command: str, project_dir: Path) -> dict[str, Any] | None:
    """The scanner's verdict for the audit trail: patterns, always, dirs, unknown, reasons.

    None when the scanner is not installed; ``{"error": ...}`` when it could not parse.
    """
    try:
        from shellpilot.scanner.scan import scan
    except ImportError:
        return None
    try:
        found = scan(command, cwd=project_dir, project_dir=project_dir)
    except Exception as exc:  # the audit trail must never stop the user's command
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "patterns": list(found.patterns),
        "always": list(found.always),
        "dirs": list(found.dirs),
        "unknown": bool(found.unknown),
        "reasons": list(getattr(found, "reasons", [])),
    }


class SessionService:
    """Sessions for the CLI, the server and the loop, and the user's direct shell.

    ``shell()`` runs through the same runner as the ``bash`` tool (limits, spill file,
    non-interactive env, process-group kill), in the session's project dir, with the
    command unchanged and no permission asked; no timeout unless ``timeout_ms`` or
    ``config.shell.user_timeout_ms`` sets one. ``writer`` pairs every write with its event.
    """

    def __init__(
        self,
        store: SessionStore,
        bus: Bus,
        config: Config,
        data_dir: Path,
        run_state: RunState,
        *,
        agent: str = "build",
    ) -> None:
        self.store = store
        self.bus = bus
        self.config = config
        self.data_dir = Path(data_dir)
        self.run_state = run_state
        self.agent = config.default_agent or agent
        self.writer = SessionWriter(store, bus)

    # -- sessions ---------------------------------------------------------------------

    def create(
        self, project_dir: str | os.PathLike[str], *, title: str | None = None, parent_id: str | None = None
    ) -> Session:
        """A new session in ``project_dir`` (made absolute); publishes ``session.created``."""
        created = now_ms()
        session = Session(
            project_dir=str(Path(project_dir).resolve()),
            title=title or f"New session - {_iso(created)}",
            parent_id=parent_id,
            created_ms=created,
            updated_ms=created,
        )
        return self.writer.create_session(session)

    def get(self, session_id: str) -> Session:
        """The session; ``SessionNotFound`` if absent."""
        return self.store.get_session(session_id)

    def list(
        self,
        project_dir: str | os.PathLike[str] | None = None,
        *,
        top_level: bool = False,
        limit: int | None = None,
    ) -> list[SessionSummary]:
        """Sessions of ``project_dir`` (all when None), latest activity first, each with its
        number of child sessions; ``top_level`` leaves the children themselves out; ``limit``
        keeps the most recent that many (None: all)."""
        where = None if project_dir is None else str(Path(project_dir).resolve())
        return self.store.list_sessions(where, top_level=top_level, limit=limit)

    def count(self, project_dir: str | os.PathLike[str] | None = None, *, top_level: bool = False) -> int:
        """How many sessions ``list`` would show without a limit."""
        where = None if project_dir is None else str(Path(project_dir).resolve())
        return self.store.count_sessions(where, top_level=top_level)

    def latest(self, project_dir: str | os.PathLike[str]) -> Session | None:
        """The most recently active top-level session of ``project_dir`` (``--continue``)."""
        return self.store.latest_session(str(Path(project_dir).resolve()))

    def messages(self, session_id: str) -> builtins.list[MessageWithParts]:
        """The conversation, in order; ``SessionNotFound`` if the session is absent."""
        self.store.get_session(session_id)
        return self.store.messages(session_id)

    def iter_messages(self, session_id: str) -> Iterator[MessageWithParts]:
        """The conversation, in order, read in batches (flat memory for any length);
        ``SessionNotFound`` (raised here, before iterating) if the session is absent."""
        self.store.get_session(session_id)
        return self.store.iter_messages(session_id)

    def delete(self, session_id: str) -> None:
        """Delete a session and its children; ``SessionBusy`` while something runs in it.

        The full-output (spill) files their tool parts name in ``metadata.output_path`` go
        too, but only files inside ``<data>/tool-output/``: a path elsewhere is left alone.
        """
        self.run_state.assert_not_busy(session_id)
        if self.store.lease_holder(session_id) is not None:
            raise SessionBusy(session_id)
        spills = self._spill_files(session_id)
        self.writer.delete_session(session_id)
        for path in spills:
            # The session is gone either way; retention removes a file that could not go now.
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def _spill_files(self, session_id: str) -> builtins.list[Path]:
        """Spill files named by the tool parts of the session and its descendants, kept only
        when they lie inside the tool-output folder (no ``..`` or symlinked way out)."""
        folder = tool_output_dir(self.data_dir).resolve()
        found: builtins.list[Path] = []
        todo = [session_id]
        while todo:
            current = todo.pop()
            todo.extend(child.id for child in self.store.children(current))
            for item in self.store.messages(current):
                for part in item.parts:
                    if not isinstance(part, ToolPart):
                        continue
                    named = getattr(part.state, "metadata", {}).get("output_path")
                    if not isinstance(named, str) or not named:
                        continue
                    path = Path(os.path.abspath(named))
                    if path.parent.resolve() == folder and path.name not in ("", ".", ".."):
                        found.append(path)
        return found

    # -- the user's shell ---------------------------------------------------------------

    async def shell(
        self,
        session_id: str,
        command: str,
        *,
        timeout_ms: int | None = None,
        on_output: OutputFn | None = None,
        on_data: DataFn | None = None,
    ) -> tuple[AssistantMessage, ToolPart]:
        """Run ``command`` as the user in the session; returns the assistant message and its part.

        The part ends ``completed`` with the model-facing output and metadata ``exit``,
        ``signal``, ``truncated``, ``output_path``, ``timed_out``, ``timeout_ms`` (None: no
        timeout), ``aborted``, ``scan``
        (a non-zero exit is still completed); cancelling (``RunState.cancel``) kills the
        process group and the output says it was aborted by the user. ``on_output(preview)``
        gets throttled previews; ``on_data(bytes)`` raw chunks when the runner offers them.
        Raises SessionNotFound, SessionBusy, InvalidTimeout, UsageError (empty command), or
        the runner's spawn errors (after recording the part as ``error``).
        """
        session = self.store.get_session(session_id)
        if not command.strip():
            raise UsageError("The command is empty: give the shell command to run.")
        timeout = timeout_ms if timeout_ms is not None else self.config.shell.user_timeout_ms
        if timeout is not None and (isinstance(timeout, bool) or timeout <= 0):
            raise InvalidTimeout(timeout)

        async def work(abort: asyncio.Event) -> tuple[AssistantMessage, ToolPart]:
            return await self._shell(session, command, timeout, abort, on_output, on_data)

        return await self.run_state.start_shell(session_id, work)

    async def _shell(
        self,
        session: Session,
        command: str,
        timeout: int | None,
        abort: asyncio.Event,
        on_output: OutputFn | None,
        on_data: DataFn | None,
    ) -> tuple[AssistantMessage, ToolPart]:
        from shellpilot.process import runner
        from shellpilot.process.process_group import process_record

        w = self.writer
        project = Path(session.project_dir)
        user = w.message(UserMessage(session_id=session.id, agent=self.agent))
        w.part(TextPart(session_id=session.id, message_id=user.id, text=USER_SHELL_TEXT, synthetic=True))
        assistant = AssistantMessage(session_id=session.id, parent_id=user.id, agent=self.agent)
        w.message(assistant)
        running = ToolRunning(
            input={"command": command},
            metadata={"output": "", "description": "", "scan": _scan_metadata(command, project)},
        )
        part = ToolPart(session_id=session.id, message_id=assistant.id, tool="bash", state=running)
        w.part(part)
        live = part

        def preview(text: str) -> None:
            nonlocal live
            live = w.live(live, None, {"output": text})
            if on_output is not None:
                on_output(text)

        def spawned(pid: int) -> None:
            # Written at once (not coalesced): if this process dies, recovery must find it.
            nonlocal live
            record = process_record(pid)
            state = live.state
            if record is None or not isinstance(state, ToolRunning):
                return
            metadata = {**state.metadata, "process": record}
            live = live.model_copy(update={"state": state.model_copy(update={"metadata": metadata})})
            w.part(live)

        config = self.config
        if timeout is not None and timeout > config.shell.max_timeout_ms:
            # The user's own command may run longer than a model's call is allowed to.
            shell_cfg = config.shell.model_copy(update={"max_timeout_ms": timeout})
            config = config.model_copy(update={"shell": shell_cfg})
        try:
            result = await runner.run(
                command,
                cwd=project,
                timeout_ms=timeout,
                no_timeout=timeout is None,
                abort=abort,
                on_output=preview,
                output_dir=tool_output_dir(self.data_dir),
                call_id=part.call_id,
                config=config,
                on_data=on_data,
                on_spawn=spawned,
            )
        except BaseException as exc:
            cancelled = isinstance(exc, asyncio.CancelledError | KeyboardInterrupt)
            self._fail(live, assistant, ABORTED_TEXT if cancelled else str(exc), cancelled)
            raise
        metadata = {
            **live.state.metadata,  # type: ignore[union-attr]
            "output": result.preview,
            "exit": result.exit_code,
            "signal": result.signal,
            "truncated": result.truncated,
            "output_path": result.output_path,
            "spill_capped": result.spill_capped,
            "timed_out": result.timed_out,
            "timeout_ms": timeout,
            "aborted": result.aborted,
            "total_bytes": result.total_bytes,
            "duration_ms": result.duration_ms,
            "background_pids": list(result.background_pids),
            "shell": result.shell,
        }
        done = ToolCompleted(
            input={"command": command},
            output=result.output,
            metadata=metadata,
            start_ms=running.start_ms,
        )
        final = part.model_copy(update={"state": done})
        w.part(final)
        finished = assistant.model_copy(update={"completed_ms": now_ms(), "finish": "stop"})
        w.message(finished)
        return finished, final

    def _fail(self, part: ToolPart, assistant: AssistantMessage, error: str, cancelled: bool) -> None:
        state = part.state
        metadata = dict(getattr(state, "metadata", {}))
        failed = ToolFailed(
            input=state.input,
            error=error,
            metadata=metadata,
            start_ms=getattr(state, "start_ms", now_ms()),
        )
        self.writer.part(part.model_copy(update={"state": failed}))
        ended = MessageError.of(Aborted(error) if cancelled else ToolError(error))
        self.writer.message(assistant.model_copy(update={"completed_ms": now_ms(), "error": ended}))


def _iso(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["ABORTED_TEXT", "USER_SHELL_TEXT", "SessionService"]
