"""Per-session run state: one thing at a time (an agent loop or a user shell), joinable and cancellable.

Owns: the idle | running | shell | shell_then_run state machine, the tasks it starts and
``session.status`` events. Must not touch: what the work does (messages, processes, SQL).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar, cast

from shellpilot.bus import Bus
from shellpilot.errors import Aborted, SessionBusy, StorageError
from shellpilot.process.abort import AbortSignal
from shellpilot.session.events import SessionStatus, SessionStatusValue

T = TypeVar("T")


class Phase(StrEnum):
    """What a session is doing."""

    IDLE = "idle"
    RUNNING = "running"
    SHELL = "shell"
    SHELL_THEN_RUN = "shell_then_run"


class Trigger(StrEnum):
    """What happened to a session's runner."""

    LOOP = "loop"
    SHELL = "shell"
    LOOP_DONE = "loop_done"
    SHELL_DONE = "shell_done"
    CANCEL = "cancel"


class Action(StrEnum):
    """What the runner must do after a transition."""

    START_LOOP = "start_loop"
    JOIN = "join"
    QUEUE = "queue"
    START_SHELL = "start_shell"
    BUSY = "busy"
    FINISH = "finish"
    STOP_LOOP = "stop_loop"
    STOP_SHELL = "stop_shell"
    DROP_QUEUE_STOP_SHELL = "drop_queue_stop_shell"
    NOTHING = "nothing"


_TABLE: dict[tuple[Phase, Trigger], tuple[Phase, Action]] = {
    (Phase.IDLE, Trigger.LOOP): (Phase.RUNNING, Action.START_LOOP),
    (Phase.IDLE, Trigger.SHELL): (Phase.SHELL, Action.START_SHELL),
    (Phase.RUNNING, Trigger.LOOP): (Phase.RUNNING, Action.JOIN),
    (Phase.RUNNING, Trigger.SHELL): (Phase.RUNNING, Action.BUSY),
    (Phase.RUNNING, Trigger.LOOP_DONE): (Phase.IDLE, Action.FINISH),
    (Phase.RUNNING, Trigger.CANCEL): (Phase.RUNNING, Action.STOP_LOOP),
    (Phase.SHELL, Trigger.LOOP): (Phase.SHELL_THEN_RUN, Action.QUEUE),
    (Phase.SHELL, Trigger.SHELL): (Phase.SHELL, Action.BUSY),
    (Phase.SHELL, Trigger.SHELL_DONE): (Phase.IDLE, Action.FINISH),
    (Phase.SHELL, Trigger.CANCEL): (Phase.SHELL, Action.STOP_SHELL),
    (Phase.SHELL_THEN_RUN, Trigger.LOOP): (Phase.SHELL_THEN_RUN, Action.JOIN),
    (Phase.SHELL_THEN_RUN, Trigger.SHELL): (Phase.SHELL_THEN_RUN, Action.BUSY),
    (Phase.SHELL_THEN_RUN, Trigger.SHELL_DONE): (Phase.RUNNING, Action.START_LOOP),
    (Phase.SHELL_THEN_RUN, Trigger.CANCEL): (Phase.SHELL, Action.DROP_QUEUE_STOP_SHELL),
}


def transition(phase: Phase, trigger: Trigger) -> tuple[Phase, Action]:
    """The next phase and the action to take; a trigger that does not apply is ``NOTHING``.

    A cancel does not jump to idle: it stops what runs, and the work's own end
    (``LOOP_DONE``/``SHELL_DONE``) brings the session back to idle.
    """
    return _TABLE.get((phase, trigger), (phase, Action.NOTHING))


class Lease(Protocol):
    """Cross-process busy marker (``SessionStore`` implements it)."""

    def acquire_lease(self, session_id: str, kind: str) -> None: ...

    def release_lease(self, session_id: str) -> None: ...


Work = Callable[[], Awaitable[Any]]
OnInterrupt = Callable[[], Awaitable[Any]]
CancelPermissions = Callable[[str], Any]


@dataclass
class _Runner:
    phase: Phase = Phase.IDLE
    loop_task: asyncio.Task[Any] | None = None
    loop_result: asyncio.Future[Any] | None = None
    queued: Work | None = None
    on_interrupt: OnInterrupt | None = None
    shell_task: asyncio.Task[Any] | None = None
    shell_abort: AbortSignal = field(default_factory=AbortSignal)


class RunState:
    """One runner per session: at most one agent loop or user shell at a time.

    - ``ensure_running(session_id, work)``: idle -> start ``work()``; a loop already
      running (or queued) -> join it, every caller gets the same result; a user shell
      running -> queue the loop, it starts when the shell ends.
    - ``start_shell(session_id, work)``: ``SessionBusy`` unless idle; ``work(abort)`` gets
      the event that ``cancel`` sets (pass it to the runner so the process group is killed).
    - ``cancel(session_id)``: stop what runs (abort the shell, cancel the loop task,
      drop a queued loop), reject the session's pending permission requests through
      ``cancel_permissions(session_id)``, wait for the work to end: status is idle after.
    - ``reserve(session_id)``: take the session before writing a request for it.
    - ``lease`` (the store) makes busy-ness visible to other processes on the same store.
    Publishes ``session.status`` busy/idle on the bus.
    """

    def __init__(
        self,
        bus: Bus | None = None,
        *,
        lease: Lease | None = None,
        cancel_permissions: CancelPermissions | None = None,
    ) -> None:
        self._bus = bus
        self._lease = lease
        self.cancel_permissions = cancel_permissions
        self._runners: dict[str, _Runner] = {}
        self._reserved: set[str] = set()

    def phase(self, session_id: str) -> Phase:
        """The session's current phase (idle when nothing ever ran)."""
        runner = self._runners.get(session_id)
        return runner.phase if runner else Phase.IDLE

    def busy(self, session_id: str) -> bool:
        """True unless the session is idle in this process."""
        return self.phase(session_id) is not Phase.IDLE

    def assert_not_busy(self, session_id: str) -> None:
        """Raise ``SessionBusy`` unless the session is idle."""
        if self.busy(session_id):
            raise SessionBusy(session_id)

    def _status(self, session_id: str, status: SessionStatusValue) -> None:
        if self._bus is not None:
            self._bus.publish(SessionStatus(session_id=session_id, status=status))

    @contextlib.contextmanager
    def reserve(self, session_id: str, kind: str = "loop") -> Iterator[None]:
        """Hold the session for work about to start, before anything is written for it.

        Use it around "write the request, then ``ensure_running``": when the session is idle
        here, the cross-process lease is taken first, so a session another process runs
        raises ``SessionBusy`` (naming that process) before a message is stored for the
        other process's loop to pick up. The loop started inside takes the reservation
        over; one never started releases it on exit. A session already running here is
        joined as ``ensure_running`` joins it (nothing to take).
        """
        held = self._lease is not None and not self.busy(session_id) and session_id not in self._reserved
        if held:
            assert self._lease is not None
            self._lease.acquire_lease(session_id, kind)
            self._reserved.add(session_id)
        try:
            yield
        finally:
            if held and session_id in self._reserved:
                self._reserved.discard(session_id)
                assert self._lease is not None
                with contextlib.suppress(StorageError):  # see _go_idle
                    self._lease.release_lease(session_id)

    def _go_busy(self, session_id: str, kind: str) -> _Runner:
        if self._lease is not None and session_id in self._reserved:
            self._reserved.discard(session_id)  # the lease is ours already: the runner owns it now
        elif self._lease is not None:
            self._lease.acquire_lease(session_id, kind)
        runner = self._runners.setdefault(session_id, _Runner())
        self._status(session_id, "busy")
        return runner

    def _go_idle(self, session_id: str) -> None:
        self._runners.pop(session_id, None)
        if self._lease is not None:
            # A lease that cannot be dropped now (a full disk) belongs to this process: it is
            # no longer honoured once the process ends, and the next start removes it.
            with contextlib.suppress(StorageError):
                self._lease.release_lease(session_id)
        self._status(session_id, "idle")

    async def ensure_running(
        self,
        session_id: str,
        work: Callable[[], Awaitable[T]],
        on_interrupt: Callable[[], Awaitable[T]] | None = None,
    ) -> T:
        """Run (or join, or queue behind a user shell) the session's agent loop; its result.

        If the loop is cancelled, callers get ``await on_interrupt()`` (e.g. the last
        assistant message) or ``Aborted`` when none was given. Raises what ``work`` raises.
        """
        runner = self._runners.get(session_id) or _Runner()
        phase, action = transition(runner.phase, Trigger.LOOP)
        if action is Action.START_LOOP:
            runner = self._go_busy(session_id, "loop")
            runner.phase = phase
            runner.on_interrupt = on_interrupt
            runner.loop_result = asyncio.get_running_loop().create_future()
            self._start_loop(session_id, runner, work)
        elif action is Action.QUEUE:
            runner.phase = phase
            runner.queued = work
            runner.on_interrupt = on_interrupt
            runner.loop_result = asyncio.get_running_loop().create_future()
        elif action is not Action.JOIN:
            raise AssertionError(f"unexpected run-state action {action}")
        assert runner.loop_result is not None
        return cast(T, await asyncio.shield(runner.loop_result))

    def _start_loop(self, session_id: str, runner: _Runner, work: Work) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(work())
        runner.loop_task = task
        task.add_done_callback(lambda t: asyncio.ensure_future(self._loop_done(session_id, runner, t)))

    async def _loop_done(self, session_id: str, runner: _Runner, task: asyncio.Task[Any]) -> None:
        result = runner.loop_result
        assert result is not None
        try:
            if task.cancelled():
                if runner.on_interrupt is not None:
                    value = await runner.on_interrupt()
                    _settle(result, value=value)
                else:
                    _settle(result, error=Aborted())
            elif task.exception() is not None:
                _settle(result, error=task.exception())
            else:
                _settle(result, value=task.result())
        except BaseException as exc:  # on_interrupt itself failed
            _settle(result, error=exc)
        finally:
            runner.phase, _ = transition(runner.phase, Trigger.LOOP_DONE)
            self._go_idle(session_id)

    async def start_shell(self, session_id: str, work: Callable[[asyncio.Event], Awaitable[T]]) -> T:
        """Run ``work(abort)`` as the session's user shell; ``SessionBusy`` unless idle.

        If the caller is cancelled, the abort event is set and the shell's own recording
        finishes before the cancellation propagates. Returns what ``work`` returns.
        """
        runner = self._runners.get(session_id) or _Runner()
        phase, action = transition(runner.phase, Trigger.SHELL)
        if action is Action.BUSY:
            raise SessionBusy(session_id)
        runner = self._go_busy(session_id, "shell")
        runner.phase = phase
        runner.shell_abort = AbortSignal()
        task: asyncio.Task[T] = asyncio.ensure_future(work(runner.shell_abort))
        runner.shell_task = task
        # Registered before shield's own callback: the session is idle when the caller resumes.
        task.add_done_callback(lambda _t: self._shell_done(session_id, runner))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            runner.shell_abort.set()
            await asyncio.wait([task])
            raise

    def _shell_done(self, session_id: str, runner: _Runner) -> None:
        if runner.shell_task is None:
            return
        runner.shell_task = None
        runner.phase, action = transition(runner.phase, Trigger.SHELL_DONE)
        if action is Action.START_LOOP and runner.queued is not None:
            work, runner.queued = runner.queued, None
            self._start_loop(session_id, runner, work)
        else:
            self._go_idle(session_id)

    async def cancel(self, session_id: str, reason: str | None = None) -> None:
        """Stop what the session runs and wait until it is idle.

        ``reason`` says why a user shell was stopped (its note reads "The command was
        <reason>."; default ``aborted by the user``), e.g. ``terminated by SIGTERM``.
        """
        if self.cancel_permissions is not None:
            outcome = self.cancel_permissions(session_id)
            if inspect.isawaitable(outcome):
                await outcome
        runner = self._runners.get(session_id)
        if runner is None:
            self._status(session_id, "idle")
            return
        runner.phase, action = transition(runner.phase, Trigger.CANCEL)
        if action is Action.DROP_QUEUE_STOP_SHELL:
            runner.queued = None
            if runner.loop_result is not None:
                value: Any = await runner.on_interrupt() if runner.on_interrupt else None
                _settle(runner.loop_result, value=value, error=None if runner.on_interrupt else Aborted())
            action = Action.STOP_SHELL
        if action is Action.STOP_SHELL and runner.shell_task is not None:
            runner.shell_abort.abort(reason)
            await asyncio.wait([runner.shell_task])
        elif action is Action.STOP_LOOP and runner.loop_task is not None:
            runner.loop_task.cancel(reason)  # (the reason reaches the tool parts it stops)
            await asyncio.wait([runner.loop_task])
            if runner.loop_result is not None:
                await asyncio.wait([runner.loop_result])

    async def cancel_all(self) -> None:
        """Cancel every session that runs something (process shutdown)."""
        for session_id in list(self._runners):
            await self.cancel(session_id)


def _settle(future: asyncio.Future[Any], *, value: Any = None, error: BaseException | None = None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
        future.exception()  # mark retrieved: a caller may have stopped waiting
    else:
        future.set_result(value)


__all__ = ["Action", "Lease", "Phase", "RunState", "Trigger", "transition"]
