"""The state of one simulated bash process that decides what a command name runs:
aliases, `hash -p` entries, functions defined so far, git aliases set on the line.

Owns: `BashShell` (recording those definitions from the commands that make them and
saying what a name stands for). Must not touch: judging commands (bash_command.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shellpilot.scanner.context import Cwds
from shellpilot.scanner.words import Word, shown

FunctionBody = Callable[[Cwds, "list[Word] | None"], Cwds]
"""Scans a defined function's body as run from the given cwds with the given arguments
(its `$1`, `$@`...; None: not known); returns the cwds after."""

_PARAMETERS = re.compile(r'"\$(?:\{)?([@*])(?:\})?"|\$(?:\{)?([@*#]|[0-9])(?:\})?')


def with_arguments(text: str, args: list[Word]) -> str:
    """A function body's `text` with its parameters replaced by the call's arguments
    (`"$@"`, `$*`, `$1`, `${2}`, `$#`), each shown as one shell word."""
    shown_args = [w.raw if w.dynamic else shown(w.value) for w in args]

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in "@*":
            return " ".join(shown_args)
        if name == "#":
            return str(len(args))
        index = int(name)
        if index == 0:
            return match.group(0)
        return shown_args[index - 1] if index <= len(args) else "''"

    return _PARAMETERS.sub(one, text)


class BashShell:
    """One simulated bash process. A `bash -c` string starts a new one; `eval`, `trap`,
    `source /dev/stdin`, alias expansions and function calls run in the same one.

    `dirs`: the `pushd` stack. `aliases`: name -> every replacement text it was given
    (`alias ll='ls -l'`; bash -c expands them only after `shopt -s expand_aliases`, zsh
    always: both count).
    `hashed`: name -> every program path it was given (`hash -p /bin/rm del`). `functions`: name -> its
    body's scanner. `git_aliases`: git alias name -> its value (`git config alias.x ..`,
    earlier on the same line). `expanding`: the names being expanded now (bash never
    expands an alias inside itself; a function calling itself is scanned once).
    """

    __slots__ = ("aliases", "dirs", "expanding", "functions", "git_aliases", "hashed", "posix", "problems")

    def __init__(self, posix: bool = False) -> None:
        self.posix = posix
        """A POSIX shell (sh, dash): `time` is no keyword there, but /usr/bin/time."""
        self.dirs: list[Cwds] = []
        self.aliases: dict[str, list[str]] = {}
        self.hashed: dict[str, list[str]] = {}
        self.functions: dict[str, FunctionBody] = {}
        self.git_aliases: dict[str, str] = {}
        self.expanding: set[str] = set()
        self.problems: list[str] = []

    def defines(self, name: str, args: list[Word]) -> None:
        """Record what `alias`, `unalias`, `hash` and `unset -f` commands define or drop;
        a definition whose text is dynamic goes to `problems` (the scan cannot follow it)."""
        if name == "alias":
            for word in args:
                key, eq, value = word.value.partition("=")
                if not eq or word.value.startswith("-"):
                    continue
                if word.dynamic:
                    self.problems.append(f"alias with a dynamic value {word.raw}")
                else:
                    texts = self.aliases.setdefault(key, [])
                    if value not in texts:
                        texts.append(value)
        # (`unalias` drops nothing: bash expands aliases as it reads a line or a compound
        # command, before running it, so one defined earlier may still be expanded after)
        elif name == "hash":
            values = [w.value for w in args]
            if "-p" in values:
                at = values.index("-p")
                if len(args) > at + 2:
                    program, alias = args[at + 1], args[at + 2]
                    if program.dynamic or alias.dynamic:
                        self.problems.append("hash -p with a dynamic path or name")
                    else:
                        programs = self.hashed.setdefault(alias.value, [])
                        if program.value not in programs:
                            programs.append(program.value)
            # (`hash -r`/`-d` drop nothing: a `hash` on a branch that may not run, `cd x &&
            # hash -p ..`, leaves either table, so every program a name was given counts)
        elif name == "unset" and any(w.value == "-f" for w in args):
            for word in args:
                self.functions.pop(word.value, None)

    def alias_of(self, head: Word) -> list[str] | None:
        """Every replacement text an alias named by `head` (an unquoted literal word) was
        given so far: which one bash expands depends on when it read the line (a compound
        command is read whole, before the definitions in it run), so each counts."""
        if head.dynamic or head.raw != head.value or head.value in self.expanding:
            return None
        return self.aliases.get(head.value)


def rest_text(words: list[Word]) -> str:
    """`words` as command text again (each shown by its value, quoted where needed)."""
    return " ".join(w.shown() if not w.dynamic else w.raw for w in words)


__all__ = ["BashShell", "FunctionBody", "rest_text", "shown"]
