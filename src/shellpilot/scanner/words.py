"""One shell word as the scanner sees it: its literal value, its source text and span.

Owns: the `Word` record shared by the bash, PowerShell and cmd scanners, and how a word
is shown in a pattern. Must not touch: parsing, path resolution or permission logic.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Characters a word may hold and still read back as itself with no quoting.
_BARE = re.compile(r"[\w@%+=:,./-]+", re.ASCII)


class Word(NamedTuple):
    """A word of a command line (immutable).

    `value` is the argv form: quotes removed, escapes resolved, concatenations joined
    (for a `dynamic` word, the text as written). `raw` is the source text. `pathtext` is
    the quote-stripped form in which the only expansions left are `$HOME`, `${HOME}`,
    `$PWD`, `${PWD}` (resolved by scan_paths), or `None` when the word's value cannot be
    known statically. `start`/`end` are offsets of the word in the scanned source.
    """

    value: str
    raw: str
    start: int
    end: int
    dynamic: bool
    pathtext: str | None

    @classmethod
    def literal(cls, value: str, start: int = 0, end: int = 0, raw: str | None = None) -> Word:
        """A word whose value is fully known (`raw` defaults to the value)."""
        return cls(value, value if raw is None else raw, start, end, False, value)

    @classmethod
    def unknowable(cls, raw: str = "") -> Word:
        """A word whose value cannot be known (a sed `w` target read from a dynamic script)."""
        return cls(raw, raw, 0, 0, True, None)

    def suffix(self, skip: int) -> Word:
        """The word without its first `skip` characters (an option's attached argument)."""
        path = None if self.pathtext is None else self.pathtext[skip:]
        return Word(self.value[skip:], self.raw, self.start, self.end, self.dynamic, path)

    def shown(self) -> str:
        """The word as a pattern shows it: its value, quoted only where needed to read back.

        A word written plainly (`src/*.py`, `~/x`) is shown as written; a dynamic one
        (`"$X"`) as written too. A word that had quotes or escapes is shown by its value,
        bare when that is plain text (`'r''m'` -> `rm`, `$'\\x72m'` -> `rm`), else in
        single quotes (`'a b'`, `'*'`), so `shlex.split` of a pattern gives back the argv.
        """
        if self.dynamic or self.raw == self.value:
            return self.raw
        return shown(self.value)


def shown(value: str) -> str:
    """`value` as one shell word: bare when plain, else single-quoted (`'` as `'"'"'`)."""
    if value and _BARE.fullmatch(value) is not None:
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.", re.S)
_EXPANSION = re.compile(r"\$\{(\w+)(:?[-=+?])([^}]*)\}|\$\{?(\w+|[@*#?$!-])\}?")


def unquoted_glob(word: Word) -> bool:
    """Whether `word` holds a glob character bash expands (`*`, `?`, `[..]` outside quotes)."""
    raw = word.raw
    if "*" not in raw and "?" not in raw and "[" not in raw:
        return False
    bare = _QUOTED.sub("", raw) if ("'" in raw or '"' in raw or "\\" in raw) else raw
    return "*" in bare or "?" in bare or ("[" in bare and "]" in bare[bare.index("[") :])


def guess(raw: str) -> str:
    """What a dynamic text most likely reads as, for matching deny rules only: `${X:-rm}`
    -> `rm`, `${X:+y}` -> ``, `$IFS` -> a space, any other `$X` -> `` (quotes kept)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(4)
        if name == "IFS":
            return " "
        op = match.group(2)
        if op is not None and op[-1] in "-=":
            return match.group(3)
        return ""

    return _EXPANSION.sub(one, raw)


_new = tuple.__new__


def plain_word(text: str, start: int, end: int) -> Word:
    """`Word(text, text, start, end, False, text)`: a literal word written as it reads
    (built without the NamedTuple's own `__new__`: this runs for most words)."""
    return _new(Word, (text, text, start, end, False, text))
