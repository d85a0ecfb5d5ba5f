"""Tree-sitter parsers for the shells shellpilot scans (bash grammar and PowerShell grammar).

Owns: loading each grammar lazily, once per process, and parsing text into a tree.
Must not touch: what the tree means (scan.py and its helpers) or running anything.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tree_sitter import Parser, Tree

Grammar = Literal["bash", "powershell"]

POSIX_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
POWERSHELLS = frozenset({"pwsh", "powershell"})


class _Loaded:
    """One grammar's parser and the lock that serialises its use across threads."""

    __slots__ = ("lock", "parser")

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.lock = threading.Lock()


@cache
def _loaded(grammar: Grammar) -> _Loaded:
    # Imported here, never at import of shellpilot (tests/test_public_api.py checks it).
    from tree_sitter import Language, Parser

    if grammar == "bash":
        import tree_sitter_bash

        language = Language(tree_sitter_bash.language())
    else:
        import tree_sitter_powershell

        language = Language(tree_sitter_powershell.language())
    return _Loaded(Parser(language))


def parse(source: bytes, grammar: Grammar) -> Tree:
    """Parse UTF-8 `source` with `grammar`; the parser is built on first use and reused.

    Thread-safe (one lock per grammar). Never raises on bad syntax: errors show up as
    ERROR / MISSING nodes in the tree, which the scanner reports as `unknown`.
    """
    loaded = _loaded(grammar)
    with loaded.lock:
        return loaded.parser.parse(source)
