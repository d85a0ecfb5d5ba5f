"""Load-time warnings of the command system (broken files, collisions, dead servers).

Owns: ``LoadWarning``. Must not touch: anything else; producers append, the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoadWarning:
    """One problem found while loading commands; never fatal.

    ``path`` names the file (or ``mcp:<server>``), ``line`` is 1-based when known.
    ``str(w)`` reads ``path:line: message``.
    """

    message: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.message}" if where else self.message
