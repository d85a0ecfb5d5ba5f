"""The oracle itself: real bash in a real bwrap sandbox, traced, judged against scans.

Each kind of false negative is shown to be found (with a scan that predicts too little)
and not found (with one that predicts enough), so a silent oracle cannot pass.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shellpilot.oracle import Oracle
from shellpilot.oracle.judge import Judgement
from shellpilot.oracle.sandbox import Sandbox
from shellpilot.scanner.scan_result import Scan, ScannedCommand


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    with Oracle(tmp_path_factory.mktemp("oracle")) as built:
        yield built


def _scan(
    oracle: Oracle,
    *argvs: list[str],
    writes: tuple[str, ...] = (),
    dirs: tuple[str, ...] = (),
    unknown: bool = False,
) -> Scan:
    """A scan predicting exactly these commands, writes and dirs (paths relative to the project)."""
    project = oracle.fixture.project
    commands = tuple(ScannedCommand(" ".join(a), tuple(a), a[0] + " *", False, ()) for a in argvs)
    return Scan(
        tuple(c.text for c in commands),
        tuple(c.always for c in commands),
        tuple(dirs),
        unknown,
        ("test",) if unknown else (),
        commands,
        tuple(w if w.startswith("/") or w == "*" else str(project / w) for w in writes),
    )


def _judge(oracle: Oracle, command: str, found: Scan, asks: tuple[str, ...] = ("bash",)) -> Judgement:
    return oracle.judge.judge(oracle.sandbox.run(command), found, list(asks))


def _kinds(judgement: Judgement) -> list[tuple[str, str]]:
    return [(f.kind, f.detail) for f in judgement.findings]


def test_a_command_changes_only_its_throwaway_copy(oracle: Oracle) -> None:
    project, home = oracle.fixture.project, oracle.fixture.home
    run = oracle.sandbox.run("rm -rf /outside victim; echo x > ~/new.txt; mkdir /tmp/t; echo x > /etc/oracle")
    assert {"/outside/secret.txt", "/outside/dir", f"{project}/victim", f"{home}/new.txt", "/tmp/t"} <= set(
        run.changed
    )
    refused = [e.paths for e in run.trace.events if e.error == "EROFS"]
    assert ("/etc/oracle",) in refused  # the rest of the system is read-only
    assert (project / "victim").exists() and (oracle.fixture.outside_src / "secret.txt").exists()
    assert run.status == 1 and not run.timed_out  # the shell's own status: the last write failed


def test_no_network_and_a_timeout(oracle: Oracle) -> None:
    run = oracle.sandbox.run("exec 3<>/dev/tcp/127.0.0.1/22")
    assert run.status != 0  # not even loopback: the sandbox has its own network namespace
    with Sandbox(oracle.fixture, timeout_s=1) as quick:
        slow = quick.run("sleep 30")
        # a deadlock in a new session outlives strace unless the sandbox hunts it down
        stuck = quick.run("flock /outside/l setsid flock /outside/l sleep 31.5 & sleep 0.2")
    assert slow.timed_out and slow.status is None and stuck.timed_out
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and b"31.5" in _cmdline(p)]
    assert left == []


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_an_unpredicted_program_is_an_exec_finding(oracle: Oracle) -> None:
    found = _judge(oracle, "rm victim", _scan(oracle, writes=("victim",)))
    assert ("exec", "rm (rm victim)") in _kinds(found)
    right = _judge(oracle, "rm victim", _scan(oracle, ["rm", "victim"], writes=("victim",)))
    assert right.findings == ()


def test_a_wrapped_program_must_be_predicted_but_internal_helpers_need_not(oracle: Oracle) -> None:
    wrapped = _judge(oracle, "timeout 5 rm victim", _scan(oracle, ["timeout", "5"], writes=("victim",)))
    assert [k for k, _ in _kinds(wrapped)] == ["exec"]
    # tar runs gzip itself: its own implementation, not the command line's
    tar = _judge(
        oracle,
        "tar czf /tmp/a.tgz src",
        _scan(oracle, ["tar", "czf"], writes=("/tmp/a.tgz",), dirs=("/tmp",)),
    )
    assert tar.findings == ()


def test_a_program_an_argument_names_must_be_predicted(oracle: Oracle) -> None:
    """awk's system(), sed's e, ProxyCommand...: a shell running text from the command line."""
    awk = _judge(oracle, "awk 'BEGIN{system(\"rm victim\")}'", _scan(oracle, ["awk"], writes=("victim",)))
    assert {d.split(" ")[0] for k, d in _kinds(awk) if k == "exec"} == {"rm"}  # sh only carries the text
    script = "script -qc 'rm victim' /dev/null"  # $SHELL -c 'rm victim': which shell is script's business
    assert (
        _judge(oracle, script, _scan(oracle, ["script"], ["rm", "victim"], writes=("victim",))).findings == ()
    )
    # an interpreter's inline code is its own: what it runs is the sandbox's to stop
    python = _judge(oracle, "python3 -c 'import os; os.system(\"rm victim\")'", _scan(oracle, ["python3"]))
    assert python.findings == ()


def test_a_project_file_named_like_a_read_only_command_is_not_read_only(oracle: Oracle) -> None:
    fake = _judge(
        oracle, "cp script.sh ls && PATH=.:$PATH ls", _scan(oracle, ["cp"], ["ls"], writes=("ls",)), ()
    )
    assert [k for k, _ in _kinds(fake)] == ["silent"]


def test_an_unpredicted_write_is_a_write_finding(oracle: Oracle) -> None:
    project = oracle.fixture.project
    found = _judge(oracle, "echo x > out.txt", _scan(oracle, ["echo", "x"]))
    assert _kinds(found) == [("write", "<proj>/out.txt")]
    assert (
        _judge(oracle, "echo x > out.txt", _scan(oracle, ["echo", "x"], writes=("out.txt",))).findings == ()
    )
    assert _judge(oracle, "mkdir -p a/b", _scan(oracle, ["mkdir"], writes=(f"{project}/a/b",))).findings == ()
    assert _judge(oracle, "rm src/*.py", _scan(oracle, ["rm"], writes=("src/*.py",))).findings == ()
    assert _judge(oracle, "rm -r src", _scan(oracle, ["rm"], writes=("*",))).findings == ()


def test_an_unpredicted_outside_path_is_a_dir_finding(oracle: Oracle) -> None:
    found = _judge(oracle, "cat docs/secret.txt", _scan(oracle, ["cat", "docs/secret.txt"]))
    assert _kinds(found) == [("dir", "/outside/secret.txt")]  # through the symlink docs -> /outside
    assert _judge(oracle, "cat docs/secret.txt", _scan(oracle, ["cat"], dirs=("/outside",))).findings == ()
    home = _judge(oracle, "cat ~/.ssh/id_rsa", _scan(oracle, ["cat"]))
    assert _kinds(home) == [("dir", "~/.ssh/id_rsa")]
    outside_write = _judge(oracle, "touch /tmp/x", _scan(oracle, ["touch"], writes=("/tmp/x",)))
    assert _kinds(outside_write) == [("dir", "/tmp/x")]  # a write outside the project needs its dir


def test_a_silent_command_must_behave_read_only(oracle: Oracle) -> None:
    found = _judge(oracle, "echo x > f", _scan(oracle, ["echo", "x"], writes=("f",)), asks=())
    assert [k for k, _ in _kinds(found)] == ["silent"]
    quiet = _judge(oracle, "cat README.md", _scan(oracle, ["cat", "README.md"]), asks=())
    assert quiet.findings == () and quiet.read_only and not quiet.false_alarm


def test_an_unknown_scan_needs_no_commands_or_dirs_but_its_writes(oracle: Oracle) -> None:
    found = _judge(oracle, "rm victim; cat /outside/f", _scan(oracle, unknown=True))
    assert _kinds(found) == [("write", "<proj>/victim")]
    star = _judge(oracle, "rm victim; cat /outside/f", _scan(oracle, writes=("*",), unknown=True))
    assert star.findings == ()


def test_git_housekeeping_and_implicit_config_are_not_the_command_s(tmp_path: Path) -> None:
    """git status refreshes .git/index and reads ~/.gitconfig by itself; a benign repo
    (no fsmonitor) runs nothing else."""
    with Oracle(tmp_path, hostile=False) as benign:
        run = benign.sandbox.run("git status")
        assert any(p.endswith("/.git/index") for p in run.changed)
        found = _scan(benign, ["git", "status"])
        judgement = benign.judge.judge(run, found, [])
        assert judgement.findings == () and judgement.read_only


def test_the_hostile_fixture_is_hostile(oracle: Oracle) -> None:
    """The nested repository's fsmonitor really runs under plain git status."""
    run = oracle.sandbox.run("cd sub && git status")
    assert "id" in [p.name for p in run.trace.programs]


def test_the_prompt_mirror_agrees_with_the_real_tool(oracle: Oracle, tmp_path: Path) -> None:
    """prompts.Gate decides the gate's asks with the default rules; the real tool with the
    real permission service asks the same permissions for commands safe to run."""
    from shellpilot.bus import Bus
    from shellpilot.config import Config
    from shellpilot.oracle.prompts import Gate
    from shellpilot.permission import PermissionService, default_rules, grants_path
    from shellpilot.permission.events import PermissionAsked, PermissionRequest
    from shellpilot.tool import ToolContext
    from shellpilot.tool.shell import ShellParams, ShellTool

    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a\n")
    data = tmp_path / "data"
    gate = Gate(project, data)
    tool = ShellTool(Config(), data)
    commands = [
        "ls",
        "cat a.txt 2>/dev/null",
        "echo $HOME",
        "printf '%s\\n' x",
        "echo x > b.txt",
        "cat /etc/hostname",
        "head -c 4 /dev/urandom",
        "ls | wc -l",
        "${X:-true}",
    ]

    async def asked(command: str) -> list[str]:
        bus = Bus()
        service = PermissionService(bus, grants_path(data, project), project_dir=project)
        queue: asyncio.Queue[PermissionRequest] = asyncio.Queue()
        bus.listen(
            lambda event: queue.put_nowait(event.request) if isinstance(event, PermissionAsked) else None
        )
        ctx = ToolContext(
            session_id="s", call_id="c", project_dir=project, ask=service.asker("s", default_rules(data))
        )
        params: Any = ShellParams(command=command, description="d")
        call = asyncio.ensure_future(tool.execute(params, ctx))
        seen: list[str] = []
        while True:
            request = asyncio.ensure_future(queue.get())
            await asyncio.wait({request, call}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
            if not request.done():
                request.cancel()
                assert call.done(), f"{command!r} neither asked nor finished"
                call.result()
                return seen
            seen.append(request.result().permission)
            service.reply(request.result().id, "once")

    for command in commands:
        assert asyncio.run(asked(command)) == gate.asks(gate.plan(command)), command


def test_passing_through_a_directory_on_the_way_is_not_touching_it(oracle: Oracle) -> None:
    # `cd -P lnk` (lnk -> /outside/dir) makes bash stat /outside while it makes the cwd
    # canonical: a scan naming /outside/dir has said enough; one naming nothing has not
    outside = str(oracle.fixture.places["outside"])
    command = "cd -P lnk && pushd /tmp >/dev/null && popd >/dev/null"
    named = _scan(oracle, ["pushd", "/tmp"], ["popd"], dirs=(f"{outside}/dir", "/tmp"))
    assert _judge(oracle, command, named).findings == ()
    nothing = _kinds(_judge(oracle, command, _scan(oracle, ["pushd", "/tmp"], ["popd"], dirs=("/tmp",))))
    assert nothing and all(kind == "dir" and detail.startswith("/outside") for kind, detail in nothing)


def test_a_cd_names_where_the_shell_is_not_the_files_a_program_writes_there(oracle: Oracle) -> None:
    # an interpreter's writes count only when the command line names them; `cd mod` names
    # the directory the shell goes to, not what python then writes in it
    code = "cd mod && python3 -c \"open('made.txt','w').write('x')\""
    assert _judge(oracle, code, _scan(oracle, ["python3", "-c"])).findings == ()
    named = "cd mod && python3 -c \"open('made.txt','w').write('x')\" made.txt"
    found = _judge(oracle, named, _scan(oracle, ["python3", "-c"]))
    assert _kinds(found) == [("write", "<proj>/mod/made.txt")]
