"""The gitlinks of a real git index, in every format git writes: versions 2, 3 (extended
flags) and 4 (prefix-compressed paths), SHA-256 ids and a split index; each compared
with what `git ls-files -s` reports."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.git_index import IndexUnreadable, gitlinks_in

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@localhost",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@localhost",
}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


def _project(tmp_path: Path, fmt: str) -> Path:
    """Files, intent-to-add entries (extended flags) and three gitlinks, one deep."""
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", f"--object-format={fmt}", cwd=project)
    for i in range(20):
        (project / "src" / f"pkg{i}").mkdir(parents=True)
        (project / "src" / f"pkg{i}" / "module_with_a_long_name.py").write_text(f"{i}\n")
    for link in ("a-link", "src/pkg3/inner repo", "zz"):
        (project / link).mkdir(parents=True)
        git("init", "-q", f"--object-format={fmt}", cwd=project / link)
        git("commit", "-q", "--allow-empty", "-m", "i", cwd=project / link)
    git("add", ".", cwd=project)
    (project / "src" / "pkg5" / "new.py").write_text("n\n")
    git("add", "-N", "src/pkg5/new.py", cwd=project)
    return project


def _expected(project: Path) -> list[str]:
    return sorted(
        line.split("\t", 1)[1]
        for line in git("ls-files", "-s", cwd=project).splitlines()
        if line.startswith("160000")
    )


@pytest.mark.parametrize("fmt", ["sha1", "sha256"])
@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_gitlinks_of_every_index_version(tmp_path: Path, version: str, fmt: str) -> None:
    project = _project(tmp_path, fmt)
    git("update-index", "--index-version", version, cwd=project)
    expected = _expected(project)
    assert expected == ["a-link", "src/pkg3/inner repo", "zz"]
    size = 32 if fmt == "sha256" else 20
    assert sorted(gitlinks_in(str(project / ".git" / "index"), size)) == expected


def test_gitlinks_of_a_split_index_are_read_from_its_shared_file(tmp_path: Path) -> None:
    project = _project(tmp_path, "sha1")
    git("update-index", "--split-index", cwd=project)
    (project / "src" / "pkg1" / "module_with_a_long_name.py").write_text("changed\n")
    git("add", "src/pkg1", cwd=project)
    assert list((project / ".git").glob("sharedindex.*"))
    assert sorted(gitlinks_in(str(project / ".git" / "index"))) == _expected(project)


def test_a_missing_index_holds_none_and_a_broken_one_is_an_error(tmp_path: Path) -> None:
    assert gitlinks_in(str(tmp_path / "index")) == ()
    (tmp_path / "index").write_bytes(b"DIRC\0\0\0\x02\0\0\0\x05short")
    with pytest.raises(IndexUnreadable):
        gitlinks_in(str(tmp_path / "index"))
    (tmp_path / "index").write_bytes(b"NOPE" + bytes(40))
    with pytest.raises(IndexUnreadable):
        gitlinks_in(str(tmp_path / "index"))
