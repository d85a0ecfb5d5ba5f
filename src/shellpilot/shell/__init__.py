"""shellpilot.shell: parse + scan of shell commands (and, from issue 3, the process runner).

Re-exports the scanner's face; importing this package never imports tree_sitter.
"""

from shellpilot.shell.scan import Scan, ScannedCommand, scan

__all__ = ["Scan", "ScannedCommand", "scan"]
