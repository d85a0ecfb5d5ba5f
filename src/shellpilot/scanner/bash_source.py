"""The bash text being scanned: its bytes, its parse tree and slices of it by byte offset.

Owns: parsing one bash source (the probed parse for long ones) and reading node text.
Must not touch: what the nodes mean (bash_walk, bash_command) or results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shellpilot.scanner.parse import PROBE_FROM, kind_names, parse, parse_probed

if TYPE_CHECKING:
    from tree_sitter import Node, Tree


_KINDS: list[dict[int, str]] = []


def _kinds() -> dict[int, str]:
    _KINDS.append(kind_names("bash"))
    return _KINDS[0]


# Where a backslash-newline is text, not a line continuation.
_KEEPS = frozenset({"raw_string", "ansi_c_string", "comment"})


class BashSource:
    """One bash text: `data` (UTF-8 bytes), `kinds` (node kind id -> name) and slicing.

    Node offsets are byte offsets; for ASCII text (the common case) they equal str
    offsets, so `slice` cuts the str without decoding. `parse()` first removes the line
    continuations bash removes, so `data` and `text` may then be shorter than the source.
    """

    __slots__ = ("data", "kinds", "text")

    def __init__(self, source: str) -> None:
        self.data = source.encode()
        self.text: str | None = source if source.isascii() else None
        self.kinds = _KINDS[0] if _KINDS else _kinds()

    def parse(self) -> Tree | None:
        """The tree, or `None` when the text is too costly to parse (see parse_probed).

        bash removes a backslash-newline before it splits words (`r\\<newline>m x` runs
        `rm x`) except inside single quotes, `$'..'`, comments and here-documents with a
        quoted delimiter; tree-sitter reads it as a space. So when the text has one, it is
        parsed once to find where each sits, those bash removes are removed, and the text
        is parsed again.
        """
        data = self.data
        tree = parse(data, "bash") if len(data) <= PROBE_FROM else parse_probed(data, "bash")
        if tree is not None and b"\\\n" in data:
            cuts = self._continuations(tree.root_node)
            if cuts:
                joined = bytearray(data)
                for at in reversed(cuts):
                    del joined[at : at + 2]
                self.data = bytes(joined)
                self.text = self.data.decode() if self.text is not None else None
                tree = self._parse()
        return tree

    def _parse(self) -> Tree | None:
        data = self.data
        return parse(data, "bash") if len(data) <= PROBE_FROM else parse_probed(data, "bash")

    def _continuations(self, root: Node) -> list[int]:
        """Offsets of the backslash-newlines bash removes, in order."""
        data = self.data
        cuts: list[int] = []
        at = data.find(b"\\\n")
        while at >= 0:
            run = 1  # backslashes ending at `at`: an even run is escaped backslashes
            while at - run >= 0 and data[at - run] == 0x5C:
                run += 1
            if run % 2 and not self._literal(root, at):
                cuts.append(at)
            at = data.find(b"\\\n", at + 2)
        return cuts

    def _literal(self, root: Node, at: int) -> bool:
        """Whether the backslash-newline at `at` is text: inside single quotes, `$'..'`,
        a comment, or a here-document body whose delimiter is quoted."""
        node: Node | None = root.descendant_for_byte_range(at, at + 1)
        while node is not None:
            kind = self.kinds[node.kind_id]
            if kind in _KEEPS:
                return True
            if kind == "heredoc_body":
                parent = node.parent
                starts = (
                    [] if parent is None else [c for c in parent.children if self.kind(c) == "heredoc_start"]
                )
                return not starts or any(ch in self.of(starts[0]) for ch in "'\"\\")
            node = node.parent
        return False

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
