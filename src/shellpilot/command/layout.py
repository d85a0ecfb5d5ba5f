"""Where a template's code and shell blocks are, by the rules of the format it was written in.

Owns: finding markdown code spans and fences, `` !`cmd` `` blocks, ```` ```! ```` fenced
blocks and Gemini's ``!{...}``. Must not touch: placeholders, values or running anything.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from shellpilot.command.model import TemplateSyntax

RegionKind = Literal["code", "block"]
BlockForm = Literal["backtick", "fence", "brace"]

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_TOKEN_BEFORE = "([{"
"""Characters after which a ``!`` starts a token (besides whitespace and a line start)."""

MARKDOWN_SYNTAXES: frozenset[TemplateSyntax] = frozenset(
    {"shellpilot", "opencode", "claude", "claude-legacy"}
)
"""Formats whose templates are markdown: `` !`cmd` `` blocks, never inside code."""
FENCE_BLOCK_SYNTAXES: frozenset[TemplateSyntax] = frozenset({"shellpilot", "claude", "claude-legacy"})
"""Formats where a fence opened with ```` ```! ```` is a shell script run like a block."""


@dataclass(frozen=True)
class Region:
    """A part of the template that is not prose: ``code`` (a span or fence, kept as text)
    or ``block`` (a shell block). ``start:end`` covers it whole; for a block,
    ``inner_start:inner_end`` is the command text."""

    start: int
    end: int
    kind: RegionKind
    inner_start: int = 0
    inner_end: int = 0
    form: BlockForm = "backtick"

    def contains(self, index: int) -> bool:
        """True when ``index`` lies inside this region."""
        return self.start <= index < self.end

    def inner_contains(self, index: int) -> bool:
        """True when ``index`` lies inside the command text of a block."""
        return self.kind == "block" and self.inner_start <= index < self.inner_end


def layout(template: str, syntax: TemplateSyntax) -> list[Region]:
    """The code regions and shell blocks of ``template``, in document order.

    Markdown formats: fences (```` ``` ```` or ``~~~``, any indent, closed by a line of
    at least as many of the same character; unclosed ones run to the end) and code spans
    (a run of N backticks closed by the next run of exactly N in the same paragraph, not
    escaped by ``\\``) are
    ``code``. `` !`cmd` `` is a block only where the ``!`` starts a token (line start,
    after whitespace or one of ``( [ {``), outside code, within one paragraph, with a
    non-blank command. In ``FENCE_BLOCK_SYNTAXES`` a fence whose info string is ``!`` is a block
    (the lines inside are the script; an unclosed one stays code). Gemini: every
    ``!{...}`` whose braces balance is a block, anywhere; nothing else. Codex: code regions
    as in markdown, never a block.
    """
    if syntax == "gemini":
        return brace_blocks(template)
    return list(_markdown(template, syntax in MARKDOWN_SYNTAXES, syntax in FENCE_BLOCK_SYNTAXES))


@functools.lru_cache(maxsize=512)
def _markdown(template: str, blocks: bool, bang_fences: bool) -> tuple[Region, ...]:
    """``layout`` of a markdown template (cached: loading reads each template's layout
    for its rules and its hints, and expanding it again)."""
    regions: list[Region] = []
    start = 0
    for fence in _fences(template, bang_fences):
        regions += _inline(template, start, fence.start, blocks)
        regions.append(fence)
        start = fence.end
    regions += _inline(template, start, len(template), blocks)
    return tuple(regions)


def _fences(text: str, bang: bool) -> list[Region]:
    found: list[Region] = []
    pos, n = 0, len(text)
    opener: tuple[int, str, int, bool] | None = None  # (start, char, length, is_block)
    inner = 0
    while pos < n:
        end = text.find("\n", pos)
        line_end = n if end < 0 else end
        after = n if end < 0 else end + 1
        line = text[pos:line_end].rstrip("\r")
        match = _FENCE.match(line)
        if opener is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                run = match.group(1)
                opener = (pos, run[0], len(run), bang and run[0] == "`" and match.group(2).strip() == "!")
                inner = after
        elif (
            match
            and match.group(1)[0] == opener[1]
            and len(match.group(1)) >= opener[2]
            and not match.group(2).strip()
        ):
            start, _, _, is_block = opener
            if is_block and text[inner:pos].strip():
                found.append(Region(start, line_end, "block", inner, pos, "fence"))
            else:
                found.append(Region(start, line_end, "code"))
            opener = None
        pos = after
    if opener is not None:
        found.append(Region(opener[0], n, "code"))
    return found


def _escaped(text: str, index: int) -> bool:
    """True when the character at ``index`` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def starts_token(text: str, index: int) -> bool:
    """Can a ``!`` at ``index`` start a shell block (line start, after space or ``([{``)?"""
    if index == 0:
        return True
    before = text[index - 1]
    return before.isspace() or before in _TOKEN_BEFORE


def _run_length(text: str, index: int, end: int) -> int:
    length = 0
    while index + length < end and text[index + length] == "`":
        length += 1
    return length


def _closing_run(text: str, start: int, end: int, length: int) -> int:
    """Index of the next run of exactly ``length`` backticks in ``text[start:end]``, or -1."""
    pos = start
    while True:
        found = text.find("`", pos, end)
        if found < 0:
            return -1
        run = _run_length(text, found, end)
        if run == length:
            return found
        pos = found + run


def _inline(text: str, start: int, end: int, blocks: bool = True) -> list[Region]:
    regions: list[Region] = []
    pos = start
    while True:
        tick = text.find("`", pos, end)
        if tick < 0:
            return regions
        length = _run_length(text, tick, end)
        if _escaped(text, tick):
            pos = tick + 1
            continue
        bang = tick - 1
        if blocks and length == 1 and bang >= start and text[bang] == "!" and starts_token(text, bang):
            close = text.find("`", tick + 1, end)
            command = text[tick + 1 : close] if close > 0 else ""
            if command.strip() and not _BLANK_LINE.search(command):
                regions.append(Region(bang, close + 1, "block", tick + 1, close, "backtick"))
                pos = close + 1
                continue
        blank = _BLANK_LINE.search(text, tick, end)
        close = _closing_run(text, tick + length, blank.start() if blank else end, length)
        if close < 0:
            pos = tick + length  # an unmatched run is literal backticks
            continue
        regions.append(Region(tick, close + length, "code"))
        pos = close + length


def brace_end(text: str, start: int) -> int:
    """Index of the ``}`` closing the brace opened just before ``start``, or -1."""
    depth = 1
    for i in range(start, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def brace_blocks(text: str) -> list[Region]:
    """Gemini's ``!{...}`` blocks: each ``!{`` with balanced braces and a non-blank
    command; an unbalanced one (and everything after it that it would swallow) is text."""
    regions: list[Region] = []
    pos = 0
    while True:
        found = text.find("!{", pos)
        if found < 0:
            return regions
        close = brace_end(text, found + 2)
        if close < 0:
            return regions
        if text[found + 2 : close].strip():
            regions.append(Region(found, close + 1, "block", found + 2, close, "brace"))
        pos = close + 1


def unbalanced_brace_block(text: str) -> int:
    """Index of the first ``!{`` whose braces never close (Gemini refuses such a file), or -1."""
    pos = 0
    while True:
        found = text.find("!{", pos)
        if found < 0:
            return -1
        close = brace_end(text, found + 2)
        if close < 0:
            return found
        pos = close + 1
