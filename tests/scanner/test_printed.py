"""What `echo` and `printf` print, compared with the real shells: the text a pipe hands
a shell (`echo 'rm x' | sh`) must be what that shell would read."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.printed import printed
from shellpilot.scanner.scan import scan

ECHOES = [
    ["echo", "r\\0155 victim"],
    ["echo", "rm victim\\c", "more"],
    ["echo", "a\\nb\\tc\\\\d"],
    ["echo", "-e", "x\\ty"],
    ["echo", "-n", "a\\0101b"],
    ["echo", "x\\qy", "\\"],
    ["echo", "-E", "plain"],
]


def _run(shell: str, argv: list[str]) -> str:
    done = subprocess.run([shell, "-c", '"$@"', shell, *argv], capture_output=True, timeout=10, check=False)
    return done.stdout.decode("latin-1")


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash")
@pytest.mark.parametrize("argv", ECHOES, ids=[" ".join(a) for a in ECHOES])
def test_echo_prints_what_dash_prints(argv: list[str]) -> None:
    assert printed(argv, posix=True) == _run("dash", argv)


@pytest.mark.parametrize("argv", ECHOES, ids=[" ".join(a) for a in ECHOES])
def test_echo_prints_what_bash_prints(argv: list[str]) -> None:
    assert printed(argv) == _run("bash", argv)


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash")
def test_a_line_dash_s_echo_spells_out_is_scanned(tmp_path: Path) -> None:
    # the outer sh's echo turns \0155 into m: the inner sh runs rm
    (tmp_path / "victim").write_text("x")
    command = "dash -c \"echo 'r\\0155 victim' | dash\""
    subprocess.run(["bash", "-c", command], cwd=tmp_path, timeout=10, check=False)
    assert not (tmp_path / "victim").exists(), "dash must really run rm"
    found = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert "rm victim" in found.patterns, found.patterns
