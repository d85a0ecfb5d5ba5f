"""Which project a CLI command works on, and the warning when its config was not trusted.

Owns: ``project_dir_of`` and ``untrusted_warning``, light enough for commands that open no
session store (``command list``). Must not touch: the store, the bus or config loading rules.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from shellpilot.errors import UsageError

if TYPE_CHECKING:
    from shellpilot.config import LoadedConfig


def project_dir_of(directory: str | os.PathLike[str] | None) -> Path:
    """``directory`` (default: the current directory) as an absolute path; UsageError if not a dir."""
    path = Path(directory).expanduser() if directory is not None else Path.cwd()
    path = path.resolve()
    if not path.is_dir():
        raise UsageError(f"Not a directory: {path}. Pass an existing project directory with --dir.")
    return path


def untrusted_warning(loaded: LoadedConfig) -> str | None:
    """The one warning line (without a ``warning:`` prefix) naming the keys an untrusted
    project's config had ignored and how to trust it; None when nothing was ignored."""
    from shellpilot.config.trust import trust_warning

    user_file = loaded.user_config_file
    if user_file is None:
        return None
    return trust_warning(loaded.ignored, loaded.project_dir, user_file)
