"""What a CLI command opens before it acts: project dir, config, data dir, store, bus, run state.

Owns: building those objects once per CLI process and closing them. Must not touch:
behaviour of any command, terminal rendering (cli/render.py and the command modules).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from shellpilot.bus import Bus
from shellpilot.cli.project import project_dir_of, untrusted_warning
from shellpilot.config import LoadedConfig, load_config
from shellpilot.errors import StorageError
from shellpilot.paths import data_dir as resolve_data_dir
from shellpilot.paths import store_path, tool_output_dir
from shellpilot.session.recovery import recover
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage import readonly
from shellpilot.storage.store import SessionStore

if TYPE_CHECKING:
    from shellpilot.permission import PermissionService


@dataclass
class CliContext:
    """The objects one CLI invocation works with; close it (or use ``with``) when done.

    ``permissions`` is built on first use (the ``PermissionService`` with its grants file
    under the data dir), so commands that never ask pay nothing for it; ``run_state.cancel``
    rejects that service's pending requests of the session once it exists.
    """

    project_dir: Path
    loaded: LoadedConfig
    data_dir: Path
    store: SessionStore
    bus: Bus
    run_state: RunState
    sessions: SessionService
    _permissions: PermissionService | None = field(default=None, repr=False)

    @property
    def permissions(self) -> PermissionService:
        """The process's ``PermissionService`` for this project (its grants file under the data dir)."""
        if self._permissions is None:
            from shellpilot.permission import PermissionService, grants_path

            path = grants_path(self.data_dir, self.project_dir)
            self._permissions = PermissionService(self.bus, path, project_dir=self.project_dir)
        return self._permissions

    def _cancel_permissions(self, session_id: str) -> None:
        if self._permissions is not None:
            self._permissions.cancel_session(session_id)

    def close(self) -> None:
        """Flush and close the store (idempotent)."""
        self.store.close()

    def __enter__(self) -> CliContext:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_context(
    *,
    directory: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    config_dir: str | os.PathLike[str] | None = None,
    clean_outputs: bool = True,
    trust: bool = False,
    reading: bool = False,
) -> CliContext:
    """Open everything a CLI command needs.

    ``directory`` is the project (default cwd); ``data_dir`` overrides
    ``$SHELLPILOT_DATA_DIR`` and the platform default; ``trust`` (``--trust``) applies the
    project's own config files whole (see ``config.load_config``). Loads config (ConfigError on a bad
    file), opens the store (StorageError), runs start-up crash recovery once
    (``session.recovery.recover``: commands a killed shellpilot left running are stopped,
    its unfinished parts and messages marked interrupted) and removes spill files older
    than ``tool_output.retention_days``. ``reading``: the command only reads sessions, so
    a data dir that cannot be written is opened read-only (no recovery, no clean-up)
    instead of failing; for any other command such a dir is a StorageError that says how
    to choose another one.
    """
    project = project_dir_of(directory)
    loaded = load_config(
        project, config_dir=Path(config_dir) if config_dir is not None else None, trust=trust
    )
    data = resolve_data_dir(data_dir)
    path = store_path(data)
    read_only = not readonly.writable(path)
    if read_only and not reading:
        raise StorageError(f"cannot write the session store: {readonly.READ_ONLY_HINT}", path=str(path))
    store = SessionStore(path, read_only=read_only)
    if not read_only:
        try:
            recover(store)
        except BaseException:
            store.close()
            raise
    if clean_outputs and not read_only:
        _clean_outputs(data, loaded.config.tool_output.retention_days)
    bus = Bus()
    run_state = RunState(bus, lease=store)
    sessions = SessionService(store, bus, loaded.config, data, run_state)
    ctx = CliContext(project, loaded, data, store, bus, run_state, sessions)
    run_state.cancel_permissions = ctx._cancel_permissions
    return ctx


def _clean_outputs(data: Path, retention_days: float) -> None:
    try:
        from shellpilot.process.retention import remove_old_outputs
    except ImportError:
        return
    remove_old_outputs(tool_output_dir(data), retention_days=retention_days)


__all__ = ["CliContext", "open_context", "project_dir_of", "untrusted_warning"]
