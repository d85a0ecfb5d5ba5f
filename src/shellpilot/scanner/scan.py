"""The command scanner's face: `scan()` and the choice of scanner per shell.

Owns: normalising cwd/project, picking bash | PowerShell | cmd, the never-silent contract.
Must not touch: running commands or judging permissions (result types: scan_result.py).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from shellpilot.scanner.cmdline import scan_cmd
from shellpilot.scanner.parse import POSIX_SHELLS, POWERSHELLS
from shellpilot.scanner.scan_bash import scan_bash
from shellpilot.scanner.scan_paths import PathResolver
from shellpilot.scanner.scan_powershell import scan_powershell
from shellpilot.scanner.scan_result import (
    MAX_DEPTH,
    MAX_NESTING,
    Scan,
    ScanBuilder,
    ScannedCommand,
)

__all__ = ["MAX_DEPTH", "MAX_NESTING", "Scan", "ScanBuilder", "ScannedCommand", "scan", "shell_kind"]


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


def _nested(
    grammar: str, script: str, cwds: tuple[str, ...] | None, builder: ScanBuilder, resolver: Any, depth: int
) -> None:
    """The grammar dispatcher handed to every scanner: a nested bash or PowerShell script."""
    if grammar == "powershell":
        scan_powershell(script, cwds, builder, resolver, depth)
    else:
        scan_bash(script, cwds, builder, resolver, depth)


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
    (bytes, None) raise TypeError, from both builds (see shellpilot._compiled).

    Wrappers (sudo, doas, env, nohup, nice, ionice, timeout, stdbuf, time, command,
    builtin, exec, setsid, coproc, xargs, watch; a leading `\\`; an absolute program path)
    and leading `VAR=x` assignments: the command's own text is a pattern AND so is the
    real command's text (`sudo /usr/bin/rm x` -> `rm x`), so a rule `rm *` matches either
    way; `always` holds the real command's arity prefix (`rm *`) then the same prefixed by
    the wrapper text (`sudo rm *`); `ScannedCommand.argv` is the real command's.

    Still `unknown`: dynamic paths or command names (`$X`, `$(..)`, backticks, `%VAR%`,
    PowerShell variables), relative paths after `cd` to a dynamic place (`cd "$X"`,
    `cd -`, `popd` without `pushd`), `bash -c`/`eval`/`trap`/`su -c`/`watch`/`pwsh -c`/
    `iex` with a non-literal string or nested over `MAX_DEPTH`, statements nested over
    `MAX_NESTING` levels (`$(..)` in `$(..)`, subshells, groups), nested command text over
    `RESCAN_FACTOR` times the line's length, a line over 16 KB that tree-sitter cannot
    parse within 2 s and 512 MB (parse.parse_probed), scripts from stdin
    (`curl .. | sh`), `env -S`, `pwsh -EncodedCommand`, `xargs` feeding a file command,
    `find -exec` without its terminator, syntax errors, unknown grammar nodes, a line with
    no command (only comments), and any other shell than bash/PowerShell/cmd.
    Substitutions (`$(..)`, backticks, `<(..)`, `>(..)`) are scanned wherever they sit
    (words, numbers such as `16#$(..)`, arithmetic, subscripts, `${x:-..}`, tests, case
    patterns, here-docs, redirects, assignments, declarations, for lists); a final
    tree-sitter query checks that the walk reached each one and scans any it did not,
    with an unknown cwd and an `unknown` reason; a last lexer (bash_openers) finds those
    bash runs where the tree shows none (`$(( '$(..)' ))`, `"${x:-'$(..)'}"`, `$[..]`,
    backticks in unquoted here-documents), scans their text and sets `unknown`.
    Brace lists and sequences in literal words are expanded as bash does (`cp a{,.bak}`,
    over 64 words: `unknown`); a glob component that may match `..` (`.?/x`) is `unknown`.
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
        # The same error from both builds (the compiled one checks `command: str` itself).
        kinds = ", ".join(type(v).__name__ for v in (command, shell, project_text, cwd_text))
        raise TypeError(f"scan() takes str command and shell, str or PathLike[str] paths; got {kinds}")
    placed = _places(project_text, cwd_text)
    if placed is None:
        project = _absolute(project_text, None)
        start = _normalised(cwd_text, project)
    else:
        project, start = placed
    builder = ScanBuilder(len(command), nested=_nested)
    resolver = PathResolver(project, builder)
    if not resolver.inside(start):
        builder.outside(start)
    kind = shell_kind(shell)
    try:
        if kind == "powershell":
            scan_powershell(command, (start,), builder, resolver, 0)
        elif kind == "cmd":
            scan_cmd(command, (start,), builder, resolver)
        else:
            if kind == "other":
                builder.unknown(f"shell {shell!r} is not bash, PowerShell or cmd; scanned as bash")
            scan_bash(command, (start,), builder, resolver, 0)
    except Exception as err:  # a scanner bug must never mean "nothing to check"
        builder.unknown(f"scanner failure ({type(err).__name__}: {err})")
    if not builder.seen and command.strip():
        builder.unknown("no command found in a non-empty command line")
    return builder.build()
