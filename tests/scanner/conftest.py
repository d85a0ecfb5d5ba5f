"""Fixtures shared by the scanner tests."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
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


RunsRm = Callable[..., None]


@pytest.fixture
def runs_rm(fake_rm: dict[str, str]) -> RunsRm:
    """`runs_rm(command, cwd, **env)`: run `command` in real bash (the `fake_rm`
    environment, plus `env`) and assert it ran rm on `victim`: a row means something only
    when bash really runs what the scan must see."""

    def check(command: str, cwd: Path, **env: str) -> None:
        subprocess.run(
            ["bash", "-c", command], cwd=cwd, env={**fake_rm, **env}, capture_output=True, timeout=10
        )
        ran = Path(fake_rm["RAN"])
        assert ran.exists() and "victim" in ran.read_text(), (
            "bash must really run rm for the row to mean anything"
        )

    return check
