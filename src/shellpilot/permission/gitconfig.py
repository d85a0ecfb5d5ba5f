"""Whether a repository's own git config could make a "read-only" git command run a program.

Owns: the permission layer's view of a directory's repository (its top level, its risky
config). Must not touch: rules, argv judging (gitargs.py) or running git; discovery and
config reading themselves live in `scanner.git_repos`, shared with the scanner.

Why: a cloned repository is untrusted input, and its `.git/config` can set
`core.fsmonitor = ./evil` — then a plain `git status`, which the read-only set allows
without a prompt, runs `./evil`. The user's own config (~/.gitconfig, system config) is
theirs and is not read here.
"""

from __future__ import annotations

import os
from pathlib import Path

from shellpilot.scanner.git_repos import RISKY_WORDS, git_dir, risky_config


def repo_config_runs_programs(directory: Path) -> bool:
    """True when git run in `directory` would read a repository config that may run a
    program or move the work tree (see `RISKY_WORDS`): the repository git discovers
    there (a `.git` directory, a gitfile, a bare repository; an invalid `.git` directory
    passed over as git passes over it), or a submodule or gitlink it may recurse into.
    False when there is no repository or every such config is plain. A few stat calls;
    file contents cached by mtime and size."""
    return risky_config(os.path.abspath(directory)) is not None


def repo_top(directory: Path) -> Path | None:
    """The top level of the repository git run in `directory` uses (physical path; a
    bare repository's own directory), or None outside any repository."""
    found = git_dir(os.path.abspath(directory))
    return Path(found[0]) if found is not None else None


__all__ = ["RISKY_WORDS", "repo_config_runs_programs", "repo_top"]
