"""Where shellpilot keeps its files: data dir (sessions, tool output) and config dir.

Owns: directory resolution. Nothing here creates a directory at import time; callers
create what they write into. Overrides: ``SHELLPILOT_DATA_DIR``, ``SHELLPILOT_CONFIG_DIR``
(tests and users), then platformdirs' user data/config dirs for "shellpilot".
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "shellpilot"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``override``, else $SHELLPILOT_DATA_DIR, else the platform's."""
    if override:
        return Path(override).expanduser().resolve()
    env = os.environ.get("SHELLPILOT_DATA_DIR")
    if env:
        return Path(env).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The user config directory: ``override``, else $SHELLPILOT_CONFIG_DIR, else the platform's."""
    if override:
        return Path(override).expanduser().resolve()
    env = os.environ.get("SHELLPILOT_CONFIG_DIR")
    if env:
        return Path(env).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def tool_output_dir(data: Path, project: Path | None = None) -> Path:
    """Folder of full-output spill files under a data dir (each named in the tool result):
    ``<data>/tool-output/<sha256(project)[:16]>`` for a project, so what one project's
    commands printed is never readable without a prompt from another project (the gate lets
    a model read its own project's folder); ``<data>/tool-output`` itself without one."""
    folder = data / "tool-output"
    if project is None:
        return folder
    import hashlib

    return folder / hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]


def store_path(data: Path) -> Path:
    """The SQLite session store file under a data dir."""
    return data / "shellpilot.db"


def sandbox_tmp_dir(data: Path, session_id: str) -> Path:
    """A session's sandbox temp dir (mounted at ``/tmp`` of its sandboxed commands), under a
    data dir; deleted with the session."""
    return data / "sandbox-tmp" / session_id
