"""Which repositories git uses and recurses into, by git's own rules, and the config
settings that run programs: each hostile repository is built with real git, the payload
is first shown to run in git without shellpilot, then the scan must be unknown and the
read-only judgement must ask."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.permission.readonly import is_read_only
from shellpilot.scanner.git_repos import discover, git_dir
from shellpilot.scanner.scan import scan

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
    "GIT_TERMINAL_PROMPT": "0",
}


def git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Real git in `cwd`, without the user's or the system's config."""
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=check, capture_output=True, text=True)


def repo(folder: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at `folder` with one commit of `files`."""
    folder.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=folder)
    for name, text in (files or {"a.txt": "a\n"}).items():
        (folder / name).write_text(text)
    git("add", ".", cwd=folder)
    git("commit", "-qm", "init", cwd=folder)
    return folder


def sh(command: str, cwd: Path) -> None:
    """Run a command line in real bash with the test's git environment."""
    subprocess.run(["bash", "-c", command], cwd=cwd, env=ENV, capture_output=True, check=False)


def asks(command: str, cwd: Path, project: Path) -> bool:
    """The scan is unknown, or some git command of it is not read-only."""
    found = scan(command, cwd=cwd, project_dir=project)
    if found.unknown:
        return True
    return not all(
        is_read_only(list(c.argv), cwd=Path(place), project_dir=project, text=c.text)
        for c in found.commands
        for place in (c.cwds or (str(cwd),))
    )


# --- discovery: an embedded bare repository, an empty or invalid .git passed over -------


@pytest.fixture
def embedded_bare(tmp_path: Path) -> Path:
    """A project (a normal repository) holding `sub/evil`, a bare repository whose
    config turns every file of `git log -p` through `diff.x.textconv` (a shell command)."""
    source = repo(tmp_path / "source", {"f.txt": "hello\n"})
    project = repo(tmp_path / "project")
    (project / "sub").mkdir()
    git("clone", "-q", "--bare", str(source), "sub/evil", cwd=project)
    evil = project / "sub" / "evil"
    git("config", "diff.x.textconv", f"sh -c 'touch {tmp_path / 'PWN'}; cat \"$0\"'", cwd=evil)
    (evil / "info").mkdir(exist_ok=True)
    (evil / "info" / "attributes").write_text("* diff=x\n")
    return project


@pytest.mark.parametrize(
    "command", ["git -C sub/evil log -p", "cd sub/evil && git log -p", "git -C sub/evil show"]
)
def test_an_embedded_bare_repository_is_the_one_git_uses(embedded_bare: Path, command: str) -> None:
    pwn = embedded_bare.parent / "PWN"
    sh(command, embedded_bare)
    assert pwn.exists()  # git really found the bare repository and ran its textconv
    assert asks(command, embedded_bare, embedded_bare)
    assert not is_read_only(
        ["git", "log", "-p"], cwd=embedded_bare / "sub" / "evil", project_dir=embedded_bare
    )
    assert git_dir(str(embedded_bare / "sub" / "evil" / "objects")) == (
        str((embedded_bare / "sub" / "evil").resolve()),
        str((embedded_bare / "sub" / "evil").resolve()),
    )
    assert not asks("git log -p", embedded_bare, embedded_bare)  # the project itself is plain


@pytest.mark.parametrize("head", [None, "garbage\n", "ref: refs/heads/x\n"])
def test_an_empty_or_invalid_dot_git_is_passed_over_like_git_does(tmp_path: Path, head: str | None) -> None:
    project = repo(tmp_path / "project")
    git("config", "core.fsmonitor", f"touch {tmp_path / 'FSM'}; false", cwd=project)
    sub = project / "sub"
    (sub / ".git").mkdir(parents=True)
    if head is not None:
        (sub / ".git" / "HEAD").write_text(head)
        (sub / ".git" / "objects").mkdir()
        (sub / ".git" / "refs").mkdir()
    sh("git status", sub)
    valid = head is not None and head.startswith("ref:")
    assert (tmp_path / "FSM").exists() != valid  # git used the parent unless sub/.git is valid
    found = git_dir(str(sub))
    assert found is not None and found[0] == str((sub if valid else project).resolve())
    if not valid:
        assert asks("cd sub && git status", project, project)
        assert not is_read_only(["git", "status"], cwd=sub, project_dir=project)


def test_a_doubtful_dot_git_on_the_way_is_read_too(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    odd = project / "sub" / ".git"
    odd.mkdir(parents=True)
    (odd / "config").write_text("[core]\n\tfsmonitor = ./x\n")
    found, doubtful = discover(str(project / "sub"))
    assert found is not None and found[0] == str(project.resolve()) and str(odd.resolve()) in doubtful
    assert not is_read_only(["git", "status"], cwd=project / "sub", project_dir=project)


def test_discovery_walks_the_physical_directory(tmp_path: Path) -> None:
    hostile = repo(tmp_path / "hostile")
    git("config", "core.fsmonitor", "./x", cwd=hostile)
    (hostile / "deep").mkdir()
    project = repo(tmp_path / "project")
    (project / "link").symlink_to(hostile / "deep")
    assert git_dir(str(project / "link")) == (str(hostile.resolve()), str((hostile / ".git").resolve()))
    assert not is_read_only(["git", "status"], cwd=project / "link", project_dir=project)


def test_a_git_dir_environment_prefix_still_asks(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    for command in ("GIT_DIR=/tmp/x git log", "GIT_CONFIG_COUNT=1 git log", "GIT_WORK_TREE=.. git status"):
        found = scan(command, cwd=project, project_dir=project)
        assert not any(
            is_read_only(list(c.argv), cwd=project, project_dir=project, text=c.text) for c in found.commands
        ), command


# --- gitlinks: a nested repository in the index without .gitmodules ----------------------


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_a_gitlink_without_gitmodules_is_followed(tmp_path: Path, version: str) -> None:
    project = repo(tmp_path / "project")
    inner = repo(project / "dir" / "in ner")
    git("add", "dir/in ner", cwd=project)
    git("update-index", "--index-version", version, cwd=project)
    assert "160000" in git("ls-files", "-s", cwd=project).stdout
    assert not (project / ".gitmodules").exists()
    assert not asks("git status", project, project)  # a plain nested repository
    git("config", "core.fsmonitor", f"touch {tmp_path / 'FSM'}; false", cwd=inner)
    sh("git status", project)
    assert (tmp_path / "FSM").exists()  # git recursed into the gitlink and ran its config
    result = scan("git status", cwd=project, project_dir=project)
    assert result.unknown and any("fsmonitor" in r for r in result.reasons), result.reasons
    assert not is_read_only(["git", "status"], cwd=project, project_dir=project)


def test_gitlinks_are_followed_recursively(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    middle = repo(project / "middle")
    deepest = repo(middle / "deepest")
    git("add", "deepest", cwd=middle)
    git("commit", "-qm", "link", cwd=middle)
    git("add", "middle", cwd=project)
    assert not asks("git status", project, project)
    git("config", "core.pager", "./p", cwd=deepest)
    assert not is_read_only(["git", "status"], cwd=project, project_dir=project)
    assert scan("git diff", cwd=project, project_dir=project).unknown


def test_an_unreadable_index_asks(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    (project / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09garbage")
    assert not is_read_only(["git", "status"], cwd=project, project_dir=project)


# --- settings that run programs without a flagged word -----------------------------------


@pytest.fixture
def partial_clone(tmp_path: Path) -> Path:
    """A blob-less partial clone: `git log -p` fetches each missing blob on demand."""
    server = repo(tmp_path / "server", {"f.txt": "hello\n"})
    git("config", "uploadpack.allowFilter", "true", cwd=server)
    git("clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{server}", "client", cwd=tmp_path)
    return tmp_path / "client"


def test_a_promisor_remote_runs_its_upload_pack_on_git_log_p(partial_clone: Path) -> None:
    marker = partial_clone.parent / "UPLOADPACK"
    git("config", "remote.origin.uploadpack", f"touch {marker}; git-upload-pack", cwd=partial_clone)
    git("log", "-p", cwd=partial_clone)
    assert marker.exists()
    assert asks("git log -p", partial_clone, partial_clone)
    assert asks("git show", partial_clone, partial_clone)


def test_a_promisor_remote_with_an_ext_url_runs_its_command(partial_clone: Path) -> None:
    marker = partial_clone.parent / "EXT"
    git("config", "remote.origin.url", f"ext::sh -c touch% {marker}", cwd=partial_clone)
    git("config", "protocol.ext.allow", "always", cwd=partial_clone)
    git("log", "-p", cwd=partial_clone, check=False)
    assert marker.exists()
    assert asks("git log -p", partial_clone, partial_clone)


def test_log_show_signature_in_the_config_runs_gpg(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    body = git("cat-file", "commit", "HEAD", cwd=project).stdout
    head, _, message = body.partition("\n\n")
    signed = f"{head}\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\n{message}"
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=project,
        env=ENV,
        input=signed,
        capture_output=True,
        text=True,
        check=True,
    )
    git("update-ref", "HEAD", made.stdout.strip(), cwd=project)
    fake_gpg = tmp_path / "gpg"
    fake_gpg.write_text(f"#!/bin/sh\ntouch {tmp_path / 'GPG'}\n")
    fake_gpg.chmod(0o755)
    git("config", "log.showSignature", "true", cwd=project)
    git("-c", f"gpg.program={fake_gpg}", "log", "-1", cwd=project)  # the program comes from gpg.program
    assert (tmp_path / "GPG").exists()
    assert asks("git log", project, project)


@pytest.mark.parametrize(
    "setting",
    [
        ("remote.origin.promisor", "true"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.uploadpack", "./x"),
        ("remote.origin.receivepack", "./x"),
        ("remote.origin.vcs", "x"),
        ("remote.origin.url", "ext::sh -c x"),
        ("protocol.allow", "always"),
        ("core.gitProxy", "./x"),
        ("core.alternateRefsCommand", "./x"),
        ("merge.x.driver", "./x"),
        ("core.editor", "./x"),
        ("ssh.variant", "ssh"),
        ("credential.helper", "./x"),
        ("format.pretty", "%G?"),
        ("pretty.x", "%GS"),
        ("difftool.x.cmd", "./x"),
        ("submodule.x.update", "!./x"),
        ("alias.x", "!./x"),
        ("core.worktree", "/tmp"),
    ],
)
def test_settings_that_run_programs_make_git_ask(tmp_path: Path, setting: tuple[str, str]) -> None:
    project = repo(tmp_path / "project")
    assert not asks("git status", project, project)
    git("config", *setting, cwd=project)
    assert asks("git status", project, project)
    assert asks("git fetch", project, project)


def test_a_value_continued_on_the_next_line_is_joined(tmp_path: Path) -> None:
    project = repo(tmp_path / "project")
    with (project / ".git" / "config").open("a") as config:
        config.write('[remote "origin"]\n\turl = "ex\\\nt::sh -c x"\n')
    assert git("config", "remote.origin.url", cwd=project).stdout.strip() == "ext::sh -c x"
    assert not is_read_only(["git", "status"], cwd=project, project_dir=project)


def test_a_plain_clone_and_its_submodules_stay_read_only(tmp_path: Path) -> None:
    upstream = repo(tmp_path / "upstream")
    library = repo(tmp_path / "library")
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib", cwd=upstream)
    git("commit", "-qm", "submodule", cwd=upstream)
    git("clone", "-q", "--recurse-submodules", str(upstream), "clone", cwd=tmp_path, check=False)
    clone = tmp_path / "clone"
    git("-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q", cwd=clone)
    assert (clone / ".git" / "modules" / "lib" / "config").read_text().count("worktree") == 1
    for command in ("git status", "git log -p", "git diff", "cd lib && git log"):
        assert not asks(command, clone, clone), command
    assert is_read_only(["git", "status"], cwd=clone, project_dir=clone)
