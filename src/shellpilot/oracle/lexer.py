"""A small bash lexer for the mutation fuzzer: words, operators and redirects with their spans.

Owns: splitting a command line into `Token`s (quotes, escapes, ``$(..)``, ``${..}`` and
backticks kept inside their word) and finding the words in command position. Must not
touch: mutations (mutation.py) or the scanner; it only has to be right enough to place
edits where bash reads them the same way, and says None when unsure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPERATORS = ("&&", "||", ";;", "|&", "|", "&", ";", "(", ")", "\n")
_REDIRECT = re.compile(r"(?:\d*|&)(?:>>|>&|>\||<&|<>|>|<)")
_RESERVED_WORDS = (
    "if then else elif fi do done case esac while until for in select function time { } ! [[ ]] coproc"
)
RESERVED = frozenset(_RESERVED_WORDS.split())
"""Reserved words: never command names."""
_PLAIN = re.compile(r"[A-Za-z0-9_./,:@%+=-]+")


@dataclass(frozen=True)
class Token:
    """``kind``: ``word`` | ``op`` | ``redirect`` | ``space``; ``text`` as written;
    ``start``/``end``: its span in the line."""

    kind: str
    text: str
    start: int
    end: int

    @property
    def bare(self) -> str:
        """The text with backslash-newlines removed, as bash reads it first."""
        return self.text.replace("\\\n", "")

    @property
    def plain(self) -> bool:
        """A word of ordinary characters only (no quotes, escapes or expansions)."""
        return self.kind == "word" and _PLAIN.fullmatch(self.text) is not None


def _skip_quoted(line: str, i: int) -> int:
    """Index after the quoted or nested construct starting at ``line[i]``; -1 if unclosed."""
    ch = line[i]
    if ch == "'":
        end = line.find("'", i + 1)
        return -1 if end < 0 else end + 1
    if ch == "$" and line.startswith("$'", i):
        j = i + 2
        while j < len(line):
            if line[j] == "\\":
                j += 2
                continue
            if line[j] == "'":
                return j + 1
            j += 1
        return -1
    if ch == '"':
        j = i + 1
        while j < len(line):
            c = line[j]
            if c == "\\":
                j += 2
            elif c == '"':
                return j + 1
            elif c in "$`" and (c == "`" or line.startswith(("$(", "${"), j)):
                j = _skip_quoted(line, j)
                if j < 0:
                    return -1
            else:
                j += 1
        return -1
    if ch == "`":
        j = i + 1
        while j < len(line):
            if line[j] == "\\":
                j += 2
            elif line[j] == "`":
                return j + 1
            else:
                j += 1
        return -1
    # $( .. ), $(( .. )), ${ .. }
    close = ")" if line[i + 1] == "(" else "}"
    opener = line[i + 1]
    depth = 0
    j = i + 1
    while j < len(line):
        c = line[j]
        if c in "'\"`" or (c == "$" and j + 1 < len(line) and line[j + 1] in "('{"):
            j = _skip_quoted(line, j)
            if j < 0:
                return -1
            continue
        if c == "\\":
            j += 2
            continue
        if c == opener:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def tokens(line: str) -> list[Token] | None:
    """The tokens of ``line``, or None when it holds something this lexer does not follow
    (unbalanced quotes, here-documents, comments)."""
    if "<<" in line.replace("<<<", "") or "#" in line:
        return None
    out: list[Token] = []
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch in " \t":
            j = i
            while j < n and line[j] in " \t":
                j += 1
            out.append(Token("space", line[i:j], i, j))
            i = j
            continue
        if ch == "\\" and i + 1 < n and line[i + 1] == "\n":
            out.append(Token("space", line[i : i + 2], i, i + 2))
            i += 2
            continue
        if ch in "<>" and line.startswith("(", i + 1):  # a process substitution: one word
            j = _skip_quoted(line, i)
            if j < 0:
                return None
            out.append(Token("word", line[i:j], i, j))
            i = j
            continue
        if line.startswith("<<<", i):
            out.append(Token("redirect", "<<<", i, i + 3))
            i += 3
            continue
        redirect = _REDIRECT.match(line, i)
        if redirect:
            out.append(Token("redirect", redirect.group(0), i, redirect.end()))
            i = redirect.end()
            continue
        op = next((o for o in _OPERATORS if line.startswith(o, i)), None)
        if op is not None:
            out.append(Token("op", op, i, i + len(op)))
            i += len(op)
            continue
        j = i
        while j < n and line[j] not in " \t\n;&|()<>":
            c = line[j]
            if c == "\\":
                j += 2
            elif c in "'\"`" or (c == "$" and j + 1 < n and line[j + 1] in "('{"):
                j = _skip_quoted(line, j)
                if j < 0:
                    return None
            else:
                j += 1
        j = min(j, n)
        if j == i:
            return None
        out.append(Token("word", line[i:j], i, j))
        i = j
    return out


def command_words(toks: list[Token]) -> list[int]:
    """Indexes of the words bash reads as command names (after assignments and redirects;
    reserved words and function names skipped; ``for``/``case``/``select`` lines give up
    after the keyword)."""
    names: list[int] = []
    expect = True
    after_redirect = False
    solid = [i for i, t in enumerate(toks) if t.kind != "space"]
    for position, index in enumerate(solid):
        tok = toks[index]
        if tok.kind == "op":
            expect = tok.text != ")"
            after_redirect = False
            continue
        if tok.kind == "redirect":
            after_redirect = True
            continue
        if after_redirect:
            after_redirect = False
            continue
        if not expect:
            continue
        word = tok.bare
        if word in ("for", "case", "select", "function", "[[", "coproc"):
            return names
        if word in RESERVED:
            continue
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", word):
            continue  # an assignment before the command
        following = [toks[j].text for j in solid[position + 1 : position + 3]]
        if following == ["(", ")"]:
            return names  # a function definition: its body is not followed here
        names.append(index)
        expect = False
    return names


def rebuild(line: str, toks: list[Token], index: int, text: str) -> str:
    """``line`` with token ``index`` replaced by ``text``."""
    tok = toks[index]
    return line[: tok.start] + text + line[tok.end :]


__all__ = ["RESERVED", "Token", "command_words", "rebuild", "tokens"]
