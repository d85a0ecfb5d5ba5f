"""The oracle's fixture: a small project, a fake HOME and an /outside tree, built once as a template.

Owns: the template's layout, per-run copies and the file-system diff of a run. Must not touch:
sandboxes or traces (sandbox.py, trace.py) or the scanner.

Layout under a root directory ``R`` (an absolute, fresh directory; tests use ``tmp_path``)::

    R/proj       the project: a git repository with files (script.sh, tools/ls), plus
                 sub/        a nested repository whose config sets core.fsmonitor
                 mod/        a submodule: ``mod/.git`` is a gitfile to .git/modules/mod,
                             whose config sets core.fsmonitor
                 docs -> R/outside, lnk -> R/outside/dir, conf.txt -> R/outside/conf.txt,
                 inner -> src (a link that stays inside)
    R/home       the fake HOME (.ssh/id_rsa, .gitconfig, .bashrc, notes.txt)
    R/outside    secret.txt, id_rsa, f, l, conf.txt, dir/file.txt

Inside the sandbox every tree keeps its path, so the scanner, run on this host against the
template, resolves the same symlinks, expands the same globs and reads the same git
configs as bash does inside; the outside tree is also mounted at ``/outside`` (the name
the seed commands use). ``canon`` names both places ``/outside``.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from shellpilot.errors import OracleError

OUTSIDE = "/outside"
"""Where ``R/outside`` is mounted inside the sandbox."""

FSMONITOR_PROGRAM = "id"
"""The program the nested repositories' ``core.fsmonitor`` runs (``git status`` there runs it)."""

_PROJECT_FILES: dict[str, str] = {
    "README.md": "# demo\nA small project for the execution oracle.\n",
    "Makefile": "all:\n\t@echo built\n",
    "f": "f\n",
    "x": "x\n",
    "victim": "victim\n",
    "notes.txt": "one\ntwo\nthree\n",
    "data.csv": "a,b\n1,2\n",
    ".gitignore": "*.o\nbuild/\n",
    "src/a.py": "print('a')\n",
    "src/b.py": "import sys\nprint(sys.argv)\n",
    "src/main.c": "int main(void) { return 0; }\n",
    "src/util.sh": "echo util\n",
    "tests/test_a.py": "def test_a():\n    assert True\n",
    "build/.keep": "",
}
_SCRIPT = "#!/bin/sh\necho script\n"
_FAKE_LS = "#!/bin/sh\necho not ls\n"
"""tools/ls: a project program named like a read-only command (``PATH=tools:$PATH ls``)."""
_HOME_FILES: dict[str, str] = {
    ".ssh/id_rsa": "-----BEGIN FAKE KEY-----\n",
    ".ssh/config": "Host *\n  User demo\n",
    ".bashrc": "alias ll='ls -l'\n",
    ".gitconfig": "[user]\n\tname = Oracle\n\temail = oracle@localhost\n[init]\n\tdefaultBranch = main\n",
    "notes.txt": "home notes\n",
}
_OUTSIDE_FILES: dict[str, str] = {
    "secret.txt": "secret\n",
    "id_rsa": "-----BEGIN FAKE KEY-----\n",
    "f": "outside f\n",
    "l": "",
    "conf.txt": "conf\n",
    "dir/file.txt": "in dir\n",
}
_OUTSIDE_LINKS: dict[str, str] = {"docs": "", "lnk": "dir", "conf.txt": "conf.txt"}
"""Project symlinks into the outside tree (name -> path below it)."""


@dataclass(frozen=True)
class Entry:
    """One path's state in a snapshot: ``kind`` (``f`` file, ``d`` dir, ``l`` link, ``o`` other),
    permission ``mode``, ``size`` in bytes, ``mtime_ns``, and a link's ``target``."""

    kind: str
    mode: int
    size: int
    mtime_ns: int
    target: str = ""


Snapshot = dict[str, Entry]
"""Relative path (``a/b``) -> its state; the root itself is ``.``."""


def snapshot(root: Path) -> Snapshot:
    """Every path under ``root`` (not following links), without reading file contents."""
    found: Snapshot = {}

    def walk(folder: str, rel: str) -> None:
        with os.scandir(folder) as entries:
            for item in entries:
                name = f"{rel}/{item.name}" if rel else item.name
                info = item.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    found[name] = Entry("l", 0, 0, 0, os.readlink(item.path))
                elif stat.S_ISDIR(info.st_mode):
                    # no mtime: it changes with every entry added or removed below
                    found[name] = Entry("d", stat.S_IMODE(info.st_mode), 0, 0)
                    walk(item.path, name)
                else:
                    kind = "f" if stat.S_ISREG(info.st_mode) else "o"
                    found[name] = Entry(kind, stat.S_IMODE(info.st_mode), info.st_size, info.st_mtime_ns)

    info = root.lstat()
    found["."] = Entry("d", stat.S_IMODE(info.st_mode), 0, 0)
    walk(str(root), "")
    return found


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """Relative paths created, deleted or modified between two snapshots, sorted.

    A directory counts when created, deleted or re-moded (its mtime changes with every
    entry added or removed below it, which the entries themselves already show).
    """
    out: list[str] = []
    for path in before.keys() | after.keys():
        old, new = before.get(path), after.get(path)
        if old != new:  # a directory's entry holds its mode only (see snapshot)
            out.append(path)
    return sorted(out)


def _write_tree(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


class Fixture:
    """The template tree under ``root`` (built by ``build``), and the places it maps to.

    ``project``, ``home`` and ``outside_src`` are the template's directories on the host;
    ``OUTSIDE`` is where ``outside_src`` appears inside the sandbox. ``hostile`` False: a
    benign project, for measuring prompts on ordinary commands: no ``core.fsmonitor`` in
    the nested repository and the submodule, and ``docs``, ``lnk``, ``conf.txt`` are plain
    files and folders instead of links out of the project.
    """

    def __init__(self, root: Path, *, hostile: bool = True) -> None:
        self.root = root.resolve()
        self.hostile = hostile
        self.project = self.root / "proj"
        self.home = self.root / "home"
        self.outside_src = self.root / "outside"
        self._snapshots: dict[str, Snapshot] = {}

    @property
    def places(self) -> dict[str, str]:
        """Template directory name -> its path inside the sandbox (the outside tree is
        also at its template path: see `mounts`)."""
        return {"proj": str(self.project), "home": str(self.home), "outside": OUTSIDE}

    def mounts(self) -> list[tuple[str, str]]:
        """(template directory name, sandbox path) for every mount of a per-run copy."""
        return [*self.places.items(), ("outside", str(self.outside_src))]

    def canon(self, path: str) -> str:
        """``path`` with the outside tree's template path written as ``/outside``."""
        top = str(self.outside_src)
        if path == top or path.startswith(top + "/"):
            return OUTSIDE + path[len(top) :]
        return path

    def build(self) -> Fixture:
        """Create the template (git repositories included); raises OracleError when git fails.

        Needs ``git`` on PATH. Returns ``self``.
        """
        if self.root.exists() and any(self.root.iterdir()):
            raise FileExistsError(f"oracle fixture root {self.root} is not empty")
        _write_tree(self.home, _HOME_FILES)
        _write_tree(self.outside_src, _OUTSIDE_FILES)
        _write_tree(self.project, _PROJECT_FILES)
        for rel, text in (("script.sh", _SCRIPT), ("tools/ls", _FAKE_LS)):
            script = self.project / rel
            script.parent.mkdir(exist_ok=True)
            script.write_text(text, encoding="utf-8")
            script.chmod(0o755)
        self._git_tree()
        for name, below in _OUTSIDE_LINKS.items():
            target = self.outside_src / below if below else self.outside_src
            if self.hostile:
                (self.project / name).symlink_to(target)
            elif target.is_dir():
                shutil.copytree(target, self.project / name)
            else:
                shutil.copy2(target, self.project / name)
        (self.project / "inner").symlink_to("src")
        self._git("add", "-A")
        self._git("commit", "-qm", "links")
        self._git("repack", "-adq")
        self._git("prune-packed")
        for name in self.places:
            self._snapshots[name] = snapshot(self.root / name)
        return self

    def _git(self, *args: str, cwd: Path | None = None) -> None:
        env = {
            "HOME": str(self.home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "LANG": "C.UTF-8",
        }
        done = subprocess.run(
            ["git", *args], cwd=cwd or self.project, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise OracleError(
                f"building the oracle fixture: git {' '.join(args)} failed: {done.stderr.strip()}"
            )

    def _git_tree(self) -> None:
        """The main repository, a nested one (sub/) and a submodule (mod/), hooks removed."""
        self._git("init", "-q")
        self._git("add", "-A")
        self._git("commit", "-qm", "initial")
        sub = self.project / "sub"
        sub.mkdir()
        self._git("init", "-q", cwd=sub)
        (sub / "s.txt").write_text("s\n", encoding="utf-8")
        self._git("add", "-A", cwd=sub)
        self._git("commit", "-qm", "sub", cwd=sub)
        if self.hostile:
            self._git("config", "core.fsmonitor", FSMONITOR_PROGRAM, cwd=sub)
        mod = self.project / "mod"
        (self.project / ".git" / "modules").mkdir()
        self._git("init", "-q", f"--separate-git-dir={self.project / '.git' / 'modules' / 'mod'}", str(mod))
        (mod / "m.txt").write_text("m\n", encoding="utf-8")
        self._git("add", "-A", cwd=mod)
        self._git("commit", "-qm", "mod", cwd=mod)
        if self.hostile:
            self._git("config", "core.fsmonitor", FSMONITOR_PROGRAM, cwd=mod)
        (self.project / ".gitmodules").write_text(
            '[submodule "mod"]\n\tpath = mod\n\turl = ./mod\n', encoding="utf-8"
        )
        (self.project / ".gitignore").write_text("*.o\nbuild/\nsub/\n", encoding="utf-8")
        self._git("add", ".gitmodules", ".gitignore", "mod")
        self._git("submodule", "init")
        self._git("commit", "-qm", "submodule")
        for repo in (self.project, sub, mod):
            # Packed objects: a copy per run is a few files instead of dozens of directories.
            self._git("repack", "-adq", cwd=repo)
            self._git("prune-packed", cwd=repo)
        for git_dir in (self.project / ".git", self.project / ".git" / "modules" / "mod", sub / ".git"):
            shutil.rmtree(git_dir / "hooks", ignore_errors=True)
            (git_dir / "hooks").mkdir()
            for extra in ("logs", "info", "description", "COMMIT_EDITMSG", "objects/info"):
                path = git_dir / extra  # fewer files to copy per run; git needs none of them
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)

    def copy_to(self, scratch: Path) -> None:
        """Copy the template's three trees into the existing directory ``scratch``
        (``scratch/proj`` ...), with modes and mtimes, links as links; ``scratch/tmp`` is
        created empty. One ``cp -a`` process: the copy runs outside this interpreter's
        lock, so parallel runs do not queue behind it. Raises OracleError if cp fails."""
        sources = [str(self.root / name) for name in self.places]
        done = subprocess.run(
            ["cp", "-a", *sources, str(scratch)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise OracleError(f"copying the oracle fixture failed: {done.stderr.strip()}")
        (scratch / "tmp").mkdir()

    def diff(self, scratch: Path) -> dict[str, list[str]]:
        """Per tree name (``proj``, ``home``, ``outside``): the relative paths a run changed
        in its copy under ``scratch`` (see ``changed``)."""
        return {name: changed(self._snapshots[name], snapshot(scratch / name)) for name in self.places}
