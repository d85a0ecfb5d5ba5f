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
