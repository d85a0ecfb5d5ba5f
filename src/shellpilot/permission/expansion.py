"""What the shell would still expand or redirect in a read-only candidate's text.

Owns: telling quoted from unquoted characters of a plain command text, judging the brace
and glob expansions of its words, its parameter expansions, and dropping its harmless
redirects (/dev/null, fd copies). Must not touch: option tables (``readonly.py``).
"""

from __future__ import annotations

import glob
import os
import re
import shlex
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


_FD_OPERATOR = re.compile(r"&>>|&>|>>|>\||>&|<&|<>|<<|>|<")
_NULL = frozenset({"/dev/null", "'/dev/null'", '"/dev/null"'})
_FD_TARGET = re.compile(r"\d+-?|-")
_WORD_END = frozenset(" \t\n;&|()<>")


def without_null_redirects(text: str) -> str | None:
    """``text`` with its harmless redirects cut out, else None.

    Harmless: to or from /dev/null (``2>/dev/null``, ``>/dev/null``, ``&>/dev/null``,
    ``</dev/null``, ``>>/dev/null``) and fd copies or closes (``2>&1``, ``>&2``, ``2>&-``).
    None when any other redirect is left (a file, ``<>``, a here-document or
    here-string), when the quoting is unbalanced, or for a trailing backslash. Quoted or
    escaped ``<`` and ``>`` are ordinary characters.
    """
    out: list[str] = []
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                out.append(ch)
                i += 1
                if i >= n:
                    return None
                ch = text[i]
            out.append(ch)
            i += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "\\":
            if i + 1 >= n:
                return None
            out.append(text[i : i + 2])
            i += 2
            continue
        elif ch in "<>" or (ch == "&" and text.startswith(">", i + 1)):
            # a number right before the operator is its fd when it starts a word
            start = len(out)
            while start > 0 and out[start - 1].isdigit():
                start -= 1
            if start == 0 or out[start - 1] in (" ", "\t"):
                del out[start:]
            found = _FD_OPERATOR.match(text, i)
            if found is None or found.group(0) in ("<>", "<<"):
                return None
            j = found.end()
            while j < n and text[j] in " \t":
                j += 1
            k = j
            while k < n and text[k] not in _WORD_END:
                k += 1
            target = text[j:k]
            dup = found.group(0) in (">&", "<&")
            if not (target in _NULL or (dup and _FD_TARGET.fullmatch(target))):
                return None
            out.append(" ")
            i = k
            continue
        out.append(ch)
        i += 1
    if quote:
        return None
    return "".join(out).strip()


_EXPANSION = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([?#$!0-]))")
"""A plain parameter expansion: ``$NAME``, ``${NAME}`` or a special parameter."""


def plain_expansions(text: str) -> list[tuple[str, bool]] | None:
    """The parameter expansions of a plain command text as ``(name, quoted)`` pairs
    (``quoted``: inside double quotes), or None when a ``$`` or backtick outside single
    quotes starts anything else (``$(..)``, ``${x:-..}``, ``$((..))``, ``$1``, ``$@``)."""
    found: list[tuple[str, bool]] = []
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = ""
        elif ch == "\\":
            i += 1
        elif ch == "`":
            return None
        elif ch == "$":
            match = _EXPANSION.match(text, i)
            if match is None:
                return None
            found.append((next(g for g in match.groups() if g), quote == '"'))
            i = match.end()
            continue
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch == "'" and not quote:
            quote = "'"
        i += 1
    return found


BASH_SET = frozenset(
    {
        "_",
        "BASH_COMMAND",
        "BASH_REMATCH",
        "BASH_EXECUTION_STRING",
        "BASH_ARGV",
        "BASH_ARGV0",
        "BASH_SOURCE",
        "FUNCNAME",
        "DIRSTACK",
        "REPLY",
        "MAPFILE",
        "OPTARG",
        "COPROC",
    }
)
"""Variables bash itself sets from what the line's other commands do, their names never
written: ``$_`` is the last word of the command before (``true '/etc/*'; echo $_``),
``BASH_REMATCH`` what ``[[ =~ ]]`` matched. ``PWD`` and ``OLDPWD`` count only on a line
with a ``cd``, ``pushd`` or ``popd`` that may lead to a name with a glob character (the
line holds one, or ``-P``)."""


def assigned_in(name: str, line: str) -> bool:
    """Could ``line`` set variable ``name``: does the name appear in it other than as
    ``$name`` or ``${name}`` (``name=..``, ``read name``, ``for name in``, ``export name``),
    or is it one bash sets itself (``BASH_SET``)? Special parameters (``?``, ``#``,
    ``$``...) are never assigned by a command line."""
    if name in BASH_SET:
        return True
    if name in ("PWD", "OLDPWD") and re.search(r"(?<![\w-])(cd|pushd|popd)(?![\w-])", line):
        # `cd '/x/*'; echo $PWD` lists /x (so may `cd -P link`); `cd sub` leaves a plain path
        return any(c in line for c in "*?[") or "-P" in line
    if not (name[0].isalpha() or name[0] == "_"):
        return False
    rest = re.sub(r"\$\{?" + re.escape(name) + r"\b\}?", "", line)
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", rest) is not None


PRINTERS = frozenset({"echo", "printf", "basename", "dirname"})
"""Commands whose words may hold plain parameter expansions (``$NAME``): they only print
their words (echo, printf) or cut them as strings (basename, dirname), never open them."""

_UNSAFE_UNQUOTED = frozenset("`><|&;()\n")
"""Characters that end a plain command outside quotes (``$`` is judged by plain_expansions)."""


def plain_text(text: str, commands: frozenset[str], printers: frozenset[str]) -> bool:
    """``text`` is one plain simple command whose name is in ``commands`` (see
    ``readonly.plain_command_text``); parameter expansions only for ``printers``."""
    stripped = without_null_redirects(text)
    if stripped is None:
        return False
    quote = ""
    i = 0
    while i < len(stripped):
        ch = stripped[i]
        if quote == "'":
            if ch == "'":
                quote = ""
        elif ch == "\\":
            i += 1
        elif quote == '"':
            if ch == '"':
                quote = ""
            elif ch == "`":
                return False
        elif ch in "'\"":
            quote = ch
        elif ch in _UNSAFE_UNQUOTED:
            return False
        i += 1
    if quote:
        return False
    try:
        parts = shlex.split(stripped)
    except ValueError:
        return False
    if not parts or parts[0] not in commands:
        return False
    found = plain_expansions(stripped)
    return found is not None and (not found or parts[0] in printers)


def same_words(text: str, argv: list[str]) -> bool:
    """Does ``text`` split into ``argv``? A dynamic word is kept by the scanner as written
    (``"$X"``), so it may match the unquoted word either way."""
    split = masked_words(text)
    if split is None or len(split) != len(argv):
        return False
    for (word, _), arg in zip(split, argv, strict=True):
        if word == arg:
            continue
        try:
            if "$" not in arg or shlex.split(arg) != [word]:
                return False
        except ValueError:
            return False
    return True


def expansions_allowed(name: str, text: str, line: str | None, printers: frozenset[str]) -> bool:
    """Parameter expansions in a plain text: only for printers, only plain ones, and an
    unquoted one only when ``line`` does not set the variable."""
    found = plain_expansions(text)
    if found is None:
        return False
    if not found:
        return True
    if name not in printers:
        return False
    return all(quoted or (line is not None and not assigned_in(var, line)) for var, quoted in found)


__all__ = [
    "BASH_SET",
    "PRINTERS",
    "QUOTED",
    "assigned_in",
    "expansions_allowed",
    "glob_is_safe",
    "has_brace_expansion",
    "has_glob",
    "masked_words",
    "plain_expansions",
    "plain_text",
    "same_words",
    "without_null_redirects",
]
