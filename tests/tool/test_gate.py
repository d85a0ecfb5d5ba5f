"""The shell gate: one plan (scan + read-only judgement), asks in order, one verdict, for
every caller (the model's bash tool, shell blocks, the user's own shell)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.errors import PermissionDenied
from shellpilot.permission import PermissionService, rules_from_config
from shellpilot.permission.request import AskRequest
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore
from shellpilot.tool.base import ToolContext
from shellpilot.tool.gate import admit, gate, plan_command
from shellpilot.tool.shell import ShellParams, ShellTool, run_gated


class Recorder:
    def __init__(self) -> None:
        self.asked: list[AskRequest] = []

    async def __call__(self, request: AskRequest, /) -> None:
        self.asked.append(request)


def test_the_plan_orders_asks_outside_then_edit_then_bash(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    plan = plan_command(f"cp notes.txt {outside}/n.txt && touch made", cwd=project, project_dir=project)
    asks = plan.asks({"description": "copy"})
    assert [a.permission for a in asks] == ["external_directory", "edit", "bash"]
    assert asks[0].patterns == (f"{outside}/*",)
    assert set(asks[1].patterns) == {f"{outside}/n.txt", "made"}
    assert asks[2].patterns == (f"cp notes.txt {outside}/n.txt", "touch made")
    assert all(a.metadata["description"] == "copy" for a in asks)
    assert not plan.judged_read_only


def test_read_only_is_judged_once_in_the_plan(project: Path) -> None:
    (project / "README").write_text("x\n")
    plan = plan_command("cat README && ls", cwd=project, project_dir=project)
    assert plan.read_only == ("cat README", "ls") and plan.judged_read_only
    (bash,) = plan.asks()
    assert bash.read_only == frozenset({"cat README", "ls"})
    redirect = plan_command("cat README > copy", cwd=project, project_dir=project)
    assert redirect.read_only == () and not redirect.judged_read_only
    unknown = plan_command('eval "$X"', cwd=project, project_dir=project)
    assert unknown.unknown and unknown.read_only == () and unknown.asks()[-1].unanalysed == {'eval "$X"'}


async def test_admit_asks_in_order_and_stops_at_the_first_refusal(project: Path, tmp_path: Path) -> None:
    service = PermissionService(Bus(), tmp_path / "grants.json", project_dir=project)
    rules = rules_from_config({"edit": "deny", "bash": "allow"})
    plan = plan_command("touch x", cwd=project, project_dir=project)
    with pytest.raises(PermissionDenied) as denied:
        await admit(plan, caller="model", ask=service.asker("s", rules), agent="plan")
    assert denied.value.permission == "edit" and denied.value.pattern == "x"
    recorder = Recorder()
    verdict = await admit(plan, caller="block", ask=recorder, agent="build")
    assert [a.permission for a in recorder.asked] == ["edit", "bash"]
    assert verdict.asked == tuple(recorder.asked) and verdict.caller == "block" and not verdict.read_only


async def test_the_users_own_command_is_planned_but_never_asked(project: Path) -> None:
    recorder = Recorder()
    verdict = await gate("touch x", cwd=project, project_dir=project, caller="user", ask=recorder)
    assert recorder.asked == [] and verdict.asked == () and verdict.plan.writes == ("x",)
    result = await run_gated(verdict)
    assert result.success and (project / "x").exists()
    with pytest.raises(ValueError):
        await gate("ls", cwd=project, project_dir=project, caller="model")


async def test_every_caller_records_the_same_metadata(project: Path, tmp_path: Path) -> None:
    """The bash tool's part and the user's shell part both come from ShellResult.part_metadata."""
    data = tmp_path / "data"
    tool = ShellTool(Config(), data)
    ctx = ToolContext(session_id="s", call_id="c", project_dir=project, ask=Recorder())
    from_tool = await tool.execute(ShellParams(command="echo hi", description="say hi"), ctx)
    store = SessionStore(data / "shellpilot.db")
    service = SessionService(store, Bus(), Config(), data, RunState(Bus()))
    session = service.create(project)
    _, part = await service.shell(session.id, "echo hi")
    user_meta = part.state.metadata  # type: ignore[union-attr]
    result = await run_gated(await gate("echo hi", cwd=project, project_dir=project, caller="user"))
    built = set(result.part_metadata({}))
    assert built <= set(from_tool.metadata) and built <= set(user_meta)
    assert (
        from_tool.metadata["scan"]
        == user_meta["scan"]
        == plan_command(
            "echo hi", cwd=project, project_dir=project, shell=tool.shell.name, output_dir=tool.output_dir
        ).record()
    )
    store.close()


def test_only_this_projects_spill_folder_is_read_without_a_prompt(project: Path, tmp_path: Path) -> None:
    # found by a helper: one shared folder let an untrusted project's shell block `grep -r
    # TOKEN <data>/tool-output` read what another project's commands had printed, unasked
    from shellpilot.paths import tool_output_dir
    from shellpilot.permission.defaults import default_rules
    from shellpilot.permission.rules import evaluate

    data = tmp_path / "data"
    own = tool_output_dir(data, project)
    other = tool_output_dir(data, tmp_path / "another-project")
    assert own != other and own.parent == other.parent == data / "tool-output"
    for folder in (own, other):
        folder.mkdir(parents=True)
        (folder / "call_1").write_text("API_TOKEN=x\n")
    rules = default_rules(data, project)
    mine = plan_command(f"grep -n TOKEN {own}/call_1", cwd=project, project_dir=project, output_dir=own)
    assert mine.outside == () and mine.read_only
    theirs = plan_command(f"grep -rn TOKEN {other}", cwd=project, project_dir=project, output_dir=own)
    assert theirs.outside == (f"{other}/*",)
    assert evaluate("external_directory", f"{other}/*", rules).action == "ask"
    assert evaluate("external_directory", f"{own}/*", rules).action == "allow"
