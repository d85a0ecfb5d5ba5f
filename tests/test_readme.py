"""The README's examples run as written, so they cannot drift from what shellpilot does.

A fenced block right after an HTML comment is executed here:

- ``<!-- test: run -->``: the whole block (``python`` with this interpreter, ``bash`` with
  bash) in a fresh temp dir that is a git repository with one commit;
- ``<!-- test: run-last -->``: only the block's last ``&&``-separated command, without a
  leading ``.venv/bin/`` (the quick start's install step makes a venv; this suite already
  runs in one);
- ``<!-- test: config -->``: the block is a config file: it must load as the user config.

``shellpilot`` is on PATH for bash blocks (this interpreter's ``-m shellpilot``); data and
config dirs are this test's temp dirs (tests/conftest.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shellpilot
from shellpilot.config import load_config

README = Path(__file__).resolve().parent.parent / "README.md"
_BLOCK = re.compile(r"<!-- test: ([a-z-]+) -->\s*\n```(\w+)\n(.*?)\n```", re.DOTALL)


def _blocks() -> list[tuple[str, str, str, int]]:
    text = README.read_text(encoding="utf-8")
    found = _BLOCK.finditer(text)
    return [(m.group(1), m.group(2), m.group(3), text.count("\n", 0, m.start()) + 1) for m in found]


BLOCKS = _blocks()


def test_the_readme_marks_its_runnable_examples() -> None:
    kinds = [kind for kind, _, _, _ in BLOCKS]
    assert kinds.count("run") >= 1 and kinds.count("run-last") >= 1 and kinds.count("config") >= 1
    assert set(kinds) <= {"run", "run-last", "config"}
    # every marker is followed by a fenced block (a marker the regex missed would be skipped)
    assert README.read_text(encoding="utf-8").count("<!-- test: ") == len(BLOCKS)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A temp dir that is a git repository with one commit, and a ``bin/shellpilot`` on PATH."""
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost"}
    (work / "hello.txt").write_text("hello\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "first commit"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)
    binary = tmp_path / "bin"
    binary.mkdir()
    wrapper = binary / "shellpilot"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m shellpilot "$@"\n')
    wrapper.chmod(0o755)
    return work


def _env(workdir: Path) -> dict[str, str]:
    source = str(Path(shellpilot.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH", "")) if p)
    env = {k: v for k, v in os.environ.items() if k != "SHELLPILOT_TRUST_PROJECT"}  # as a new user
    return {**env, "PATH": f"{workdir.parent / 'bin'}{os.pathsep}{env['PATH']}", "PYTHONPATH": path}


@pytest.mark.parametrize(
    ("kind", "language", "code", "line"),
    [b for b in BLOCKS if b[0] != "config"],
    ids=[f"README.md:{b[3]}" for b in BLOCKS if b[0] != "config"],
)
def test_example_runs_as_written(kind: str, language: str, code: str, line: int, workdir: Path) -> None:
    if kind == "run-last":
        code = code.split("&&")[-1].strip().removeprefix(".venv/bin/")
    if language == "python":
        argv = [sys.executable, "-c", code]
    else:
        assert language == "bash", f"README.md:{line}: cannot run a {language} block"
        argv = ["bash", "-euo", "pipefail", "-c", code]
    env = _env(workdir)
    done = subprocess.run(
        argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"README.md:{line} failed:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr and "warning:" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "code",
    [b[2] for b in BLOCKS if b[0] == "config"],
    ids=[f"README.md:{b[3]}" for b in BLOCKS if b[0] == "config"],
)
def test_config_example_loads(code: str, tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "shellpilot.jsonc").write_text(code)
    project = tmp_path / "project"
    project.mkdir()
    load_config(project, config_dir=user)
