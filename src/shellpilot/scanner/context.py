"""What every scanner of one scan shares: the results builder, the path resolver and the
table of grammars, through which one shell's text hands nested text to another's scanner.

Owns: `ScanContext.nest` (depth and rescan budget checks, then the grammar's scanner).
Must not touch: any grammar's own walk (scan_bash, scan_powershell, cmdline).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from shellpilot.scanner.scan_paths import PathResolver
from shellpilot.scanner.scan_result import MAX_DEPTH, ScanBuilder

Cwds = tuple[str, ...] | None
"""The possible working directories at a point of a script; `None` when unknowable."""

MAX_CWDS = 8
"""Most possible working directories tracked at once; more make them unknowable."""


def union_cwds(a: Cwds, b: Cwds) -> Cwds:
    """The cwds either of two ways may leave (`None` if either is unknowable, or if they
    add up to over `MAX_CWDS`)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    merged = tuple(dict.fromkeys(a + b))
    return merged if len(merged) <= MAX_CWDS else None


Grammar = Literal["bash", "sh", "powershell", "cmd"]
"""`sh` is the bash grammar read as a POSIX shell (dash) reads it: no `$'..'`, no braces."""

GrammarScan = Callable[[str, Cwds, "ScanContext", int], Cwds]
"""`scan(source, cwds, context, depth) -> cwds after it` for one grammar."""


class ScanContext(NamedTuple):
    """One scan's shared parts. `grammars` maps each grammar to its scanner: a bash
    scanner meeting `pwsh -Command STR` calls `nest("powershell", STR, ...)` and never
    imports the PowerShell scanner (scan.py builds the table), so no import cycle exists."""

    builder: ScanBuilder
    resolver: PathResolver
    grammars: Mapping[Grammar, GrammarScan]

    def nest(self, grammar: Grammar, source: str, cwds: Cwds, depth: int, what: str) -> Cwds:
        """Scan `source`, command text run by `what` (`bash -c`, `pwsh -Command`...), with
        `grammar` at nesting `depth`; returns the cwds after it (`None`: unknowable).

        Over `MAX_DEPTH`, past the rescan budget, or with no scanner for `grammar` in the
        table, the text is left unscanned and the scan is `unknown` (the reason is recorded).
        """
        if depth > MAX_DEPTH:
            self.builder.unknown(f"{what} nested deeper than {MAX_DEPTH} levels")
            return None
        if not self.builder.rescan(source):
            return None
        scanner = self.grammars.get(grammar)
        if scanner is None:
            self.builder.unknown(f"{what}: no {grammar} scanner in this scan, text not analysed")
            return None
        return scanner(source, cwds, self, depth)
