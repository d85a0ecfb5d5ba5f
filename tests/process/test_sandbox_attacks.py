"""Attacks a hostile model could try from inside the sandbox, each run with a real bwrap."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shellpilot.config import Config
from shellpilot.config.model import SandboxConfig
from shellpilot.paths import config_dir, data_dir, tool_output_dir
from shellpilot.process.bwrap import find_mechanism
from shellpilot.process.gitlinks import gitlink_paths
from shellpilot.process.result import ShellResult
from shellpilot.process.runner import run
from shellpilot.process.sandbox import (
    SandboxProfile,
    hooks_paths,
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
EVIL_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch {marker}; false"\n'


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git as the user would run it later, outside any sandbox."""
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, env={**os.environ, **GIT_ENV}
    )


@pytest.fixture
def outputs(tmp_path: Path) -> Path:
    folder = tmp_path / "tool-output"
    folder.mkdir()
    return folder


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q")
    (project / "README").write_text("hello\n")
    git(project, "add", "README")
    git(project, "commit", "-qm", "init")
    return project


def workspace(project: Path, outputs: Path, **settings: object) -> SandboxProfile:
    return workspace_profile(
        project, output_dir=outputs, tmp_dir=None, settings=SandboxConfig.model_validate(settings)
    )


async def sandboxed(
    command: str, cwd: Path, profile: SandboxProfile, outputs: Path, **kw: object
) -> ShellResult:
    return await run(command, cwd=cwd, sandbox=profile, output_dir=outputs, config=FAST, env=GIT_ENV, **kw)  # type: ignore[arg-type]


async def test_a_sandboxed_command_does_not_see_secret_variables(
    project: Path, outputs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leak-1")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-leak-2")
    monkeypatch.setenv("PGPASSWORD", "leak-3")
    monkeypatch.setenv("SP_PLAIN_VALUE", "visible")
    config = Config.model_validate({"shell": {"env": {"CHOSEN_TOKEN": "given"}}})
    for profile in (read_only_profile(project), workspace(project, outputs)):
        result = await run("env", cwd=project, sandbox=profile, output_dir=outputs, config=config)
        assert result.exit_code == 0
        assert "leak" not in result.output
        assert "SP_PLAIN_VALUE=visible" in result.output
        assert "CHOSEN_TOKEN=given" in result.output  # named in shell.env: the user chose it
    # Without a sandbox (mode off, the user's own shell) the environment is the user's.
    plain = await run("env", cwd=project, output_dir=outputs, config=config)
    assert "OPENAI_API_KEY=sk-leak-1" in plain.output


async def test_workspace_write_cannot_point_the_git_dir_at_a_config_of_its_own(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    (repo / "evil").mkdir()
    (repo / "evil" / "config").write_text(EVIL_CONFIG.format(marker=marker))
    attack = "cp -r .git/objects .git/refs evil/ && echo ../evil > .git/commondir"
    await sandboxed(attack, repo, workspace(repo, outputs), outputs)
    git(repo, "status")
    assert not marker.exists()
    assert git(repo, "status").returncode == 0


@pytest.mark.parametrize(
    "attack",
    [
        "git init -q --bare evil && cat cfg > evil/config && echo 'gitdir: evil' > .git",
        "git init -q . && cat cfg > .git/config.new && mkdir -p evilc && cp -r .git/objects .git/refs evilc/"
        " && cp cfg evilc/config && echo ../evilc > .git/commondir",
    ],
    ids=["pointer-file", "commondir"],
)
async def test_a_new_repository_made_in_the_project_cannot_run_programs_later(
    project: Path, outputs: Path, tmp_path: Path, attack: str
) -> None:
    marker = tmp_path / "ran-outside"
    (project / "cfg").write_text(EVIL_CONFIG.format(marker=marker))
    await sandboxed(attack, project, workspace(project, outputs), outputs)
    git(project, "status")
    assert not marker.exists()


PLANT_NESTED = (
    "git init -q sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.fsmonitor {hook!r}"
    " && git add sub"
)


async def test_a_submodule_repository_planted_in_the_project_is_set_aside(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    hook = f"touch {marker}; false"
    result = await sandboxed(PLANT_NESTED.format(hook=hook), repo, workspace(repo, outputs), outputs)
    git(repo, "status")
    assert not marker.exists()
    (moved,) = (repo / "sub").glob(".git.sandbox-blocked-*")
    assert (moved / "config").is_file()
    assert "the git dir of a submodule checkout" in result.output


async def test_an_existing_submodule_checkout_cannot_be_given_a_config_that_runs_programs(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    git(repo, "init", "-q", "sub")
    git(repo / "sub", "commit", "-q", "--allow-empty", "-m", "s")
    git(repo, "add", "sub")
    git(repo, "commit", "-qm", "sub")
    hook = f"touch {marker}; false"
    await sandboxed(f"git -C sub config core.fsmonitor {hook!r}", repo, workspace(repo, outputs), outputs)
    await sandboxed(
        f"mv sub sub2 && {PLANT_NESTED.format(hook=hook)}", repo, workspace(repo, outputs), outputs
    )
    git(repo, "status")
    assert not marker.exists()
    # An untouched submodule checkout stays where it is.
    unchanged = await sandboxed("true", repo, workspace(repo, outputs), outputs)
    assert "submodule" not in unchanged.output


def test_gitlink_paths_reads_each_index_version(repo: Path) -> None:
    git(repo, "init", "-q", "deep/sub")
    git(repo / "deep" / "sub", "commit", "-q", "--allow-empty", "-m", "s")
    git(repo, "add", "deep/sub")
    for version in ("2", "3", "4"):
        git(repo, "update-index", "--index-version", version)
        assert gitlink_paths((repo / ".git" / "index").read_bytes()) == ["deep/sub"]
    assert gitlink_paths(b"not an index") == []


async def test_a_symlink_planted_in_the_tool_output_folder_is_not_written_through(
    project: Path, outputs: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "outside" / "bashrc"
    victim.parent.mkdir()
    victim.write_text("original\n")
    plant = f"ln -s {victim} {outputs}/call_next && ln -s {victim} {outputs}/call_next-1"
    planted = await sandboxed(plant, project, workspace(project, outputs), outputs)
    assert planted.exit_code == 0 and (outputs / "call_next").is_symlink()
    # A later command of shellpilot's (here unsandboxed) spills its long output for that call.
    small = Config.model_validate({"tool_output": {"max_lines": 5}, "shell": {"drain_ms": 300}})
    result = await run("seq 1 100", cwd=project, output_dir=outputs, call_id="call_next", config=small)
    assert victim.read_text() == "original\n"
    assert result.output_path == str(outputs / "call_next-2")
    assert Path(result.output_path).read_text() == "".join(f"{n}\n" for n in range(1, 101))


@pytest.mark.parametrize("kind", ["read-only", "workspace-write"])
async def test_a_granted_parent_never_makes_shellpilots_own_state_writable(
    project: Path, outputs: Path, kind: str
) -> None:
    data, conf = data_dir(), config_dir()
    grants = data / "grants" / "p.json"
    grants.parent.mkdir(parents=True)
    grants.write_text("{}")
    spills = tool_output_dir(data)
    spills.mkdir(parents=True)
    parent = Path(os.path.commonpath([data, conf]))  # as if the user granted ~ (both live under it)
    base = read_only_profile(project) if kind == "read-only" else workspace(project, spills)
    profile = widened(base, [parent])
    attack = (
        f"echo '{{\"bash\": \"allow\"}}' > {grants}; mkdir -p {conf}; echo '{{}}' > {conf}/shellpilot.json;"
        f" echo other > {parent}/other; echo spill > {spills}/x; true"
    )
    await sandboxed(attack, project, profile, outputs)
    assert grants.read_text() == "{}"
    assert not (conf / "shellpilot.json").exists()
    assert (parent / "other").read_text() == "other\n"  # the grant itself works
    if kind == "workspace-write":
        assert (spills / "x").read_text() == "spill\n"
    assert not profile.can_write(grants) and profile.can_write(parent / "other")


async def test_a_granted_root_does_not_bring_the_hosts_dev_proc_or_sys(project: Path, outputs: Path) -> None:
    profile = widened(workspace(project, outputs), [Path("/")])
    probe = (
        "cat /proc/1/comm; find /dev -maxdepth 1 -type b | wc -l;"
        " [ -w /proc/sys/kernel/hostname ] && echo PROC-SYS-WRITABLE;"
        " [ -w /sys/kernel ] && echo SYS-WRITABLE; true"
    )
    result = await sandboxed(probe, project, profile, outputs)
    lines = result.output.splitlines()
    assert lines[:2] == ["bwrap", "0"]  # its own PID namespace's init; no block devices
    assert "WRITABLE" not in result.output
    written = await sandboxed(f"echo granted > {project.parent}/outside-file", project, profile, outputs)
    assert written.exit_code == 0 and (project.parent / "outside-file").read_text() == "granted\n"


async def test_a_protected_path_that_is_a_symlink_cannot_be_swapped(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    (repo / "githooks").mkdir()
    hooks = repo / ".git" / "hooks"
    subprocess.run(["rm", "-rf", str(hooks)], check=True)
    hooks.symlink_to("../githooks")
    plant = (
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > hook; chmod +x hook; cp hook githooks/pre-commit;"
        " rm .git/hooks && mkdir .git/hooks && cp hook .git/hooks/pre-commit; true"
    )
    result = await sandboxed(plant, repo, workspace(repo, outputs), outputs)
    assert hooks.is_symlink() and os.readlink(hooks) == "../githooks"
    assert not (repo / "githooks" / "pre-commit").exists()  # the link's target stays read-only
    assert "put the link back" in result.output
    (repo / "x").write_text("x")
    git(repo, "add", "x")
    git(repo, "commit", "-qm", "x")
    assert not marker.exists()


async def test_a_git_dir_reached_through_a_symlink_cannot_be_swapped(
    project: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    real = project / "real-git"
    git(project, "init", "-q", "--separate-git-dir", str(real))
    (project / ".git").unlink()
    (project / ".git").symlink_to("real-git")
    (project / "evil.cfg").write_text(EVIL_CONFIG.format(marker=marker))
    swap = "git init -q --bare fake && cp evil.cfg fake/config && rm .git && mv fake .git; true"
    await sandboxed(swap, project, workspace(project, outputs), outputs)
    assert (project / ".git").is_symlink()
    git(project, "status")
    assert not marker.exists()


async def test_a_hooks_folder_set_by_core_hookspath_stays_read_only(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-outside"
    git(repo, "config", "core.hooksPath", ".husky")
    (repo / ".husky").mkdir()
    plant = f"printf '#!/bin/sh\\ntouch {marker}\\n' > .husky/pre-commit && chmod +x .husky/pre-commit"
    result = await sandboxed(plant, repo, workspace(repo, outputs), outputs)
    assert result.exit_code != 0 and not (repo / ".husky" / "pre-commit").exists()
    (repo / "x").write_text("x")
    git(repo, "add", "x")
    git(repo, "commit", "-qm", "x")
    assert not marker.exists()


def test_hooks_paths_reads_git_config_syntax(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(
        '[Core]\n\tbare = false\n  HooksPath = "a dir" ; note\n[core] hooksPath=b\n[alias]\n\thookspath = c\n'
    )
    assert hooks_paths(config) == ["a dir", "b"]
    assert hooks_paths(tmp_path / "missing") == []


async def test_without_network_only_ip_and_netlink_sockets_can_be_made(project: Path, outputs: Path) -> None:
    """AF_VSOCK reaches a VM's hypervisor from any network namespace; only the socket is
    made here, nothing is connected."""
    probe = (
        "import socket\n"
        "for name in ('AF_VSOCK', 'AF_UNIX', 'AF_INET', 'AF_INET6', 'AF_NETLINK'):\n"
        "    kind = socket.SOCK_DGRAM if name == 'AF_NETLINK' else socket.SOCK_STREAM\n"
        "    try:\n"
        "        socket.socket(getattr(socket, name), kind).close(); print(name, 'made')\n"
        "    except OSError as exc:\n"
        "        print(name, 'errno', exc.errno)\n"
    )
    (project / "probe.py").write_text(probe)
    result = await sandboxed("python3 probe.py", project, read_only_profile(project), outputs)
    lines = set(result.output.splitlines())
    assert {"AF_VSOCK errno 1", "AF_UNIX errno 1", "AF_INET made", "AF_NETLINK made"} <= lines


async def test_with_network_unix_sockets_work_but_vsock_does_not(project: Path, outputs: Path) -> None:
    probe = (
        "import socket\n"
        "for name in ('AF_VSOCK', 'AF_UNIX', 'AF_INET'):\n"
        "    try:\n"
        "        socket.socket(getattr(socket, name), socket.SOCK_STREAM).close(); print(name, 'made')\n"
        "    except OSError as exc:\n"
        "        print(name, 'errno', exc.errno)\n"
    )
    (project / "probe.py").write_text(probe)
    result = await sandboxed("python3 probe.py", project, workspace(project, outputs, network=True), outputs)
    assert {"AF_VSOCK errno 1", "AF_UNIX made", "AF_INET made"} <= set(result.output.splitlines())


KEYRING_PROBE = (
    "import ctypes, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "nr = {'x86_64': 248, 'aarch64': 217}[os.uname().machine]\n"
    "KEY_SPEC_USER_KEYRING = -4\n"
    "r = libc.syscall(nr, b'user', b'shellpilot-test-key', b'x', 1, KEY_SPEC_USER_KEYRING)\n"
    "print('add_key', r, ctypes.get_errno())\n"
)


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="no syscall table here")
@pytest.mark.parametrize("network", [False, True])
async def test_the_kernel_keyrings_cannot_be_written(project: Path, outputs: Path, network: bool) -> None:
    """The keyrings are kernel state shared with the host; no namespace here isolates them."""
    (project / "probe.py").write_text(KEYRING_PROBE)
    profile = workspace(project, outputs, network=True) if network else read_only_profile(project)
    result = await sandboxed("python3 probe.py", project, profile, outputs)
    assert "add_key -1 1" in result.output, result.output  # EPERM, and no key was added
    keys = Path("/proc/keys")
    assert not keys.exists() or "shellpilot-test-key" not in keys.read_text()


async def test_an_index_path_leading_out_of_the_project_moves_nothing_there(
    repo: Path, outputs: Path, tmp_path: Path
) -> None:
    """The sandboxed command may write the index; shellpilot's clean-up after the run must
    not act on a path it names outside the worktree (`../victim`)."""
    victim = tmp_path / "victim"
    git(tmp_path, "init", "-q", str(victim))
    craft = (
        "import hashlib, struct\n"
        "data = bytearray(open('.git/index', 'rb').read()[:-20])\n"
        "at = data.find(b'abcdefghi')\n"
        "data[at:at + 9] = b'../victim'\n"
        "open('.git/index', 'wb').write(bytes(data) + hashlib.sha1(bytes(data)).digest())\n"
    )
    (repo / "craft.py").write_text(craft)
    sha = git(repo, "rev-parse", "HEAD").stdout.strip()
    command = f"git update-index --add --cacheinfo 160000,{sha},abcdefghi && python3 craft.py"
    await sandboxed(command, repo, workspace(repo, outputs), outputs)
    assert "../victim" in gitlink_paths((repo / ".git" / "index").read_bytes())
    assert (victim / ".git").is_dir() and not list(tmp_path.glob("victim/.git.sandbox-blocked-*"))


def test_a_set_aside_name_cannot_be_taken_first(tmp_path: Path) -> None:
    """A plant whose set-aside name the command made first would stay in place."""
    from shellpilot.process.sandbox import set_aside

    plant = tmp_path / "shellpilot.json"
    plant.write_text("{}")
    for stamp in range(1000, 1005):
        (tmp_path / f"shellpilot.json.sandbox-blocked-{stamp}" / "x").mkdir(parents=True)
    notes = set_aside([plant], now=1002)
    assert not plant.exists() and "moved it to" in notes[0]
