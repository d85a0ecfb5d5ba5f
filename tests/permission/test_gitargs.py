"""Read-only git argv: signature placeholders in formats (git runs gpg), and operands that
name a file by the repository's top when that top is above the project. Each payload is
first shown to work in real git, then the judgement must ask."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.permission.readonly import is_read_only

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@localhost",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@localhost",
    "GIT_PAGER": "cat",
}


def git(*args: str, cwd: Path, check: bool = True) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=ENV, check=check, capture_output=True, text=True
    ).stdout


def _read_only(command: str, cwd: Path, project: Path) -> bool:
    return is_read_only(shlex.split(command), cwd=cwd, project_dir=project, text=command)


@pytest.fixture
def signed(tmp_path: Path) -> Path:
    """A repository whose HEAD carries a (fake) PGP signature."""
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    git("commit", "-q", "--allow-empty", "-m", "x", cwd=project)
    head, _, message = git("cat-file", "commit", "HEAD", cwd=project).partition("\n\n")
    body = f"{head}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\n{message}"
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=project,
        env=ENV,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    )
    git("update-ref", "HEAD", made.stdout.strip(), cwd=project)
    return project


@pytest.mark.parametrize(
    "command",
    [
        "git log --format=%G?",
        "git log --format=%GK",
        "git log --pretty=format:%GS",
        "git log --pretty=tformat:%+GG",
        "git show -s --format=%<(8)%GF",
        "git log --oneline --format=%h%-GP",
        "git log --format=%GT",
    ],
)
def test_a_signature_placeholder_runs_gpg_and_asks(signed: Path, command: str) -> None:
    gpg = signed.parent / "gpg"
    gpg.write_text(f"#!/bin/sh\ntouch {signed.parent / 'GPG'}\n")
    gpg.chmod(0o755)
    argv = shlex.split(command)
    git("-c", f"gpg.program={gpg}", *argv[1:], cwd=signed, check=False)  # %GT: git 2.39 aborts after
    assert (signed.parent / "GPG").exists()  # git ran "gpg" for the placeholder
    assert not _read_only(command, signed, signed)


def test_a_signature_placeholder_in_any_word_asks(signed: Path) -> None:
    for command in ("git log --format %GK", "git log --pretty format:%G?", "git show -s '--format=% GS'"):
        assert not _read_only(command, signed, signed), command


@pytest.mark.parametrize(
    "command", ["git log --format=%h%gd", "git log --format=%H%n%s", "git log --pretty=oneline", "git log"]
)
def test_other_formats_stay_read_only(signed: Path, command: str) -> None:
    assert _read_only(command, signed, signed)
    assert not _read_only("git log --show-signature", signed, signed)


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """A repository whose top holds `secret.txt`, and a project folder `proj` in it."""
    top = tmp_path / "mono"
    (top / "proj" / "src").mkdir(parents=True)
    (top / "secret.txt").write_text("TOPSECRET\n")
    (top / "proj" / "a.txt").write_text("a\n")
    (top / "proj" / "src" / "b.txt").write_text("b\n")
    git("init", "-q", cwd=top)
    git("add", ".", cwd=top)
    git("commit", "-qm", "x", cwd=top)
    return top / "proj"


@pytest.mark.parametrize(
    "command",
    [
        "git show HEAD:../secret.txt",
        "git show HEAD:secret.txt",
        "git show :../secret.txt",
        "git show :0:secret.txt",
        "git log -p --format=%h -- :/",
        "git log -p --format=%h -- ':(top)secret.txt'",
        "git log -p --format=%h -- ':(top,icase)SECRET.txt'",
        "git log -p --format=%h -- ':!/x'",
        "git log -L1,1:../secret.txt --format=%h",
        "git -C src show HEAD:../../secret.txt",
    ],
)
def test_files_named_by_a_top_above_the_project_ask(monorepo: Path, command: str) -> None:
    assert "TOPSECRET" in git(*shlex.split(command)[1:], cwd=monorepo)  # git really reads it
    assert not _read_only(command, monorepo, monorepo)


@pytest.mark.parametrize(
    "command",
    ["git show HEAD:./a.txt", "git show :./src/b.txt", "git show HEAD~0:./src", "git log -p", "git status"],
)
def test_files_under_the_cwd_stay_read_only_in_a_monorepo(monorepo: Path, command: str) -> None:
    assert _read_only(command, monorepo, monorepo)


def test_top_forms_stay_read_only_when_the_top_is_the_project(monorepo: Path) -> None:
    top = monorepo.parent
    for command in ("git show HEAD:secret.txt", "git log -p -- :/", "git show ':(top)secret.txt'"):
        assert _read_only(command, top, top), command


@pytest.mark.parametrize(
    "command",
    [
        "git log -U --output=made",  # `-U` takes its value attached or none
        "git log -p --unified --output=made",
        "git show -U --output=made",
        "git log --format --output=made",  # git fails on `--format`, after opening made
        "git log --min-parents --output=made",
        "git diff -L --output=made",
    ],
)
def test_a_value_option_never_hides_the_next_option(signed: Path, command: str) -> None:
    # found by a helper: the judge took the next word for the option's value, git did not
    subprocess.run(shlex.split(command), cwd=signed, env=ENV, capture_output=True, check=False)
    assert (signed / "made").exists(), "git must really write made"
    (signed / "made").unlink()
    assert not _read_only(command, signed, signed)


def test_an_outside_path_after_a_bare_unified_asks(signed: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("TOPSECRET\n")
    (signed / "a").write_text("x\n")
    command = f"git diff -U {secret} a"
    done = subprocess.run(shlex.split(command), cwd=signed, env=ENV, capture_output=True, text=True)
    assert "TOPSECRET" in done.stdout, "git must really read the outside file"
    assert not _read_only(command, signed, signed)
    for plain in ("git diff -U5", "git log -U3 -p", "git diff --unified=5", "git log -n 5"):
        assert _read_only(plain, signed, signed), plain
