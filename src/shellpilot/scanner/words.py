"""One shell word as the scanner sees it: its literal value, its source text and span.

Owns: the `Word` record shared by the bash, PowerShell and cmd scanners.
Must not touch: parsing or path resolution (scan_paths.py) or permission logic.
"""

from __future__ import annotations


class Word:
    """A word of a command line.

    `value` is the argv form: quotes removed, escapes resolved, concatenations joined
    (for a `dynamic` word, the text as written). `pathtext` is the quote-stripped form in
    which the only expansions left are `$HOME`, `${HOME}`, `$PWD`, `${PWD}` (resolved by
    scan_paths), or `None` when the word's value cannot be known statically.
    `start`/`end` are byte offsets of the word in the scanned source.
    """

    __slots__ = ("dynamic", "end", "pathtext", "raw", "start", "value")

    def __init__(
        self, value: str, raw: str, start: int, end: int, dynamic: bool, pathtext: str | None
    ) -> None:
        self.value = value
        self.raw = raw
        self.start = start
        self.end = end
        self.dynamic = dynamic
        self.pathtext = pathtext

    @classmethod
    def literal(cls, value: str, start: int = 0, end: int = 0, raw: str | None = None) -> Word:
        """A word whose value is fully known (`raw` defaults to the value)."""
        return cls(value, value if raw is None else raw, start, end, False, value)

    def suffix(self, skip: int) -> Word:
        """The word without its first `skip` characters (an option's attached argument)."""
        path = None if self.pathtext is None else self.pathtext[skip:]
        return Word(self.value[skip:], self.raw, self.start, self.end, self.dynamic, path)

    def __repr__(self) -> str:
        return f"Word({self.value!r}{', dynamic' if self.dynamic else ''})"


def plain_word(text: str, start: int, end: int) -> Word:
    """`Word(text, text, start, end, False, text)`: a literal word written as it reads."""
    return Word(text, text, start, end, False, text)
