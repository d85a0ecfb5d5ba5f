"""The task tool through the real loop: child sessions, resume, agent checks, permission,
cancel cascade, and command subtasks (scripted provider, real shell tool and store)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from shellpilot.agent import AgentRegistry
from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.permission.events import PermissionAsked
from shellpilot.permission.service import PermissionService
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.provider.scripted import Script, ScriptedProvider, ToolCall, Turn
from shellpilot.session.loop import AgentLoop
from shellpilot.session.models import SubtaskPart, ToolCompleted, ToolFailed, ToolPart
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.session.subtask import SUMMARIZE
from shellpilot.storage.store import SessionStore
from shellpilot.tool.task import SubtaskOutcome, TaskTool, task_output


class Rig:
    def __init__(
        self, project: Path, tmp_path: Path, turns: Sequence[Script], config: dict[str, Any]
    ) -> None:
        cfg = Config.model_validate({"model": "scripted/m", **config})
        self.bus = Bus()
        self.store = SessionStore(tmp_path / "data" / "db.sqlite")
        self.service = SessionService(
            self.store, self.bus, cfg, tmp_path / "data", RunState(self.bus, lease=self.store)
        )
        self.provider = ScriptedProvider(turns)
        self.permissions = PermissionService(self.bus, tmp_path / "grants.json", project_dir=project)
        self.service.run_state.cancel_permissions = self.permissions.cancel_session
        providers = ProviderRegistry(cfg, env={}, providers={"scripted": self.provider})
        self.loop = AgentLoop(
            self.service, project_dir=project, providers=providers, permissions=self.permissions
        )
        self.session_id = self.service.create(project).id

    def tool_parts(self, session_id: str) -> list[ToolPart]:
        return [p for m in self.service.messages(session_id) for p in m.parts if isinstance(p, ToolPart)]

    def children(self) -> list[str]:
        return [s.id for s in self.store.children(self.session_id)]


@pytest.fixture
def rigs(project: Path, tmp_path: Path) -> Iterator[Any]:
    made: list[Rig] = []

    def build(turns: Sequence[Script], config: dict[str, Any] | None = None) -> Rig:
        default = {"permission": {"bash": "allow", "task": "allow"}}
        rig = Rig(project, tmp_path, turns, default if config is None else config)
        made.append(rig)
        return rig

    yield build
    for rig in made:
        rig.store.close()


def task(prompt: str, agent: str = "general", **extra: Any) -> ToolCall:
    return ToolCall("task", {"description": "look around", "prompt": prompt, "subagent_type": agent, **extra})


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run"})


def test_description_lists_subagents_and_output_shape() -> None:
    cfg = Config.model_validate({"agent": {"scout": {"mode": "subagent"}}})
    tool = TaskTool(AgentRegistry(cfg), ops=None)  # type: ignore[arg-type]
    text = tool.description()
    assert "- general: General-purpose agent" in text
    assert "- scout: This subagent should only be called manually by the user." in text
    assert "- build" not in text
    out = task_output(SubtaskOutcome("ses_c", "found it"))
    assert out.startswith("task_id: ses_c (for resuming") and out.endswith(
        "<task_result>\nfound it\n</task_result>"
    )


async def test_task_runs_a_child_session_and_returns_its_answer(rigs: Any, project: Path) -> None:
    (project / "notes.txt").write_text("secret=42\n")
    rig = rigs(
        [
            Turn(tool_calls=[task("find the secret")]),
            Turn(tool_calls=[bash("cat notes.txt")]),  # child
            Turn(text="The secret is 42."),  # child
            Turn(text="Your secret is 42."),  # parent
        ]
    )
    result = await rig.loop.prompt(rig.session_id, "what is the secret?")
    assert result.ok and result.text == "Your secret is 42."
    [child] = rig.children()
    [part] = rig.tool_parts(rig.session_id)
    assert isinstance(part.state, ToolCompleted) and part.state.metadata["sessionId"] == child
    assert f"task_id: {child}" in part.state.output and "The secret is 42." in part.state.output
    child_request = rig.provider.requests[1]
    assert "general-purpose subagent" in child_request.system
    assert "task" not in {t.name for t in child_request.tools}  # no recursion
    assert rig.store.get_session(child).title == "look around (@general subagent)"


async def test_task_id_resumes_the_child(rigs: Any) -> None:
    rig = rigs([Turn(tool_calls=[task("first")]), Turn(text="child one"), Turn(text="parent one")])
    await rig.loop.prompt(rig.session_id, "go")
    [child] = rig.children()
    rig.provider.add(
        Turn(tool_calls=[task("second", task_id=child)]), Turn(text="child two"), Turn(text="p2")
    )
    await rig.loop.prompt(rig.session_id, "again")
    assert rig.children() == [child]
    child_view = rig.provider.requests[4].messages
    assert [m.role for m in child_view] == ["user", "assistant", "user"]


async def test_unknown_or_primary_agent_is_an_error_for_the_model(rigs: Any) -> None:
    rig = rigs([Turn(tool_calls=[task("x", agent="nobody"), task("y", agent="build")]), Turn(text="ok")])
    await rig.loop.prompt(rig.session_id, "go")
    errors = [m.content for m in rig.provider.requests[1].messages if m.role == "tool"]
    assert all("is not a valid agent type" in e and "Available subagents: general" in e for e in errors)
    assert rig.children() == []


async def test_task_permission_is_asked_and_child_asks_reach_the_same_service(rigs: Any) -> None:
    rig = rigs(
        [
            Turn(tool_calls=[task("touch it")]),
            Turn(tool_calls=[bash("touch child.txt")]),
            Turn(text="c"),
            Turn(text="p"),
        ],
        config={},
    )
    asked: list[tuple[str, str, tuple[str, ...]]] = []

    def on_ask(event: Event) -> None:
        assert isinstance(event, PermissionAsked)
        asked.append((event.request.session_id, event.request.permission, event.request.patterns))
        rig.permissions.reply(event.request.id, "once")

    rig.bus.listen(on_ask, ["permission.asked"])
    result = await rig.loop.prompt(rig.session_id, "go")
    assert result.ok
    [child] = rig.children()
    assert asked == [(rig.session_id, "task", ("general",)), (child, "bash", ("touch child.txt",))]


async def test_cancelling_the_parent_cancels_the_child(rigs: Any) -> None:
    long = ToolCall(
        "bash", {"command": "echo up; sleep 30; echo finished", "description": "wait", "timeout": 60_000}
    )
    rig = rigs([Turn(tool_calls=[task("wait")]), Turn(tool_calls=[long])])
    up = asyncio.Event()

    def watch(event: Event) -> None:
        part = getattr(event, "part", None)
        if (
            isinstance(part, ToolPart)
            and part.tool == "bash"
            and "up" in str(part.state.model_dump().get("metadata"))
        ):
            up.set()

    rig.bus.listen(watch, ["part.updated"])
    turn = asyncio.ensure_future(rig.loop.prompt(rig.session_id, "go"))
    await asyncio.wait_for(up.wait(), 20)
    await rig.service.run_state.cancel(rig.session_id)
    result = await turn
    assert result.error is not None and result.error.name == "Aborted"
    [child] = rig.children()
    [child_bash] = rig.tool_parts(child)
    assert isinstance(child_bash.state, ToolFailed) and "aborted" in child_bash.state.error
    [parent_task] = rig.tool_parts(rig.session_id)
    assert isinstance(parent_task.state, ToolFailed)
    assert not rig.service.run_state.busy(child) and not rig.service.run_state.busy(rig.session_id)


async def test_command_subtask_runs_in_a_child_then_the_parent_continues(rigs: Any, project: Path) -> None:
    (project / "spec.md").write_text("the spec\n")
    config = {
        "permission": {"bash": "allow"},
        "command": {
            "check": {"template": "Check $1 against @spec.md", "subtask": True, "description": "check it"}
        },
    }
    rig = rigs([Turn(text="child verdict: fine"), Turn(text="Summary: fine")], config)
    executed: list[Event] = []
    rig.bus.listen(executed.append, ["command.executed"])
    result = await rig.loop.command(rig.session_id, "check", "module-a")
    assert result.ok and result.text == "Summary: fine"
    assert len(rig.children()) == 1
    child_prompt = rig.provider.requests[0].messages[0].content
    assert child_prompt.startswith("Check module-a against @spec.md") and "the spec" in child_prompt
    history = rig.service.messages(rig.session_id)
    assert isinstance(history[0].parts[0], SubtaskPart) and history[0].parts[0].command == "check"
    [task_part] = rig.tool_parts(rig.session_id)
    assert task_part.tool == "task" and isinstance(task_part.state, ToolCompleted)
    assert rig.provider.requests[1].messages[-1].content == SUMMARIZE
    assert [getattr(e, "name", "") for e in executed] == ["check"]


async def test_plain_command_becomes_the_users_message(rigs: Any, project: Path) -> None:
    config = {"command": {"hello": {"template": "Say hello to $ARGUMENTS", "agent": "plan"}}}
    rig = rigs([Turn(text="hello!")], config)
    result = await rig.loop.command(rig.session_id, "hello", "the team")
    assert result.ok and rig.children() == []
    assert rig.provider.requests[0].messages[0].content == "Say hello to the team"
    assert "plan mode" in rig.provider.requests[0].system
