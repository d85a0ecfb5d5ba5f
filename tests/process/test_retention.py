"""Removal of old spill files: only regular files older than the retention, only in that folder."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from shellpilot.process.retention import DAY_S, remove_old_outputs


def test_removes_only_old_files(tmp_path: Path) -> None:
    folder = tmp_path / "tool-output"
    folder.mkdir()
    now = time.time()
    old, fresh, sub = folder / "tool_old", folder / "tool_new", folder / "keep-dir"
    old.write_text("old")
    fresh.write_text("new")
    sub.mkdir()
    os.utime(old, (now - 8 * DAY_S, now - 8 * DAY_S))
    os.utime(fresh, (now - 6 * DAY_S, now - 6 * DAY_S))
    os.utime(sub, (now - 30 * DAY_S, now - 30 * DAY_S))
    assert remove_old_outputs(folder, retention_days=7, now=now) == [old]
    assert sorted(p.name for p in folder.iterdir()) == ["keep-dir", "tool_new"]


def test_missing_folder_and_bad_retention(tmp_path: Path) -> None:
    assert remove_old_outputs(tmp_path / "absent", retention_days=7) == []
    with pytest.raises(ValueError):
        remove_old_outputs(tmp_path, retention_days=0)


def test_a_projects_own_folder_is_cleaned_too(tmp_path: Path) -> None:
    # spill files live in one folder per project (paths.tool_output_dir); one level only
    folder = tmp_path / "tool-output"
    project = folder / "0123456789abcdef"
    deeper = project / "deeper"
    deeper.mkdir(parents=True)
    now = time.time()
    old, fresh, buried = project / "call_old", project / "call_new", deeper / "call_old"
    for path in (old, fresh, buried):
        path.write_text("x")
        os.utime(path, (now - 8 * DAY_S, now - 8 * DAY_S))
    os.utime(fresh, (now, now))
    assert remove_old_outputs(folder, retention_days=7, now=now) == [old]
    assert fresh.exists() and buried.exists()
