"""Bash words: the literal value of a tree-sitter bash word node (quotes, escapes, joins).

Owns: `BashWords`, the word half of the bash scanner (unquoting, `$'..'`, concatenation,
dynamic parts). Must not touch: statements, paths or results (scan_bash.py does those).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shellpilot.scanner.words import Word

if TYPE_CHECKING:
    from tree_sitter import Node

Cwds = tuple[str, ...] | None

_SAFE_EXPANSIONS = frozenset({"$HOME", "$PWD", "${HOME}", "${PWD}"})

_WORD_ESCAPE = re.compile(r"\\(.)", re.S)
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_ANSI_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_ANSI_SIMPLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _word_unescape(match: re.Match[str]) -> str:
    ch = match.group(1)
    return "" if ch == "\n" else ch


def _dq_unescape(match: re.Match[str]) -> str:
    ch = match.group(1)
    return "" if ch == "\n" else ch


def _ansi_unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    head = code[0]
    if head in "xuU" and len(code) > 1:
        return chr(int(code[1:], 16))
    if head.isdigit():
        return chr(int(code, 8))
    if head == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return _ANSI_SIMPLE.get(code, "\\" + code)


class BashWords:
    """Word evaluation for a scanner that provides `text`, `kinds`, `slice()` and `nested()`.

    The first base of the bash scanner's chain (BashWords -> BashNesting -> scanner).

    `nested(node, cwds)` is called for every dynamic part that may hold commands
    (`$(..)`, `${x:-$(..)}`, `$((..))`), so substitutions inside words are scanned.
    """

    __slots__ = ()
    text: str | None
    kinds: dict[int, str]

    def slice(self, start: int, end: int) -> str:
        raise NotImplementedError

    def nested(self, node: Node, cwds: Cwds) -> None:
        raise NotImplementedError

    def container(self, node: Node, cwds: Cwds) -> Word:
        """A word held by a wrapper node such as `command_name`."""
        children = node.children
        if len(children) == 1:
            return self.word(children[0], cwds)
        return self.compound(node, children, cwds)

    def word(self, node: Node, cwds: Cwds) -> Word:
        kind = self.kinds[node.kind_id]
        start = node.start_byte
        end = node.end_byte
        text = self.text
        raw = text[start:end] if text is not None else self.slice(start, end)
        if kind == "word" or (kind == "number" and not node.child_count):
            value = _WORD_ESCAPE.sub(_word_unescape, raw) if "\\" in raw else raw
            return Word(value, raw, start, end, False, value)
        if kind == "raw_string":
            value = raw[1:-1]
            return Word(value, raw, start, end, False, value)
        return self.compound(node, [node], cwds)

    def compound(self, node: Node, children: Sequence[Node], cwds: Cwds) -> Word:
        parts: list[str] = []
        state = [False, True]  # dynamic, resolvable
        for child in children:
            self.parts(child, parts, state, cwds)
        start, end = node.start_byte, node.end_byte
        raw = self.slice(start, end)
        joined = "".join(parts)
        if state[0]:
            return Word(raw, raw, start, end, True, joined if state[1] else None)
        return Word(joined, raw, start, end, False, joined)

    def parts(self, node: Node, parts: list[str], state: list[bool], cwds: Cwds) -> None:
        kind = self.kinds[node.kind_id]
        if kind == "word" or (kind == "number" and not node.child_count):
            raw = self.slice(node.start_byte, node.end_byte)
            parts.append(_WORD_ESCAPE.sub(_word_unescape, raw) if "\\" in raw else raw)
        elif kind == "raw_string":
            parts.append(self.slice(node.start_byte + 1, node.end_byte - 1))
        elif kind in ("string", "translated_string"):
            for child in node.children:
                ckind = self.kinds[child.kind_id]
                if ckind == "string_content":
                    raw = self.slice(child.start_byte, child.end_byte)
                    parts.append(_DQ_ESCAPE.sub(_dq_unescape, raw) if "\\" in raw else raw)
                elif child.is_named:
                    self.parts(child, parts, state, cwds)
        elif kind == "concatenation":
            for child in node.children:
                self.parts(child, parts, state, cwds)
        elif kind == "ansi_c_string":
            raw = self.slice(node.start_byte + 2, node.end_byte - 1)
            parts.append(_ANSI_ESCAPE.sub(_ansi_unescape, raw) if "\\" in raw else raw)
        else:
            raw = self.slice(node.start_byte, node.end_byte)
            parts.append(raw)
            state[0] = True
            if raw not in _SAFE_EXPANSIONS:
                state[1] = False
                if node.child_count:
                    self.nested(node, cwds)
