"""Start-up recovery: close what a killed shellpilot process left half-done in the store.

Owns: the order of recovery (find the orphans, stop their commands, mark them interrupted).
Must not touch: SQL (the store's ``orphans``/``mark_interrupted``), how a group is killed
(``process.process_group``); the CLI (and later the server) runs it once at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shellpilot.process.process_group import ProcessRecord
from shellpilot.storage.store import SessionStore

RECOVERY_GRACE_S = 1.0
"""After SIGTERM, how long an orphaned command's group gets to exit before SIGKILL, in s."""


@dataclass(frozen=True)
class Recovery:
    """What one recovery did: ``parts`` marked interrupted, ``killed`` the ids of those whose
    command was still running and was stopped, ``sessions`` whose dead lease was dropped."""

    parts: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)


def recover(store: SessionStore, *, grace_s: float = RECOVERY_GRACE_S) -> Recovery:
    """Recover the work of dead processes in ``store`` (blocking; call it outside a loop).

    For each tool part a dead process left pending/running, the command recorded in its
    ``metadata["process"]`` (``ProcessRecord``) is stopped with its group when it still
    runs as that same process (TERM, KILL after ``grace_s``); then the parts become
    ``error`` "interrupted", and their assistant messages, like every unfinished assistant
    message of a session a dead process held (a run killed before the model's first
    reply), get ``completed_ms`` and an ``Interrupted`` error (``store.mark_interrupted``).
    Raises StorageError when the store cannot be read or written.
    """
    orphans = store.orphans()
    if not orphans:
        return Recovery()
    killed: list[str] = []
    for _, part in orphans.parts:
        record = ProcessRecord.from_dict(getattr(part.state, "metadata", {}).get("process"))
        if record is not None and record.stop(grace_s):
            killed.append(part.id)
    parts = store.mark_interrupted(orphans, killed)
    return Recovery(parts, [k for k in killed if k in parts], list(orphans.sessions))


__all__ = ["RECOVERY_GRACE_S", "Recovery", "recover"]
