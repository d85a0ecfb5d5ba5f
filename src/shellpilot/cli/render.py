"""Terminal output helpers shared by the CLI commands (rich when a TTY, plain otherwise).

Owns: how errors and notices look, and making untrusted text safe to show. Must not touch: behaviour.
"""

from __future__ import annotations

import re
import sys

from shellpilot.errors import ShellpilotError
from shellpilot.process.text import strip_ansi

# C0 controls except tab and newline, DEL, C1 controls, and the bidi embedding/override/isolate
# characters (they can reorder what a person reads without changing what runs).
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # Control Pictures: ESC -> U+241B, CR -> U+240D
    if code == 0x7F:
        return "\u2421"
    return f"<U+{code:04X}>"


def printable(text: str, *, strip: bool = False) -> str:
    """``text`` safe to write to a terminal: no byte of it can move the cursor, erase,
    conceal, retitle the window or reorder what is read (tester report: a model's command
    could hide what it asks approval for).

    Every C0 control but ``\n`` and ``\t`` becomes its Control Picture (``\x1b`` -> ``␛``,
    ``\r`` -> ``␍``), DEL ``␡``, C1 controls and bidi overrides ``<U+XXXX>``. With
    ``strip=True`` whole ANSI CSI/OSC/ESC sequences are first removed (``shell.text.strip_ansi``:
    for stored output, where colours are noise); without it (commands) they stay visible as
    text, e.g. ``␛[8m``, so nothing of a command is ever dropped from view. Pure.
    """
    if strip:
        text = strip_ansi(text)
    return _UNSAFE.sub(_visible, text)


def print_error(exc: ShellpilotError) -> None:
    """Print ``exc.format_message()`` to stderr as ``error: ...``."""
    sys.stderr.write(f"error: {exc.format_message()}\n")
    sys.stderr.flush()


def print_warning(text: str) -> None:
    """Print a warning line to stderr."""
    sys.stderr.write(f"warning: {text}\n")
    sys.stderr.flush()
