"""The variables a builtin assigns by name, read as bash reads the name.

Owns: `SPECIAL_VARIABLES` (the variables through which bash itself runs or finds things)
and `assigned_name_problem`, which judges the name operands of `read`, `mapfile`/
`readarray`, `getopts`, `printf -v`, `wait -p` and the declaration builtins (`declare`,
`typeset`, `local`, `export`, `readonly`, `unset`). Must not touch: the text-level check
for plainly written mentions of those names (bash_walk._special), which runs first.

bash removes quotes from a name operand before it assigns: `read 'HO'ME`, `read
$'\\x48'OME`, `export H\\OME=/x` and `printf -vHOME x` all assign HOME, although the text
never shows `HOME` as a word. A name made at run time (`read ${X}ME`, `unset $v`,
`declare ${p:-HOME}=/x`) may be any of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from shellpilot.scanner.bash_words import ansi_text
from shellpilot.scanner.words import Word

SPECIAL_VARIABLES = (
    "BASH_ALIASES",
    "BASH_CMDS",
    "BASH_ENV",
    "PS4",
    "PROMPT_COMMAND",
    "CDPATH",
    "HOME",
    "SHELLOPTS",
    "BASHOPTS",
    "BASH_XTRACEFD",
    "EXECIGNORE",
    "BASH_LOADABLES_PATH",
)
"""Variables that change what bash runs or where: aliases, the hash table, a file every
new bash reads, the xtrace prompt and its fd, where `cd` and `~` go, shell options."""
_SPECIAL = frozenset(SPECIAL_VARIABLES)

_OPTIONS: dict[str, tuple[str, str, bool]] = {
    "read": ("dinNptu", "a", True),
    "mapfile": ("dnOsuCc", "", True),
    "readarray": ("dnOsuCc", "", True),
    "printf": ("", "v", False),
    "wait": ("", "p", False),
}
"""Per builtin: option letters that take a value, those whose value is a name, and
whether its operands are names (`read a b`) or not (`printf fmt args`, `wait pid`)."""
_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly", "unset"})
"""Builtins whose every non-option word names a variable (`export X=1`, `unset y`)."""
ASSIGNERS = frozenset({*_OPTIONS, *_DECLARERS, "getopts"})
"""Every builtin `assigned_name_problem` judges."""
_NUMBERS = frozenset({"$!", "$?", "$$", "$#", "${!}", '"$!"', '"$?"', '"$$"'})
"""Run-time words that are always a number, never an option or a name."""
_ANSI = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.S)
_NAME_END = re.compile(r"\+?=|\[")


def _unquoted(text: str) -> str:
    """Shell text with its quoting removed as bash removes it from a word."""
    if "$'" in text:
        text = _ANSI.sub(lambda m: ansi_text(m.group(1)), text)
    return text.replace('$"', '"').replace("'", "").replace('"', "").replace("\\", "")


def _name_of(word: Word) -> str | None:
    """The variable `word` names (the part before `=`, `+=` or `[`), quotes removed;
    None when it is made at run time."""
    if not word.dynamic:
        return _NAME_END.split(word.value, maxsplit=1)[0]
    part = _NAME_END.split(word.raw, maxsplit=1)[0]
    if "$" in part.replace("$'", "").replace('$"', "") or "`" in part:
        return None
    return _unquoted(part)


def _named(name: str, args: Sequence[Word]) -> Iterator[Word]:
    """The words of `name ARGS` that bash takes as variable names."""
    if name == "getopts":
        if len(args) > 1:
            yield args[1]
        return
    if name in _DECLARERS:
        yield from (w for w in args if w.dynamic or w.value[:1] not in ("-", "+"))
        return
    takes, names, operands = _OPTIONS[name]
    i = 0
    options = True
    while i < len(args):
        word = args[i]
        value = word.value
        i += 1
        if word.dynamic and word.raw in _NUMBERS:
            options = False
            continue
        if options and word.dynamic:
            yield word  # (`read $opts`, `printf "$f"`: may be `-aHOME`, `-vHOME`)
            options = False
            continue
        if options and value == "--":
            options = False
            continue
        if options and value[:1] == "-" and len(value) > 1:
            for at, letter in enumerate(value[1:], 2):
                if letter in takes or letter in names:
                    given = word.suffix(at) if at < len(value) else (args[i] if i < len(args) else None)
                    if at >= len(value):
                        i += 1
                    if letter in names and given is not None:
                        yield given
                    break
            continue
        options = False
        if operands:
            yield word
        else:
            return


def assigned_name_problem(name: str, args: Sequence[Word]) -> str | None:
    """Why the builtin `name` (one of `ASSIGNERS`) called with `args` makes the scan
    unknown: it assigns one of `SPECIAL_VARIABLES`, however quoted, or a variable named
    at run time; None when every name it assigns is a plain other one."""
    for word in _named(name, args):
        variable = _name_of(word)
        if variable is None:
            return f"{name} assigns a variable named at run time ({word.raw})"
        if variable in _SPECIAL:
            return f"{name} assigns {variable}, which changes what bash runs or where"
    return None


__all__ = ["ASSIGNERS", "SPECIAL_VARIABLES", "assigned_name_problem"]
