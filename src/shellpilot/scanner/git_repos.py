"""Which git repositories a git command reads its config from, and whether that config
runs programs: the cwd's repository (a `.git` directory or a gitfile), and the
submodules under it, which `git status`, `git diff` and others recurse into.

Owns: finding repositories and reading their config files for settings that run a
program (`core.fsmonitor`, pagers, filters, textconv, aliases with `!`, includes...).
Must not touch: git's argv (bash_git.py) or rules. Reads files; never runs git.
"""

from __future__ import annotations

import os
from functools import lru_cache

RISKY_WORDS = (
    "fsmonitor",  # core.fsmonitor: runs a hook on status, diff, add, commit...
    "pager",  # core.pager, pager.<cmd>
    "sshcommand",
    "askpass",
    "editor",
    "filter",  # filter.<driver>.clean/smudge/process
    "textconv",  # diff.<driver>.textconv
    "external",  # diff.external
    "command",  # diff.<driver>.command, merge drivers
    "driver",
    "program",  # gpg.program
    "gpg",
    "include",  # include.path, includeIf: pull in another file
    "hookspath",
    "worktree",  # core.worktree moves the work tree
    "helper",  # credential.helper
)
"""Any of these anywhere in a repository's config (lowered) makes git there unknown:
conservative on purpose (a branch called `pager-fix` only costs a prompt)."""


def git_dir(start: str) -> tuple[str, str] | None:
    """(work tree root, git dir) of the repository containing directory `start`: the
    nearest `.git` directory, or the directory a `.git` file's `gitdir:` line names."""
    folder = start
    while True:
        dot = folder + "/.git" if folder != "/" else "/.git"
        # (access() answers with a bool: no exception raised and caught per level)
        if os.access(dot, os.F_OK):
            if os.path.isdir(dot):
                return folder, dot
            named = _gitfile(dot)
            return (folder, named) if named is not None else None
        if folder == "/":
            return None
        folder = folder.rpartition("/")[0] or "/"


def _gitfile(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            line = fh.readline(4096).strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    target = line[len("gitdir:") :].strip()
    return target if os.path.isabs(target) else os.path.normpath(os.path.join(os.path.dirname(path), target))


def _config_files(gitdir: str) -> list[str]:
    """The repository-level config files git reads for `gitdir` (worktrees included)."""
    files = [os.path.join(gitdir, "config"), os.path.join(gitdir, "config.worktree")]
    common = os.path.join(gitdir, "commondir")
    if os.path.isfile(common):
        try:
            with open(common, encoding="utf-8", errors="replace") as fh:
                shared = fh.read(4096).strip()
        except OSError:
            shared = ""
        if shared:
            files.append(
                os.path.join(shared if os.path.isabs(shared) else os.path.join(gitdir, shared), "config")
            )
    return files


@lru_cache(maxsize=256)
def _risky_text(path: str, mtime_ns: int, size: int) -> str | None:
    """The first RISKY_WORDS word in a config file's text (cached per file version)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20).lower()
    except OSError:
        return "unreadable config"
    return next((word for word in RISKY_WORDS if word in text), None)


def _risky_file(path: str) -> str | None:
    try:
        info = os.stat(path)
    except OSError:
        return None  # no such file: nothing in it
    return _risky_text(path, info.st_mtime_ns, info.st_size)


def _submodule_dirs(root: str, gitdir: str) -> list[str]:
    """Git dirs of the submodules of a repository: absorbed ones under `gitdir/modules`
    (nested submodules too) and those `.gitmodules` names with a `.git` of their own."""
    found: list[str] = []
    modules = os.path.join(gitdir, "modules")
    if os.path.isdir(modules):
        for folder, subdirs, files in os.walk(modules):
            if "config" in files and ("HEAD" in files or "objects" in subdirs):
                found.append(folder)
            if len(found) > 256:
                break
    listing = os.path.join(root, ".gitmodules")
    try:
        with open(listing, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20)
    except OSError:
        text = ""
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key.strip() == "path":
            place = os.path.normpath(os.path.join(root, value.strip()))
            dot = os.path.join(place, ".git")
            if os.path.isdir(dot):
                found.append(dot)
            elif os.path.isfile(dot):
                named = _gitfile(dot)
                if named is not None:
                    found.append(named)
    return found


def risky_config(directory: str, gitdir: str | None = None) -> tuple[str, str] | None:
    """(repository, word) when git run in `directory` (or with `--git-dir` `gitdir`)
    reads a config that may run a program: its repository's or a submodule's; `None`
    when there is no repository or every config is plain."""
    if gitdir is not None:
        root, place = directory, gitdir
    else:
        found = git_dir(directory)
        if found is None:
            return None
        root, place = found
    for config in _config_files(place):
        word = _risky_file(config)
        if word is not None:
            return root, word
    for sub in _submodule_dirs(root, place):
        for config in _config_files(sub):
            word = _risky_file(config)
            if word is not None:
                return sub, word
    return None


def _user_configs() -> list[str]:
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]


@lru_cache(maxsize=64)
def _aliases_in(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    """The `[alias]` entries of one config file (name lowered, value unquoted)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20)
    except OSError:
        return ()
    found: list[tuple[str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower() if "]" in line else ""
            continue
        if section != "alias" or "=" not in line or line[:1] in "#;":
            continue
        key, _, value = line.partition("=")
        found.append((key.strip().lower(), _unquote(value.strip())))
    return tuple(found)


def _unquote(value: str) -> str:
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


def git_alias(name: str, directory: str) -> str | None:
    """The value of git alias `name` for git run in `directory`: the repository's config
    wins over the user's (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`); None if none."""
    files = list(_user_configs())
    found = git_dir(directory)
    if found is not None:
        files += _config_files(found[1])
    value = None
    key = name.lower()
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            continue
        for alias, text in _aliases_in(path, info.st_mtime_ns, info.st_size):
            if alias == key:
                value = text
    return value
