"""Who is held to account in a trace: which programs must be predicted, whose files count.

Owns: the program roles of judge.py (checked, watched, see-through, opaque) and the names
programs are predicted by. Must not touch: paths, scans or findings (judge.py).

Programs form a tree (trace.Program.via). The shell the oracle starts is *watched*. A
program started by a watched shell (reading ``-c`` or stdin), by git (aliases, hooks,
fsmonitor), or by a watched program that names it in its own arguments (``timeout 5 rm
x``, ``awk 'BEGIN{system("rm x")}'``) is *checked*: its exec must be predicted. A shell a
watched program starts for command text from its arguments (``script -c 'rm x'``) carries
that text: watched, its children checked, itself not. Other programs' children are their
own implementation (``tar`` running ``gzip``): not checked, not watched. Interpreters and build
tools (`OPAQUE`), shells running a script file and programs in the project are checked
but not watched: they run code the command line does not show.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from shellpilot.oracle.trace import Program

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "rbash", "busybox"})
"""Shells: see-through when they read ``-c`` or stdin, opaque when they run a script file."""

_OPAQUE_NAMES = (
    "python python2 python3 node nodejs deno bun perl ruby php lua luajit Rscript java javac "
    "make gmake cmake ninja cargo rustc go gcc cc g++ c++ clang clang++ ld npm npx pnpm yarn "
    "pip pip3 pipx uv uvx poetry tox pytest mvn gradle docker podman kubectl terraform ansible"
)
OPAQUE = frozenset(_OPAQUE_NAMES.split())
"""Programs that run code the command line does not show (scripts, build files, modules)."""


@dataclass
class Roles:
    """Memoised roles of programs: checked (exec must be predicted), watched (its own
    files count)."""

    root: Program
    checked: dict[int, bool] = field(default_factory=dict)
    watched: dict[int, bool] = field(default_factory=dict)

    def is_watched(self, program: Program) -> bool:
        key = id(program)
        if key not in self.watched:
            if program is self.root:
                self.watched[key] = True
            elif program.via is None:
                self.watched[key] = True  # a process whose parent the trace did not show
            else:
                carried = (
                    program.via is not None
                    and self.is_watched(program.via)
                    and _carries(program, program.via)
                )
                self.watched[key] = (self.is_checked(program) or carried) and not _opaque(program)
        return self.watched[key]

    def is_checked(self, program: Program) -> bool:
        key = id(program)
        if key not in self.checked:
            via = program.via
            if program is self.root or via is None:
                result = program is not self.root
            else:
                result = self.is_watched(via) and (_see_through(via) or _names(program, via))
            self.checked[key] = result
        return self.checked[key]


def program_name(program: Program) -> str:
    """The name a program is predicted by: its file name; git's helpers (``git-core/*``,
    ``sh -c 'git-upload-pack ..'`` for a local clone) as ``git``."""
    name = program.name
    if "/git-core/" in program.path or (name.startswith("git-") and "/git" in program.path):
        return "git"
    if name in SHELLS and "-c" in program.argv[1:-1]:
        script = program.argv[program.argv.index("-c") + 1]
        if script.startswith("git-") and program.via is not None and program.via.name == "git":
            return "git"
    return name


def _shell_script(program: Program) -> bool:
    """A shell given a script file to run (not ``-c`` text, not stdin)."""
    args = program.argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-c", "-s") or (arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]):
            return False
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if arg == "--":
            return i + 1 < len(args)
        if not arg.startswith(("-", "+")):
            return True
        i += 1
    return False


def _see_through(program: Program) -> bool:
    """Git itself (not its helper scripts) and shells reading ``-c`` or stdin."""
    name = program.name
    return name == "git" or (name in SHELLS and not _shell_script(program))


def _opaque(program: Program) -> bool:
    name = program.name
    if name in OPAQUE or name.startswith(("python3.", "pip3.")):
        return True
    if name in SHELLS and _shell_script(program):
        return True
    return not program.path.startswith(("/usr/", "/bin/", "/sbin/")) and "/" in program.path


def _names(program: Program, via: Program) -> bool:
    """``via`` names ``program`` in its own arguments: as an argument (a wrapper:
    ``timeout 5 rm``) or as a word inside one (``awk 'BEGIN{system("rm x")}'`` runs rm
    itself when the text has no shell syntax; ``git -c core.pager='less -R'``)."""
    args = [arg for arg in via.argv[1:] if arg]
    names = {n for n in (program.name, program.argv[0] if program.argv else "") if n}
    if any(os.path.basename(arg) in names for arg in args):
        return True
    words = [re.compile(r"(?<![\w./-])" + re.escape(os.path.basename(n)) + r"(?![\w./-])") for n in names]
    return any(word.search(arg) for word in words for arg in args if len(arg) > 2)


def _carries(program: Program, via: Program) -> bool:
    """``program`` is a shell ``via`` started for command text from its own arguments
    (``awk 'BEGIN{system("rm x; ls")}'``, ``script -c 'rm x'``, ``ProxyCommand='rm x'``:
    ``sh -c 'rm x; ls'`` or ``$SHELL -c 'exec rm x'``). Its name is the program's own
    business (which shell, from $SHELL or not); what it runs is the text's, so it is
    watched and see-through without having to be predicted itself."""
    if program.name not in SHELLS or "-c" not in program.argv[1:-1]:
        return False
    text = program.argv[program.argv.index("-c") + 1].strip().removeprefix("exec ")
    return bool(text) and any(text in arg for arg in via.argv[1:])


__all__ = ["OPAQUE", "SHELLS", "Roles", "program_name"]
