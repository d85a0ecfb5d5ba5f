"""Placeholder substitution in one pass over a template, producing typed segments.

Owns: cutting a template into text and shell blocks with every placeholder filled, and
splicing only inert values into blocks (``splice``). Must not touch: processes,
permissions or files (template.py runs the blocks; references.py resolves ``@path``);
which text is a placeholder or a block is placeholders.py's and layout.py's.
"""

from __future__ import annotations

import re
import shlex
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from shellpilot.command.layout import BlockForm, Region, layout
from shellpilot.command.model import TemplateSyntax
from shellpilot.command.placeholders import Placeholder, find
from shellpilot.command.values import Values, Variables

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

    ``command`` is what runs; ``form`` says how it was written (`` !`cmd` ``, a
    ```` ```! ```` fence or ``!{cmd}``).
    """

    command: str
    form: BlockForm = "backtick"
    refused: str = ""
    """The placeholder (``$1``, ``$ARGUMENTS``, ``{{args}}``) whose value could not be
    inserted safely; then ``command`` is the block as written and it must not run."""

    @property
    def written(self) -> str:
        """The block as it would appear in the template after substitution."""
        if self.form == "fence":
            return f"```!\n{self.command}\n```"
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


_PATH_REST = re.compile(r"[^\s`\"']*")


def _quoted_reference(template: str, start: int, value: str) -> bool:
    """True for ``@${CLAUDE_SKILL_DIR}/x`` whose folder holds a space: the reference is
    written ``@"<folder>/x"`` so it still names one file."""
    return start > 0 and template[start - 1] == "@" and any(ch.isspace() for ch in value)


@dataclass(frozen=True)
class Substituted:
    """A template with its placeholders filled: the segments, and warnings to show."""

    parts: list[Segment]
    warnings: list[str]


def _block(template: str, region: Region, inside: list[Placeholder], values: Values) -> BlockSegment:
    """The block with its values spliced (``splice``), or refused as written."""
    start, end = region.inner_start, region.inner_end
    if region.form == "fence":
        end = start + len(template[start:end].rstrip("\r\n"))
    out: list[str] = []
    state: QuoteState = "none"
    pos = start
    for p in inside:
        if p.start >= end:
            break
        before = template[pos : p.start]
        out.append(before)
        state = _advance(before, state)
        value = values.of(p)
        if value is None:
            out.append(p.text)
            state = _advance(p.text, state)
        else:
            inserted = splice(value, state, template[start : p.start])
            if inserted is None:
                return BlockSegment(template[start:end], region.form, refused=p.text)
            out.append(inserted)
        pos = p.end
    out.append(template[pos:end])
    return BlockSegment("".join(out), region.form)


def substitution(
    template: str,
    arguments: str,
    syntax: TemplateSyntax = "shellpilot",
    *,
    named: Sequence[str] = (),
    variables: Variables | None = None,
    name: str = "",
) -> Substituted:
    """Substitute placeholders in ONE pass over ``template`` and cut it into segments.

    Blocks and placeholders follow the format's rules (``layout.layout``,
    ``placeholders.find``); values follow ``values.Values`` (``name`` is the command's,
    for Gemini's appended invocation and Codex's errors). Inserted text is never scanned
    again, so ``$1``, ``\\1`` or `` !`x` `` inside an argument stay literal. A value is
    inserted inside a shell block only when ``splice`` proves it inert; otherwise the block
    is kept as written with ``refused`` naming the placeholder. When no placeholder takes
    the arguments, ``Values.appended`` follows the text. Raises CommandArgumentError (a
    Codex prompt invoked without its ``KEY=value`` arguments).
    """
    regions = layout(template, syntax)
    found = find(template, syntax, regions, named)
    values = Values(syntax, arguments, found, name=name, variables=variables)
    blocks = [r for r in regions if r.kind == "block"]
    loose = [p for p in found if p.where != "block"]
    out: list[Segment] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            out.append(TextSegment("".join(literal)))
            literal.clear()

    pos = 0
    events: list[Region | Placeholder] = sorted([*blocks, *loose], key=lambda e: e.start)
    for event in events:
        if event.start < pos:
            continue  # inside a path already quoted for an @reference
        literal.append(template[pos : event.start])
        pos = event.end
        if isinstance(event, Region):
            flush()
            inside = [p for p in found if event.inner_start <= p.start < event.inner_end]
            out.append(_block(template, event, inside, values))
            continue
        value = values.of(event)
        if value is None:
            literal.append(event.text)
        elif event.kind == "variable" and _quoted_reference(template, event.start, value):
            rest = _PATH_REST.match(template, event.end)
            end = rest.end() if rest else event.end
            literal.append(f'"{value}{template[event.end : end]}"')
            pos = end
        elif event.kind in ("escape", "variable"):
            literal.append(value)
        elif value:
            flush()
            out.append(TextSegment(value, inserted=True))
    literal.append(template[pos:])
    flush()
    tail = values.appended(found)
    if tail:
        out.append(TextSegment(tail, inserted=True))
    return Substituted(out, values.warnings)


def segments(template: str, arguments: str, syntax: TemplateSyntax = "shellpilot") -> list[Segment]:
    """The segments of ``substitution`` (no named arguments or variables)."""
    return substitution(template, arguments, syntax).parts


def render(parts: list[Segment]) -> str:
    """Join segments into text, writing blocks as they appear after substitution."""
    return "".join(p.text if isinstance(p, TextSegment) else p.written for p in parts)


def substitute(
    template: str,
    arguments: str,
    syntax: TemplateSyntax = "shellpilot",
    *,
    named: Sequence[str] = (),
    variables: Variables | None = None,
    name: str = "",
) -> str:
    """Steps 1-2 of expansion as a pure function: the template with placeholders filled.

    Shell blocks are kept in their written form with the quoted values in place, so the
    result shows exactly what would run. See ``substitution`` for the rules.
    ``substitute("Fix $1 then $2", "a b c") == "Fix a then b c"``.
    """
    return render(
        substitution(template, arguments, syntax, named=named, variables=variables, name=name).parts
    )
