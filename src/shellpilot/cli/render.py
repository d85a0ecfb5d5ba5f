"""Terminal output helpers shared by the CLI commands (rich when a TTY, plain otherwise).

Owns: how errors and notices look. Must not touch: behaviour.
"""

from __future__ import annotations

import sys

from shellpilot.errors import ShellpilotError


def print_error(exc: ShellpilotError) -> None:
    """Print ``exc.format_message()`` to stderr as ``error: ...``."""
    sys.stderr.write(f"error: {exc.format_message()}\n")
    sys.stderr.flush()


def print_warning(text: str) -> None:
    """Print a warning line to stderr."""
    sys.stderr.write(f"warning: {text}\n")
    sys.stderr.flush()
