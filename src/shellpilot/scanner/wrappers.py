"""Command wrappers (sudo, env, nohup, nice, timeout, xargs, ...): finding the real command.

Owns: the wrapper table and `unwrap()` over a command's words, plus `program_name()`.
Must not touch: parsing, paths resolution or patterns (the scanner decides what to do).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shellpilot.scanner.words import Word

_NONE: frozenset[str] = frozenset()


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class _Wrapper:
    short_values: str = ""  # option letters taking a value
    optional_attached: str = ""  # letters whose value is only ever attached (xargs -i[R])
    long_values: frozenset[str] = _NONE  # --long options taking a value (as `--x v` or `--x=v`)
    positionals: int = 0  # words consumed after the options (timeout's DURATION)
    assignments: bool = False  # NAME=value words are the wrapper's (env, sudo)
    chdir: str = ""  # letters whose value is the command's working directory
    long_chdir: frozenset[str] = _NONE
    paths: str = ""  # letters whose value is a file the wrapper reads or writes
    long_paths: frozenset[str] = _NONE
    no_exec: str = ""  # letters meaning the wrapper runs no command (`command -v`)
    refuse: str = ""  # letters we cannot follow statically (`env -S STRING`)
    long_refuse: frozenset[str] = _NONE


WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _Wrapper(
        short_values="ugCDhprtTUR",
        assignments=True,
        chdir="D",
        long_chdir=_s("--chdir"),
        long_values=_s(
            "--user",
            "--group",
            "--close-from",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
            "--chroot",
        ),
        no_exec="lvkKVe",
    ),
    "doas": _Wrapper(short_values="uC", no_exec="L"),
    "env": _Wrapper(
        short_values="u",
        assignments=True,
        chdir="C",
        long_chdir=_s("--chdir"),
        long_values=_s("--unset", "--default-signal", "--ignore-signal", "--block-signal"),
        refuse="S",
        long_refuse=_s("--split-string"),
    ),
    "nohup": _Wrapper(),
    "nice": _Wrapper(short_values="n", long_values=_s("--adjustment")),
    "ionice": _Wrapper(short_values="cnp", long_values=_s("--class", "--classdata")),
    "timeout": _Wrapper(short_values="sk", long_values=_s("--signal", "--kill-after"), positionals=1),
    "gtimeout": _Wrapper(short_values="sk", long_values=_s("--signal", "--kill-after"), positionals=1),
    "stdbuf": _Wrapper(short_values="ioe", long_values=_s("--input", "--output", "--error")),
    "time": _Wrapper(short_values="f", paths="o", long_paths=_s("--output"), long_values=_s("--format")),
    "command": _Wrapper(no_exec="vV"),
    "builtin": _Wrapper(),
    "exec": _Wrapper(short_values="a"),
    "setsid": _Wrapper(),
    "coproc": _Wrapper(),
    # watch runs its arguments joined by spaces through `sh -c` (the scanner re-parses them)
    "watch": _Wrapper(short_values="n", optional_attached="d", long_values=_s("--interval")),
    "unbuffer": _Wrapper(),
    "xargs": _Wrapper(
        short_values="adEILnPs",
        optional_attached="iel",
        paths="a",
        long_values=_s(
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ),
        long_paths=_s("--arg-file"),
    ),
}
"""Wrapper name -> how to skip its own options to reach the command it runs."""


@dataclass(slots=True)
class Unwrapped:
    """Where the real command starts in a word list, and what the wrappers said.

    `index`: position of the real command's name (the last wrapper itself when it runs
    nothing, e.g. bare `env` or `command -v x`). `wrappers`: the names peeled off, outer
    first. `chdir`: a directory the command runs in (`env -C d`, `sudo -D d`). `paths`:
    files the wrappers themselves touch (`xargs -a f`, `time -o f`). `problem`: why the
    rest cannot be analysed (`env -S`), else `None`.
    """

    index: int = 0
    wrappers: list[str] = field(default_factory=list)
    chdir: Word | None = None
    paths: list[Word] = field(default_factory=list)
    problem: str | None = None

    def keep(self, value: Word, *, chdir: bool, path: bool) -> None:
        """Record a wrapper option's value: as ``chdir`` when the option sets the directory,
        else in ``paths`` when it names a file; any other option's value is dropped."""
        if chdir:
            self.chdir = value
        elif path:
            self.paths.append(value)


def program_name(value: str) -> str:
    """The name a rule sees: leading `\\` dropped, an absolute path cut to its basename."""
    if value.startswith("\\"):
        value = value.lstrip("\\")
    if value.startswith("/"):
        value = value.rsplit("/", 1)[-1]
    return value


def _is_assignment(value: str) -> bool:
    name, eq, _ = value.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def unwrap(words: Sequence[Word]) -> Unwrapped:
    """Peel wrappers off `words` (a whole simple command, name first).

    Nested wrappers are followed (`sudo env X=1 nice -n 5 rm x` -> index of `rm`). A
    dynamic word stops the walk.
    """
    result = Unwrapped()
    n = len(words)
    i = 0
    while i < n:
        head = words[i]
        if head.dynamic:
            break
        name = program_name(head.value)
        spec = WRAPPERS.get(name)
        if spec is None:
            break
        j = i + 1
        positionals = spec.positionals
        stop = False
        while j < n and not stop:
            word = words[j]
            v = word.value
            if spec.assignments and not word.dynamic and _is_assignment(v):
                j += 1
            elif v == "--":
                j += 1
                break
            elif v.startswith("--") and not word.dynamic:
                key, eq, _ = v.partition("=")
                if key in spec.long_refuse:
                    result.problem = f"{name} {key} runs a command given as one string"
                    stop = True
                    break
                value: Word | None = None
                if eq:
                    value = word.suffix(len(key) + 1)
                elif key in spec.long_values or key in spec.long_chdir or key in spec.long_paths:
                    value = words[j + 1] if j + 1 < n else None
                    j += 1
                if value is not None:
                    result.keep(value, chdir=key in spec.long_chdir, path=key in spec.long_paths)
                j += 1
            elif v.startswith("-") and len(v) > 1 and not word.dynamic:
                for k in range(1, len(v)):
                    letter = v[k]
                    if letter in spec.no_exec:
                        result.index = i
                        return result
                    if letter in spec.refuse:
                        result.problem = f"{name} -{letter} runs a command given as one string"
                        stop = True
                        break
                    if letter in spec.optional_attached:
                        break
                    if letter in spec.short_values or letter in spec.chdir or letter in spec.paths:
                        if k + 1 < len(v):
                            value = word.suffix(k + 1)
                        else:
                            value = words[j + 1] if j + 1 < n else None
                            j += 1
                        if value is not None:
                            result.keep(value, chdir=letter in spec.chdir, path=letter in spec.paths)
                        break
                j += 1
            elif positionals:
                positionals -= 1
                j += 1
            else:
                break
        if stop:
            result.index = i
            return result
        if j >= n:
            break  # the wrapper runs nothing else: it is the command
        result.wrappers.append(name)
        i = j
    result.index = i
    return result
