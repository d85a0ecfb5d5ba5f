"""bash brace expansion of literal words: `a{b,c}d`, `{1..5}`, `{a..e..2}`, nested lists.

Owns: expanding one unquoted literal word exactly as bash would, with a cap.
Must not touch: parsing, quoting (callers pass only unquoted literal text) or paths.
"""

from __future__ import annotations

import itertools
import re

MAX_WORDS = 64
"""Most words one brace expansion may give before the caller must give up (unknown)."""

_SEQUENCE = re.compile(r"^(?:([+-]?\d+)\.\.([+-]?\d+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.([+-]?\d+))?$")


def brace_words(text: str, cap: int = MAX_WORDS) -> list[str] | None:
    """The words bash's brace expansion makes of the unquoted literal `text`, in order.

    `[text]` when there is nothing to expand (`{}`, `{a}`, `${x}`, an unclosed `{`);
    `None` when the expansion would give more than `cap` words.
    Source: bash manual §3.5.1 (Brace Expansion).
    """
    if "{" not in text:
        return [text]
    out: list[str] = []
    if not _expand(text, cap, out):
        return None
    return out


def _expand(text: str, cap: int, out: list[str]) -> bool:
    """Append `text`'s expansion to `out`; False when `out` would pass `cap` words."""
    start = 0
    while True:
        i = text.find("{", start)
        if i < 0:
            break
        if i > 0 and text[i - 1] == "$":  # `${x}` is a parameter, not a brace list
            start = i + 1
            continue
        found = _alternatives(text, i)
        if found is None:
            start = i + 1
            continue
        alternatives, close = found
        prefix = text[:i]
        suffix = text[close + 1 :]
        return all(_expand(prefix + alternative + suffix, cap, out) for alternative in alternatives)
    if len(out) >= cap:
        return False
    out.append(text)
    return True


def _alternatives(text: str, open_: int) -> tuple[list[str], int] | None:
    """(the alternatives, index of the closing `}`) for the brace at `open_`, or None."""
    depth = 0
    commas: list[int] = []
    i = open_
    while i < len(text):
        c = text[i]
        if c == "{":
            if i == open_ or text[i - 1] != "$":
                depth += 1
            else:
                close = text.find("}", i)  # `${x}` inside a list: skipped whole
                if close < 0:
                    return None
                i = close
        elif c == "}":
            depth -= 1
            if depth == 0:
                if commas:
                    cuts = [open_, *commas, i]
                    return [text[a + 1 : b] for a, b in itertools.pairwise(cuts)], i
                sequence = _sequence(text[open_ + 1 : i])
                return (sequence, i) if sequence is not None else None
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _sequence(body: str) -> list[str] | None:
    """`1..5`, `05..10`, `a..e`, with an optional `..step`; None for anything else."""
    m = _SEQUENCE.match(body)
    if m is None:
        return None
    step = abs(int(m.group(5) or 1)) or 1
    if m.group(1) is not None:
        first, last = int(m.group(1)), int(m.group(2))
        if abs(last - first) // step + 1 > MAX_WORDS:
            return [body] * (MAX_WORDS + 1)  # the caller's cap gives up
        width = 0
        for raw in (m.group(1), m.group(2)):
            digits = raw.lstrip("+-")
            if len(digits) > 1 and digits[0] == "0":
                width = max(width, len(raw))
        numbers = range(first, last + 1, step) if first <= last else range(first, last - 1, -step)
        return [_padded(n, width) for n in numbers]
    a, b = ord(m.group(3)), ord(m.group(4))
    codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
    return [chr(code) for code in codes]


def _padded(number: int, width: int) -> str:
    if not width:
        return str(number)
    sign = "-" if number < 0 else ""
    return sign + str(abs(number)).zfill(width - len(sign))
