"""The nets under the bash walk: substitutions it did not reach, or that the tree hides.

Owns: `sweep` (a tree query for every substitution node) and `hidden` (a lexer for the
substitutions bash runs where tree-sitter shows none). Must not touch: the walk itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from shellpilot.scanner.bash_openers import live_openers
from shellpilot.scanner.bash_source import BashSource
from shellpilot.scanner.bash_words import clip
from shellpilot.scanner.context import Cwds
from shellpilot.scanner.parse import substitutions
from shellpilot.scanner.scan_result import ScanBuilder

if TYPE_CHECKING:
    from tree_sitter import Node


class Walker(Protocol):
    """What the nets need from the bash walker."""

    source: BashSource
    builder: ScanBuilder
    visited: set[int]

    def substitution(self, node: Node, cwds: Cwds) -> None:
        """Scan one substitution node's commands."""

    def run_here(self, source: str, cwds: Cwds, what: str) -> Cwds:
        """Scan text run by the same shell."""


def hidden(walker: Walker) -> None:
    """The last net: substitutions bash runs where tree-sitter shows none, as `unknown`.

    `echo $(( '$(cmd)' ))`, `"${x:-'$(cmd)'}"`, `$[ '$(cmd)' ]`, a backtick in an
    unquoted here-document: bash_openers finds each live opener the tree hid; its
    body is scanned (unknown cwd) when the lexer found its end, and the scan is
    `unknown` either way, so the whole text is asked.
    """
    source = walker.source
    text = source.text if source.text is not None else source.data.decode("latin-1")
    visited = walker.visited
    inside = -1  # end of the last body scanned: the openers within it are scanned there
    for opener in live_openers(text):
        if opener.start in visited or opener.start < inside:
            continue
        visited.add(opener.start)
        end = opener.end if opener.end >= 0 else len(source.data)
        inside = end
        body = source.slice(opener.body, end)
        walker.builder.unknown(f"substitution {opener.kind}{clip(body)} hidden from the parser")
        if opener.kind == "`":
            body = body.replace("\\\\", "\\").replace("\\`", "`").replace("\\$", "$")
        if body.strip():
            walker.run_here(body, None, "a hidden substitution")


def sweep(walker: Walker, root: Node) -> None:
    """The safety net: scan each substitution the walk did not reach, as `unknown`.

    A `$(..)` wherever the grammar hides it (inside a number such as `16#$(..)`, or a
    node kind nobody foresaw) still runs; its commands are scanned with an unknown
    cwd and the scan says where it was found.
    """
    visited = walker.visited
    for node in substitutions(root):
        if node.start_byte in visited:
            continue
        parent = node.parent
        where = walker.source.kinds[parent.kind_id] if parent is not None else "?"
        walker.builder.unknown(f"substitution {walker.source.short(node)} found late (inside {where})")
        visited.add(node.start_byte)
        walker.substitution(node, None)
