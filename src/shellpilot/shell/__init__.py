"""shellpilot.shell: parse + scan of shell commands, and the process runner.

Re-exports the scanner's result types; `scan()` itself lives in `shellpilot.shell.scan`
(not re-exported here, so the name keeps meaning the module). Never imports tree_sitter.
"""

from shellpilot.shell.scan_result import Scan, ScannedCommand

__all__ = ["Scan", "ScannedCommand"]
