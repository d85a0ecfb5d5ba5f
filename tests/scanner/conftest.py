"""Fixtures shared by the scanner tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def fake_rm(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a `rm` (`<tmp>/bin/rm`) that records the words it ran
    with in `<tmp>/ran` (`$RAN`), for rows that must first be shown to run rm in bash."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "rm"
    fake.write_text('#!/bin/sh\necho "$@" >> "$RAN"\n')
    fake.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "RAN": str(tmp_path / "ran"), "HOME": str(tmp_path)}
