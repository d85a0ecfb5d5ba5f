"""The session service: create/list/delete sessions and run the user's own shell commands in them.

Owns: the user-shell path (synthetic user message + assistant message + ``bash`` tool part,
streamed, recorded). Must not touch: SQL (store), process details (shell.runner), terminals.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from shellpilot.bus import Bus
from shellpilot.config.model import Config
from shellpilot.errors import (
    Aborted,
    InvalidTimeout,
    StorageError,
    StorageFull,
    ToolError,
)
from shellpilot.paths import sandbox_tmp_dir, tool_output_dir
from shellpilot.process.abort import abort_reason
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


class SessionService:
    """Sessions for the CLI, the server and the loop, and the user's direct shell.

    ``shell()`` passes the same gate as the ``bash`` tool as the user's own command (its
    scan is recorded, nothing is asked) and runs through ``run_gated`` (limits, spill file,
    non-interactive env, process-group kill), in the session's project dir, with the
    command unchanged; no timeout unless ``timeout_ms`` or ``config.shell.user_timeout_ms``
    sets one. ``writer`` pairs every write with its event.
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
        So do their sandbox temp dirs (``paths.sandbox_tmp_dir``, the ``/tmp`` of their
        sandboxed commands).
        """
        self.run_state.assert_not_busy(session_id)
        taken = self.store.lease_busy(session_id)
        if taken is not None:
            raise taken
        spills = self._spill_files(session_id)
        temps = [sandbox_tmp_dir(self.data_dir, sid) for sid in self._family(session_id)]
        self.writer.delete_session(session_id)
        for path in spills:
            # The session is gone either way; retention removes a file that could not go now.
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        for folder in temps:
            shutil.rmtree(folder, ignore_errors=True)

    def _family(self, session_id: str) -> builtins.list[str]:
        """The session's id and those of all its descendants (subtask sessions)."""
        found: builtins.list[str] = []
        todo = [session_id]
        while todo:
            current = todo.pop()
            found.append(current)
            todo.extend(child.id for child in self.store.children(current))
        return found

    def _spill_files(self, session_id: str) -> builtins.list[Path]:
        """Spill files named by the tool parts of the session and its descendants, kept only
        when they lie in the tool-output folder or a project's folder in it (no ``..`` or
        symlinked way out)."""
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
                    parent = path.parent.resolve()
                    if folder in (parent, parent.parent) and path.name not in ("", ".", ".."):
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
        timeout), ``aborted``, ``abort_reason``, ``scan``
        (a non-zero exit is still completed); cancelling (``RunState.cancel``) kills the
        process group and the output says why (``aborted by the user`` unless the cancel
        gave a reason, e.g. ``terminated by SIGTERM``). ``on_output(preview)``
        gets throttled previews; ``on_data(bytes)`` raw chunks when the runner offers them.
        Raises SessionNotFound, SessionBusy, InvalidTimeout, InvalidCommand (empty, a NUL
        byte, too long: ``process.runner.check_command``) before anything is recorded, or the
        runner's spawn errors (after recording the part as ``error``).
        """
        from shellpilot.process.runner import check_command

        session = self.store.get_session(session_id)
        check_command(command)
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
        from shellpilot.process.process_group import ProcessRecord
        from shellpilot.tool.gate import gate
        from shellpilot.tool.shell import run_gated

        w = self.writer
        project = Path(session.project_dir)
        output_dir = tool_output_dir(self.data_dir, project)
        shell = _shell_name(self.config)
        verdict = await gate(
            command, cwd=project, project_dir=project, caller="user", shell=shell, output_dir=output_dir
        )
        user = w.message(UserMessage(session_id=session.id, agent=self.agent))
        w.part(TextPart(session_id=session.id, message_id=user.id, text=USER_SHELL_TEXT, synthetic=True))
        assistant = AssistantMessage(session_id=session.id, parent_id=user.id, agent=self.agent)
        w.message(assistant)
        running = ToolRunning(
            input={"command": command},
            metadata={"output": "", "description": "", "scan": verdict.plan.record()},
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
            record = ProcessRecord.of(pid)
            state = live.state
            if record is None or not isinstance(state, ToolRunning):
                return
            metadata = {**state.metadata, "process": record.to_dict()}
            live = live.model_copy(update={"state": state.model_copy(update={"metadata": metadata})})
            try:
                w.part(live)
            except StorageError as exc:  # a full disk: the command runs on; the end is saved if it can be
                w.live_error = exc

        config = self.config
        if timeout is not None and timeout > config.shell.max_timeout_ms:
            # The user's own command may run longer than a model's call is allowed to.
            shell_cfg = config.shell.model_copy(update={"max_timeout_ms": timeout})
            config = config.model_copy(update={"shell": shell_cfg})
        try:
            result = await run_gated(
                verdict,
                timeout_ms=timeout,
                no_timeout=timeout is None,
                abort=abort,
                on_output=preview,
                output_dir=output_dir,
                call_id=part.call_id,
                config=config,
                on_data=on_data,
                on_spawn=spawned,
            )
        except BaseException as exc:
            cancelled = isinstance(exc, asyncio.CancelledError | KeyboardInterrupt)
            with contextlib.suppress(StorageError):  # the original error matters more
                self._fail(live, assistant, ABORTED_TEXT if cancelled else str(exc), cancelled)
            raise
        metadata = {
            **live.state.metadata,  # type: ignore[union-attr]
            **result.part_metadata(verdict.plan.record()),
            "timeout_ms": timeout,
            "abort_reason": abort_reason(abort) if result.aborted else None,
        }
        done = ToolCompleted(
            input={"command": command},
            output=result.output,
            metadata=metadata,
            start_ms=running.start_ms,
        )
        final = part.model_copy(update={"state": done})
        finished = assistant.model_copy(update={"completed_ms": now_ms(), "finish": "stop"})
        try:
            w.part(final)
            w.message(finished)
        except StorageFull as exc:
            return self._save_on_full_disk(final, assistant, exc)
        return finished, final

    def _save_on_full_disk(
        self, final: ToolPart, assistant: AssistantMessage, full: StorageFull
    ) -> tuple[AssistantMessage, ToolPart]:
        """The command ended but its result did not fit on the disk: save the part as failed,
        saying why (``SessionWriter.part_on_full_disk``), and end the message with a
        ``StorageFull`` error. Raises ``full`` when even that cannot be saved; the part then
        stays running until the next start marks it interrupted."""
        part = self.writer.part_on_full_disk(final, full)
        reason = getattr(part.state, "error", str(full))
        error = MessageError(name="StorageFull", message=reason)
        message = assistant.model_copy(update={"completed_ms": now_ms(), "error": error})
        try:
            self.writer.message(message)
        except StorageError:
            raise full from None
        return message, part

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


def _shell_name(config: Config) -> str:
    """The name of the shell the runner will use (for the scan); ``bash`` when none is found
    (the runner then reports the missing shell itself)."""
    from shellpilot.errors import ShellpilotError
    from shellpilot.process.detect import detect_shell

    try:
        return detect_shell(configured=config.shell.path).name
    except ShellpilotError:
        return "bash"


def _iso(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["ABORTED_TEXT", "USER_SHELL_TEXT", "SessionService"]
