"""Which git repositories a git command reads its config from, and whether that config
runs programs: the repository git discovers from the cwd (a `.git` directory, a gitfile
or a bare repository, by git's own rules), and the submodules and gitlinks under it,
which `git status`, `git diff` and others recurse into.

Owns: finding repositories and reading their config files for settings that run a
program (`core.fsmonitor`, pagers, filters, textconv, aliases with `!`, includes...) and
their hooks folders for the hooks reading commands run (`post-index-change`).
Must not touch: git's argv (bash_git.py) or rules. Reads files; never runs git."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from shellpilot.scanner.git_index import IndexUnreadable, gitlinks_in

RISKY_WORDS = (
    "fsmonitor",  # core.fsmonitor: runs a hook on status, diff, add, commit...
    "pager",  # core.pager, pager.<cmd>
    "sshcommand",  # core.sshCommand
    "askpass",  # core.askPass
    "editor",  # core.editor, sequence.editor
    "filter",  # filter.<driver>.clean/smudge/process, interactive.diffFilter
    "textconv",  # diff.<driver>.textconv
    "external",  # diff.external
    "command",  # diff.<driver>.command, core.alternateRefsCommand, gpg.ssh.defaultKeyCommand
    "driver",  # merge.<driver>.driver
    "program",  # gpg.program, gpg.<format>.program
    "gpg",
    "showsignature",  # log.showSignature: `git log` runs gpg
    "pretty",  # format.pretty, pretty.<name>: a format with %G? runs gpg
    "include",  # include.path, includeIf: pull in another file
    "hook",  # core.hooksPath, uploadpack.packObjectsHook
    "worktree",  # core.worktree moves the work tree
    "helper",  # credential.helper
    "promisor",  # remote.<name>.promisor: `git log -p` fetches missing objects (runs a transport)
    "partialclone",  # extensions.partialClone: the same
    "uploadpack",  # remote.<name>.uploadpack: the program a fetch runs
    "receivepack",  # remote.<name>.receivepack: the program a push runs
    "protocol",  # protocol.allow, protocol.ext.allow: `ext::` URLs run a command
    "ext::",  # an `ext::<command>` URL
    "proxy",  # core.gitProxy runs a program (http.proxy costs a prompt)
    "vcs",  # remote.<name>.vcs: runs git-remote-<vcs>
    "variant",  # ssh.variant
    "difftool",  # difftool.<tool>.cmd
    "mergetool",  # mergetool.<tool>.cmd
    "sendemail",  # sendemail.smtpServer, sendemail.toCmd
    "browser",  # web.browser, browser.<tool>.cmd
    "viewer",  # man.viewer
    "cmd",  # <tool>.cmd, man.<tool>.cmd
)
"""Any of these anywhere in a repository's config (lowered, value continuation lines
joined) makes git there unknown: conservative on purpose (a branch called `pager-fix`
only costs a prompt)."""

_BANG_VALUE = re.compile(r'=[\s"]*!')
"""A value starting with `!` (an alias or `submodule.<name>.update` run by a shell)."""

_MAX_REPOS = 512
"""Nested repositories (submodules, gitlinks) followed below one repository at most; a
tree with more is reported rather than read."""


def _head_valid(path: str) -> bool:
    """git's `validate_headref`: HEAD is a symlink into `refs/`, a `ref: refs/...` file,
    or a file starting with 40 hex digits (a detached HEAD)."""
    try:
        if os.path.islink(path):
            return os.readlink(path).startswith("refs/")
        with open(path, "rb") as fh:
            data = fh.read(255)
    except OSError:
        return False
    if data.startswith(b"ref:") and data[4:].lstrip(b" \t\n\r").startswith(b"refs/"):
        return True
    return _HEX40.match(data) is not None


_HEX40 = re.compile(rb"[0-9a-fA-F]{40}")


def _common_dir(suspect: str) -> str | None:
    """The directory holding `objects/` and `refs/` for git dir `suspect` (its
    `commondir` file for a linked worktree); None when that file cannot be read."""
    common = os.path.join(suspect, "commondir")
    if not os.path.lexists(common):
        return suspect
    try:
        with open(common, encoding="utf-8", errors="surrogateescape") as fh:
            shared = fh.read(4096).rstrip()
    except OSError:
        return None
    return os.path.normpath(os.path.join(suspect, shared))


def is_git_directory(suspect: str) -> bool:
    """git's `is_git_directory`: a valid HEAD, and `objects/` and `refs/` (in the common
    dir of a linked worktree) that can be entered."""
    if not _head_valid(os.path.join(suspect, "HEAD")):
        return False
    common = _common_dir(suspect)
    return (
        common is not None
        and os.access(os.path.join(common, "objects"), os.X_OK)
        and os.access(os.path.join(common, "refs"), os.X_OK)
    )


def _looks_bare(folder: str) -> bool:
    """HEAD, objects and refs all present (of any kind): a superset of git's test."""
    return all(os.path.lexists(os.path.join(folder, name)) for name in ("HEAD", "objects", "refs"))


def discover(start: str) -> tuple[tuple[str, str] | None, list[str]]:
    """git's repository discovery from directory `start` (made physical first, as git's
    getcwd sees it): ((work tree root, git dir) or None, doubtful git dirs).

    In each directory from `start` up to `/`, as git does: a `.git` regular file ends
    the walk (its `gitdir:` target is the git dir; an invalid one makes git fail, None);
    a `.git` directory that is a valid git dir ends it; otherwise a directory that is
    itself a valid git dir is a bare repository (root and git dir alike). An empty or
    invalid `.git` directory is passed over, as git passes over it: it and any
    bare-looking directory passed over are returned as doubtful, so their config is
    read too in case git judges one valid where this reading does not."""
    folder = os.path.realpath(start)
    doubtful: list[str] = []
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isfile(dot):
            named = _gitfile(dot)
            return ((folder, named) if named is not None else None), doubtful
        if os.path.isdir(dot):
            if is_git_directory(dot):
                return (folder, dot), doubtful
            doubtful.append(dot)
        if _looks_bare(folder):
            if is_git_directory(folder):
                return (folder, folder), doubtful
            doubtful.append(folder)
        if folder == "/":
            return None, doubtful
        folder = os.path.dirname(folder)


def git_dir(start: str) -> tuple[str, str] | None:
    """(work tree root, git dir) of the repository git run in directory `start` uses
    (see `discover`): `.git` directories, gitfiles and bare repositories."""
    return discover(start)[0]


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
def _risky_text(path: str, mtime_ns: int, size: int, top: str | None = None) -> str | None:
    """The first RISKY_WORDS word in a config file's text (cached per file version).

    `top` is the work tree of the repository git discovered: a `worktree = PATH` line
    whose path (relative to the git dir) is `top` or under it (the line git itself writes
    for a submodule's checkout) is not counted; one that leaves it is."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read(1 << 20)
    except OSError:
        return "unreadable config"
    if size > 1 << 20:
        return "config larger than 1 MiB"
    text = text.replace("\\\r\n", "").replace("\\\n", "")  # a value continued on the next line
    if top is not None:
        text = _WORKTREE_LINE.sub(lambda hit: _own_worktree(hit, os.path.dirname(path), top), text)
    text = text.lower().replace("worktreeconfig", "")  # extensions.worktreeConfig reads config.worktree
    found = next((word for word in RISKY_WORDS if word in text), None)
    if found is None and _BANG_VALUE.search(text):
        return "a value run by a shell (!)"
    return found


_WORKTREE_LINE = re.compile(r"^[ \t]*worktree[ \t]*=[ \t]*([^\n]*?)[ \t]*$", re.MULTILINE | re.IGNORECASE)


def _own_worktree(hit: re.Match[str], gitdir: str, top: str) -> str:
    value = hit.group(1)
    if not value or any(c in value for c in '\\";#'):
        return hit.group(0)
    place = os.path.normpath(os.path.join(gitdir, value))
    root = top.rstrip("/")
    return "" if place == root or place.startswith(root + "/") else hit.group(0)


def _risky_file(path: str, top: str | None = None) -> str | None:
    try:
        info = os.stat(path)
    except OSError:
        return None  # no such file: nothing in it
    return _risky_text(path, info.st_mtime_ns, info.st_size, top)


READING_HOOKS = ("post-index-change",)
"""Hooks git runs for commands that only read: `git status` and `git diff` refresh the
index and write it back when stat data went stale (files unpacked from an archive, a
touched file), and every index write runs `post-index-change`. A hooks folder moved by
`core.hooksPath` is caught by the config's words."""


def _risky_hooks(gitdir: str) -> str | None:
    """The first of `READING_HOOKS` present (as any kind of file) in the hooks folder of
    git dir `gitdir` (its common dir's, for a linked worktree), else None."""
    common = _common_dir(gitdir) or gitdir
    for name in READING_HOOKS:
        if os.path.lexists(os.path.join(common, "hooks", name)):
            return f"hook {name}"
    return None


def _risky_repo(gitdir: str, top: str | None = None) -> str | None:
    """The first risky word in the config files of git dir `gitdir` (`top`: see
    `_risky_text`), or a hook a reading command runs (`READING_HOOKS`), else None."""
    found = next((w for w in (_risky_file(f, top) for f in _config_files(gitdir)) if w is not None), None)
    return found if found is not None else _risky_hooks(gitdir)


def _hash_size(gitdir: str) -> int:
    """Bytes of an object id in the repository: 32 when its config names sha256."""
    for path in _config_files(gitdir):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if _names_sha256(path, info.st_mtime_ns, info.st_size):
            return 32
    return 20


@lru_cache(maxsize=64)
def _names_sha256(path: str, mtime_ns: int, size: int) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20).lower()
    except OSError:
        return False
    return "objectformat" in text and "sha256" in text


def _dot_git(place: str) -> str | None:
    """The git dir a submodule checkout's `.git` names: the directory itself (valid or
    not: its config is read either way) or a gitfile's target."""
    dot = os.path.join(place, ".git")
    if os.path.isdir(dot):
        return dot
    return _gitfile(dot) if os.path.isfile(dot) else None


def _nested(root: str | None, gitdir: str) -> list[tuple[str | None, str]]:
    """(work tree, git dir) of the repositories git may recurse into below one: absorbed
    submodule git dirs under `gitdir/modules` (work tree unknown), and the checkouts the
    index records as gitlinks or `.gitmodules` names that have a `.git` of their own.
    Raises IndexUnreadable for an index that cannot be read."""
    found: list[tuple[str | None, str]] = []
    modules = os.path.join(gitdir, "modules")
    if os.path.isdir(modules):
        for folder, subdirs, files in os.walk(modules):
            if "config" in files and ("HEAD" in files or "objects" in subdirs):
                found.append((None, folder))
            if len(found) > _MAX_REPOS:
                break
    if root is None:
        return found
    index = os.path.join(gitdir, "index")
    paths = list(gitlinks_in(index, _hash_size(gitdir))) if os.path.exists(index) else []
    try:
        with open(os.path.join(root, ".gitmodules"), encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20)
    except OSError:
        text = ""
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key.strip().lower() == "path":
            paths.append(value.strip().strip('"'))
    for path in paths:
        place = os.path.normpath(os.path.join(root, path))
        named = _dot_git(place)
        if named is not None:
            found.append((place, named))
    return found


def risky_config(directory: str, gitdir: str | None = None) -> tuple[str, str] | None:
    """(repository, word) when git run in `directory` (or with `--git-dir` `gitdir`)
    reads a config that may run a program, or has a hook a reading command runs
    (`READING_HOOKS`; the word is then `hook NAME`): the repository git discovers there
    (and any doubtful candidate passed over on the way, see `discover`), or a repository
    it may recurse into (submodules, gitlinks, each one's own nested ones); `None` when
    there is no repository or every config is plain."""
    if gitdir is not None:
        found: tuple[str, str] | None = (directory, gitdir)
    else:
        found, doubtful = discover(directory)
        for place in doubtful:
            word = _risky_repo(place)
            if word is not None:
                return place, word
    if found is None:
        return None
    queue: list[tuple[str | None, str]] = [found]
    seen: set[tuple[str | None, str]] = set()
    while queue:
        root, place = queue.pop()
        if (root, place) in seen:
            continue
        seen.add((root, place))
        if len(seen) > _MAX_REPOS:
            return found[0], f"more than {_MAX_REPOS} nested repositories"
        word = _risky_repo(place, found[0])
        if word is not None:
            return root or place, word
        try:
            queue += _nested(root, place)
        except IndexUnreadable as exc:
            return root or place, f"unreadable index ({exc})"
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
