"""The verdict picks the sandbox: the bash tool with a real bwrap, real rules and grants."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from shellpilot.agent.registry import AgentRegistry
from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.errors import PermissionDenied, SandboxUnavailable
from shellpilot.paths import data_dir
from shellpilot.permission import PermissionService, default_rules, grants_path
from shellpilot.permission.events import PermissionAsked, PermissionRequest
from shellpilot.permission.request import AskRequest
from shellpilot.permission.rules import Rule, merge
from shellpilot.process import bwrap
from shellpilot.tool import ToolContext
from shellpilot.tool.shell import ShellParams, ShellTool

MECHANISM = bwrap.find_mechanism()
pytestmark = pytest.mark.skipif(
    not MECHANISM.works, reason=f"bwrap cannot run here: {MECHANISM.reason} (fix: {MECHANISM.fix})"
)


def config(**sandbox: Any) -> Config:
    return Config.model_validate({"shell": {"kill_grace_ms": 200, "drain_ms": 300}, "sandbox": sandbox})


def params(command: str, **kw: Any) -> ShellParams:
    return ShellParams(command=command, description="Runs a test command", **kw)


async def allow_everything(request: AskRequest, /) -> None:
    """Like ``--yes``: every ask is answered yes (rules are not consulted)."""


def ctx(project: Path, ask: Any = allow_everything, session: str = "ses_sb") -> ToolContext:
    return ToolContext(session_id=session, call_id="call_1", project_dir=project, ask=ask)


async def test_a_line_judged_read_only_runs_read_only_and_others_workspace_write(project: Path) -> None:
    tool = ShellTool(config(), data_dir())
    (project / "a.txt").write_text("a\n")
    read = await tool.execute(params("cat a.txt"), ctx(project))
    assert read.output == "a\n" and read.metadata["sandbox"] == "read-only"
    write = await tool.execute(params("echo b > b.txt"), ctx(project))
    assert write.metadata["sandbox"] == "workspace-write" and (project / "b.txt").read_text() == "b\n"


async def test_a_hidden_program_under_a_read_only_line_writes_nothing(project: Path, tmp_path: Path) -> None:
    """What the scanner cannot see (here a program set through git's environment) runs in
    the read-only sandbox too."""
    pwned = project / "pwned"

    def env_hook(session: str, call: str, cwd: Path) -> dict[str, str]:
        return {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.fsmonitor",
            "GIT_CONFIG_VALUE_0": f"echo x > {pwned}; false",
        }

    os.system(f"git init -q {project}")
    tool = ShellTool(config(), data_dir(), env_hook=env_hook)
    result = await tool.execute(params("git status"), ctx(project))
    assert result.metadata["sandbox"] == "read-only"
    assert not pwned.exists()


async def test_the_plan_agent_cannot_write_through_python_even_when_everything_is_allowed(
    project: Path,
) -> None:
    cfg = config()
    data = data_dir()
    agents = AgentRegistry(cfg)
    rules = agents.ruleset(agents.get("plan"), data)
    bus = Bus()
    service = PermissionService(bus, grants_path(data, project), project_dir=project)
    # Like --yes: every question that reaches a person is answered "once".
    bus.listen(lambda e: service.reply(e.request.id, "once") if isinstance(e, PermissionAsked) else None)
    bound = service.asker("ses_plan", rules)
    tool = ShellTool(cfg, data)
    result = await tool.execute(params("python3 -c \"open('x', 'w').write('x')\""), ctx(project, bound))
    assert result.metadata["sandbox"] == "read-only" and not (project / "x").exists()
    assert "Read-only file system" in result.output
    # Asking for the path is refused by plan's own rules before anyone is asked.
    with pytest.raises(PermissionDenied) as denied:
        await tool.execute(
            params("python3 -c \"open('x', 'w')\"", sandbox_allow=[str(project)]), ctx(project, bound)
        )
    assert denied.value.permission == "edit"
    with pytest.raises(PermissionDenied):
        await tool.execute(params("touch x", sandbox_allow=["unsandboxed"]), ctx(project, bound))
    assert not (project / "x").exists()


async def test_escalation_asks_always_stores_a_grant_and_the_rerun_asks_nothing(
    project: Path, tmp_path: Path
) -> None:
    data = data_dir()
    cache = tmp_path / "cache"
    cache.mkdir()
    bus = Bus()
    service = PermissionService(bus, grants_path(data, project), project_dir=project)
    rules = merge(default_rules(data), [Rule("bash", "*", "allow", "config")])
    asked: asyncio.Queue[PermissionRequest] = asyncio.Queue()
    bus.listen(lambda event: asked.put_nowait(event.request) if isinstance(event, PermissionAsked) else None)
    tool = ShellTool(config(), data)
    # A write the scanner cannot see (inside python -c), so no external_directory ask made it possible.
    command = f"python3 -c \"open('{cache}/f', 'w').write('cached')\""

    def start(**kw: Any) -> asyncio.Task[Any]:
        return asyncio.create_task(
            tool.execute(params(command, **kw), ctx(project, service.asker("ses_e", rules)))
        )

    # 1. Blocked, and told what to ask for.
    first = await start()
    assert first.metadata["exit"] != 0 and not (cache / "f").exists()
    assert first.metadata["sandbox_request"] == [str(cache)]
    assert '"sandbox_allow": ["' + str(cache) + '"]' in first.output
    # 2. Asked for it: the user answers "always".
    call = start(sandbox_allow=first.metadata["sandbox_request"])
    request = await asyncio.wait_for(asked.get(), 30)
    assert (request.permission, list(request.patterns)) == ("sandbox", [str(cache)])
    service.reply(request.id, "always")
    second = await call
    assert second.metadata["exit"] == 0 and (cache / "f").read_text() == "cached"
    # 3. The grant is stored for the project: the same request runs without a prompt.
    (cache / "f").unlink()
    third = await asyncio.wait_for(start(sandbox_allow=[str(cache)]), 30)
    assert third.metadata["exit"] == 0 and (cache / "f").exists() and asked.empty()
    assert any(r.permission == "sandbox" and r.pattern == str(cache) for r in service.grants)


async def test_a_deny_rule_comes_before_any_escalation(project: Path) -> None:
    data = data_dir()
    service = PermissionService(Bus(), grants_path(data, project), project_dir=project)
    rules = merge(
        default_rules(data), [Rule("bash", "*", "allow", "config"), Rule("sandbox", "network", "deny")]
    )
    tool = ShellTool(config(), data)
    with pytest.raises(PermissionDenied):
        await tool.execute(
            params("true", sandbox_allow=["network"]), ctx(project, service.asker("ses_d", rules))
        )


async def test_config_modes_override_the_verdicts_choice(project: Path) -> None:
    off = await ShellTool(config(mode="off"), data_dir()).execute(params("cat /dev/null"), ctx(project))
    assert off.metadata["sandbox"] is None
    strict = await ShellTool(config(mode="read-only"), data_dir()).execute(params("touch f"), ctx(project))
    assert strict.metadata["sandbox"] == "read-only" and not (project / "f").exists()
    loose = await ShellTool(config(mode="workspace-write"), data_dir()).execute(params("ls"), ctx(project))
    assert loose.metadata["sandbox"] == "workspace-write"


async def test_the_sessions_tmp_is_kept_between_its_calls(project: Path) -> None:
    tool = ShellTool(config(), data_dir())
    await tool.execute(params("echo kept > /tmp/state"), ctx(project, session="ses_tmp"))
    again = await tool.execute(params("cat /tmp/state && true"), ctx(project, session="ses_tmp"))
    assert again.output == "kept\n"
    other = await tool.execute(params("cat /tmp/state && true"), ctx(project, session="ses_other"))
    assert other.metadata["exit"] != 0


async def test_required_sandbox_without_bwrap_refuses_the_call(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(bwrap.BWRAP_ENV, str(tmp_path / "no-bwrap"))
    tool = ShellTool(config(required=True), data_dir())
    with pytest.raises(SandboxUnavailable) as caught:
        await tool.execute(params("touch f"), ctx(project))
    assert str(tmp_path / "no-bwrap") in caught.value.reason
    assert not (project / "f").exists()
