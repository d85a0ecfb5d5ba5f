"""Anchored glob matching for permission rules: ``*`` any run, ``?`` one character.

Owns: the matcher and the literal-character count rules use for specificity.
Must not touch: rules, config or shells; it only compares two strings.
"""

from __future__ import annotations

import re

WILDCARDS = frozenset("*?")


def match(text: str, pattern: str) -> bool:
    """True when ``pattern`` matches the whole of ``text``.

    ``*`` matches any run of characters (spaces, ``/`` and newlines included), ``?``
    exactly one character, everything else itself (case-sensitive; backslashes are
    literal). A pattern ending in `` *`` also matches the text without that tail, so
    ``"ls *"`` matches ``ls`` and ``ls -la`` but not ``lsof``.

    Runs in O(len(text) * len(pattern)) at worst and in practice linear in the text:
    the pattern is cut at its stars and each piece is found left-most (``str.find``, or
    a fixed-length regex when it holds ``?``); nothing ever backtracks over an earlier
    piece. ``benchmarks/wildcard.py`` prints the figures.
    """
    if _glob(text, pattern):
        return True
    return pattern.endswith(" *") and _glob(text, pattern[:-2])


def literal_count(pattern: str) -> int:
    """How many characters of ``pattern`` are not wildcards (a specificity measure).

    The space of a trailing `` *`` is not counted: it is optional (``"ls *"`` also
    matches ``ls``), so ``"ls *"`` counts 2, the same as the exact pattern ``"ls"``.
    """
    body = pattern[:-2] if pattern.endswith(" *") else pattern
    return sum(1 for ch in body if ch not in WILDCARDS)


def has_wildcard(pattern: str) -> bool:
    """True when ``pattern`` holds ``*`` or ``?`` (an exact pattern has neither)."""
    return any(ch in WILDCARDS for ch in pattern)


def _piece_at(text: str, piece: str, pos: int) -> bool:
    """Does ``piece`` (literals and ``?``) match ``text`` starting exactly at ``pos``?"""
    if pos < 0 or pos + len(piece) > len(text):
        return False
    if "?" not in piece:
        return text.startswith(piece, pos)
    return _piece_regex(piece).match(text, pos) is not None


def _find(text: str, piece: str, start: int, end: int) -> int:
    """Left-most index >= ``start`` where ``piece`` fits inside ``text[:end]``, or -1."""
    if "?" not in piece:
        return text.find(piece, start, end)
    found = _piece_regex(piece).search(text, start, end)
    return found.start() if found else -1


def _piece_regex(piece: str) -> re.Pattern[str]:
    """A fixed-length regex for a star-free piece (``?`` -> any one character).

    It has no quantifier or alternation, so the engine cannot backtrack: a search is
    at most O(len(text) * len(piece)), done in C (``re`` caches the compiled pattern).
    """
    return re.compile("".join("." if ch == "?" else re.escape(ch) for ch in piece), re.DOTALL)


def _glob(text: str, pattern: str) -> bool:
    """The plain anchored glob (no trailing-`` *`` rule)."""
    if "*" not in pattern:
        return len(pattern) == len(text) and _piece_at(text, pattern, 0)
    pieces = pattern.split("*")
    head, middle, tail = pieces[0], pieces[1:-1], pieces[-1]
    if len(head) + len(tail) > len(text):
        return False
    if not _piece_at(text, head, 0) or not _piece_at(text, tail, len(text) - len(tail)):
        return False
    pos, end = len(head), len(text) - len(tail)
    for piece in middle:
        if not piece:
            continue
        found = _find(text, piece, pos, end)
        if found < 0:
            return False
        pos = found + len(piece)
    return True
