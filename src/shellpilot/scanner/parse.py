"""Tree-sitter parsers for the shells shellpilot scans (bash grammar and PowerShell grammar).

Owns: loading each grammar lazily, once per process, and parsing text into a tree.
Must not touch: what the tree means (scan.py and its helpers) or running anything.
"""

from __future__ import annotations

import sys
import threading
from functools import cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query, Tree

Grammar = Literal["bash", "powershell"]

POSIX_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
POWERSHELLS = frozenset({"pwsh", "powershell"})


_ERROR_IDS = (65534, 65535)
"""tree-sitter's built-in `_ERROR` and `ERROR` symbols (outside `node_kind_count`)."""


class _Loaded:
    """One grammar's parser, its node-kind names and the lock that serialises parsing."""

    __slots__ = ("kinds", "lock", "parser", "query")

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.lock = threading.Lock()
        language = parser.language
        assert language is not None
        ids = [*range(language.node_kind_count), *_ERROR_IDS]
        self.kinds: dict[int, str] = {i: sys.intern(language.node_kind_for_id(i) or "") for i in ids}
        self.query: Query | None = None


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


def kind_names(grammar: Grammar) -> dict[int, str]:
    """`Node.kind_id` -> the name `Node.type` gives, for every kind `grammar` can produce.

    `node.type` builds a new str on every access; looking the id up here returns one
    interned str per kind, so comparisons and set lookups on it are cheap (the scanner
    reads every node's kind). Loads the grammar on first use, like `parse`. A plain dict
    (cheaper to look up than a read-only Mapping): never modify it.
    """
    return _loaded(grammar).kinds


def parse(source: bytes, grammar: Grammar) -> Tree:
    """Parse UTF-8 `source` with `grammar`; the parser is built on first use and reused.

    Thread-safe (one lock per grammar). Never raises on bad syntax: errors show up as
    ERROR / MISSING nodes in the tree, which the scanner reports as `unknown`.
    """
    loaded = _loaded(grammar)
    with loaded.lock:
        return loaded.parser.parse(source)


PARSE_SECONDS = 2.0
"""Longest the parse of a long source may take (see `parse_probed`)."""

PARSE_MEMORY = 512 * 1024 * 1024
"""Most address space (bytes) the probe parse of a long source may use."""

PROBE_FROM = 16384
"""Sources over this many bytes are parsed by `parse_probed` (rare, huge commands); the
scanners parse shorter ones directly with `parse`."""

# The probe: parse stdin with limits; exit 0 only if tree-sitter finished. It imports
# only tree-sitter (not shellpilot, whose start-up costs ~0.3 s).
_PROBE = """
import importlib, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
from tree_sitter import Language, Parser
grammar = importlib.import_module("tree_sitter_" + sys.argv[1])
Parser(Language(grammar.language())).parse(sys.stdin.buffer.read())
"""


def parse_probed(source: bytes, grammar: Grammar) -> Tree | None:
    """`parse`, or None when parsing `source` would take too long or too much memory.

    tree-sitter-bash is quadratic in time and memory on some shapes: 10,000 `cat |`
    before `rm -rf /` (60 KB) took 3 s and 1 GB here, 20,000 took 3 GB, and its
    progress callback does not stop it in time. So the source is first parsed by a child
    process under `PARSE_SECONDS` and `PARSE_MEMORY` (about 50 ms more); only if that
    finishes is it parsed here. For sources over `PROBE_FROM` bytes.

    The child runs before anyone is asked, in a project nobody has trusted: `-P` keeps
    the working dir off its `sys.path` (with `-c` Python would put it first, so a
    project's `resource.py` or `tree_sitter.py` would run as the user), and it runs in
    `/`, so an empty or relative `PYTHONPATH` entry names no project file either.
    """
    import subprocess

    try:
        probe = subprocess.run(
            [sys.executable, "-P", "-c", _PROBE, grammar, str(PARSE_MEMORY)],
            input=source,
            cwd="/",
            capture_output=True,
            timeout=PARSE_SECONDS,
            check=False,
        )
    except (subprocess.TimeoutExpired, OSError):
        return None
    return parse(source, grammar) if probe.returncode == 0 else None


_SUBSTITUTION_QUERY = "[(command_substitution) (process_substitution)] @sub"


def substitutions(root: Node) -> list[Node]:
    """Every `$(..)`, backtick and `<(..)`/`>(..)` node below `root` of a bash tree, in
    source order (outer before inner).

    Found by a tree-sitter query (C code, no Python walk), so the scanner can check
    cheaply that its walk visited each one, wherever the grammar put it.
    """
    from tree_sitter import Query, QueryCursor

    loaded = _loaded("bash")
    query = loaded.query
    if query is None:
        language = loaded.parser.language
        assert language is not None
        query = loaded.query = Query(language, _SUBSTITUTION_QUERY)
    found = QueryCursor(query).captures(root).get("sub", [])
    found.sort(key=_start)
    return found


def _start(node: Node) -> int:
    return node.start_byte
