"""``shellpilot run`` end to end: the real CLI against ``ScriptedModelServer`` through the real
SDK providers. In-process (typer's CliRunner, or ``execute`` where a terminal prompt is scripted);
real subprocesses where the process is the point (a real tty, signals).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from shellpilot.cli.app import app
from shellpilot.cli.context import open_context
from shellpilot.cli.run_cmd import RunOptions, execute
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn, WireProtocol

BOTH: list[WireProtocol] = ["openai", "anthropic"]


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


def configure(project: Path, server: ScriptedModelServer, protocol: WireProtocol, **extra: Any) -> None:
    config = {"provider": {"fake": server.provider_config(protocol)}, "model": "fake/test-model", **extra}
    (project / "shellpilot.json").write_text(json.dumps(config))


@dataclass(frozen=True)
class Done:
    """How one CLI call ended: its exit status and what it wrote to stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def cli(project: Path, *args: str, stdin: str | None = None) -> Done:
    """``shellpilot ARGS --dir PROJECT`` in this process, without provider keys in the environment."""
    result = CliRunner().invoke(
        app,
        [*args, "--dir", str(project)],
        input=stdin,
        env={"OPENAI_API_KEY": None, "ANTHROPIC_API_KEY": None},
        catch_exceptions=False,
    )
    return Done(result.exit_code, result.stdout, result.stderr)


def bash(command: str, **extra: Any) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run a command", **extra})


@pytest.mark.parametrize("protocol", BOTH)
def test_model_runs_allowed_bash_and_sees_the_output(
    project: Path, server: ScriptedModelServer, protocol: WireProtocol
) -> None:
    configure(project, server, protocol, permission={"bash": {"echo *": "allow"}})
    server.add(Turn(text="Checking.", tool_calls=[bash("echo the-output-42")]), Turn(text="It printed 42."))
    done = cli(project, "run", "what does it print?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Checking.\nIt printed 42.\n"
    assert "$ echo the-output-42" in done.stderr and "the-output-42" in done.stderr
    [result] = server.requests[1].tool_results()
    assert result.content.strip() == "the-output-42"
    assert "bash" in server.requests[0].tool_names()


def test_no_terminal_rejects_unless_allowed(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(Turn(tool_calls=[bash("touch made.txt")]))
    rejected = cli(project, "run", "make a file")
    assert rejected.returncode == 4 and not (project / "made.txt").exists()
    assert "--allow" in rejected.stderr and len(server.requests) == 1
    server.add(Turn(tool_calls=[bash("touch made.txt")]), Turn(text="made"))
    allowed = cli(project, "run", "--allow", "touch *", "make a file")
    assert allowed.returncode == 0, allowed.stderr
    assert (project / "made.txt").exists()


def test_yes_allows_and_message_comes_on_stdin(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(Turn(tool_calls=[bash("mkdir built")]), Turn(text="built it"))
    done = cli(project, "run", "--yes", stdin="please build\n")
    assert done.returncode == 0, done.stderr
    assert (project / "built").is_dir()
    assert server.requests[0].user_texts()[0] == "please build"


def _scripted_reader(answers: list[str]) -> Any:
    def read_line(prompt: str) -> str:
        return answers.pop(0)

    return read_line


def test_terminal_prompt_always_then_reject_with_message(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(
        Turn(tool_calls=[bash("touch a.txt")]),
        Turn(tool_calls=[bash("touch b.txt")]),  # covered by the "always" grant: no prompt
        Turn(text="both made"),
    )
    answers = ["a"]
    out, err = io.StringIO(), io.StringIO()
    opts = RunOptions(message="make files", directory=str(project), interactive=True)
    code = execute(RunOptions(**{**opts.__dict__, "read_line": _scripted_reader(answers)}), out, err)
    assert code == 0 and answers == []
    assert (project / "a.txt").exists() and (project / "b.txt").exists()
    server.add(Turn(tool_calls=[bash("mkdir out")]), Turn(text="ok, using /tmp"))
    answers = ["r", "use /tmp instead"]
    code = execute(
        RunOptions(
            message="make a dir",
            directory=str(project),
            interactive=True,
            cont=True,
            read_line=_scripted_reader(answers),
        ),
        out,
        err,
    )
    assert code == 0 and answers == [] and not (project / "out").exists()
    feedback = server.requests[-1].tool_results()[-1]
    assert "use /tmp instead" in feedback.content
    assert out.getvalue().endswith("ok, using /tmp\n")


def _read_until(stream: Any, text: str, seen: str, count: int) -> str:
    """Read ``stream`` (a pipe) until ``text`` appears ``count`` times in all that was read."""
    deadline = time.monotonic() + 30
    while seen.count(text) < count:
        assert time.monotonic() < deadline, f"timed out waiting for {text!r} in:\n{seen}"
        ready, _, _ = select.select([stream], [], [], 0.1)
        if ready:
            chunk = os.read(stream.fileno(), 65536).decode("utf-8", "replace")
            assert chunk, f"CLI ended early:\n{seen}"
            seen += chunk
    return seen


def test_terminal_prompt_on_a_real_tty(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(
        Turn(tool_calls=[bash("touch t1.txt")]),  # once
        Turn(tool_calls=[bash("touch t2.txt")]),  # always: grants "touch *"
        Turn(tool_calls=[bash("touch t3.txt")]),  # no prompt
        Turn(tool_calls=[bash("mkdir d")]),  # reject with a message
        Turn(text="Made three files, no directory."),
    )
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellpilot", "run", "--dir", str(project), "make files"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(slave)
    try:
        seen = _read_until(proc.stderr, "Allow?", "", 1)
        os.write(master, b"o\n")
        seen = _read_until(proc.stderr, "Allow?", seen, 2)
        os.write(master, b"a\n")
        seen = _read_until(proc.stderr, "Allow?", seen, 3)
        os.write(master, b"r\n")
        seen = _read_until(proc.stderr, "Message for the model", seen, 1)
        os.write(master, b"no directories please\n")
        out, _ = proc.communicate(timeout=30)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, seen
    assert out.decode().strip() == "Made three files, no directory."
    assert "pattern     touch t3.txt" not in seen and "pattern     mkdir d" in seen
    assert all((project / f"t{i}.txt").exists() for i in (1, 2, 3)) and not (project / "d").exists()
    feedback = server.requests[4].tool_results()[-1]
    assert "no directories please" in feedback.content


def test_denied_call_goes_back_to_the_model(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai", permission={"bash": {"rm *": "deny"}})
    (project / "keep.txt").write_text("x")
    server.add(Turn(tool_calls=[bash("rm keep.txt")]), Turn(text="I may not delete it."))
    done = cli(project, "run", "--yes", "delete keep.txt")
    assert done.returncode == 0, done.stderr
    assert (project / "keep.txt").exists()
    [denied] = server.requests[1].tool_results()
    assert 'denies "bash" for "rm keep.txt"' in denied.content


def test_plan_agent_cannot_write_even_with_yes(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(
        Turn(tool_calls=[bash("echo hi > plan.txt")]),
        Turn(tool_calls=[bash("mkdir notes && ls")]),
        Turn(tool_calls=[bash("ls")]),
        Turn(text="I may only read."),
    )
    done = cli(project, "run", "--agent", "plan", "--yes", "write a plan file")
    assert done.returncode == 0, done.stderr
    assert not (project / "plan.txt").exists() and not (project / "notes").exists()
    [first] = server.requests[1].tool_results()
    assert 'denies "edit" for "plan.txt"' in first.content
    second = server.requests[2].tool_results()[-1]
    assert 'denies "edit" for "notes"' in second.content
    listing = server.requests[3].tool_results()[-1]
    assert "shellpilot.json" in listing.content  # reading still works


def test_review_subtask_runs_in_a_child_session_and_asks(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    server.add(
        Turn(tool_calls=[bash("touch reviewed.txt")]),  # the child (build agent in a child session)
        Turn(text="Child: looks fine."),
        Turn(text="Review summary: fine."),  # the parent continues
    )
    done = cli(project, "run", "--allow", "touch *", "/review", "HEAD~1")
    assert done.returncode == 0, done.stderr
    assert (project / "reviewed.txt").exists()
    assert done.stdout.strip() == "Review summary: fine."
    child_prompt = server.requests[0].user_texts()[0]
    assert "Input: HEAD~1" in child_prompt and "task" not in server.requests[0].tool_names()
    parent = server.requests[2]
    [task_result] = parent.tool_results()
    assert "Child: looks fine." in task_result.content and "task_id: ses_" in task_result.content
    child_id = task_result.content.split("task_id: ", 1)[1].split()[0]
    with open_context(directory=project) as ctx:
        child = ctx.sessions.get(child_id)
        assert child.parent_id is not None and child.title.endswith("(@build subagent)")
        [bash_part] = [p for m in ctx.sessions.messages(child_id) for p in m.parts if p.type == "tool"]
        assert bash_part.state.status == "completed"


SCHEMA = json.dumps({"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]})


def _result_line(stdout: str) -> dict[str, Any]:
    last: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    assert last["type"] == "result"
    return last


RATE = {"rate": {"template": "Rate $ARGUMENTS from 1 to 10"}}


@pytest.mark.parametrize("protocol", BOTH)
def test_command_with_valid_structured_output(
    project: Path, server: ScriptedModelServer, protocol: WireProtocol
) -> None:
    configure(project, server, protocol, command=RATE)
    server.add(Turn(tool_calls=[ToolCall("structured_output", {"score": 7})]))
    valid = cli(project, "run", "--schema", SCHEMA, "--format", "json", "/rate", "the code")
    assert valid.returncode == 0, valid.stderr
    assert _result_line(valid.stdout)["structured"] == {"score": 7}
    assert server.requests[0].tool_choice() == "required"
    assert "structured_output" in server.requests[0].tool_names()
    # One argv word holding a space stays one argument: quoted in $ARGUMENTS, as `render` shows.
    assert server.requests[0].user_texts()[0] == 'Rate "the code" from 1 to 10'


def test_command_with_structured_output_retry_and_text_only(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server, "openai", command=RATE)
    server.add(
        Turn(tool_calls=[ToolCall("structured_output", {"score": "high"})]),
        Turn(tool_calls=[ToolCall("structured_output", {"score": 9})]),
    )
    retried = cli(project, "run", "--schema", SCHEMA, "--command", "rate", "again")
    assert retried.returncode == 0, retried.stderr
    assert json.loads(retried.stdout.strip().splitlines()[-1]) == {"score": 9}
    [invalid] = server.requests[-1].tool_results()
    assert "'high' is not of type 'integer'" in invalid.content

    server.add(Turn(text="I think 8."))
    text_only = cli(project, "run", "--schema", SCHEMA, "--format", "json", "/rate", "once more")
    assert text_only.returncode == 1
    assert _result_line(text_only.stdout)["error"]["name"] == "StructuredOutputError"


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_during_a_long_tool_call(
    project: Path, server: ScriptedModelServer, signum: signal.Signals, status: int
) -> None:
    configure(project, server, "openai")
    # A unique argument finds the sleep from outside (inside the sandbox's PID namespace $$
    # is not the host's pid).
    token = f"60.{os.getpid()}{signum.value}"
    long = bash(f"echo started; echo $$ > pid.txt; sleep {token}; echo finished", timeout=120_000)
    server.add(Turn(tool_calls=[long]))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellpilot", "run", "--yes", "--dir", str(project), "wait a minute"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    seen = ""
    while "started" not in seen:
        line = proc.stderr.readline()
        assert line, f"CLI ended early: {seen}"
        seen += line
    while not (project / "pid.txt").exists() or not (project / "pid.txt").read_text().strip():
        time.sleep(0.02)
    proc.send_signal(signum)
    _, rest = proc.communicate(timeout=20)
    assert proc.returncode == status, seen + rest  # SIGTERM: 143, like `shellpilot shell`
    # the tool part and the turn say why: Ctrl-C is the user's abort, SIGTERM is named
    why = "terminated by SIGTERM" if signum == signal.SIGTERM else "aborted by the user"
    assert "\nfinished\n" not in seen + rest and f"Tool execution {why}." in rest, rest
    assert _processes_running(f"sleep {token}") == []
    assert len(server.requests) == 1
    with closing(sqlite3.connect(Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db")) as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT body FROM part WHERE type = 'tool'")]
    errors = [p["state"]["error"] for p in stored if p["state"]["status"] == "error"]
    assert errors and errors[0].startswith(f"Tool execution {why}."), errors


def _processes_running(cmdline: str) -> list[int]:
    """Pids whose command line is exactly ``cmdline`` (argv joined by spaces)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            if b" ".join(argv).decode(errors="replace") == cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("protocol", BOTH)
def test_provider_500_then_success(
    project: Path, server: ScriptedModelServer, protocol: WireProtocol
) -> None:
    configure(project, server, protocol)
    server.add(Turn(error_status=500, error_message="upstream hiccup"), Turn(text="Recovered."))
    done = cli(project, "run", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Recovered.\n" and "retry 1" in done.stderr
    assert len(server.requests) == 2


@pytest.mark.parametrize("protocol", BOTH)
def test_history_includes_the_users_direct_shell(
    project: Path, server: ScriptedModelServer, protocol: WireProtocol
) -> None:
    configure(project, server, protocol)
    with open_context(directory=project) as ctx:  # the user's own shell, as `shellpilot shell` does
        session = ctx.sessions.create(project)
        asyncio.run(ctx.sessions.shell(session.id, "echo user-ran-this"))
    server.add(Turn(text="You ran echo."))
    done = cli(project, "run", "--continue", "what did I just run?")
    assert done.returncode == 0, done.stderr
    request = server.requests[0]
    assert any("executed by the user" in t for t in request.user_texts())
    [result] = request.tool_results()
    assert "user-ran-this" in result.content
    assert request.user_texts()[-1] == "what did I just run?"


def test_no_provider_configured_is_a_clear_message(project: Path) -> None:
    done = cli(project, "run", "hello")
    assert done.returncode == 3
    assert "Traceback" not in done.stderr
    assert "No model provider is configured" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert "http://localhost:11434/v1" in done.stderr


def test_unknown_command_fails_before_anything_runs(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    done = cli(project, "run", "/reveiw", "HEAD")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert 'Command not found: "reveiw"' in done.stderr and "review" in done.stderr
    assert server.requests == []
    with open_context(directory=project) as ctx:
        assert ctx.sessions.list(project) == []


def test_run_and_render_give_a_command_the_same_arguments(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai")
    (project / ".shellpilot" / "command").mkdir(parents=True)
    (project / ".shellpilot" / "command" / "ph.md").write_text("1=[$1] 2=[$2] 3=[$3] all=[$ARGUMENTS]")
    server.add(Turn(text="ok"))
    done = cli(project, "run", "/ph", "a b", "it's", "c")
    assert done.returncode == 0, done.stderr
    rendered = cli(project, "command", "render", "ph", "a b", "it's", "c")
    expected = '1=[a b] 2=[it\'s] 3=[c] all=["a b" "it\'s" c]'
    assert rendered.stdout.strip() == expected
    assert server.requests[0].user_texts()[-1] == expected


def test_no_terminal_hint_names_the_refused_pattern_and_following_it_works(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server, "openai")
    server.add(Turn(tool_calls=[bash("ls; echo hi > made.txt")]))
    rejected = cli(project, "run", "make a file")
    assert rejected.returncode == 4
    assert "--allow 'echo *'" in rejected.stderr and "'ls *'" not in rejected.stderr
    assert "not allowed without a terminal" in rejected.stderr
    server.add(Turn(tool_calls=[bash("ls; echo hi > made.txt")]), Turn(text="made"))
    allowed = cli(project, "run", "--allow", "echo *", "make a file")
    assert allowed.returncode == 0, allowed.stderr
    assert (project / "made.txt").read_text() == "hi\n"


def test_command_block_without_a_terminal_says_why(project: Path, server: ScriptedModelServer) -> None:
    configure(project, server, "openai", command={"mk": {"template": "Made: !`touch made`"}})
    server.add(Turn(text="ok"))
    done = cli(project, "run", "/mk")
    reason = "not allowed without a terminal (pass --yes or --allow 'touch *')"
    assert server.requests[0].user_texts()[-1] == f"Made: [shell block not run: {reason}]"
    assert "rejected rejected" not in done.stderr and not (project / "made").exists()


def test_missing_or_unreadable_file_is_a_usage_error_before_anything_runs(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server, "openai")
    done = cli(project, "run", "-f", "nonexist.py", "look")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--file nonexist.py: no such file" in done.stderr
    if os.geteuid() != 0:
        secret = project / "secret.py"
        secret.write_text("x")
        secret.chmod(0)
        done = cli(project, "run", "-f", "secret.py", "look")
        assert done.returncode == 2 and "--file secret.py: cannot read" in done.stderr
    assert server.requests == []
    with open_context(directory=project) as ctx:
        assert ctx.sessions.list(project) == []


def test_command_file_cannot_attach_files_outside_the_project_unasked(
    project: Path, server: ScriptedModelServer
) -> None:
    (project.parent / "secret.txt").write_text("TOP-SECRET-42\n")
    configure(project, server, "openai", command={"leak": {"template": "Summarise @../secret.txt"}})
    server.add(Turn(text="nothing to see"))
    done = cli(project, "run", "/leak")  # no terminal, no --yes: the external_directory ask is refused
    assert done.returncode == 0, done.stderr
    sent = json.dumps(server.requests[0].messages)
    assert "TOP-SECRET-42" not in sent and "Summarise @../secret.txt" in sent
    assert "not allowed without a terminal" in done.stderr


def test_escapes_in_a_model_command_never_reach_the_terminal_raw(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server, "openai")
    sneaky = "echo safe\x1b[8m; touch sneaky.txt\x1b[0m \x1b]0;title\x07"
    server.add(Turn(text="ok\x1b[2K", tool_calls=[bash(sneaky)]))
    refused = cli(project, "run", "do it")
    assert refused.returncode == 4 and not (project / "sneaky.txt").exists()
    assert "\x1b" not in refused.stdout + refused.stderr and "\x07" not in refused.stderr
    assert "$ echo safe␛[8m; touch sneaky.txt␛[0m ␛]0;title␇" in refused.stderr


def test_a_broken_grants_file_is_set_aside_with_a_warning_and_the_run_goes_on(
    project: Path, server: ScriptedModelServer
) -> None:
    from shellpilot.permission.grants import grants_path

    path = grants_path(Path(os.environ["SHELLPILOT_DATA_DIR"]), project)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"version": 1, "grants": [{"permission": "bash", "pattern": "\xff"}]}')
    configure(project, server, "openai")
    server.add(Turn(text="fine"))
    done = cli(project, "run", "hello")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert f"warning: {path}:1: the grants file is not valid UTF-8" in done.stderr
    [aside] = path.parent.glob(f"{path.name}.broken-*")
    assert str(aside) in done.stderr and b"\xff" in aside.read_bytes()


def test_a_progress_bar_shows_live_on_a_terminal_before_its_line_ends(
    project: Path, server: ScriptedModelServer
) -> None:
    configure(project, server, "openai", permission={"bash": "allow"})
    wait = "while [ ! -e go ]; do sleep 0.05; done"
    command = f"printf 'progress %d%%' 42; {wait}; printf '\\rprogress %d%%\\n' 100; echo fin''ished"
    server.add(Turn(tool_calls=[bash(command)]), Turn(text="done"))
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "shellpilot", "run", "--dir", str(project), "show progress"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    try:
        # The command waits for "go": "progress 42%" can only have come from the live view
        # (the command's own text, echoed above it, says "progress %d%%").
        seen = _read_pty_until(master, "progress 42%", "")
        (project / "go").touch()
        seen = _read_pty_until(master, "finished", seen)
        out, _ = proc.communicate(timeout=30)
    finally:
        os.close(master)
        (project / "go").touch()  # a failed wait must not leave the command looping forever
        if proc.poll() is None:
            proc.terminate()  # SIGTERM: shellpilot stops its command's process group itself
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    assert proc.returncode == 0, seen
    assert out.decode().strip() == "done"
    assert "\r\x1b[Kprogress 100%\r\n" in seen  # the live line redrawn with its final state


def _read_pty_until(master: int, text: str, seen: str) -> str:
    """Read a pty's master side until ``text`` appears (bounded by 30 s, a hang guard)."""
    deadline = time.monotonic() + 30
    while text not in seen:
        assert time.monotonic() < deadline, f"timed out waiting for {text!r} in:\n{seen!r}"
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536).decode("utf-8", "replace")
            except OSError:
                chunk = ""
            assert chunk, f"CLI ended early:\n{seen!r}"
            seen += chunk
    return seen
