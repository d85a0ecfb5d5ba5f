"""A command's own turn: its allowed-tools hold for that turn only, its model resolves by
family, ``-m`` wins. Real shell tool, real SQLite store, real permission service; the
model is a ``ScriptedProvider`` and a listener answers each permission ask."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.command.registry import CommandRegistry
from shellpilot.config import Config
from shellpilot.permission.events import PermissionAsked
from shellpilot.permission.service import PermissionService
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.provider.scripted import Script, ScriptedProvider, ToolCall, Turn
from shellpilot.session.loop import AgentLoop
from shellpilot.session.models import ToolCompleted, ToolFailed, ToolPart
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore

SHIP = """---
description: Stage the release notes
allowed-tools: Bash(touch from-block.txt), Bash(touch notes.md:*), Bash(mkdir -p build)
---
Stage the release notes. Marker: !`touch from-block.txt`
"""


class Rig:
    """A loop with a scripted model and a permission service whose asks are answered
    ``once`` and recorded (so every ask the rules left open is seen)."""

    def __init__(self, project: Path, tmp: Path, turns: list[Script], config: dict[str, Any], trusted: bool):
        cfg = Config.model_validate({"model": "scripted/m", **config})
        self.store = SessionStore(tmp / "data" / "db.sqlite")
        self.bus = Bus()
        self.service = SessionService(
            self.store, self.bus, cfg, tmp / "data", RunState(self.bus, lease=self.store)
        )
        self.provider = ScriptedProvider(turns)
        providers = ProviderRegistry(cfg, env={}, providers={"scripted": self.provider})
        self.permissions = PermissionService(self.bus, tmp / "grants.json", project_dir=project)
        commands = CommandRegistry(project, cfg, trusted=trusted)
        self.loop = AgentLoop(
            self.service,
            project_dir=project,
            providers=providers,
            permissions=self.permissions,
            commands=commands,
        )
        self.session_id = self.service.create(project).id
        self.asked: list[tuple[str, ...]] = []
        self.bus.listen(self._answer, ["permission.asked"])

    def _answer(self, event: Event) -> None:
        assert isinstance(event, PermissionAsked)
        self.asked.append(event.request.patterns)
        self.permissions.reply(event.request.id, "once")

    def tool_parts(self) -> list[ToolPart]:
        return [p for m in self.service.messages(self.session_id) for p in m.parts if isinstance(p, ToolPart)]


@pytest.fixture
def rig(project: Path, tmp_path: Path) -> Iterator[Any]:
    made: list[Rig] = []

    def build(turns: list[Script], config: dict[str, Any] | None = None, trusted: bool = True) -> Rig:
        made.append(Rig(project, tmp_path, turns, config or {}, trusted))
        return made[-1]

    yield build
    for one in made:
        one.store.close()


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


async def test_allowed_tools_preapprove_exactly_their_patterns_for_one_turn(rig: Any, project: Path) -> None:
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "ship.md").write_text(SHIP)
    turns: list[Script] = [
        Turn(tool_calls=[bash("touch notes.md")]),
        Turn(tool_calls=[bash("mkdir -p build")]),
        Turn(tool_calls=[bash("touch other.md")]),  # not in allowed-tools: asked
        Turn(text="staged"),
        Turn(tool_calls=[bash("touch notes.md")]),  # the same command in a later prompt: asked
        Turn(text="done"),
    ]
    r = rig(turns)
    result = await r.loop.command(r.session_id, "ship")
    assert result.ok and result.text == "staged"
    assert r.asked == [("touch other.md",)]
    assert (project / "from-block.txt").exists() and (project / "notes.md").exists()
    assert (project / "build").is_dir()
    later = await r.loop.prompt(r.session_id, "one more")
    assert later.ok and r.asked == [("touch other.md",), ("touch notes.md",)]
    assert r.loop.turn_rules == {}


async def test_a_user_deny_still_wins(rig: Any, project: Path) -> None:
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "ship.md").write_text(SHIP)
    r = rig(
        [Turn(tool_calls=[bash("touch notes.md")]), Turn(text="ok")],
        {"permission": {"bash": {"touch *": "deny"}}},
    )
    result = await r.loop.command(r.session_id, "ship")
    assert result.ok and not (project / "notes.md").exists() and not (project / "from-block.txt").exists()
    [part] = r.tool_parts()
    assert isinstance(part.state, ToolFailed) and "touch notes.md" in part.state.error
    assert any("not run" in w and "denied by rule" in w for w in result.warnings)


async def test_untrusted_project_allowed_tools_are_ignored_with_a_warning(rig: Any, project: Path) -> None:
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "ship.md").write_text(SHIP)
    r = rig([Turn(tool_calls=[bash("touch notes.md")]), Turn(text="ok")], trusted=False)
    result = await r.loop.command(r.session_id, "ship")
    assert result.ok
    assert r.asked == [("touch from-block.txt",), ("touch notes.md",)]
    assert any(w.startswith("allowed-tools of /ship ignored") for w in result.warnings)


async def test_claude_model_without_an_anthropic_provider_uses_the_sessions(rig: Any, project: Path) -> None:
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "think.md").write_text(
        "---\nmodel: sonnet\n---\nThink about $ARGUMENTS"
    )
    config = {"provider": {"local": {"type": "openai", "base_url": "http://127.0.0.1:9/v1"}}}
    r = rig([Turn(text="one"), Turn(text="two"), Turn(text="three")], config)
    first = await r.loop.command(r.session_id, "think", "a")
    assert first.ok and r.provider.requests[0].model == "m"
    assert first.warnings == (
        'model "sonnet" (from /think) is an Anthropic model, but no Anthropic provider is configured that '
        "can run it; using the session's model instead",
    )
    second = await r.loop.command(r.session_id, "think", "b")
    assert second.ok and second.warnings == ()  # said once
    chosen = await r.loop.command(r.session_id, "think", "c", model="scripted/picked")
    assert chosen.ok and r.provider.requests[2].model == "picked"


async def test_minus_m_wins_over_the_files_model(rig: Any, project: Path) -> None:
    (project / ".opencode" / "commands").mkdir(parents=True)
    (project / ".opencode" / "commands" / "fast.md").write_text("---\nmodel: scripted/file-model\n---\nGo")
    r = rig([Turn(text="a"), Turn(text="b")])
    await r.loop.command(r.session_id, "fast")
    await r.loop.command(r.session_id, "fast", model="scripted/cli-model")
    assert [q.model for q in r.provider.requests] == ["file-model", "cli-model"]
    assert all(isinstance(p.state, ToolCompleted) for p in r.tool_parts())
