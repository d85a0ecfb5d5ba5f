"""RunState: the pure transition table and the runner (join, queue, busy, cancel, status events)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.errors import Aborted, SessionBusy
from shellpilot.session.events import SessionStatus
from shellpilot.session.models import Session
from shellpilot.session.run_state import Action, Phase, RunState, Trigger, transition
from shellpilot.storage.store import SessionStore


@pytest.mark.parametrize(
    ("phase", "trigger", "expected"),
    [
        (Phase.IDLE, Trigger.LOOP, (Phase.RUNNING, Action.START_LOOP)),
        (Phase.IDLE, Trigger.SHELL, (Phase.SHELL, Action.START_SHELL)),
        (Phase.RUNNING, Trigger.LOOP, (Phase.RUNNING, Action.JOIN)),
        (Phase.RUNNING, Trigger.SHELL, (Phase.RUNNING, Action.BUSY)),
        (Phase.SHELL, Trigger.SHELL, (Phase.SHELL, Action.BUSY)),
        (Phase.SHELL, Trigger.LOOP, (Phase.SHELL_THEN_RUN, Action.QUEUE)),
        (Phase.SHELL_THEN_RUN, Trigger.LOOP, (Phase.SHELL_THEN_RUN, Action.JOIN)),
        (Phase.SHELL_THEN_RUN, Trigger.SHELL, (Phase.SHELL_THEN_RUN, Action.BUSY)),
        (Phase.SHELL_THEN_RUN, Trigger.SHELL_DONE, (Phase.RUNNING, Action.START_LOOP)),
        (Phase.SHELL, Trigger.SHELL_DONE, (Phase.IDLE, Action.FINISH)),
        (Phase.RUNNING, Trigger.LOOP_DONE, (Phase.IDLE, Action.FINISH)),
        (Phase.RUNNING, Trigger.CANCEL, (Phase.RUNNING, Action.STOP_LOOP)),
        (Phase.SHELL, Trigger.CANCEL, (Phase.SHELL, Action.STOP_SHELL)),
        (Phase.SHELL_THEN_RUN, Trigger.CANCEL, (Phase.SHELL, Action.DROP_QUEUE_STOP_SHELL)),
        (Phase.IDLE, Trigger.CANCEL, (Phase.IDLE, Action.NOTHING)),
        (Phase.IDLE, Trigger.LOOP_DONE, (Phase.IDLE, Action.NOTHING)),
    ],
)
def test_transition_table(phase: Phase, trigger: Trigger, expected: tuple[Phase, Action]) -> None:
    assert transition(phase, trigger) == expected


def _statuses(bus: Bus) -> list[str]:
    seen: list[str] = []

    def record(event: Event) -> None:
        assert isinstance(event, SessionStatus)
        seen.append(event.status)

    bus.listen(record, ["session.status"])
    return seen


async def test_second_caller_joins_the_running_loop() -> None:
    bus = Bus()
    seen = _statuses(bus)
    state = RunState(bus)
    gate = asyncio.Event()
    starts = 0

    async def loop() -> str:
        nonlocal starts
        starts += 1
        await gate.wait()
        return "answer"

    first = asyncio.create_task(state.ensure_running("s", loop))
    await asyncio.sleep(0)
    second = asyncio.create_task(state.ensure_running("s", loop))
    await asyncio.sleep(0)
    assert state.phase("s") is Phase.RUNNING
    with pytest.raises(SessionBusy):
        state.assert_not_busy("s")
    gate.set()
    assert await first == await second == "answer"
    assert starts == 1
    assert state.phase("s") is Phase.IDLE
    assert seen == ["busy", "idle"]


async def test_shell_is_refused_while_busy_and_loop_queues_behind_shell() -> None:
    state = RunState(Bus())
    order: list[str] = []
    shell_gate = asyncio.Event()

    async def shell(abort: asyncio.Event) -> str:
        order.append("shell start")
        await shell_gate.wait()
        order.append("shell end")
        return "shell"

    async def loop() -> str:
        order.append("loop")
        return "loop"

    shell_task = asyncio.create_task(state.start_shell("s", shell))
    await asyncio.sleep(0)
    with pytest.raises(SessionBusy):
        await state.start_shell("s", shell)
    loop_task = asyncio.create_task(state.ensure_running("s", loop))
    await asyncio.sleep(0)
    assert state.phase("s") is Phase.SHELL_THEN_RUN
    assert order == ["shell start"]
    shell_gate.set()
    assert await shell_task == "shell"
    assert await loop_task == "loop"
    assert order == ["shell start", "shell end", "loop"]
    assert state.phase("s") is Phase.IDLE


async def test_cancel_aborts_the_shell_and_rejects_pending_permissions() -> None:
    bus = Bus()
    seen = _statuses(bus)
    cancelled: list[str] = []
    state = RunState(bus, cancel_permissions=cancelled.append)

    async def shell(abort: asyncio.Event) -> str:
        await abort.wait()  # what the runner does: kill the group, then return its result
        return "aborted by the user"

    task = asyncio.create_task(state.start_shell("s", shell))
    await asyncio.sleep(0)
    await state.cancel("s")
    assert await task == "aborted by the user"
    assert cancelled == ["s"]
    assert state.phase("s") is Phase.IDLE
    assert seen == ["busy", "idle"]


async def test_cancel_interrupts_the_loop_and_queued_callers() -> None:
    state = RunState(Bus())

    async def forever() -> str:
        await asyncio.Event().wait()
        return "never"

    async def last_message() -> str:
        return "last assistant message"

    task = asyncio.create_task(state.ensure_running("s", forever, last_message))
    await asyncio.sleep(0)
    await state.cancel("s")
    assert await task == "last assistant message"
    assert not state.busy("s")

    bare = asyncio.create_task(state.ensure_running("t", forever))
    await asyncio.sleep(0)
    await state.cancel("t")
    with pytest.raises(Aborted):
        await bare

    # A loop queued behind a shell is dropped by cancel; the shell is stopped.
    async def shell(abort: asyncio.Event) -> str:
        await abort.wait()
        return "stopped"

    shell_task = asyncio.create_task(state.start_shell("u", shell))
    await asyncio.sleep(0)
    queued = asyncio.create_task(state.ensure_running("u", forever, last_message))
    await asyncio.sleep(0)
    await state.cancel("u")
    assert await shell_task == "stopped"
    assert await queued == "last assistant message"
    assert state.phase("u") is Phase.IDLE


async def test_loop_error_reaches_every_caller_and_frees_the_session() -> None:
    state = RunState(Bus())

    async def broken() -> str:
        await asyncio.sleep(0)
        raise RuntimeError("provider down")

    a = asyncio.create_task(state.ensure_running("s", broken))
    b = asyncio.create_task(state.ensure_running("s", broken))
    for task in (a, b):
        with pytest.raises(RuntimeError, match="provider down"):
            await task
    assert state.phase("s") is Phase.IDLE


async def test_caller_cancellation_aborts_the_shell_before_propagating() -> None:
    state = RunState(Bus())
    recorded: list[str] = []

    async def shell(abort: asyncio.Event) -> None:
        await abort.wait()
        recorded.append("aborted part written")

    task = asyncio.create_task(state.start_shell("s", shell))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert recorded == ["aborted part written"]
    assert state.phase("s") is Phase.IDLE


async def test_store_lease_makes_busy_visible_to_another_store(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SessionStore(path)
    session = Session(project_dir="/p")
    store.put_session(session)
    state = RunState(Bus(), lease=store)
    gate = asyncio.Event()

    async def shell(abort: asyncio.Event) -> None:
        await gate.wait()

    task = asyncio.create_task(state.start_shell(session.id, shell))
    await asyncio.sleep(0)
    assert store.lease_holder(session.id) is not None
    gate.set()
    await task
    assert store.lease_holder(session.id) is None


async def test_reserve_takes_the_lease_first_and_hands_it_to_the_loop(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    session = Session(project_dir="/p")
    store.put_session(session)
    state = RunState(Bus(), lease=store)
    with state.reserve(session.id):
        assert store.lease_holder(session.id) is not None  # held before anything is written
        assert await state.ensure_running(session.id, _value("done")) == "done"
    assert store.lease_holder(session.id) is None
    with pytest.raises(ValueError), state.reserve(session.id):
        raise ValueError("failed before the loop started")
    assert store.lease_holder(session.id) is None  # a reservation never used is released


def _value(value: str) -> Callable[[], Awaitable[str]]:
    async def work() -> str:
        return value

    return work
