"""Counting the substitutions bash will run in a command text, without tree-sitter.

Owns: a small conservative lexer finding each live `$(`, backtick, `<(` and `>(`.
Must not touch: scanning the commands found (scan_bash.py) or results policy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Any character that may change the lexer's state; everything between is skipped at once.
_SPECIAL = re.compile(r"[\\'\"`$<>()\[\]{}#\n]")
_HEREDOC = re.compile(r"<<(-?)[ \t]*((?:[^\s;&|<>()]|\\.)+)")
_WORD_START = frozenset(" \t\n;&|()<>")
# Stack frames: C `$(`/`<(`/`>(` body (a script), T backtick body (a script),
# Q double quotes, A `$((`/`((` arithmetic, B `$[` arithmetic, E `${..}`.
_SCRIPT = frozenset("CT")
_PAIRS = {"C": "()", "A": "()", "B": "[]", "E": "{}"}


@dataclass(frozen=True, slots=True)
class Opener:
    """One live substitution: `start` of its opener and its body `[body, end)` (char offsets).

    `end` is -1 when the lexer found no close (the body then runs to the end of the text).
    `kind` is `$(`, `` ` ``, `<(` or `>(`.
    """

    kind: str
    start: int
    body: int
    end: int


def live_openers(text: str) -> list[Opener]:
    """Every `$(`/backtick/`<(`/`>(` in `text` that bash may substitute, in text order.

    Conservative by design (a false find costs a prompt; a miss would let a command run
    unscanned): only these protect an opener: a single-quoted string in a script context
    (top level, or directly inside `$(..)`/backticks) whose text has no `[` (a subscript
    `a[$(cmd)]` in a single-quoted `let`/`[[ -eq ]]` operand is evaluated), `$'..'`, a
    comment, a backslash, and the body of a here-document with a quoted delimiter. Single
    quotes inside `"..."`, `$((..))`, `((..))`, `$[..]` and `${..}` protect nothing there;
    unquoted here-document bodies are read like double-quoted text; a single-quoted
    string after an unclosed `[` of its word (`a['$(cmd)']=1`) protects nothing either.
    Offsets are indices into `text` (byte offsets when `text` was decoded as latin-1).
    """
    found: list[Opener] = []
    _lex(text, 0, len(text), [], found, heredoc=False)
    return found


def _lex(
    text: str, i: int, end: int, stack: list[list[object]], found: list[Opener], *, heredoc: bool
) -> None:
    """Lex `text[i:end]`; a frame is `[kind, depth, found index or -1]`."""
    pending: list[tuple[str, bool, bool]] = []  # here-docs waiting for the line's end
    search = _SPECIAL.search
    while True:
        m = search(text, i, end)
        if m is None:
            return
        i = m.start()
        c = text[i]
        frame = stack[-1] if stack else None
        kind = str(frame[0]) if frame is not None else ("H" if heredoc else "C")
        script = kind in _SCRIPT
        nxt = text[i + 1] if i + 1 < end else ""
        if c == "\\":
            if kind == "T" and nxt == "`" and frame is not None:  # nested backticks: count each pair once
                if not frame[1]:
                    found.append(Opener("`", i + 1, i + 2, -1))
                frame[1] = 0 if frame[1] else 1
            i += 2
            continue
        if c == "\n":
            i += 1
            if pending and script:
                i = _bodies(text, i, end, pending, found)
                pending = []
            continue
        if c == "'":
            if script:
                close = text.find("'", i + 1, end)
                close = end if close < 0 else close
                if "[" in text[i + 1 : close] or _in_subscript(text, i):
                    _lex(text, i + 1, close, [["Q", 0, -1]], found, heredoc=False)
                i = close + 1
            else:
                i += 1
            continue
        if c == '"':
            if kind == "Q":
                stack.pop()
            elif kind != "H":
                stack.append(["Q", 0, -1])
            i += 1
            continue
        if c == "#":
            if script and (i == 0 or text[i - 1] in _WORD_START):
                line = text.find("\n", i, end)
                i = end if line < 0 else line
            else:
                i += 1
            continue
        if c == "`":
            if kind == "T":
                _close(stack, found, i)
            else:
                found.append(Opener("`", i, i + 1, -1))
                stack.append(["T", 0, len(found) - 1])
            i += 1
            continue
        if c == "$":
            if nxt == "(":
                if text.startswith("((", i + 1):
                    stack.append(["A", 2, -1])
                    i += 3
                else:
                    found.append(Opener("$(", i, i + 2, -1))
                    stack.append(["C", 1, len(found) - 1])
                    i += 2
            elif nxt == "[":
                stack.append(["B", 1, -1])
                i += 2
            elif nxt == "{":
                stack.append(["E", 1, -1])
                i += 2
            elif nxt == "'" and script:
                i = _ansi_end(text, i + 2, end)
            else:
                i += 1
            continue
        if c in "<>":
            if nxt == "(" and kind not in "QH":
                found.append(Opener(c + "(", i, i + 2, -1))
                stack.append(["C", 1, len(found) - 1])
                i += 2
                continue
            if text.startswith("<<<", i):  # a here-string: no body follows
                i += 3
                continue
            if c == "<" and script and nxt == "<":
                m2 = _HEREDOC.match(text, i, end)
                if m2 is not None:
                    word = m2.group(2)
                    quoted = any(q in word for q in "'\"\\")
                    delim = word.replace("\\", "").replace("'", "").replace('"', "")
                    pending.append((delim, quoted, m2.group(1) == "-"))
                    i = m2.end()
                    continue
            i += 1
            continue
        # brackets: ( ) [ ] { }
        if c == "(" and script and text.startswith("((", i) and (i == 0 or text[i - 1] in _WORD_START):
            stack.append(["A", 2, -1])  # `((expr))`, `for ((..))`: arithmetic, quotes do not protect
            i += 2
            continue
        if frame is not None:
            pair = _PAIRS.get(kind)
            if pair is not None:
                if c == pair[0]:
                    frame[1] = int(str(frame[1])) + 1
                elif c == pair[1]:
                    frame[1] = int(str(frame[1])) - 1
                    if int(str(frame[1])) <= 0:
                        _close(stack, found, i)
        i += 1


def _in_subscript(text: str, at: int) -> bool:
    """Whether `at` sits after an unclosed `[` of its word (`a['$(cmd)']=1` runs cmd)."""
    start = at
    while start > 0 and text[start - 1] not in _WORD_START:
        start -= 1
    prefix = text[start:at]
    return "[" in prefix and prefix.count("[") > prefix.count("]")


def _close(stack: list[list[object]], found: list[Opener], at: int) -> None:
    frame = stack.pop()
    index = int(str(frame[2]))
    if index >= 0:
        opener = found[index]
        found[index] = Opener(opener.kind, opener.start, opener.body, at)


def _ansi_end(text: str, i: int, end: int) -> int:
    """Index after the `'` closing a `$'..'` string whose body starts at `i`."""
    while i < end:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "'":
            return i + 1
        else:
            i += 1
    return end


def _bodies(text: str, i: int, end: int, pending: list[tuple[str, bool, bool]], found: list[Opener]) -> int:
    """Read the here-document bodies starting at `i`; returns the index after the last."""
    for delim, quoted, strip in pending:
        start = i
        while i < end:
            line_end = text.find("\n", i, end)
            line_end = end if line_end < 0 else line_end
            line = text[i:line_end]
            if (line.lstrip("\t") if strip else line) == delim:
                body_end = i
                i = min(line_end + 1, end)
                break
            i = line_end + 1
        else:
            body_end = end
            i = end
        if not quoted:
            _lex(text, start, body_end, [], found, heredoc=True)
    return i
