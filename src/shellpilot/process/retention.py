"""Clean-up of old full-output spill files in ``<data>/tool-output``.

Owns: deciding which spill files are old enough to remove, and removing them.
Must not touch: anything outside the tool-output folder; it runs when called, never on import.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

DAY_S = 86_400


def remove_old_outputs(folder: Path, *, retention_days: float, now: float | None = None) -> list[Path]:
    """Delete regular files directly in ``folder``, or in a folder directly in it (one per
    project, see ``paths.tool_output_dir``), whose mtime is more than ``retention_days`` days
    before ``now`` (epoch seconds, default: the current time). Returns what was removed.

    A missing folder is nothing to do; a file that vanishes or cannot be removed meanwhile
    is skipped. Called once at start-up by the CLI (config ``tool_output.retention_days``,
    7 days by default).
    """
    if retention_days <= 0:
        raise ValueError(f"retention_days must be positive, got {retention_days}")
    cutoff = (time.time() if now is None else now) - retention_days * DAY_S
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return removed
    for path in entries:
        if path.parent == folder and path.is_dir() and not path.is_symlink():
            with contextlib.suppress(OSError):
                entries += list(path.iterdir())  # (one level down: a project's own folder)
            continue
        try:
            info = path.lstat()
            if not path.is_file() or path.is_symlink() or info.st_mtime >= cutoff:
                continue
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed
