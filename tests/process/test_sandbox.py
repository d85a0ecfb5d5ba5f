"""The sandbox with a real bwrap: what each profile lets a command write, read and reach."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from pathlib import Path

import pytest

from shellpilot.config import Config
from shellpilot.config.model import SandboxConfig
from shellpilot.process.bwrap import find_mechanism
from shellpilot.process.result import ShellResult
from shellpilot.process.runner import run
from shellpilot.process.sandbox import (
    SandboxProfile,
    git_layout,
    read_only_profile,
    widened,
    workspace_profile,
)

MECHANISM = find_mechanism()
pytestmark = pytest.mark.skipif(
    not MECHANISM.works, reason=f"bwrap cannot run here: {MECHANISM.reason} (fix: {MECHANISM.fix})"
)
FAST = Config.model_validate({"shell": {"kill_grace_ms": 300, "drain_ms": 300}})
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@localhost",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@localhost",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env={**os.environ, **GIT_ENV}
    )
    return done.stdout


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q")
    (project / "README").write_text("hello\n")
    git(project, "add", "README")
    git(project, "commit", "-qm", "init")
    return project


@pytest.fixture
def outputs(tmp_path: Path) -> Path:
    folder = tmp_path / "tool-output"
    folder.mkdir()
    return folder


async def sandboxed(
    command: str, cwd: Path, profile: SandboxProfile, outputs: Path, **kw: object
) -> ShellResult:
    return await run(
        command,
        cwd=cwd,
        sandbox=profile,
        output_dir=outputs,
        config=kw.pop("config", FAST),  # type: ignore[arg-type]
        env=GIT_ENV,
        **kw,  # type: ignore[arg-type]
    )


def snapshot(*folders: Path) -> set[Path]:
    return {p for folder in folders for p in folder.rglob("*")}


# -- read-only ---------------------------------------------------------------------------


async def test_read_only_writes_nothing_anywhere(project: Path, outputs: Path, tmp_path: Path) -> None:
    home = Path.home()
    before = snapshot(project, tmp_path)
    marker = f"sp-ro-{os.getpid()}"
    profile = read_only_profile(project, readable=(outputs,))
    touched = await sandboxed(f"touch x {tmp_path}/y ~/{marker}", project, profile, outputs)
    assert touched.exit_code != 0 and "Read-only file system" in touched.output
    python = await sandboxed("python3 -c \"open('x','w')\"", project, profile, outputs)
    assert python.exit_code == 1 and "Read-only file system" in python.output
    assert snapshot(project, tmp_path) == before
    assert not (home / marker).exists()
    # What was blocked is explained, and what to ask for is named.
    assert "The sandbox (read-only profile) blocked writing to" in python.output
    assert python.sandbox == "read-only" and python.sandbox_request == (str(project),)


async def test_read_only_git_status_does_not_let_a_nested_fsmonitor_write(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    nested = repo / "nested"
    nested.mkdir()
    git(nested, "init", "-q")
    pwned = [repo / "pwned", nested / "pwned", tmp_path / "pwned"]
    hook = "; ".join(f"echo x > {p}" for p in pwned) + "; false"
    git(nested, "config", "core.fsmonitor", hook)
    before = snapshot(repo, tmp_path)
    profile = read_only_profile(repo, readable=(outputs,))
    result = await sandboxed("git -C nested status", repo, profile, outputs)
    assert "Read-only file system" in result.output  # the program ran, and could not write
    assert not any(p.exists() for p in pwned)
    assert snapshot(repo, tmp_path) == before


async def test_read_only_cannot_reach_a_listener_in_the_hosts_namespace(project: Path, outputs: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        result = await sandboxed(f'python3 -c "{probe}"', project, read_only_profile(project), outputs)
        assert result.exit_code == 1 and "Connection refused" in result.output
        with pytest.raises(BlockingIOError):
            server.accept()  # nothing ever connected
        assert result.sandbox_request == ("network",)
        assert "blocked a network connection" in result.output
    finally:
        server.close()


async def test_read_only_cannot_connect_to_a_unix_socket_on_the_host(project: Path, outputs: Path) -> None:
    path = project / "service.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    server.setblocking(False)
    try:
        probe = f"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}')"
        result = await sandboxed(f'python3 -c "{probe}"', project, read_only_profile(project), outputs)
        assert result.exit_code == 1 and "Operation not permitted" in result.output
        with pytest.raises(BlockingIOError):
            server.accept()
        # socketpair stays possible: it reaches nothing outside.
        pair = await sandboxed(
            "python3 -c \"import socket; a, b = socket.socketpair(); print('pair')\"",
            project,
            read_only_profile(project),
            outputs,
        )
        assert pair.output == "pair\n"
    finally:
        server.close()


async def test_read_only_still_reads_project_and_spill_files(project: Path, outputs: Path) -> None:
    (project / "notes.txt").write_text("project text\n")
    (outputs / "tool_1").write_text("spilled text\n")
    profile = read_only_profile(project, readable=(outputs,))
    result = await sandboxed(f"cat notes.txt {outputs}/tool_1", project, profile, outputs)
    assert result.output == "project text\nspilled text\n"


async def test_read_only_has_a_private_tmp_and_tmpdir(project: Path, outputs: Path) -> None:
    name = f"sp-private-{os.getpid()}"
    command = f"echo $TMPDIR; echo hi > /tmp/{name} && cat /tmp/{name}"
    result = await sandboxed(command, project, read_only_profile(project), outputs)
    assert result.output == "/tmp\nhi\n"
    assert not (Path("/tmp") / name).exists()


# -- workspace-write -----------------------------------------------------------------------


def workspace(project: Path, outputs: Path, tmp: Path | None = None, **settings: object) -> SandboxProfile:
    return workspace_profile(
        project, output_dir=outputs, tmp_dir=tmp, settings=SandboxConfig.model_validate(settings)
    )


async def test_workspace_write_lets_the_project_be_written_and_nothing_else(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    profile = workspace(repo, outputs)
    inside = await sandboxed("mkdir -p src && echo code > src/a.py && cat src/a.py", repo, profile, outputs)
    assert inside.exit_code == 0 and (repo / "src" / "a.py").read_text() == "code\n"
    for target in (outside / "x", repo / ".git" / "hooks" / "x", repo / ".git" / "config"):
        result = await sandboxed(f"echo evil > {target}", repo, profile, outputs)
        assert result.exit_code != 0 and result.sandbox_request, (target, result.output)
    assert not (outside / "x").exists() and not (repo / ".git" / "hooks" / "x").exists()
    assert "evil" not in (repo / ".git" / "config").read_text()


async def test_workspace_write_git_add_commit_branch_checkout_work(repo: Path, outputs: Path) -> None:
    profile = workspace(repo, outputs)
    script = (
        "echo more >> README && git add README && git commit -qm change && "
        "git branch topic && git checkout -q topic && git checkout -qb other && git log --oneline"
    )
    result = await sandboxed(script, repo, profile, outputs)
    assert result.exit_code == 0, result.output
    assert git(repo, "log", "--format=%s") == "change\ninit\n"
    assert git(repo, "branch", "--show-current") == "other\n"


async def test_workspace_write_cannot_swap_the_git_dir_for_one_with_its_own_config(
    repo: Path, outputs: Path
) -> None:
    result = await sandboxed("mv .git .git-away", repo, workspace(repo, outputs), outputs)
    assert result.exit_code != 0 and "busy" in result.output.lower()
    assert (repo / ".git" / "HEAD").is_file()


async def test_a_protected_file_the_command_creates_is_set_aside(repo: Path, outputs: Path) -> None:
    result = await sandboxed('echo "{}" > shellpilot.json', repo, workspace(repo, outputs), outputs)
    assert not (repo / "shellpilot.json").exists()
    (moved,) = repo.glob("shellpilot.json.sandbox-blocked-*")
    assert moved.read_text() == "{}\n"
    assert "a protected path the sandbox keeps read-only" in result.output


async def test_workspace_tmp_is_kept_across_a_sessions_commands(
    project: Path, outputs: Path, tmp_path: Path
) -> None:
    session_tmp = tmp_path / "session-tmp"
    profile = workspace(project, outputs, session_tmp)
    first = await sandboxed("echo kept > /tmp/state", project, profile, outputs)
    assert first.exit_code == 0
    second = await sandboxed("cat /tmp/state", project, profile, outputs)
    assert second.output == "kept\n"
    other = await sandboxed("cat /tmp/state", project, workspace(project, outputs, tmp_path / "t2"), outputs)
    assert other.exit_code != 0


async def test_writes_to_home_fail_with_the_explained_denial(project: Path, outputs: Path) -> None:
    target = Path.home() / f".sp-user-site-{os.getpid()}" / "pkg"
    result = await sandboxed(f"mkdir -p {target}", project, workspace(project, outputs), outputs)
    assert result.exit_code != 0 and not target.parent.exists()
    assert "The sandbox (workspace-write profile) blocked writing to" in result.output
    assert str(target.parent) in result.output
    assert result.sandbox_request == (str(Path.home()),)
    assert "you may retry" in result.output


@pytest.mark.parametrize(
    ("command", "blocked"),
    [
        ("echo hi > .git/hooks/pre-commit", ".git/hooks/pre-commit"),  # bash: /bin/bash: line 1: PATH: ...
        ("sh -c 'echo hi > .git/hooks/x'", ".git/hooks/x"),  # dash: sh: 1: cannot create PATH: ...
        ("tee .git/hooks/t < /dev/null", ".git/hooks/t"),  # tee: PATH: ...
        ("git config user.name x", ".git/config"),  # could not write config file PATH: EBUSY
        ("echo > /usr/sp-denied", "/usr/sp-denied"),
    ],
)
async def test_the_denial_names_what_the_command_wrote_not_the_shell_reporting_it(
    repo: Path, outputs: Path, command: str, blocked: str
) -> None:
    result = await sandboxed(command, repo, workspace(repo, outputs), outputs)
    assert result.exit_code != 0
    path = str(repo / blocked) if not blocked.startswith("/") else blocked
    assert f"blocked writing to {path}" in result.output, result.output
    assert result.sandbox_request is not None and "/bin/bash" not in result.sandbox_request
    assert all(not request.startswith(("/bin", "/usr/bin")) for request in result.sandbox_request)


async def test_a_granted_path_becomes_writable(project: Path, outputs: Path, tmp_path: Path) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    profile = widened(workspace(project, outputs), [extra])
    result = await sandboxed(f"echo ok > {extra}/f", project, profile, outputs)
    assert result.exit_code == 0 and (extra / "f").read_text() == "ok\n"


async def test_network_follows_the_workspace_config(project: Path, outputs: Path) -> None:
    probe = "python3 -c \"import socket; socket.socket(socket.AF_UNIX); print('unix ok')\""
    on = await sandboxed(probe, project, workspace(project, outputs, network=True), outputs)
    assert on.output == "unix ok\n"
    off = await sandboxed(probe, project, workspace(project, outputs, network=False), outputs)
    assert off.exit_code == 1 and off.sandbox_request == ("network",)


# -- the kill path --------------------------------------------------------------------------


def _running(cmdline: str) -> list[int]:
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


async def test_timeout_leaves_nothing_alive_not_even_a_setsid_child(project: Path, outputs: Path) -> None:
    sleeper = f"sleep 1000.{os.getpid()}1"
    command = f"setsid {sleeper} & echo started; sleep 1000"
    result = await sandboxed(command, project, workspace(project, outputs), outputs, timeout_ms=1500)
    assert result.timed_out and result.output.startswith("started")
    assert _running(sleeper) == []


async def test_abort_leaves_nothing_alive_not_even_a_setsid_child(project: Path, outputs: Path) -> None:
    sleeper = f"sleep 1000.{os.getpid()}2"
    abort = asyncio.Event()

    def on_output(preview: str) -> None:
        if "started" in preview:
            abort.set()

    result = await sandboxed(
        f"(setsid {sleeper} &); echo started; sleep 1000",
        project,
        read_only_profile(project),
        outputs,
        abort=abort,
        on_output=on_output,
    )
    assert result.aborted
    assert _running(sleeper) == []


async def test_the_command_gets_sigterm_and_time_to_clean_up(project: Path, outputs: Path) -> None:
    script = "trap 'echo cleaned > cleaned.txt; exit 3' TERM; echo started; sleep 1000 & wait"
    result = await sandboxed(script, project, workspace(project, outputs), outputs, timeout_ms=1500)
    assert result.timed_out
    assert (project / "cleaned.txt").read_text() == "cleaned\n"


async def test_background_processes_end_with_the_sandboxed_command(project: Path, outputs: Path) -> None:
    sleeper = f"sleep 1000.{os.getpid()}3"
    result = await sandboxed(f"{sleeper} & echo done", project, workspace(project, outputs), outputs)
    assert result.output == "done\n" and result.background_pids == []
    assert _running(sleeper) == []


# -- pure parts -------------------------------------------------------------------------------


def test_git_layout_of_a_worktree_protects_the_shared_config_and_hooks(repo: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", str(tree))
    gitdirs, protected = git_layout(tree)
    common = (repo / ".git").resolve()
    assert common in gitdirs and any(p.is_relative_to(common / "worktrees") for p in gitdirs)
    assert {common / "hooks", common / "config", tree / ".git"} <= set(protected)


def test_outside_any_repository_a_git_init_cannot_leave_hooks(project: Path) -> None:
    # The whole .git is protected (its hooks and config with it), and HEAD (a bare repository).
    assert git_layout(project) == ((), (project / ".git", project / "HEAD"))


def test_can_write_follows_writable_protected_and_granted(project: Path, outputs: Path) -> None:
    profile = workspace(project, outputs)
    assert profile.can_write(project / "a") and profile.can_write(outputs / "x")
    assert not profile.can_write(project / ".git" / "hooks" / "pre-commit")
    assert not profile.can_write(project / "shellpilot.json")
    assert not profile.can_write(Path("/etc/passwd"))
    granted = widened(profile, [project / ".git" / "hooks"])
    assert granted.can_write(project / ".git" / "hooks" / "pre-commit")
    assert read_only_profile(project).can_write(Path("/tmp/somewhere-private"))
    assert not read_only_profile(project).can_write(project / "a")


@pytest.mark.parametrize(
    "folder", [".claude/commands", ".gemini/commands", ".opencode/command", ".claude/skills"]
)
async def test_another_agents_command_folder_cannot_be_written(
    repo: Path, outputs: Path, folder: str
) -> None:
    """A command file's `allowed-tools` allows commands without asking: a sandboxed command
    may not plant one, in an existing folder or a new one."""
    existing = repo / folder
    existing.mkdir(parents=True)
    result = await sandboxed(f"echo x > {folder}/planted.md", repo, workspace(repo, outputs), outputs)
    assert result.exit_code != 0 and not (existing / "planted.md").exists()
    existing.rmdir()
    await sandboxed(
        f"mkdir -p {folder} && echo x > {folder}/planted.md", repo, workspace(repo, outputs), outputs
    )
    assert not (existing / "planted.md").exists()
