"""The agent loop with the in-process scripted provider and the real shell tool.

Each test runs real processes in a temp project and a real SQLite store; the model is a
``ScriptedProvider`` whose recorded requests show what the model saw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.permission.events import PermissionAsked, PermissionRequest, Reply
from shellpilot.permission.service import PermissionService
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.provider.scripted import Script, ScriptedProvider, ToolCall, Turn
from shellpilot.session.dispatch import MAX_PARALLEL_CALLS
from shellpilot.session.loop import AgentLoop
from shellpilot.session.models import AssistantMessage, ToolCompleted, ToolFailed, ToolPart
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore


@dataclass
class Rig:
    """A loop over a real store, bus, run state and shell tool, with a scripted model."""

    loop: AgentLoop
    service: SessionService
    provider: ScriptedProvider
    bus: Bus
    session_id: str
    events: list[Event]
    permissions: PermissionService | None = None

    def answer(self, *replies: tuple[Reply, str | None]) -> list[PermissionRequest]:
        """Answer the next permission requests in order; returns the requests seen."""
        queue = list(replies)
        seen: list[PermissionRequest] = []

        def on_ask(event: Event) -> None:
            assert isinstance(event, PermissionAsked) and self.permissions is not None
            seen.append(event.request)
            reply, message = queue.pop(0)
            self.permissions.reply(event.request.id, reply, message)

        self.bus.listen(on_ask, ["permission.asked"])
        return seen

    def tool_parts(self, session_id: str | None = None) -> list[ToolPart]:
        history = self.service.messages(session_id or self.session_id)
        return [p for m in history for p in m.parts if isinstance(p, ToolPart)]


def make_rig(
    project: Path,
    tmp_path: Path,
    turns: Sequence[Script],
    config: dict[str, Any] | None = None,
    permissions: bool = False,
) -> Rig:
    cfg = Config.model_validate({"model": "scripted/m", **(config or {})})
    data = tmp_path / "data"
    store = SessionStore(data / "db.sqlite")
    bus = Bus()
    events: list[Event] = []
    bus.listen(events.append)
    service = SessionService(store, bus, cfg, data, RunState(bus, lease=store))
    provider = ScriptedProvider(turns)
    providers = ProviderRegistry(cfg, env={}, providers={"scripted": provider})
    gate = PermissionService(bus, tmp_path / "grants.json", project_dir=project) if permissions else None
    loop = AgentLoop(service, project_dir=project, providers=providers, permissions=gate)
    session = service.create(project)
    return Rig(loop, service, provider, bus, session.id, events, gate)


@pytest.fixture
def rig_factory(project: Path, tmp_path: Path) -> Iterator[Any]:
    rigs: list[Rig] = []

    def build(
        turns: Sequence[Script], config: dict[str, Any] | None = None, permissions: bool = False
    ) -> Rig:
        rig = make_rig(project, tmp_path, turns, config, permissions)
        rigs.append(rig)
        return rig

    yield build
    for rig in rigs:
        rig.service.store.close()


def bash(command: str, call_id: str | None = None, **extra: Any) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it", **extra}, id=call_id)


async def test_model_sees_tool_output_on_next_turn(rig_factory: Any, project: Path) -> None:
    (project / "hello.txt").write_text("hi there\n")
    rig = rig_factory([Turn(text="Looking.", tool_calls=[bash("cat hello.txt")]), Turn(text="It says hi.")])
    result = await rig.loop.prompt(rig.session_id, "what is in hello.txt?")
    assert result.ok and result.text == "It says hi."
    second = rig.provider.requests[1]
    [tool_result] = [m for m in second.messages if m.role == "tool"]
    assert tool_result.content.strip() == "hi there"
    [part] = rig.tool_parts()
    assert isinstance(part.state, ToolCompleted) and part.state.metadata["exit"] == 0
    assert "part.delta" in {e.type for e in rig.events}
    assert [e for e in rig.events if e.type == "turn.finished"][-1].ok  # type: ignore[attr-defined]


async def test_independent_calls_run_concurrently(rig_factory: Any) -> None:
    # The first call can only finish once the second has run: sequential execution would hang.
    waiter = bash("while [ ! -f flag ]; do sleep 0.02; done; echo waited", "call_w", timeout=20_000)
    rig = rig_factory([Turn(tool_calls=[waiter, bash("touch flag", "call_t")]), Turn(text="ok")])
    result = await rig.loop.prompt(rig.session_id, "go")
    assert result.ok
    outputs = {p.call_id: p.state for p in rig.tool_parts()}
    assert isinstance(outputs["call_w"], ToolCompleted) and "waited" in outputs["call_w"].output


async def test_at_most_max_parallel_calls_run_at_once(rig_factory: Any, project: Path) -> None:
    # Each call counts the calls running beside it, then waits until a full set of slots runs
    # (or one already did): the count proves the set ran together and nothing beyond it did.
    many = MAX_PARALLEL_CALLS + 4
    wait = f"until [ $(ls run | wc -l) -ge {MAX_PARALLEL_CALLS} ] || [ -f released ]; do sleep 0.02; done"
    calls = [
        bash(
            f"mkdir -p run; touch run/{i}; ls run | wc -l >> counts; {wait}; "
            f"touch released; sleep 0.2; rm run/{i}",
            f"call_{i}",
            timeout=60_000,
        )
        for i in range(many)
    ]
    rig = rig_factory([Turn(tool_calls=calls), Turn(text="ok")])
    result = await rig.loop.prompt(rig.session_id, "go")
    assert result.ok
    assert all(isinstance(p.state, ToolCompleted) for p in rig.tool_parts())
    counts = [int(line) for line in (project / "counts").read_text().split()]
    assert len(counts) == many and max(counts) == MAX_PARALLEL_CALLS


async def test_request_has_system_prompt_tools_and_history(rig_factory: Any, project: Path) -> None:
    (project / "AGENTS.md").write_text("Always run make check.\n")
    rig = rig_factory([Turn(text="one"), Turn(text="two")])
    await rig.loop.prompt(rig.session_id, "first")
    await rig.loop.prompt(rig.session_id, "second")
    request = rig.provider.requests[1]
    assert "Always run make check." in request.system and f"Working directory: {project}" in request.system
    assert {t.name for t in request.tools} == {"bash", "task"}
    assert request.tool_choice == "auto"
    assert [(m.role, getattr(m, "content", "")) for m in request.messages] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ]


async def test_users_direct_shell_is_in_the_next_turn(rig_factory: Any) -> None:
    rig = rig_factory([Turn(text="I see it.")])
    await rig.service.shell(rig.session_id, "echo from-the-user")
    await rig.loop.prompt(rig.session_id, "what did I run?")
    messages = rig.provider.requests[0].messages
    assert messages[0].role == "user" and "executed by the user" in messages[0].content
    assert (
        messages[1].role == "assistant"
        and messages[1].tool_calls[0].arguments["command"] == "echo from-the-user"
    )
    assert messages[2].role == "tool" and "from-the-user" in messages[2].content


async def test_bad_calls_go_back_to_the_model(rig_factory: Any) -> None:
    rig = rig_factory(
        [
            Turn(
                tool_calls=[ToolCall("nope", {}), ToolCall("bash", "{not json"), ToolCall("bash", {"x": 1})]
            ),
            Turn(text="sorry"),
        ]
    )
    result = await rig.loop.prompt(rig.session_id, "go")
    assert result.ok
    errors = [m.content for m in rig.provider.requests[1].messages if m.role == "tool"]
    assert "Unknown tool: nope" in errors[0]
    assert "not valid JSON" in errors[1]
    assert "Invalid arguments for tool bash" in errors[2]


async def test_max_steps_stops_the_loop(rig_factory: Any) -> None:
    rig = rig_factory([Turn(tool_calls=[bash("true")]), Turn(tool_calls=[bash("true")])], {"max_steps": 2})
    result = await rig.loop.prompt(rig.session_id, "loop forever")
    assert not result.ok and result.error is not None and result.error.name == "StepLimit"
    assert rig.provider.requests[-1].tool_choice == "none"
    assert "last step" in rig.provider.requests[-1].system


async def test_provider_error_is_recorded_on_the_message(rig_factory: Any) -> None:
    rig = rig_factory([Turn(error_status=400, error_message="bad request body")])
    result = await rig.loop.prompt(rig.session_id, "hi")
    assert result.error is not None and result.error.name == "ProviderError"
    assert "bad request body" in result.error.message


async def test_cancel_stops_a_long_tool_call(rig_factory: Any) -> None:
    rig = rig_factory([Turn(tool_calls=[bash("echo started; sleep 30; echo finished", timeout=60_000)])])
    running = asyncio.Event()

    def watch(event: Event) -> None:
        part = getattr(event, "part", None)
        if isinstance(part, ToolPart) and "started" in str(
            getattr(part.state, "metadata", {}).get("output", "")
        ):
            running.set()

    rig.bus.listen(watch, ["part.updated"])
    turn = asyncio.ensure_future(rig.loop.prompt(rig.session_id, "run it"))
    await asyncio.wait_for(running.wait(), 20)
    await rig.service.run_state.cancel(rig.session_id)
    result = await turn
    assert result.error is not None and result.error.name == "Aborted"
    [part] = rig.tool_parts()
    assert isinstance(part.state, ToolFailed) and "aborted" in part.state.error
    assert "finished" not in part.state.error
    assert not rig.service.run_state.busy(rig.session_id)
    assert rig.provider.remaining == 0 and len(rig.provider.requests) == 1  # no new model turn


async def test_cancel_while_streaming_keeps_partial_text(rig_factory: Any) -> None:
    rig = rig_factory([Turn(text="one two three four five six seven eight", chunk_delay_s=0.05)])
    turn = asyncio.ensure_future(rig.loop.prompt(rig.session_id, "talk"))
    while not any(e.type == "part.delta" for e in rig.events):
        await asyncio.sleep(0.01)
    await rig.service.run_state.cancel(rig.session_id)
    result = await turn
    assert result.error is not None and result.error.name == "Aborted"
    assert result.text and result.text != "one two three four five six seven eight"


SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}
FORMAT = {"type": "json_schema", "schema": SCHEMA}


async def test_structured_output_valid(rig_factory: Any) -> None:
    rig = rig_factory([Turn(tool_calls=[ToolCall("structured_output", {"verdict": "pass"})])])
    result = await rig.loop.prompt(rig.session_id, "judge", format=FORMAT)
    assert result.ok and result.structured == {"verdict": "pass"}
    request = rig.provider.requests[0]
    assert request.tool_choice == "required" and "structured_output" in request.system
    assert isinstance(result.message, AssistantMessage) and result.message.structured == {"verdict": "pass"}


async def test_structured_output_invalid_then_valid(rig_factory: Any) -> None:
    rig = rig_factory(
        [
            Turn(tool_calls=[ToolCall("structured_output", {"verdict": "maybe"})]),
            Turn(tool_calls=[ToolCall("structured_output", {"verdict": "fail"})]),
        ]
    )
    result = await rig.loop.prompt(rig.session_id, "judge", format=FORMAT)
    assert result.ok and result.structured == {"verdict": "fail"}
    [error] = [m for m in rig.provider.requests[1].messages if m.role == "tool"]
    assert error.is_error and "'maybe' is not one of" in error.content


async def test_structured_output_text_only_is_an_error(rig_factory: Any) -> None:
    rig = rig_factory([Turn(text="It passes.")])
    result = await rig.loop.prompt(rig.session_id, "judge", format=FORMAT)
    assert result.error is not None and result.error.name == "StructuredOutputError"
    assert result.structured is None


async def test_structured_output_retries_are_bounded(rig_factory: Any) -> None:
    bad = Turn(tool_calls=[ToolCall("structured_output", {"verdict": 1})])
    rig = rig_factory([bad, bad])
    result = await rig.loop.prompt(
        rig.session_id, "judge", format={"type": "json_schema", "schema": SCHEMA, "retry_count": 1}
    )
    assert result.error is not None and result.error.name == "StructuredOutputError"
    assert "after 2 attempts" in result.error.message and rig.provider.remaining == 0


async def test_reject_without_message_ends_the_turn(rig_factory: Any, project: Path) -> None:
    rig = rig_factory([Turn(tool_calls=[bash("touch made.txt")]), Turn(text="never")], permissions=True)
    asked = rig.answer(("reject", None))
    result = await rig.loop.prompt(rig.session_id, "make a file")
    assert asked[0].permission == "bash" and asked[0].patterns == ("touch made.txt",)
    assert result.error is not None and result.error.name == "PermissionRejected"
    assert not (project / "made.txt").exists() and len(rig.provider.requests) == 1
    [part] = rig.tool_parts()
    assert isinstance(part.state, ToolFailed) and "rejected" in part.state.error


async def test_reject_with_message_goes_back_to_the_model(rig_factory: Any, project: Path) -> None:
    rig = rig_factory(
        [Turn(tool_calls=[bash("touch made.txt")]), Turn(text="ok, I will not")], permissions=True
    )
    rig.answer(("reject", "use the tmp dir instead"))
    result = await rig.loop.prompt(rig.session_id, "make a file")
    assert result.ok and result.text == "ok, I will not"
    [error] = [m for m in rig.provider.requests[1].messages if m.role == "tool"]
    assert error.is_error and "use the tmp dir instead" in error.content


async def test_denied_call_goes_back_and_once_always_proceed(rig_factory: Any, project: Path) -> None:
    turns = [
        Turn(tool_calls=[bash("rm -f gone.txt")]),
        Turn(tool_calls=[bash("touch once.txt")]),
        Turn(tool_calls=[bash("touch always.txt")]),
        Turn(tool_calls=[bash("touch again.txt"), bash("ls")]),
        Turn(text="done"),
    ]
    rig = rig_factory(turns, {"permission": {"bash": {"rm *": "deny"}}}, permissions=True)
    asked = rig.answer(("once", None), ("always", None))
    result = await rig.loop.prompt(rig.session_id, "work")
    assert result.ok
    assert [r.patterns for r in asked] == [("touch once.txt",), ("touch always.txt",)]
    assert (project / "once.txt").exists() and (project / "again.txt").exists()
    denied = next(m for m in rig.provider.requests[1].messages if m.role == "tool")
    assert denied.is_error and 'denies "bash" for "rm -f gone.txt"' in denied.content


async def test_plan_agent_asks_for_writes_but_not_reads(rig_factory: Any, project: Path) -> None:
    # A write the scanner sees is denied outright (plan denies `edit`); a program that may
    # write on its own (python) asks; a read runs without asking.
    script = 'python3 -c \'open("y.txt", "w")\''
    turns = [Turn(tool_calls=[bash("ls"), bash("touch x.txt"), bash(script)]), Turn(text="planned")]
    rig = rig_factory(turns, {"permission": {"bash": "allow"}}, permissions=True)
    asked = rig.answer(("reject", "plan only"))
    result = await rig.loop.prompt(rig.session_id, "plan it", agent="plan")
    assert result.ok and [r.patterns for r in asked] == [(script,)]
    assert not (project / "x.txt").exists() and not (project / "y.txt").exists()
    assert "plan mode" in rig.provider.requests[0].system


async def test_attached_files_are_inlined_with_their_path(rig_factory: Any, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('app')\n")
    rig = rig_factory([Turn(text="seen")])
    await rig.loop.prompt(rig.session_id, "look at these", files=[Path("src/app.py"), Path("src")])
    content = rig.provider.requests[0].messages[0].content
    assert content.startswith("look at these\n\n")
    assert f"<file path=\"{project / 'src' / 'app.py'}\">\nprint('app')\n\n</file>" in content
    assert f'<file path="{project / "src"}">\napp.py\n</file>' in content


async def test_a_prompt_sent_during_a_run_joins_it(rig_factory: Any) -> None:
    rig = rig_factory(
        [Turn(text="a slow first answer in many words", chunk_delay_s=0.05), Turn(text="second answer")]
    )
    first = asyncio.ensure_future(rig.loop.prompt(rig.session_id, "one"))
    while not any(e.type == "part.delta" for e in rig.events):
        await asyncio.sleep(0.01)
    second = await rig.loop.prompt(rig.session_id, "two")
    assert (await first).text == "second answer" and second.text == "second answer"
    assert [m.content for m in rig.provider.requests[1].messages if m.role == "user"] == ["one", "two"]
