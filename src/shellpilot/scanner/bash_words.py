"""Bash words: the literal value of a tree-sitter bash word node (quotes, escapes, joins).

Owns: `WordReader` (unquoting, `$'..'`, concatenation, dynamic parts). Must not touch:
statements, paths or results (bash_walk.py and bash_command.py do those).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from shellpilot.scanner.bash_source import BashSource
from shellpilot.scanner.brace_expansion import MAX_WORDS, brace_words
from shellpilot.scanner.context import Cwds
from shellpilot.scanner.words import Word

if TYPE_CHECKING:
    from tree_sitter import Node

_new = tuple.__new__  # (a Word built without the NamedTuple's own `__new__`)

_SAFE_EXPANSIONS = frozenset({"$HOME", "$PWD", "${HOME}", "${PWD}"})

# Quoted parts of a word's source text, `\\x` escapes included (brace lists in them are text).
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.")
# A word whose source holds one of these is not plain text with braces.
_NOT_LITERAL = re.compile(r"[$`()'\"\\]")

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


def ansi_text(text: str) -> str:
    """`text` with backslash escapes read as `$'..'` reads them (`\\n`, `\\x72`, `\\101`)."""
    return _ANSI_ESCAPE.sub(_ansi_unescape, text) if "\\" in text else text


class WordReader:
    """Reads tree-sitter bash word nodes of one `BashSource` into `Word`s.

    `substitutions(node, cwds)` is called for every dynamic part that may hold commands
    (`$(..)`, `${x:-$(..)}`, `$((..))`), so substitutions inside words are scanned.
    """

    __slots__ = ("kinds", "slice", "source", "substitutions", "text")

    def __init__(self, source: BashSource, substitutions: Callable[[Node, Cwds], None]) -> None:
        self.source = source
        self.text = source.text
        self.kinds = source.kinds
        self.slice = source.slice
        self.substitutions = substitutions

    def container(self, node: Node, cwds: Cwds) -> Word:
        """A word held by a wrapper node such as `command_name`."""
        children = node.children
        if len(children) == 1:
            return self.word(children[0], cwds)
        return self.compound(node, children, cwds)

    def word(self, node: Node, cwds: Cwds) -> Word:
        """The `Word` of one word-like node (word, string, concatenation, expansion...)."""
        kind = self.kinds[node.kind_id]
        start = node.start_byte
        end = node.end_byte
        text = self.text
        raw = text[start:end] if text is not None else self.slice(start, end)
        if kind == "word" or (kind == "number" and not node.child_count):
            value = _WORD_ESCAPE.sub(_word_unescape, raw) if "\\" in raw else raw
            return _new(Word, (value, raw, start, end, False, value))
        if kind == "raw_string":
            value = raw[1:-1]
            return _new(Word, (value, raw, start, end, False, value))
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
            return _new(Word, (raw, raw, start, end, True, joined if state[1] else None))
        return _new(Word, (joined, raw, start, end, False, joined))

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
                    self.substitutions(node, cwds)


def expand_braces(words: list[Word], unknown: Callable[[str], None]) -> list[Word]:
    """`words` after bash's brace expansion (`cp a{,.bak}` -> `cp a a.bak`).

    Only unquoted literal words are expanded (exactly, see brace_expansion); a quoted
    word with an unquoted brace list (`"a"{b,c}`) or an expansion over MAX_WORDS words
    is left as written and reported to `unknown`.
    """
    out: list[Word] = []
    for word in words:
        raw = word.raw
        # No `,` and no `..`: no brace list or sequence, nothing to expand (`-I{}`, `{}`).
        if "{" not in raw or ("," not in raw and ".." not in raw):
            out.append(word)
            continue
        if word.dynamic and _NOT_LITERAL.search(raw) is not None:
            out.append(word)
            continue
        if "'" in raw or '"' in raw or "\\" in raw:
            bare = brace_words(_QUOTED.sub("_", raw))
            if bare is None or len(bare) > 1:
                unknown(f"brace expansion in a quoted word {raw}")
            out.append(word)
            continue
        expanded = brace_words(raw)  # tree-sitter makes `{1..3}` a dynamic word
        if expanded is None:
            unknown(f"brace expansion of {clip(raw)} makes over {MAX_WORDS} words")
            out.append(word)
        elif len(expanded) == 1 and expanded[0] == raw:
            out.append(word)
        else:
            for value in expanded:
                if value:  # (an unquoted empty result is no word: `{timeout,} 5 ls` is `timeout 5 ls`)
                    out.append(Word.literal(value, word.start, word.end, raw))
    return out


def clip(text: str) -> str:
    """`text` cut to 40 characters for a reason message."""
    return text if len(text) <= 40 else text[:37] + "..."
