"""Time-ordered identifiers: ``<prefix>_<12 hex time><14 random>``.

Owns: id generation only. IDs made later sort after earlier ones (string order), also
within one millisecond in one process, so SQLite ``ORDER BY id`` is creation order.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Literal

Prefix = Literal["ses", "msg", "prt", "per", "call", "tool", "evt"]

_lock = threading.Lock()
_last = 0
_counter = 0


def ascending(prefix: Prefix) -> str:
    """A new id such as ``ses_0193a1b2c3d4e5...``; strictly increasing per process.

    The first 12 hex digits are (milliseconds since epoch * 4096 + a counter within the
    millisecond), so two ids made in the same millisecond still sort by creation.
    """
    global _last, _counter
    with _lock:
        now = int(time.time() * 1000)
        if now <= _last:
            _counter += 1
            now = _last
        else:
            _counter = 0
            _last = now
        stamp = (now * 4096 + (_counter & 0xFFF)) & 0xFFFFFFFFFFFFFF
    return f"{prefix}_{stamp:014x}{os.urandom(6).hex()}"
