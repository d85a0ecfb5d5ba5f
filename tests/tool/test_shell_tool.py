"""The bash tool end to end: real scanner, real processes, a recording ask."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from shellpilot.config import Config
from shellpilot.errors import InvalidCommand, InvalidTimeout, PermissionRejected, WorkdirNotFound
from shellpilot.paths import data_dir, tool_output_dir
from shellpilot.permission.request import AskRequest
from shellpilot.process.runner import MAX_COMMAND_BYTES
from shellpilot.tool import ToolContext, ToolRegistry
from shellpilot.tool.shell import ShellParams, ShellTool

FAST = Config.model_validate({"shell": {"kill_grace_ms": 200, "drain_ms": 300}})


@dataclass
class Asks:
    """Records every ask; rejects the permissions named in ``reject``."""

    reject: set[str] = field(default_factory=set)
    calls: list[tuple[str, list[str], list[str], list[str]]] = field(default_factory=list)

    async def __call__(self, request: AskRequest, /) -> None:
        permission = request.permission
        self.calls.append(
            (permission, list(request.patterns), list(request.always), sorted(request.read_only))
        )
        if permission in self.reject:
            raise PermissionRejected()

    def permissions(self) -> list[str]:
        return [call[0] for call in self.calls]


def make(project: Path, asks: Asks, **kw: Any) -> tuple[ShellTool, ToolContext, list[Mapping[str, Any]]]:
    live: list[Mapping[str, Any]] = []
    tool = ShellTool(kw.pop("config", FAST), data_dir(), **kw)
    ctx = ToolContext(
        session_id="ses_test",
        call_id="call_1",
        project_dir=project,
        ask=asks,
        metadata=lambda title, values: live.append(values),
    )
    return tool, ctx, live


def params(command: str, **kw: Any) -> ShellParams:
    return ShellParams(command=command, description=kw.pop("description", "Runs a test command"), **kw)


async def test_runs_a_command_and_reports_metadata(project: Path) -> None:
    asks = Asks()
    tool, ctx, live = make(project, asks)
    result = await tool.execute(params("echo hi; touch f; ls"), ctx)
    assert result.title == "Runs a test command"
    assert result.output == "hi\nf\n"
    patterns = ["echo hi", "touch f", "ls"]
    assert asks.calls == [
        ("edit", ["f"], ["f"], []),
        ("bash", patterns, ["echo *", "touch *", "ls *"], ["echo hi", "ls"]),
    ]
    meta = result.metadata
    assert (meta["exit"], meta["truncated"], meta["timed_out"], meta["aborted"]) == (0, False, False, False)
    assert meta["description"] == "Runs a test command" and meta["output"] == "hi\nf\n"
    assert meta["output_path"] is None
    assert live and live[-1]["output"] == "hi\nf\n"


async def test_the_shell_process_is_published_for_crash_recovery(project: Path) -> None:
    # Unsandboxed, so the shell's own pid is the recorded one (in a sandbox it is bwrap's).
    config = FAST.model_copy(update={"sandbox": FAST.sandbox.model_copy(update={"mode": "off"})})
    tool, ctx, live = make(project, Asks(), config=config)
    result = await tool.execute(params("echo $$"), ctx)
    shell_pid = int(result.output.strip())
    records = [values["process"] for values in live if "process" in values]
    assert len(records) == 1 and "process" in live[0]  # first: at spawn, before any output
    (record,) = records
    assert record["pid"] == record["pgid"] == shell_pid and record["start"]


async def test_workdir_inside_the_project_needs_no_directory_ask(project: Path) -> None:
    (project / "sub").mkdir()
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    result = await tool.execute(params("pwd", workdir="sub"), ctx)
    assert result.output.strip() == str((project / "sub").resolve())
    assert asks.permissions() == ["bash"]


async def test_workdir_outside_the_project_asks_first(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    asks = Asks(reject={"external_directory"})
    tool, ctx, _ = make(project, asks)
    with pytest.raises(PermissionRejected):
        await tool.execute(params("touch ran", workdir=str(outside)), ctx)
    assert asks.calls[0][:2] == ("external_directory", [f"{outside.resolve()}/*"])
    assert asks.permissions() == ["external_directory"]
    assert not (outside / "ran").exists()
    allowed = Asks()
    tool, ctx, _ = make(project, allowed)
    await tool.execute(params("touch ran", workdir=str(outside)), ctx)
    assert allowed.permissions() == ["external_directory", "edit", "bash"]
    assert allowed.calls[1][:3] == ("edit", [f"{outside.resolve()}/ran"], [f"{outside.resolve()}/ran"])
    assert (outside / "ran").exists()


async def test_outside_paths_in_the_command_ask_as_globs(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "other" / "file.txt"
    target.parent.mkdir()
    target.write_text("x")
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    await tool.execute(params(f"cat {target}"), ctx)
    assert asks.calls[0][:3] == ("external_directory", [f"{target.parent}/*"], [f"{target.parent}/*"])


async def test_writes_ask_edit_between_directory_and_bash(project: Path, tmp_path: Path) -> None:
    (project / "sub").mkdir()
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    out = tmp_path / "out.txt"
    await tool.execute(params(f"echo hi > plan.txt && touch sub/b.txt {out} && ls >/dev/null"), ctx)
    assert asks.permissions() == ["external_directory", "edit", "bash"]
    written = ["plan.txt", "sub/b.txt", str(out)]
    assert asks.calls[1][:3] == ("edit", written, written)
    assert (project / "plan.txt").read_text() == "hi\n" and out.exists()
    # No write: no edit ask at all.
    reads = Asks()
    tool, ctx, _ = make(project, reads)
    await tool.execute(params("cat plan.txt 2>&1 > /dev/null"), ctx)
    assert reads.permissions() == ["bash"]


async def test_rejected_edit_runs_nothing(project: Path) -> None:
    asks = Asks(reject={"edit"})
    tool, ctx, _ = make(project, asks)
    with pytest.raises(PermissionRejected):
        await tool.execute(params("echo hi > plan.txt"), ctx)
    assert asks.permissions() == ["edit"]
    assert not (project / "plan.txt").exists()


async def test_tool_output_folder_needs_no_prompt(project: Path) -> None:
    folder = tool_output_dir(data_dir())
    folder.mkdir(parents=True)
    (folder / "tool_old").write_text("saved output\n")
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    result = await tool.execute(params(f"cat {folder}/tool_old"), ctx)
    assert result.output == "saved output\n"
    assert "external_directory" not in asks.permissions()


async def test_unknown_scan_asks_for_the_whole_command(project: Path) -> None:
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    command = 'X="echo hi"; eval "$X"'
    result = await tool.execute(params(command), ctx)
    assert result.output == "hi\n"
    (permission, patterns, _always, read_only) = asks.calls[-1]
    assert permission == "bash" and command in patterns and read_only == []


async def test_rejection_runs_nothing(project: Path) -> None:
    asks = Asks(reject={"bash"})
    tool, ctx, _ = make(project, asks)
    with pytest.raises(PermissionRejected):
        await tool.execute(params("touch ran"), ctx)
    assert not (project / "ran").exists()


async def test_bad_input_fails_before_any_ask(project: Path) -> None:
    asks = Asks()
    tool, ctx, _ = make(project, asks)
    with pytest.raises(InvalidTimeout, match="-1"):
        await tool.execute(params("touch ran", timeout=-1), ctx)
    with pytest.raises(WorkdirNotFound):
        await tool.execute(params("touch ran", workdir="missing"), ctx)
    with pytest.raises(InvalidCommand, match="NUL byte"):
        await tool.execute(params("touch ran\0x"), ctx)
    with pytest.raises(InvalidCommand, match="empty"):
        await tool.execute(params(" \n"), ctx)
    # bash -c gets the command as one argument, and Linux refuses one of 128 KiB (E2BIG).
    with pytest.raises(InvalidCommand, match="131,073 bytes"):
        await tool.execute(params(f"touch ran; : {'x' * 131_060}"), ctx)
    with pytest.raises(ValidationError, match="not true or false"):
        params("touch ran", timeout=True)  # pydantic alone would read true as 1 ms
    assert asks.calls == [] and not (project / "ran").exists()
    just_fits = await tool.execute(params(f"touch ran; : {'x' * (MAX_COMMAND_BYTES - 13)}"), ctx)
    assert just_fits.metadata["exit"] == 0 and (project / "ran").exists()


async def test_timeout_and_abort_are_reported(project: Path) -> None:
    # 1 s, not less: "begin" must be out before the timer fires, even on a loaded machine.
    tool, ctx, _ = make(project, Asks())
    timed = await tool.execute(params("echo begin; sleep 30", timeout=1000), ctx)
    assert timed.metadata["timed_out"] and timed.metadata["exit"] is None
    assert timed.output.startswith("begin") and "1000 ms timeout" in timed.output

    # Abort once the command is seen running (its live output), not after a guessed sleep.
    tool, ctx, _ = make(project, Asks())
    running = asyncio.Event()
    ctx.metadata = lambda title, values: running.set() if "begin" in values.get("output", "") else None
    task = asyncio.create_task(tool.execute(params("echo begin; sleep 30"), ctx))
    await asyncio.wait_for(running.wait(), 10)
    ctx.abort.set()
    aborted = await asyncio.wait_for(task, 10)
    assert aborted.metadata["aborted"] and aborted.metadata["exit"] is None
    assert aborted.output.startswith("begin") and "aborted by the user" in aborted.output


async def test_long_output_is_truncated_into_the_data_dir(project: Path) -> None:
    tool, ctx, live = make(project, Asks())
    result = await tool.execute(params("seq 1 5000"), ctx)
    path = result.metadata["output_path"]
    assert result.metadata["truncated"] and path.startswith(str(tool_output_dir(data_dir())))
    assert path.endswith("_call_1") and path in result.output
    assert Path(path).read_text() == "".join(f"{i}\n" for i in range(1, 5001))
    assert live[-1]["output"].rstrip().endswith("5000")


async def test_env_hook_gets_the_call(project: Path) -> None:
    seen: list[tuple[str, str, Path]] = []

    async def hook(session_id: str, call_id: str, cwd: Path) -> dict[str, str]:
        seen.append((session_id, call_id, cwd))
        return {"FROM_HOOK": f"{session_id}/{call_id}"}

    tool, ctx, _ = make(project, Asks(), env_hook=hook)
    result = await tool.execute(params('echo "$FROM_HOOK $PAGER"'), ctx)
    assert result.output.strip() == "ses_test/call_1 cat"
    assert seen == [("ses_test", "call_1", project)]


def test_description_and_schema() -> None:
    config = Config.model_validate({"shell": {"timeout_ms": 90_000}, "tool_output": {"max_lines": 300}})
    tool = ShellTool(config, data_dir())
    text = tool.description()
    assert "{{" not in text and tool.shell.name in text
    assert "90000 ms" in text and "600000 ms" in text and "300 lines" in text and "51200 bytes" in text
    registry = ToolRegistry([tool])
    schema = registry.schemas()[0]
    assert schema["name"] == "bash"
    assert set(schema["parameters"]["required"]) == {"command", "description"}
    parsed = registry.parse("bash", {"command": "ls", "description": "Lists files", "timeout": 5})
    assert isinstance(parsed, ShellParams) and parsed.timeout == 5


async def test_with_the_real_permission_service_and_default_rules(project: Path, tmp_path: Path) -> None:
    from shellpilot.bus import Bus
    from shellpilot.permission import PermissionService, default_rules, grants_path
    from shellpilot.permission.events import PermissionAsked, PermissionRequest

    data = data_dir()
    bus = Bus()
    service = PermissionService(bus, grants_path(data, project), project_dir=project)
    rules = default_rules(data)
    tool = ShellTool(FAST, data)
    asked: asyncio.Queue[PermissionRequest] = asyncio.Queue()
    bus.listen(lambda event: asked.put_nowait(event.request) if isinstance(event, PermissionAsked) else None)

    def start(command: str, call_id: str, **kw: Any) -> asyncio.Task[Any]:
        ask = service.asker("ses_real", rules)
        ctx = ToolContext(session_id="ses_real", call_id=call_id, project_dir=project, ask=ask)
        return asyncio.create_task(tool.execute(params(command, **kw), ctx))

    async def next_event(call: asyncio.Task[Any]) -> PermissionRequest | None:
        """The call's next permission request, or None when the call ended first. Nothing
        here waits on a prompt nobody answers: a call that asks where it should not fails
        the test at once instead of hanging until pytest's timeout."""
        request = asyncio.ensure_future(asked.get())
        try:
            await asyncio.wait({request, call}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        finally:
            request.cancel()
        if request.done() and not request.cancelled():
            return request.result()
        assert call.done(), "the call neither asked nor finished"
        return None

    async def quiet(call: asyncio.Task[Any]) -> Any:
        request = await next_event(call)
        assert request is None, f"unexpected permission request {request}"
        return call.result()

    async def first_request(call: asyncio.Task[Any]) -> PermissionRequest:
        request = await next_event(call)
        assert request is not None, f"the call ended without asking: {call}"
        assert service.pending("ses_real") == [request]
        return request

    # Read-only inside the project: no prompt at all.
    (project / "a.txt").write_text("x")
    result = await quiet(start("ls", "call_a"))
    assert result.output == "a.txt\n" and service.pending() == []

    # Reading a spill file the way the truncation note says asks nothing at all (the
    # tool-output folder is readable for the read-only set); other data files still ask.
    folder = tool_output_dir(data)
    folder.mkdir(parents=True)
    (folder / "tool_x").write_text("spilled\n")
    assert (await quiet(start(f"grep -n spilled {folder}/tool_x", "call_c"))).output == "1:spilled\n"
    (data / "other").write_text("other\n")
    call = start(f"cat {data}/other", "call_d")
    for permission in ("external_directory", "bash"):
        request = await first_request(call)
        assert request.permission == permission
        service.reply(request.id, "once")
    assert (await quiet(call)).output == "other\n"

    # A workdir outside the project waits for an answer; "reject" stops it before it runs.
    outside = tmp_path / "outside"
    outside.mkdir()
    call = start("touch ran", "call_b", workdir=str(outside))
    request = await first_request(call)
    assert request.permission == "external_directory" and request.patterns == (f"{outside.resolve()}/*",)
    service.reply(request.id, "reject")
    with pytest.raises(PermissionRejected):
        await quiet(call)
    assert not (outside / "ran").exists() and service.pending() == []


async def test_an_unanalysable_command_is_not_allowed_by_a_specific_rule(project: Path) -> None:
    """Tester's hole: ``"git status *": "allow"`` matched the whole unparseable text
    (``*`` spans newlines) and the ``touch`` on its second line ran."""
    from shellpilot.bus import Bus
    from shellpilot.permission import PermissionService, default_rules, grants_path, merge, rules_from_config
    from shellpilot.permission.events import PermissionAsked, PermissionRequest

    data = data_dir()
    bus = Bus()
    service = PermissionService(bus, grants_path(data, project), project_dir=project)
    rules = merge(default_rules(data), rules_from_config({"bash": {"git status *": "allow"}}))
    asked: asyncio.Queue[PermissionRequest] = asyncio.Queue()
    bus.listen(lambda event: asked.put_nowait(event.request) if isinstance(event, PermissionAsked) else None)
    command = "git status --short\ntouch Q4\n'"
    ctx = ToolContext(
        session_id="ses_q4", call_id="call_q4", project_dir=project, ask=service.asker("ses_q4", rules)
    )
    call = asyncio.create_task(ShellTool(FAST, data).execute(params(command), ctx))
    request = await asyncio.wait_for(asked.get(), 30)
    assert command in request.patterns and command not in request.always
    service.reply(request.id, "reject")  # what a session without a terminal answers
    with pytest.raises(PermissionRejected):
        await call
    assert not (project / "Q4").exists()
