"""The command scanner's face: `scan()`, its result types and the builder scanners fill.

Owns: `Scan`, `ScannedCommand`, `ScanBuilder` (patterns, always, dirs, unknown) and the
choice of scanner per shell. Must not touch: running commands or judging permissions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from shellpilot.permission.arity import prefix as arity_prefix
from shellpilot.shell.parse import POSIX_SHELLS, POWERSHELLS

MAX_DEPTH = 8
"""How deep `bash -c` / `eval` / `pwsh -c` strings are re-parsed before giving up."""


@dataclass(frozen=True, slots=True)
class ScannedCommand:
    """One simple command found by the scanner.

    `text`: its source text with redirects (the permission pattern). `argv`: the REAL
    command after unwrapping wrappers and leading assignments: literal words with quotes
    removed, escapes resolved and concatenations joined; the name normalised
    (`/usr/bin/rm`, `\\rm` -> `rm`); dynamic words kept as written. `always`: the arity
    prefix of `argv` plus ` *`. `dynamic`: some word of `argv` is not literal.
    `wrappers`: wrapper names peeled off, outer first (`["sudo", "timeout"]`).
    """

    text: str
    argv: list[str]
    always: str
    dynamic: bool
    wrappers: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Scan:
    """What a command line runs and touches, for the permission engine.

    `patterns`: source text of each simple command, ordered, de-duplicated; for a wrapped
    command (`sudo rm x`, `FOO=1 npm test`, `xargs rm`) both the full text and the text
    from the real command on (`rm x`, `npm test`), so a rule `rm *` matches `sudo rm x`.
    `always`: per command, the real command's arity prefix + ` *` (`rm *`), followed, for
    a wrapped command, by the same prefixed with the wrapper text (`sudo rm *`) so that
    answering "always" also covers the wrapped form next time.
    `dirs`: absolute directories outside the project that the command reads or writes.
    `unknown`: something could not be analysed statically (`reasons` say what); the
    caller must then ask about the whole command text.
    """

    patterns: list[str]
    always: list[str]
    dirs: list[str]
    unknown: bool
    reasons: list[str]
    commands: list[ScannedCommand]


class ScanBuilder:
    """Accumulates one scan's results in order, de-duplicated (dict keys as ordered sets)."""

    __slots__ = ("_always", "_dirs", "_patterns", "_reasons", "commands", "seen")

    def __init__(self) -> None:
        self._patterns: dict[str, None] = {}
        self._always: dict[str, None] = {}
        self._dirs: dict[str, None] = {}
        self._reasons: dict[str, None] = {}
        self.commands: list[ScannedCommand] = []
        self.seen = False

    def command(
        self,
        text: str,
        argv: list[str],
        dynamic: bool,
        wrappers: list[str] | None = None,
        inner_text: str | None = None,
        prefix_text: str = "",
    ) -> None:
        """Record one simple command (see `Scan` for the wrapped-command patterns)."""
        self.seen = True
        always = " ".join(arity_prefix(argv)) + " *"
        self._patterns[text] = None
        if inner_text and inner_text != text:
            self._patterns[inner_text] = None
        self._always[always] = None
        if prefix_text:
            self._always[prefix_text + " " + always] = None
        self.commands.append(ScannedCommand(text, argv, always, dynamic, wrappers or []))

    def outside(self, path: str) -> None:
        """Record an absolute directory outside the project."""
        self._dirs[path] = None

    def unknown(self, reason: str) -> None:
        """Record why part of the command could not be analysed."""
        self._reasons[reason] = None

    def build(self) -> Scan:
        """The frozen result."""
        return Scan(
            patterns=list(self._patterns),
            always=list(self._always),
            dirs=list(self._dirs),
            unknown=bool(self._reasons),
            reasons=list(self._reasons),
            commands=self.commands,
        )


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
    syntax and internal failures set `unknown` with a reason.
    Source: issue 2 §2; spec §2.3 ("Permission scan") and §7.2 (its gaps, closed here).
    """
    from shellpilot.shell.scan_paths import PathResolver

    project = os.path.normpath(os.path.abspath(os.fspath(project_dir)))
    start = os.path.normpath(os.path.join(project, os.fspath(cwd)))
    builder = ScanBuilder()
    resolver = PathResolver(project, os.path.expanduser("~"), builder.outside, builder.unknown)
    if not resolver.inside(start):
        builder.outside(start)
    kind = shell_kind(shell)
    try:
        if kind == "powershell":
            from shellpilot.shell.scan_powershell import scan_powershell

            scan_powershell(command, (start,), builder, resolver, 0)
        elif kind == "cmd":
            from shellpilot.shell.cmdline import scan_cmd

            scan_cmd(command, (start,), builder, resolver)
        else:
            from shellpilot.shell.scan_bash import scan_bash

            if kind == "other":
                builder.unknown(f"shell {shell!r} is not bash, PowerShell or cmd; scanned as bash")
            scan_bash(command, (start,), builder, resolver, 0)
    except Exception as err:  # a scanner bug must never mean "nothing to check"
        builder.unknown(f"scanner failure ({type(err).__name__}: {err})")
    if command.strip() and not builder.seen:
        builder.unknown("no command found in a non-empty command line")
    return builder.build()
