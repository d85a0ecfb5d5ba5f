"""The store's reserve file and how a full disk is recognised and reported."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from shellpilot.errors import StorageFull
from shellpilot.storage import space
from shellpilot.storage.store import SessionStore


def test_the_store_keeps_a_reserve_that_can_be_given_up(tmp_path: Path) -> None:
    path = tmp_path / "shellpilot.db"
    SessionStore(path).close()
    reserve = space.reserve_path(path)
    assert reserve.name == "shellpilot.db-reserve"
    assert reserve.stat().st_blocks * 512 >= space.RESERVE_BYTES  # real blocks, not sparse
    assert space.release_reserve(path) and not reserve.exists()
    assert not space.release_reserve(path)
    SessionStore(path).close()  # made again at the next open
    assert reserve.exists()


def test_full_disk_errors_are_recognised_and_say_what_to_free(tmp_path: Path) -> None:
    assert space.is_full(sqlite3.OperationalError("database or disk is full"))
    assert space.is_full(OSError(errno.ENOSPC, "No space left on device"))
    assert not space.is_full(OSError(errno.EACCES, "Permission denied"))
    assert not space.is_full(sqlite3.OperationalError("database is locked"))
    error = space.full_error("save a part", tmp_path / "shellpilot.db", size=100_000)
    assert isinstance(error, StorageFull) and error.exit_code == 6
    assert error.needed_bytes == 200_000 + space.RESERVE_BYTES
    text = str(error)
    assert text.startswith(f"cannot save a part: the disk holding {tmp_path} is full (")
    assert "Free at least 452 KB there" in text and "--data-dir DIR or SHELLPILOT_DATA_DIR" in text
