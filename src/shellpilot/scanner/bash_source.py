"""The bash text being scanned: its bytes, its parse tree and slices of it by byte offset.

Owns: parsing one bash source (the probed parse for long ones) and reading node text.
Must not touch: what the nodes mean (bash_walk, bash_command) or results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shellpilot.scanner.parse import PROBE_FROM, kind_names, parse, parse_probed

if TYPE_CHECKING:
    from tree_sitter import Node, Tree


class BashSource:
    """One bash text: `data` (UTF-8 bytes), `kinds` (node kind id -> name) and slicing.

    Node offsets are byte offsets; for ASCII text (the common case) they equal str
    offsets, so `slice` cuts the str without decoding.
    """

    __slots__ = ("data", "kinds", "text")

    def __init__(self, source: str) -> None:
        self.data = source.encode()
        self.text: str | None = source if source.isascii() else None
        self.kinds = kind_names("bash")

    def parse(self) -> Tree | None:
        """The tree, or `None` when the text is too costly to parse (see parse_probed)."""
        data = self.data
        return parse(data, "bash") if len(data) <= PROBE_FROM else parse_probed(data, "bash")

    def slice(self, start: int, end: int) -> str:
        """The text between byte offsets `start` and `end`."""
        text = self.text
        if text is not None:
            return text[start:end]
        return self.data[start:end].decode("utf-8", "replace")

    def of(self, node: Node) -> str:
        """The text of `node`."""
        return self.slice(node.start_byte, node.end_byte)

    def kind(self, node: Node) -> str:
        """The kind name of `node` (an interned str, cheap to compare)."""
        return self.kinds[node.kind_id]

    def short(self, node: Node) -> str:
        """`node`'s text for a reason message: repr'd, cut to 60 characters."""
        text = self.of(node)
        return repr(text if len(text) <= 60 else text[:57] + "...")
