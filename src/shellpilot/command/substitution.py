"""Placeholder substitution in one pass over a template, producing typed segments.

Owns: recognising ``$N``/``$ARGUMENTS``/``{{args}}`` and shell blocks in the template's
own text, and splicing only inert values into blocks (``splice``). Must not touch: processes,
permissions or files (template.py runs the blocks; references.py resolves ``@path``).
"""

from __future__ import annotations

import re
import shlex
import string
from dataclasses import dataclass
from typing import Literal

from shellpilot.command.arguments import split_arguments
from shellpilot.command.model import TemplateSyntax

_PLACEHOLDERS: dict[TemplateSyntax, re.Pattern[str]] = {
    "shellpilot": re.compile(r"\\!(?=[`{])|!`|!\{|\$ARGUMENTS|\$(\d+)"),
    "gemini": re.compile(r"\\!(?=[`{])|!`|!\{|\{\{args\}\}"),
}
_IN_BLOCK: dict[TemplateSyntax, re.Pattern[str]] = {
    "shellpilot": re.compile(r"\$ARGUMENTS|\$(\d+)"),
    "gemini": re.compile(r"\{\{args\}\}"),
}
_NUMBERED = re.compile(r"\$(\d+)")

QuoteState = Literal["none", "single", "double"]

INERT_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_-./,:=+@%")
"""Characters with no meaning in any shell context (word, quotes, ``$'...'``, ``$((...))``,
heredoc, comment, after a backslash): a value made only of them is spliced verbatim."""

_NOT_PLAIN = ("`", "$(", "${", "<<", "#", "\\", "$'", '$"', "((", "[[")
"""Constructs before a placeholder that make its context more than a plain word (so the
quote state guessed by ``_advance`` may be wrong there)."""


@dataclass(frozen=True)
class TextSegment:
    """Plain text; ``inserted`` is True when it came from the user's arguments."""

    text: str
    inserted: bool = False


@dataclass(frozen=True)
class BlockSegment:
    """A shell block found in the template's own text, values already quoted.

    ``command`` is what runs; ``form`` says how it was written (`` !`cmd` `` or ``!{cmd}``).
    """

    command: str
    form: Literal["backtick", "brace"] = "backtick"
    refused: str = ""
    """The placeholder (``$1``, ``$ARGUMENTS``, ``{{args}}``) whose value could not be
    inserted safely; then ``command`` is the block as written and it must not run."""

    @property
    def written(self) -> str:
        """The block as it would appear in the template after substitution."""
        return f"!`{self.command}`" if self.form == "backtick" else f"!{{{self.command}}}"


Segment = TextSegment | BlockSegment


def splice(value: str, state: QuoteState, before: str) -> str | None:
    """The text to insert for ``value`` in a shell block, or None when it is not safe.

    The rule (tester: quoting by a guessed context let ``$((...))``, heredocs, ``$'...'``,
    ``\\$1``, comments and ``"$(... $1)"`` run injected code):

    - only ``INERT_CHARACTERS``, plus ``~`` where it cannot start a tilde expansion (not
      first, not after ``:`` or ``=``; so ``HEAD~1`` passes, ``~/x`` does not): inserted
      verbatim, in every context;
    - a value that also has spaces or non-ASCII letters/digits: inside a single- or
      double-quoted string it is inserted verbatim (nothing there needs escaping), in a
      plain word (no quote open and none of ``_NOT_PLAIN`` earlier in the block's text
      ``before``) ``shlex.quote``-d; anywhere else None;
    - anything else (quotes, ``$ ; & | < > ( ) { } [ ] * ? ! # \\``, newlines, ...): None.
    """
    if all(_inert(value, i) for i in range(len(value))):
        return value
    if not all(
        _inert(value, i) or ch == " " or (not ch.isascii() and ch.isalnum()) for i, ch in enumerate(value)
    ):
        return None
    if state != "none":
        return value
    if any(marker in before for marker in _NOT_PLAIN):
        return None
    return shlex.quote(value)


def _inert(value: str, index: int) -> bool:
    ch = value[index]
    if ch == "~":
        return index > 0 and value[index - 1] not in ":="
    return ch in INERT_CHARACTERS


def _advance(text: str, state: QuoteState) -> QuoteState:
    """The quote state after reading ``text`` of a shell command starting in ``state``."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if state == "single":
            if ch == "'":
                state = "none"
        elif ch == "\\":
            i += 1
        elif state == "double":
            if ch == '"':
                state = "none"
        elif ch == "'":
            state = "single"
        elif ch == '"':
            state = "double"
        i += 1
    return state


def _brace_end(template: str, start: int) -> int:
    """Index of the ``}`` closing the brace opened just before ``start``, or -1."""
    depth = 1
    for i in range(start, len(template)):
        ch = template[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


class _Values:
    """What each placeholder stands for, for one invocation."""

    def __init__(self, arguments: str, last: int) -> None:
        self.raw = arguments
        self.args = split_arguments(arguments)
        self.last = last

    def numbered(self, number: int) -> str | None:
        if number == 0:
            return None  # `$0` stays as written
        index = number - 1
        if index >= len(self.args):
            return ""
        if number == self.last:
            return " ".join(self.args[index:])
        return self.args[index]

    def lookup(self, match: re.Match[str]) -> str | None:
        """The value of a placeholder match, or None if it is literal text."""
        if match.group(0) in ("$ARGUMENTS", "{{args}}"):
            return self.raw
        return self.numbered(int(match.group(1)))


def _block(
    inner: str, form: Literal["backtick", "brace"], syntax: TemplateSyntax, values: _Values
) -> BlockSegment:
    """The block with its values spliced (``splice``), or refused as written."""
    out: list[str] = []
    state: QuoteState = "none"
    pos = 0
    for match in _IN_BLOCK[syntax].finditer(inner):
        before = inner[pos : match.start()]
        out.append(before)
        state = _advance(before, state)
        value = values.lookup(match)
        if value is None:
            out.append(match.group(0))
            state = _advance(match.group(0), state)
        else:
            inserted = splice(value, state, inner[: match.start()])
            if inserted is None:
                return BlockSegment(inner, form, refused=match.group(0))
            out.append(inserted)
        pos = match.end()
    out.append(inner[pos:])
    return BlockSegment("".join(out), form)


def uses_placeholders(template: str, syntax: TemplateSyntax = "shellpilot") -> bool:
    """True when the template has a ``$N`` (N >= 1), ``$ARGUMENTS`` or ``{{args}}``."""
    if syntax == "gemini":
        return "{{args}}" in template
    return "$ARGUMENTS" in template or any(int(m.group(1)) > 0 for m in _NUMBERED.finditer(template))


def segments(template: str, arguments: str, syntax: TemplateSyntax = "shellpilot") -> list[Segment]:
    """Substitute placeholders in ONE pass over ``template`` and cut it into segments.

    Rules: ``$N`` is argument N,
    empty when missing; the highest-numbered placeholder takes the rest joined by
    spaces; ``$0`` stays; every ``$ARGUMENTS`` (Gemini: ``{{args}}``) is the raw text.
    Inserted text is never scanned again, so ``$1``, ``\\1`` or `` !`x` `` inside an
    argument stay literal. Shell blocks (`` !`cmd` ``, ``!{cmd}``) are recognised in the
    template only; a value is inserted inside one only when ``splice`` proves it inert,
    otherwise the block is kept as written with ``refused`` naming the placeholder.
    ``\\!`` before a block opener makes it literal text (the backslash is dropped).
    With no placeholder and non-blank arguments, they are appended after a blank line.
    """
    last = 0
    if syntax == "shellpilot":
        last = max((int(m.group(1)) for m in _NUMBERED.finditer(template)), default=0)
    values = _Values(arguments, last)
    out: list[Segment] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            out.append(TextSegment("".join(literal)))
            literal.clear()

    pattern = _PLACEHOLDERS[syntax]
    pos = 0
    while True:
        match = pattern.search(template, pos)
        if match is None:
            break
        literal.append(template[pos : match.start()])
        token = match.group(0)
        pos = match.end()
        if token == "\\!":
            literal.append("!")
            continue
        if token in ("!`", "!{"):
            end = template.find("`", pos) if token == "!`" else _brace_end(template, pos)
            inner = template[pos:end] if end >= 0 else ""
            if end < 0 or not inner.strip():
                literal.append(token)
                continue
            flush()
            form: Literal["backtick", "brace"] = "backtick" if token == "!`" else "brace"
            out.append(_block(inner, form, syntax, values))
            pos = end + 1
            continue
        value = values.lookup(match)
        if value is None:
            literal.append(token)
            continue
        flush()
        if value:
            out.append(TextSegment(value, inserted=True))
    literal.append(template[pos:])
    flush()
    if not uses_placeholders(template, syntax) and arguments.strip():
        out.append(TextSegment("\n\n" + arguments, inserted=True))
    return out


def render(parts: list[Segment]) -> str:
    """Join segments into text, writing blocks as they appear after substitution."""
    return "".join(p.text if isinstance(p, TextSegment) else p.written for p in parts)


def substitute(template: str, arguments: str, syntax: TemplateSyntax = "shellpilot") -> str:
    """Steps 1-2 of expansion as a pure function: the template with placeholders filled.

    Shell blocks are kept in their written form with the quoted values in place, so the
    result shows exactly what would run. See ``segments`` for the rules.
    ``substitute("Fix $1 then $2", "a b c") == "Fix a then b c"``.
    """
    return render(segments(template, arguments, syntax))
