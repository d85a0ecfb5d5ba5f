"""What the shell would still expand in a read-only candidate's words: braces and globs.

Owns: telling quoted from unquoted characters of a plain command text and judging the
brace and glob expansions of its words. Must not touch: option tables (``readonly.py``).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable

QUOTED = "\x00"
"""Stands in, in a masked word, for a character the shell takes literally (quoted/escaped)."""

_GLOB = re.compile(r"[*?\[]")
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_GLOB_SAFE = re.compile(r"[A-Za-z0-9_./*?+=:,@%-]+")
_MAX_MATCHES = 1000


def masked_words(text: str) -> list[tuple[str, str]] | None:
    """Split a plain command text like ``shlex.split`` (POSIX) into ``(word, mask)`` pairs.

    ``mask`` has the word's length; each character the shell takes literally (inside
    quotes or after a backslash) is ``QUOTED`` there. None for unbalanced quotes.
    """
    words: list[tuple[str, str]] = []
    word: list[str] = []
    mask: list[str] = []
    started = False
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        i += 1
        if quote == "'":
            if ch == "'":
                quote = ""
            else:
                word.append(ch)
                mask.append(QUOTED)
        elif quote == '"':
            if ch == '"':
                quote = ""
            elif ch == "\\" and i < len(text) and text[i] in '\\"':
                word.append(text[i])
                mask.append(QUOTED)
                i += 1
            else:
                word.append(ch)
                mask.append(QUOTED)
        elif ch in "'\"":
            quote = ch
            started = True
        elif ch == "\\":
            if i >= len(text):
                return None
            word.append(text[i])
            mask.append(QUOTED)
            started = True
            i += 1
        elif ch.isspace():
            if started:
                words.append(("".join(word), "".join(mask)))
            word, mask, started = [], [], False
        else:
            word.append(ch)
            mask.append(ch)
            started = True
    if quote:
        return None
    if started:
        words.append(("".join(word), "".join(mask)))
    return words


def has_brace_expansion(mask: str) -> bool:
    """Would the shell brace-expand this (masked) word: ``{a,b}`` or ``{1..3}`` unquoted."""
    return _BRACE.search(mask) is not None


def has_glob(mask: str) -> bool:
    """Does this (masked) word hold an unquoted ``*``, ``?`` or ``[``?"""
    return _GLOB.search(mask) is not None


def glob_is_safe(word: str, cwd: str | None, inside: Callable[[str], bool]) -> bool:
    """True when every file the shell could expand glob ``word`` to stays inside.

    Conservative: only ``*`` and ``?`` over plain characters (no ``[...]``, ``**``,
    ``~``, extglob or zsh qualifiers); no ``..`` component and no globbed component
    starting with ``.`` (``.?`` matches ``..`` in sh); a known ``cwd`` to expand in; at
    most 1000 matches, none starting with ``-`` (read as an option) and every one
    ``inside`` once symlinks are resolved.
    """
    if cwd is None or not _GLOB_SAFE.fullmatch(word) or "**" in word:
        return False
    for part in word.split("/"):
        if part == ".." or (part.startswith(".") and _GLOB.search(part)):
            return False
    matches = glob.iglob(word, root_dir=None if os.path.isabs(word) else cwd, include_hidden=True)
    for count, match in enumerate(matches):
        if count >= _MAX_MATCHES or match.startswith("-") or not inside(match):
            return False
    return True


__all__ = ["QUOTED", "glob_is_safe", "has_brace_expansion", "has_glob", "masked_words"]
