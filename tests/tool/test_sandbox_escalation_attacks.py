"""Escalation requests a hostile model could word to get more than the user sees."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.paths import data_dir
from shellpilot.permission import PermissionService, default_rules, grants_path
from shellpilot.permission.events import PermissionAsked, PermissionRequest
from shellpilot.permission.rules import Rule, merge
from shellpilot.process import bwrap
from shellpilot.tool import ToolContext
from shellpilot.tool.shell import ShellParams, ShellTool

MECHANISM = bwrap.find_mechanism()
pytestmark = pytest.mark.skipif(
    not MECHANISM.works, reason=f"bwrap cannot run here: {MECHANISM.reason} (fix: {MECHANISM.fix})"
)


async def test_a_path_asked_through_a_symlink_is_asked_and_granted_as_its_target(
    project: Path, tmp_path: Path
) -> None:
    data = data_dir()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    link = project / "cache"
    link.symlink_to(first)
    bus = Bus()
    service = PermissionService(bus, grants_path(data, project), project_dir=project)
    rules = merge(default_rules(data), [Rule("bash", "*", "allow", "config")])
    asked: list[PermissionRequest] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionAsked):
            asked.append(event.request)
            service.reply(event.request.id, "always")

    bus.listen(answer)
    tool = ShellTool(Config.model_validate({"shell": {"drain_ms": 300, "kill_grace_ms": 200}}), data)

    async def call() -> Any:
        context = ToolContext(
            session_id="ses_l", call_id="c", project_dir=project, ask=service.asker("ses_l", rules)
        )
        command = "python3 -c \"open('cache/f', 'w').write('x')\""
        return await asyncio.wait_for(
            tool.execute(ShellParams(command=command, description="t", sandbox_allow=["cache"]), context), 30
        )

    await call()
    sandbox_asks = [r for r in asked if r.permission == "sandbox"]
    assert [list(r.patterns) for r in sandbox_asks] == [[str(first)]]  # the user sees where it writes
    assert (first / "f").read_text() == "x"
    # The project is writable: the link can be pointed elsewhere. The grant was for `first`.
    link.unlink()
    link.symlink_to(second)
    asked.clear()
    await call()
    assert [list(r.patterns) for r in asked if r.permission == "sandbox"] == [[str(second)]]
