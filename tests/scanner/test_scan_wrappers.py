"""Wrappers are peeled in general, and an unknown shape never hides what runs behind it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

# (command, the real command's pattern, its always-pattern)
WRAPPED = [
    ("taskset -c 0 rm -rf src", "rm -rf src", "rm *"),
    ("taskset 0x1 rm -rf src", "rm -rf src", "rm *"),
    ("chrt 5 rm -rf src", "rm -rf src", "rm *"),
    ("chrt -b 0 rm -rf src", "rm -rf src", "rm *"),
    ("ionice -c3 rm -rf src", "rm -rf src", "rm *"),
    ("ionice -c 2 -n 7 rm -rf src", "rm -rf src", "rm *"),
    ("flock /tmp/l rm -rf src", "rm -rf src", "rm *"),
    ("flock -w 5 /tmp/l rm -rf src", "rm -rf src", "rm *"),
    ("flock /tmp/l -c 'rm -rf src'", "rm -rf src", "rm *"),
    ("firejail --net=none rm -rf src", "rm -rf src", "rm *"),
    ("busybox rm -rf src", "rm -rf src", "rm *"),
    ("script -q -c 'rm -rf src' /dev/null", "rm -rf src", "rm *"),
    ("nix-shell -p hello --run 'rm -rf src'", "rm -rf src", "rm *"),
    ("direnv exec . rm -rf src", "rm -rf src", "rm *"),
    ("parallel rm -rf ::: src", "rm -rf src", "rm *"),
    ("uv run rm -rf src", "rm -rf src", "rm *"),
    ("uv run --with requests rm -rf src", "rm -rf src", "rm *"),
    ("npx -y rm -rf src", "rm -rf src", "rm *"),
    ("pnpm dlx rm -rf src", "rm -rf src", "rm *"),
    ("bunx rm -rf src", "rm -rf src", "rm *"),
    ("poetry run rm -rf src", "rm -rf src", "rm *"),
    ("sudo -u x nice -n 5 timeout 3 rm -rf src", "rm -rf src", "rm *"),
    ("strace -f -o /dev/null rm -rf src", "rm -rf src", "rm *"),
    ("xvfb-run -a rm -rf src", "rm -rf src", "rm *"),
    ("rtk rm -rf src", "rm -rf src", "rm *"),
    # a program the scanner does not know, with the command anywhere among its words
    ("trickle -d 10 rm -rf src", "rm -rf src", "rm *"),
    ("chpst -u nobody rm -rf src", "rm -rf src", "rm *"),
    ("setarch x86_64 rm -rf src", "rm -rf src", "rm *"),
    ("daemonize /bin/rm -rf src", "rm -rf src", "rm *"),
    ("aws-vault exec prod -- rm -rf src", "rm -rf src", "rm *"),
    ("rtk sudo rm -rf src", "rm -rf src", "rm *"),
    ("./tools/run rm -rf src", "rm -rf src", "rm *"),
    ("sg staff 'rm -rf src'", "rm -rf src", "rm *"),
    ("runuser -u nobody -- rm -rf src", "rm -rf src", "rm *"),
]


@pytest.mark.parametrize(("command", "inner", "always"), WRAPPED, ids=[w[0] for w in WRAPPED])
def test_wrappers_are_peeled(tmp_path: Path, command: str, inner: str, always: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert inner in result.patterns, result.patterns
    assert always in result.always
    assert str(tmp_path / "src") in result.writes
    # no always-pattern covers every command behind the wrapper (a wrapper that runs a
    # string, `flock f -c STR`, keeps its own: the string's commands are patterns of their own)
    if " -c " not in command and "--run" not in command and not command.startswith(("parallel", "sg ")):
        assert not any(
            a.count(" ") == 1 and a.endswith(" *") and not a.startswith("rm") for a in result.always
        ), result.always


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(
    "command",
    [
        "taskset -c 0 rm -rf src",
        "chrt -o 0 rm -rf src",
        "ionice -c3 rm -rf src",
        "flock lockfile rm -rf src",
        "flock lockfile -c 'rm -rf src'",
        "script -q -c 'rm -rf src' /dev/null",
    ],
)
def test_bash_runs_the_wrapped_command(tmp_path: Path, command: str) -> None:
    name = command.split()[0]
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")
    (tmp_path / "src").mkdir()
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=20, check=False)
    assert not (tmp_path / "src").exists(), "the wrapper must really run rm for the row to mean anything"
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert "rm -rf src" in result.patterns and str(tmp_path / "src") in result.writes


def test_flock_writes_its_lock_file_and_outside_dirs(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "p"
    project.mkdir()
    result = scan(f"flock {outside}/l rm -rf {outside}", cwd=project, project_dir=project)
    assert str(outside) in result.dirs
    assert str(outside / "l") in result.writes and str(outside) in result.writes
    assert f"rm -rf {outside}" in result.patterns


@pytest.mark.parametrize(
    ("command", "always"),
    [
        ("rtk git status", "git status *"),
        ("mytool build --fast", "mytool build *"),
        ("./run.sh test x", "./run.sh test *"),
        ("mytool --verbose", "mytool --verbose *"),
    ],
)
def test_an_unknown_program_never_gets_a_catch_all_always(tmp_path: Path, command: str, always: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert always in result.always
    assert f"{command.split()[0]} *" not in result.always


def test_wrappers_that_run_nothing_are_the_command(tmp_path: Path) -> None:
    for command, argv0 in [
        ("taskset -p 1234", "taskset"),
        ("flock 9", "flock"),
        ("ionice -p 1", "ionice"),
        ("chrt -m", "chrt"),
        ("script out.log", "script"),
    ]:
        result = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert [c.argv[0] for c in result.commands] == [argv0], command


def test_python_dash_m_is_not_a_wrapper_but_reads_the_modules_options(tmp_path: Path) -> None:
    result = scan("python -m pytest -x", cwd=tmp_path, project_dir=tmp_path)
    assert list(result.patterns) == ["python -m pytest -x"]
    assert list(result.always) == ["python -m pytest *"]


def test_a_wrapped_eval_moves_no_cwd_of_this_shell(tmp_path: Path) -> None:
    # `nice eval 'cd sub'` runs a program named eval in a child (here: none, so nothing):
    # the shell stays put, and what follows runs where it was
    (tmp_path / "sub").mkdir()
    done = subprocess.run(
        ["bash", "-c", "nice eval 'cd sub' 2>/dev/null; pwd"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.strip() == str(tmp_path), "bash must really stay where it was"
    wrapped = scan("nice eval 'cd sub'; touch made", cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "made") in wrapped.writes, wrapped.writes
    plain = scan("eval 'cd sub'; touch made", cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "sub" / "made") in plain.writes, plain.writes


def test_a_program_named_like_a_builtin_wrapper_runs_no_builtin(tmp_path: Path) -> None:
    # `command /usr/bin/command cd sub` runs the program /usr/bin/command, which runs cd
    # in its own child: this shell stays put, so `> made` lands where it was
    (tmp_path / "sub").mkdir()
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "command"  # what Debian's /usr/bin/command does
    program.write_text('#!/bin/sh\ncommand "$@"\n')
    program.chmod(0o755)
    text = f"command {program} cd sub; pwd"
    done = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True)
    assert done.stdout.strip() == str(tmp_path), "bash must really stay where it was"
    for line in (f"command {program} cd sub; > made", f"hash -p {program} zz; command zz cd sub; > made"):
        result = scan(line, cwd=tmp_path, project_dir=tmp_path)
        assert str(tmp_path / "made") in result.writes, (line, result.writes)
    plain = scan("command cd sub; > made", cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "sub" / "made") in plain.writes, plain.writes


# A program given no program to run starts a shell that reads its commands from stdin
BARE_SHELLS = [
    "su <<< 'rm victim'",
    "su - <<< 'rm victim'",
    "su root <<< 'rm victim'",
    "newgrp <<< 'rm victim'",
    "sg root <<< 'rm victim'",
    "unshare -r <<< 'rm victim'",
    "nsenter -t 1 <<< 'rm victim'",
    "fakeroot <<< 'rm victim'",
    "script -q /dev/null <<< 'rm victim'",
    "sudo -s <<< 'rm victim'",
    "doas -s <<< 'rm victim'",
    "chroot / <<< 'rm victim'",
    "nice unshare <<< 'rm victim'",
    "echo 'rm victim' | parallel",
    "echo 'rm victim' | unshare",
    "nix-shell -p hello <<< 'rm victim'",
    # and a command string after the log file, or after options script has
    "script -q /dev/null -c 'rm victim'",
    "script -q -O /dev/null -c 'rm victim'",
    "script -q --log-out /dev/null -c 'rm victim'",
    "script --echo never -qc 'rm victim' /dev/null",
]


@pytest.mark.parametrize("command", BARE_SHELLS)
def test_a_wrapper_without_a_program_runs_a_shell_reading_stdin(tmp_path: Path, command: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert "rm victim" in result.patterns or result.unknown, (result.patterns, result.reasons)


@pytest.mark.parametrize(
    "command",
    [
        "su -s /bin/rm",
        "su --shell=/bin/rm root",
        "su --session-command='rm victim'",
        "echo rm victim | xargs env",
        "echo a | xargs nice",
        "find . -name x | xargs timeout 5",
    ],
)
def test_a_program_named_by_an_option_or_by_input_is_unknown(tmp_path: Path, command: str) -> None:
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown


@pytest.mark.skipif(shutil.which("script") is None or shutil.which("bash") is None, reason="needs script")
def test_script_without_a_command_really_runs_its_input(tmp_path: Path, runs_rm: Callable[..., None]) -> None:
    command = "script -q /dev/null <<< 'rm victim'"
    runs_rm(command, tmp_path, SHELL="/bin/sh")
    assert "rm victim" in scan(command, cwd=tmp_path, project_dir=tmp_path).patterns


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("git -C . push origin HEAD", "git push origin HEAD"),
        ("git -c user.name=x push origin HEAD", "git push origin HEAD"),
        ("git --no-pager push origin HEAD", "git push origin HEAD"),
        ("git --git-dir .git --work-tree=. push", "git push"),
        ("git -P --literal-pathspecs push -f", "git push -f"),
        ("/usr/lib/git-core/git-push origin HEAD", "git push origin HEAD"),
        ("PATH=/usr/lib/git-core:$PATH git-push origin HEAD", "git push origin HEAD"),
        ("npm --prefix . exec -c 'rm victim'", "rm victim"),
        ("npm -s exec -c 'rm victim'", "rm victim"),
        ("uv --directory d run rm victim", "rm victim"),
    ],
)
def test_a_program_s_own_options_before_its_sub_command_hide_nothing(
    tmp_path: Path, command: str, pattern: str
) -> None:
    """Rules are written for `git push *` and `rm *`: git's global options, git's dashed
    program names and npm's options before `exec` must not move the command out of them."""
    assert pattern in scan(command, cwd=tmp_path, project_dir=tmp_path).patterns


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_options_before_push_still_push(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a"}
    env |= {"GIT_COMMITTER_EMAIL": "a@x"}
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], env=env, check=True)
    work = tmp_path / "w"
    subprocess.run(["git", "init", "-q", str(work)], env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=work, env=env, check=True)
    subprocess.run(["git", "remote", "add", "origin", "../remote.git"], cwd=work, env=env, check=True)
    command = "git -C . --no-pager push -q origin HEAD:refs/heads/main"
    subprocess.run(["bash", "-c", command], cwd=work, env=env, check=True, capture_output=True)
    pushed = subprocess.run(
        ["git", "--git-dir", str(tmp_path / "remote.git"), "rev-parse", "main"], env=env, capture_output=True
    )
    assert pushed.returncode == 0  # the push happened
    assert "git push -q origin HEAD:refs/heads/main" in scan(command, cwd=work, project_dir=work).patterns


@pytest.mark.parametrize(
    "command",
    [
        "env --ignore-signal rm victim",
        "env --block-signal rm victim",
        "env --default-signal rm victim",
        "echo a | xargs --replace rm victim",
        "echo a | xargs --eof rm victim",
        "echo a | xargs --max-lines rm victim",
        "unshare -w . rm victim",
        "nsenter -t 1 -r rm victim",
        "nsenter -t 1 --wd rm victim",
    ],
)
def test_an_option_whose_value_is_optional_does_not_swallow_the_program(tmp_path: Path, command: str) -> None:
    """GNU long options with an optional value take it only as `--opt=VALUE`, and
    nsenter's `-r`/`-w` only attached: the next word is the program."""
    assert "rm victim" in scan(command, cwd=tmp_path, project_dir=tmp_path).patterns


@pytest.mark.parametrize("command", ["su -lc 'rm victim'", "su -c'rm victim'", "su -g wheel -c 'rm victim'"])
def test_su_s_command_string_is_found_in_an_option_cluster(tmp_path: Path, command: str) -> None:
    """util-linux su reads its options with getopt: `-lc CMD` and `-cCMD` run CMD."""
    assert "rm victim" in scan(command, cwd=tmp_path, project_dir=tmp_path).patterns
