"""Variables whose value a program later runs as a command (`GIT_EXTERNAL_DIFF=rm git
diff` runs rm), and variables that give git configuration the text does not show: every
way of assigning them is judged."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

RUN = [
    "GIT_EXTERNAL_DIFF=rm git diff",
    "env GIT_EXTERNAL_DIFF=rm git diff",
    "export GIT_EXTERNAL_DIFF=rm; git diff",
    "declare -x GIT_EXTERNAL_DIFF=rm; git diff",
    "GIT_EXTERNAL_DIFF=rm; git diff",
    "GIT_SSH_COMMAND='rm victim' git fetch ssh://h/r",
    "GIT_EDITOR='rm victim' git commit --allow-empty",
    "GIT_SEQUENCE_EDITOR='rm victim' git rebase -i HEAD",
    "GIT_SSH=rm git fetch ssh://h/r",
    "GIT_PROXY_COMMAND=rm git fetch git://h/r",
    "EDITOR='rm victim' git commit",
    "PAGER='rm victim' man ls",
]


@pytest.mark.parametrize("command", RUN)
def test_a_command_in_a_variable_is_scanned_as_one(tmp_path: Path, command: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert any(list(c.argv[:1]) == ["rm"] for c in result.commands), result.patterns
    assert "rm *" in result.always or "rm" in result.patterns


@pytest.mark.parametrize(
    "command",
    [
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.external GIT_CONFIG_VALUE_0=rm git diff",
        "GIT_CONFIG_PARAMETERS=\"'diff.external'='rm'\" git diff",
        "export GIT_EXEC_PATH=/tmp/x; git status",
        "GIT_TEMPLATE_DIR=t git init x",
        "GIT_EDITOR=$E git commit",
        "for EDITOR in rm; do git commit; done",
    ],
)
def test_git_configuration_from_the_environment_is_unknown(tmp_path: Path, command: str) -> None:
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown


def test_a_harmless_pager_stays_known(tmp_path: Path) -> None:
    result = scan("PAGER=cat git log", cwd=tmp_path, project_dir=tmp_path)
    assert not result.unknown and "cat" in result.patterns


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_really_runs_the_external_diff_variable(
    tmp_path: Path, fake_rm: dict[str, str], runs_rm: Callable[..., None]
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    env = {**fake_rm, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    (repo / "victim").write_text("a\n")
    subprocess.run(["git", "add", "victim"], cwd=repo, env=env, check=True)
    (repo / "victim").write_text("b\n")
    runs_rm("GIT_EXTERNAL_DIFF=rm git diff", repo, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
