"""Programs the read-only set lets run with no prompt, made to run another program or to
write a file by their own options, operands or the files they read from the project.

Each form first runs in real bash and must really run the project's program (it leaves a
mark) or write the file; the default policy must then ask. A plain use of the same
program beside it must still run with no prompt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.oracle.prompts import Gate

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@localhost",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@localhost",
    "GIT_PAGER": "cat",
}


def _bash(folder: Path, command: str) -> subprocess.CompletedProcess[str]:
    """``command`` run by real bash in ``folder`` (no user or system git config)."""
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
        env={**os.environ, **GIT_ENV, "PATH": "/usr/bin:/bin"},
    )


def _marker(folder: Path, name: str, mark: Path) -> Path:
    """An executable ``folder/name`` that appends a line to ``mark`` when it runs."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f'#!/bin/sh\necho "ran $0" >> {mark}\n')
    program.chmod(0o755)
    return program


def _repo(folder: Path) -> Path:
    """A git repository at ``folder`` with one committed file ``f``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "f").write_text("a\n")
    done = _bash(folder, "git init -q . && git add f && git commit -qm init")
    assert done.returncode == 0, done.stderr
    return folder


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@needs_git
@pytest.mark.parametrize("command", ["git status", "git diff", "git status --short"])
def test_a_hook_git_runs_when_reading_asks(tmp_path: Path, command: str) -> None:
    """`git status` and `git diff` refresh stale stat data and write the index back;
    every index write runs `.git/hooks/post-index-change`."""
    project = _repo(tmp_path / "proj")
    mark = tmp_path / "mark"
    _marker(project / ".git" / "hooks", "post-index-change", mark)
    os.utime(project / "f", (1_000_000_000, 1_000_000_000))  # as unpacked from an archive
    _bash(project, command)
    assert mark.exists(), "git must really run the hook"
    gate = Gate(project, tmp_path / "data")
    assert gate.asks(gate.plan(command)) != []


@needs_git
def test_a_hook_of_a_linked_worktrees_common_dir_asks(tmp_path: Path) -> None:
    """A linked worktree's `.git` file names a git dir whose `commondir` holds the hooks."""
    main = _repo(tmp_path / "main")
    mark = tmp_path / "mark"
    _marker(main / ".git" / "hooks", "post-index-change", mark)
    project = tmp_path / "proj"
    assert _bash(main, f"git worktree add -q {project}").returncode == 0
    mark.unlink(missing_ok=True)
    os.utime(project / "f", (1_000_000_000, 1_000_000_000))
    _bash(project, "git status")
    assert mark.exists(), "git must really run the common dir's hook"
    gate = Gate(project, tmp_path / "data")
    assert gate.asks(gate.plan("git status")) != []


@needs_git
def test_other_hooks_leave_reading_git_silent(tmp_path: Path) -> None:
    """Commit hooks (pre-commit and the samples) never run for a reading command."""
    project = _repo(tmp_path / "proj")
    mark = tmp_path / "mark"
    for name in ("pre-commit", "post-checkout", "reference-transaction", "pre-auto-gc"):
        _marker(project / ".git" / "hooks", name, mark)
    os.utime(project / "f", (1_000_000_000, 1_000_000_000))
    gate = Gate(project, tmp_path / "data")
    for command in ("git status", "git diff", "git log -p", "git branch", "git ls-files"):
        _bash(project, command)
        assert gate.asks(gate.plan(command)) == [], command
    assert not mark.exists()


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, outside, mark): the project holds `a.txt`, a program `tools/run` that
    appends to `mark` and a sed script `s.sed` that runs it; `outside` is empty."""
    project = tmp_path / "proj"
    outside = tmp_path / "outside"
    mark = tmp_path / "mark"
    project.mkdir()
    outside.mkdir()
    (project / "a.txt").write_text("b\na\n")
    _marker(project / "tools", "run", mark)
    (project / "s.sed").write_text("1e ./tools/run\n")
    return project, outside, mark


def _granted(project: Path, tmp_path: Path, program: str) -> Gate:
    """The default policy after the user answered "always" for `program *`."""
    from shellpilot.permission.rules import Rule

    gate = Gate(project, tmp_path / "data")
    gate.rules.append(Rule("bash", f"{program} *", "allow", "user"))
    return gate


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("sort --outp={O}/x a.txt", "x"),
        ("sort --o={O}/x a.txt", "x"),
        ("sort --outp {O}/x a.txt", "x"),
        ("shuf --outp={O}/x a.txt", "x"),
        ("shuf --output={O}/x a.txt", "x"),
        ("sed --in='{O}/*' p a.txt", "a.txt"),
        ("sed --in-place='{O}/*' p a.txt", "a.txt"),
        ("sed -n --exp='w {O}/x' a.txt", "x"),
        ("tar --cr -f {O}/x a.txt", "x"),
        ("cp --targ={O} a.txt", "a.txt"),
        ("install --dir {O}/x", "x"),
        ("env --ch={O} touch x", "x"),
    ],
)
def test_abbreviated_long_options_that_write_outside_ask(
    places: tuple[Path, Path, Path], tmp_path: Path, command: str, written: str
) -> None:
    """getopt_long takes any unambiguous prefix of a long option (`--outp` is `--output`,
    `--in` is `--in-place`, `--ch` is env's `--chdir`): the file really lands outside,
    so even with the program granted, the outside directory is asked."""
    project, outside, _ = places
    command = command.replace("{O}", str(outside))
    program = command.split()[0]
    done = _bash(project, command)
    assert (outside / written).exists(), f"bash must really write outside: {done.stderr}"
    gate = _granted(project, tmp_path, program)
    assert "external_directory" in gate.asks(gate.plan(command))


@pytest.mark.parametrize(
    "command",
    [
        "sed --exp='1e ./tools/run' a.txt",
        "sed --e='1e ./tools/run' a.txt",
        "sed --fi=s.sed a.txt",
        "env --sp=./tools/run",
        "env --split-s=./tools/run",
        "split --filt=./tools/run a.txt",
    ],
)
def test_abbreviated_long_options_that_run_a_program_ask(
    places: tuple[Path, Path, Path], tmp_path: Path, command: str
) -> None:
    """`sed --exp`/`--fi` (a script that runs `e`), `env --sp` (`--split-string`):
    the project's program really runs; even with the program granted, it is asked."""
    project, _, mark = places
    _bash(project, command)
    assert mark.exists(), "bash must really run the project's program"
    gate = _granted(project, tmp_path, command.split()[0])
    assert gate.asks(gate.plan(command)) != []


def test_full_long_options_inside_stay_silent(places: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """The same programs with their options in full, writing inside the project: a
    granted program runs with no prompt, a read-only one with none at all."""
    project, _, _ = places
    for program, command in (
        ("sort", "sort --output=sorted.txt a.txt"),
        ("sort", "sort --outp=sorted.txt a.txt"),
        ("sed", "sed --in-place=.bak p a.txt"),
        ("tar", "tar --create -f a.tar a.txt"),
        ("cp", "cp --target-directory=tools a.txt"),
    ):
        gate = _granted(project, tmp_path, program)
        assert gate.asks(gate.plan(command)) == [], command
    gate = Gate(project, tmp_path / "data")
    for command in ("sed --expression=p a.txt", "sed -n --expression=1p a.txt", "grep --count a a.txt"):
        assert gate.asks(gate.plan(command)) == [], command


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, Path]:
    """(project, mark): a git repository with two commits of `a.txt`, a program
    `tools/run` that appends to `mark`, and a hooks folder `hk` whose post-checkout does."""
    project = _repo(tmp_path / "proj")
    mark = tmp_path / "mark"
    (project / "a.txt").write_text("a\n")
    assert _bash(project, "git add a.txt && git commit -qm two").returncode == 0
    _marker(project / "tools", "run", mark)
    _marker(project / "hk", "post-checkout", mark)
    return project, mark


@needs_git
@pytest.mark.parametrize(
    ("granted", "command"),
    [
        ("git grep", "git grep -O./tools/run a"),
        ("git grep", "git grep --open=./tools/run a"),
        ("git rebase", "git rebase -x ./tools/run HEAD~1"),
        ("git ls-remote", "git ls-remote --upl=./tools/run ."),
        ("git fetch", "git fetch --upload-pack=./tools/run ."),
        ("git archive", "git archive --remote=. --exec=./tools/run HEAD"),
        ("git clone", "git clone -q -c core.hooksPath={P}/hk . copy"),
    ],
)
def test_git_options_that_run_a_command_ask(
    history: tuple[Path, Path], tmp_path: Path, granted: str, command: str
) -> None:
    """git subcommands whose option value is a command git runs (`grep -O` a pager,
    `rebase -x`, a transport's `--upload-pack`/`--exec`, through a shell even for a
    local repository; `clone -c core.hooksPath` a hook): it really runs, and even with
    the subcommand granted ("always"), the line is asked."""
    project, mark = history
    command = command.replace("{P}", str(project)).replace("{T}", str(tmp_path))
    _bash(project, command + " </dev/null")
    assert mark.exists(), "git must really run the project's program"
    gate = _granted(project, tmp_path, granted)
    assert gate.asks(gate.plan(command)) != []


@needs_git
def test_plain_granted_git_subcommands_stay_silent(history: tuple[Path, Path], tmp_path: Path) -> None:
    project, _ = history
    for granted, command in (
        ("git grep", "git grep -n a"),
        ("git grep", "git grep -e a -- a.txt"),
        ("git fetch", "git fetch ."),
        ("git rebase", "git rebase HEAD~1"),
    ):
        gate = _granted(project, tmp_path, granted)
        assert gate.asks(gate.plan(command)) == [], command


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("link a.txt {O}/x", "x"),
        ("gpg --batch -q --homedir {T}/gnupg -o {O}/x --store a.txt", "x"),
        ("gpg --batch -q --homedir {T}/gnupg --outp {O}/x --store a.txt", "x"),
        ("yq -y -i .b=1 {O}/f.yaml", "f.yaml"),
    ],
)
def test_known_programs_without_a_shape_that_write_outside_ask(
    places: tuple[Path, Path, Path], tmp_path: Path, command: str, written: str
) -> None:
    """Programs the scanner knew by name but had no option shape for: none of their
    words was checked, so a file they write outside went unasked. Even granted, the
    outside directory is asked."""
    project, outside, _ = places
    program = command.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    (tmp_path / "gnupg").mkdir(mode=0o700)
    (outside / "f.yaml").write_text("a: 1\n")
    before = (outside / written).stat().st_mtime_ns if (outside / written).exists() else None
    command = command.replace("{O}", str(outside)).replace("{T}", str(tmp_path))
    done = _bash(project, command)
    assert (outside / written).exists(), done.stderr
    assert (outside / written).stat().st_mtime_ns != before, "bash must really write outside"
    gate = _granted(project, tmp_path, program)
    assert "external_directory" in gate.asks(gate.plan(command))
