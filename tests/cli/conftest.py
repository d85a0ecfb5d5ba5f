"""Real filesystems in bad shape for CLI tests: a tiny tmpfs (a full disk) and a read-only dir.

Both need to mount a tmpfs (root here, and in CI); without that permission the tests that
use them are skipped, except that a read-only dir falls back to ``chmod 555`` for a
non-root user (whom the permission bits do stop).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def _mount(target: Path, size: str) -> bool:
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(target)],
        capture_output=True,
    )
    return done.returncode == 0


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """``make(size)``: a fresh tmpfs of ``size`` (``"1m"``) mounted under tmp_path, unmounted after."""
    mounted: list[Path] = []

    def make(size: str) -> Path:
        target = tmp_path / f"tmpfs-{len(mounted)}"
        target.mkdir()
        if os.geteuid() != 0 or not _mount(target, size):
            pytest.skip("cannot mount a tmpfs here (needs root)")
        mounted.append(target)
        return target

    yield make
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


@pytest.fixture
def make_read_only(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    """``make_read_only(folder)``: writes to ``folder`` fail from now on, for root too: its
    contents are copied onto a tmpfs mounted over it, then remounted read-only (for a
    non-root user: ``chmod 555``)."""
    mounted: list[Path] = []
    chmodded: list[Path] = []

    def make(folder: Path) -> None:
        if os.geteuid() != 0:
            folder.chmod(0o555)
            chmodded.append(folder)
            return
        stash = tmp_path / f"stash-{len(mounted)}"
        subprocess.run(["cp", "-a", str(folder), str(stash)], check=True)
        if not _mount(folder, "8m"):
            pytest.skip("cannot mount a tmpfs here")
        mounted.append(folder)
        subprocess.run(["cp", "-a", f"{stash}/.", str(folder)], check=True)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    yield make
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
    for folder in chmodded:
        with contextlib.suppress(OSError):
            folder.chmod(0o755)
