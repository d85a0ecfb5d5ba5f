"""shellpilot.storage: the SQLite session store (sessions, messages, parts, leases).

Owns: persistence only; re-exports the store's face. Must not touch: the bus, processes.
"""

from shellpilot.storage.store import INTERRUPTED, SessionStore, export_json

__all__ = ["INTERRUPTED", "SessionStore", "export_json"]
