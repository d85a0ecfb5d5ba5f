"""The command scanner's face: `scan()` and the choice of scanner per shell.

Owns: normalising cwd/project, picking bash | PowerShell | cmd, the never-silent contract.
Must not touch: running commands or judging permissions (result types: scan_result.py).
"""

from __future__ import annotations

import os
from functools import lru_cache

from shellpilot.scanner.bash_walk import scan_bash, scan_sh
from shellpilot.scanner.cmdline import scan_cmd
from shellpilot.scanner.context import Grammar, GrammarScan, ScanContext
from shellpilot.scanner.parse import POSIX_SHELLS, POWERSHELLS
from shellpilot.scanner.scan_paths import PathResolver
from shellpilot.scanner.scan_powershell import scan_powershell
from shellpilot.scanner.scan_result import (
    MAX_DEPTH,
    MAX_NESTING,
    Scan,
    ScanBuilder,
    ScannedCommand,
)
from shellpilot.scanner.written_runs import written_runs

__all__ = ["MAX_DEPTH", "MAX_NESTING", "Scan", "ScanBuilder", "ScannedCommand", "scan", "shell_kind"]


GRAMMARS: dict[Grammar, GrammarScan] = {
    "bash": scan_bash,
    "sh": scan_sh,
    "powershell": scan_powershell,
    "cmd": scan_cmd,
}
"""The scanner of each grammar, handed down to every scanner of a scan (see ScanContext):
text one shell hands to another (`pwsh -Command "bash -c '..'"`) is scanned through it."""


@lru_cache(maxsize=256)
def _normalised(path: str, base: str | None) -> str:
    """Absolute `path` (joined to absolute `base` when relative), normalised. Pure: cached."""
    if base is not None and not os.path.isabs(path):
        path = os.path.join(base, path)
    return os.path.normpath(path)


@lru_cache(maxsize=256)
def _places(project_dir: str, cwd: str) -> tuple[str, str] | None:
    """(project, start cwd), both absolute and normalised, for an absolute `project_dir`.

    `None` for a relative `project_dir`: it depends on the process cwd, so it is not cached.
    Pure otherwise: one cached call instead of two normalisations per scan.
    """
    if not os.path.isabs(project_dir):
        return None
    project = os.path.normpath(project_dir)
    return project, _normalised(cwd, project)


def _absolute(path: str, base: str | None) -> str:
    """`path` made absolute (against `base`, else the process cwd) and normalised."""
    if base is None and not os.path.isabs(path):
        return os.path.normpath(os.path.join(os.getcwd(), path))
    return _normalised(path, base)


@lru_cache(maxsize=64)
def shell_kind(shell: str) -> str:
    """`bash` | `powershell` | `cmd` | `other` for a shell name or path (`/bin/zsh`, `pwsh.exe`)."""
    name = os.path.basename(shell.replace("\\", "/")).lower()
    if name.endswith(".exe"):
        name = name[:-4]
    if name in POSIX_SHELLS:
        return "bash"
    if name in POWERSHELLS:
        return "powershell"
    if name == "cmd":
        return "cmd"
    return "other"


def scan(
    command: str,
    *,
    cwd: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    shell: str = "bash",
) -> Scan:
    """Scan `command` as `shell` would run it in `cwd`, for a project rooted at `project_dir`.

    bash/zsh/sh/dash/ksh use the bash grammar, pwsh/powershell the PowerShell grammar,
    cmd a simple tokenizer; any other shell is scanned with the bash grammar and marked
    `unknown`. A relative `cwd` is taken relative to `project_dir`; a `cwd` outside the
    project is itself put in `dirs`. Never raises for bad commands: parse errors, unknown
    syntax and internal failures set `unknown` with a reason. Arguments of the wrong type
    (bytes, None) raise TypeError.

    Patterns are the words as bash reads them (see ScannedCommand.text). Wrappers (sudo,
    env, nohup, nice, timeout, taskset, flock, xargs, uv run, npx... see wrapper_table;
    a leading `\\`; an absolute program path) and leading `VAR=x` assignments: the
    command's own text is a pattern AND so is the real command's (`sudo /usr/bin/rm x`
    -> `rm x`), so a rule `rm *` matches either way; `always` holds the real command's
    arity prefix (`rm *`) then the same prefixed by the wrapper text (`sudo rm *`).
    Text other commands run is scanned too: `bash -c`, `eval`, `trap`, `su -c`, `find
    -exec`, here-documents and literal `echo`/`printf` output fed to a shell, aliases,
    `hash -p` names, functions (at each call, with its arguments), git aliases and git
    `-c` settings that run programs, `pwsh -Command` (through ScanContext.grammars).
    An alias is scanned both expanded and not (bash may not expand it: no
    `expand_aliases`, or defined on the same line or in the same compound command).
    bash's `time` keyword, `command`, `builtin` and `exec` keep the shell's own lookups
    (`time cd d`, `command source f`, `hash -p` names after `command`/`exec`). A `cd` to
    a directory missing now may fail, so the commands after it (but right after `&&`)
    count from both places. Substitutions are scanned wherever they sit; a tree-sitter query and a lexer
    (bash_nets) catch those the walk did not reach. Paths go through symlinks, option
    shapes name output files (option_table), and a missing top-level path is its own dir.

    `unknown` (with a reason, and `*` in writes): dynamic paths; command names that are
    dynamic, globs or brace lists; relative paths after a `cd` to a dynamic place;
    `source`; a shell reading an unknown stdin (`curl .. | sh`); text nested over
    `MAX_DEPTH` or `MAX_NESTING`, or over `RESCAN_FACTOR` times the line; a line over
    16 KB tree-sitter cannot parse within 2 s and 512 MB; `env -S`; `pwsh
    -EncodedCommand`; `xargs` feeding a file command; git in a repository whose config
    (or a submodule's) runs programs, or a git subcommand that is no git command nor
    alias; `$'..'`/brace lists in text for a POSIX `sh`; syntax errors; shapes the
    parser misreads (a reserved word as a command name, a line starting with `\\name`);
    unknown grammar nodes; a line with no command; and any shell other than bash/sh/PowerShell/cmd.
    """
    # (callers pass Paths or strs; os.fspath on a Path costs two Python-level calls)
    project_text = project_dir if isinstance(project_dir, str) else os.fspath(project_dir)
    cwd_text = cwd if isinstance(cwd, str) else os.fspath(cwd)
    if not (
        isinstance(command, str)
        and isinstance(shell, str)
        and isinstance(project_text, str)
        and isinstance(cwd_text, str)
    ):
        kinds = ", ".join(type(v).__name__ for v in (command, shell, project_text, cwd_text))
        raise TypeError(f"scan() takes str command and shell, str or PathLike[str] paths; got {kinds}")
    placed = _places(project_text, cwd_text)
    if placed is None:
        project = _absolute(project_text, None)
        start = _normalised(cwd_text, project)
    else:
        project, start = placed
    builder = ScanBuilder(len(command))
    resolver = PathResolver(project, builder)
    if not resolver.inside(start):
        builder.outside(start)
    kind = shell_kind(shell)
    ctx = ScanContext(builder, resolver, GRAMMARS)
    try:
        if kind == "other":
            builder.unknown(f"shell {shell!r} is not bash, PowerShell or cmd; scanned as bash")
        grammar: Grammar = (
            "bash" if kind in ("other", "bash") else "powershell" if kind == "powershell" else "cmd"
        )
        if grammar == "bash" and os.path.basename(shell) in ("sh", "dash", "ash"):
            grammar = "sh"
        GRAMMARS[grammar](command, (start,), ctx, 0)
    except Exception as err:  # a scanner bug must never mean "nothing to check"
        builder.unknown(f"scanner failure ({type(err).__name__}: {err})")
    if not builder.seen and command.strip():
        builder.unknown("no command found in a non-empty command line")
    written_runs(builder)
    return builder.build()
