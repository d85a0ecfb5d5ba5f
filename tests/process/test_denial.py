"""Reading a failed command's output for what the sandbox blocked (pure, no bwrap needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.process.denial import denial_note, find_denial
from shellpilot.process.sandbox import read_only_profile, workspace_profile


@pytest.fixture
def ws(project: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    return workspace_profile(project, output_dir=tmp_path / "out", tmp_dir=None)


@pytest.mark.parametrize(
    "line",
    [
        "touch: cannot touch '{home}/x': Read-only file system",
        "sh: 1: cannot create {home}/x: Read-only file system",
        "OSError: [Errno 30] Read-only file system: '{home}/x'",
        "npm ERR! EROFS: read-only file system, mkdir '{home}/x'",
    ],
)
def test_writes_outside_the_workspace_are_found_in_common_tools_words(ws, line: str) -> None:  # type: ignore[no-untyped-def]
    home = str(Path.home())
    denial = find_denial(ws, line.format(home=home), Path("/"))
    assert denial is not None and denial.kind == "write"
    assert denial.paths == (f"{home}/x",) and denial.request == (home,)


def test_relative_paths_are_taken_from_the_cwd(project: Path) -> None:
    denial = find_denial(
        read_only_profile(project), "touch: cannot touch 'x': Read-only file system", project
    )
    assert denial is not None and denial.paths == (str(project / "x"),) and denial.request == (str(project),)


def test_a_write_the_profile_allows_is_not_blamed_on_it(ws, project: Path) -> None:  # type: ignore[no-untyped-def]
    assert find_denial(ws, f"cp: cannot create '{project}/a': Read-only file system", project) is None


def test_permission_denied_that_the_host_would_give_too_is_not_the_sandbox(ws) -> None:  # type: ignore[no-untyped-def]
    # Nothing can create a file under /proc/sys outside the sandbox either: an ordinary error.
    assert find_denial(ws, "bash: /proc/sys/kernel/nonexistent/x: Permission denied", Path("/")) is None


@pytest.mark.parametrize(
    "output",
    [
        "curl: (6) Could not resolve host: example.com",
        "ssh: connect to host example.com port 22: Network is unreachable",
        "ConnectionRefusedError: [Errno 111] Connection refused",
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "    socket.socket(socket.AF_UNIX).connect('/run/x.sock')\n"
        "PermissionError: [Errno 1] Operation not permitted",
    ],
)
def test_connections_without_network_are_named(project: Path, output: str) -> None:
    denial = find_denial(read_only_profile(project), output, project)
    assert denial is not None and denial.kind == "network" and denial.request == ("network",)


def test_with_network_on_a_failed_connection_is_not_the_sandbox(ws, project: Path) -> None:  # type: ignore[no-untyped-def]
    assert ws.network
    assert (
        find_denial(ws, "curl: (7) Failed to connect to localhost port 9: Connection refused", project)
        is None
    )


def test_the_note_names_the_profile_what_it_blocked_and_how_to_ask(project: Path) -> None:
    profile = read_only_profile(project, hint='retry with "sandbox_allow": {request}')
    denial = find_denial(profile, "touch: cannot touch '/etc/x': Read-only file system", project)
    assert denial is not None
    note = denial_note(profile, denial)
    assert "read-only profile" in note and "/etc/x" in note
    assert 'retry with "sandbox_allow": ["/etc"]' in note
