"""Whether a repository's own git config could make a "read-only" git command run a program.

Owns: finding the repository of a directory and reading its config files for settings
that run programs (`core.fsmonitor`, `core.pager`, `pager.*`, filters, diff textconv or
external commands, `gpg.program`, includes, ...). Must not touch: rules, argv judging
(gitargs.py) or running git.

Why: a cloned repository is untrusted input, and its `.git/config` can set
`core.fsmonitor = ./evil` — then a plain `git status`, which the read-only set allows
without a prompt, runs `./evil`. The user's own config (~/.gitconfig, system config) is
theirs and is not read here.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

# Any of these words anywhere in a repository's config (section, key, or even a comment)
# makes its git commands ask: conservative on purpose (a branch called `pager-fix` only
# costs a prompt). Keys are case-insensitive in git, so the text is lowered first.
RISKY_WORDS = (
    "fsmonitor",  # core.fsmonitor: runs a hook on status, diff, ...
    "pager",  # core.pager, pager.<cmd>: run the output through a program
    "sshcommand",
    "askpass",
    "filter",  # filter.<driver>.clean/smudge/process: run on status for racy files
    "textconv",  # diff.<driver>.textconv: runs on diff, log -p, show
    "external",  # diff.external
    "command",  # diff.<driver>.command
    "program",  # gpg.program, gpg.<format>.program: log --show-signature
    "gpg",
    "include",  # include.path, includeIf: pull in another file
    "hookspath",
    "worktree",  # core.worktree: moves the work tree (paths would no longer be the project's)
)


def _git_dir(start: Path) -> Path | None:
    """The git dir of the repository containing `start` (a `.git` dir, or the dir a
    `.git` file's `gitdir:` line names), else None."""
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            try:
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = Path(line[len("gitdir:") :].strip())
                return target if target.is_absolute() else (folder / target)
            return None
    return None


def _config_files(git_dir: Path) -> list[Path]:
    """The repository-level config files git reads for `git_dir` (worktrees included)."""
    files = [git_dir / "config", git_dir / "config.worktree"]
    common = git_dir / "commondir"
    if common.is_file():
        try:
            shared = Path(common.read_text(encoding="utf-8", errors="replace").strip())
        except OSError:
            shared = None
        if shared is not None:
            files.append((shared if shared.is_absolute() else git_dir / shared) / "config")
    return files


@lru_cache(maxsize=64)
def _risky_file(path: str, mtime_ns: int, size: int) -> bool:
    """Whether the config file's text holds a RISKY_WORDS word (cached per file version)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return True  # there but unreadable: cannot tell
    return any(word in text for word in RISKY_WORDS)


def repo_config_runs_programs(directory: Path) -> bool:
    """True when the repository containing `directory` has its own config that may run a
    program or move the work tree (see RISKY_WORDS); False when there is no repository
    or its config is plain. A few stat calls; file contents cached by mtime and size."""
    git_dir = _git_dir(directory)
    if git_dir is None:
        return False
    for config in _config_files(git_dir):
        try:
            info = os.stat(config)
        except OSError:
            continue  # no such file: nothing in it
        if _risky_file(str(config), info.st_mtime_ns, info.st_size):
            return True
    return False
