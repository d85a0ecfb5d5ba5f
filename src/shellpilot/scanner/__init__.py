"""shellpilot.scanner: pure analysis of shell command text (bash, PowerShell, cmd).

Owns: parsing, words, paths, writes, wrappers, arity and the `Scan` result types
(`scan()` itself lives in `shellpilot.scanner.scan`). Must not touch: processes,
permissions or sessions. Never imports tree_sitter at import time.
"""

from __future__ import annotations

from shellpilot.scanner.scan_result import Scan, ScannedCommand

__all__ = ["Scan", "ScannedCommand"]
