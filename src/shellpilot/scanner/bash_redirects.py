"""Bash redirects: what each one reads, writes and feeds a command, and how it is shown.

Owns: file redirects (`>`, `>>`, `&>`, `2>&1`, `<>`...), here-documents, here-strings,
the words tree-sitter hangs on a redirect that are really the command's operands
(`rm 2>/dev/null -rf x`), and a redirect's text in a pattern. Must not touch: which
command a redirect belongs to (bash_walk.py decides) or results policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from shellpilot.scanner.bash_nesting import NO_STDIN
from shellpilot.scanner.bash_source import BashSource
from shellpilot.scanner.bash_words import WordReader
from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.scan_paths import DEV_SINKS
from shellpilot.scanner.words import Word

if TYPE_CHECKING:
    from tree_sitter import Node

REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_READS = frozenset({"<", "<&", "<<", "<<-", "<<<"})
_HEREDOC_PARTS = frozenset({"heredoc_start", "heredoc_body", "heredoc_end", "file_redirect"})


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirect of a command.

    `text`: as a pattern shows it (`2> /dev/null`, `> out.txt`, `2>&1`, `<<EOF`).
    `words`: words written after its target that bash gives the command as operands
    (`rm 2>/dev/null -rf x`: `-rf`, `x`). `writes`: it writes a file (`>`, `>>`, `&>`,
    `>|`, `<>`, `>&FILE`), so the command is never read-only. `stdin`: the text a
    here-document or here-string feeds the command (`None`: it has expansions;
    `NO_STDIN`: this redirect feeds none).
    """

    text: str
    words: tuple[Word, ...] = ()
    writes: bool = False
    stdin: str | None = NO_STDIN


class Walker(Protocol):
    """What reading a redirect needs from the statement walker."""

    def stmt(self, node: Node, cwds: Cwds) -> Cwds:
        """Scan one statement (the rest of a line that hangs off a here-document)."""

    def nested(self, node: Node, cwds: Cwds) -> None:
        """Scan the substitutions below `node`."""


class RedirectReader:
    """Reads redirect nodes of one source: checks their paths, reports their writes."""

    __slots__ = ("ctx", "source", "walker", "words")

    def __init__(self, source: BashSource, words: WordReader, ctx: ScanContext, walker: Walker) -> None:
        self.source = source
        self.words = words
        self.ctx = ctx
        self.walker = walker

    def read(self, node: Node, cwds: Cwds) -> Redirect | None:
        """The `Redirect` of a redirect node, its paths checked and writes reported
        against `cwds`; `None` for a redirect with no target (a syntax error)."""
        kind = self.source.kind(node)
        if kind == "file_redirect":
            return self.file(node, cwds)
        if kind == "heredoc_redirect":
            return self.heredoc(node, cwds)
        return self.herestring(node, cwds)

    def file(self, node: Node, cwds: Cwds) -> Redirect | None:
        source = self.source
        fd = op = ""
        dest: Word | None = None
        extra: list[Word] = []
        for child in node.children:
            kind = source.kind(child)
            if not child.is_named:
                op += kind
            elif kind == "file_descriptor":
                fd = source.of(child)
            elif kind == "ERROR":
                # `1<>file` (read-write) parses as `<`, an ERROR `>`, then the file
                op += source.of(child)
            elif dest is None:
                dest = self.words.word(child, cwds)
            else:
                extra.append(self.words.word(child, cwds))
        if dest is None:
            return None
        if op in (">&", "<&") and (dest.value.isdigit() or dest.value == "-"):
            return Redirect(f"{fd}{op}{dest.value}", tuple(extra))
        resolver = self.ctx.resolver
        resolver.check(dest, cwds, f"redirect {op}")
        writes = op not in _READS
        if writes:  # >, >>, &>, &>>, >|, >&FILE, <>
            resolver.target(dest, cwds)
            writes = dest.dynamic or dest.value not in DEV_SINKS
        # `< file` feeds the command a file (unknown text); `2< x` does not touch stdin
        stdin = None if op in ("<", "<>") and fd in ("", "0") else NO_STDIN
        return Redirect(f"{fd}{op} {dest.shown()}", tuple(extra), writes, stdin)

    def heredoc(self, node: Node, cwds: Cwds) -> Redirect:
        source = self.source
        quoted = False
        op = "<<"
        start = ""
        stdin: str | None = NO_STDIN
        more: list[Redirect] = []
        extra: list[Word] = []
        for child in node.children:
            kind = source.kind(child)
            if not child.is_named:
                if kind in ("<<", "<<-"):
                    op = kind
            elif kind == "file_redirect":
                found = self.file(child, cwds)
                if found is not None:
                    more.append(found)
            elif kind == "heredoc_start":
                start = source.of(child)
                quoted = start[:1] in ("'", '"', "\\") or "\\" in start
            elif kind == "heredoc_body":
                self.walker.nested(child, cwds)
                literal = quoted or not any(
                    c.is_named and source.kind(c) != "heredoc_content" for c in child.children
                )
                stdin = source.of(child) if literal else None
            elif kind in _HEREDOC_PARTS:
                continue
            elif kind in ("word", "string", "raw_string", "concatenation", "number"):
                extra.append(self.words.word(child, cwds))
            else:
                # `cat <<EOF | grep x && rm y`: the rest of the line hangs off the here-doc
                self.walker.stmt(child, cwds)
        texts = [f"{op}{start}", *(r.text for r in more)]
        words = [*extra, *(w for r in more for w in r.words)]
        return Redirect(" ".join(texts), tuple(words), any(r.writes for r in more), stdin)

    def herestring(self, node: Node, cwds: Cwds) -> Redirect:
        stdin: str | None = NO_STDIN
        shown = ""
        for child in node.children:
            if child.is_named:
                word = self.words.word(child, cwds)
                stdin = None if word.dynamic else word.value
                shown = word.shown()
        return Redirect(f"<<< {shown}", (), False, stdin)
