"""Shell choice: explicit > config > $SHELL (POSIX only) > bash > /bin/sh, and argv shape."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shellpilot.errors import ShellNotFound
from shellpilot.process.detect import ShellChoice, detect_shell, shell_name

BASH = shutil.which("bash")
SH = shutil.which("sh")


def fake_shell(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text('#!/bin/sh\nexec /bin/sh "$@"\n')
    path.chmod(0o755)
    return path


def test_shell_name() -> None:
    assert shell_name("/usr/bin/bash") == "bash"
    assert shell_name("C:\\Tools\\pwsh.exe".replace("\\", "/")) == "pwsh"
    assert shell_name("ZSH") == "zsh"


def test_explicit_beats_config_and_env(tmp_path: Path) -> None:
    dash = fake_shell(tmp_path, "dash")
    zsh = fake_shell(tmp_path, "zsh")
    choice = detect_shell(str(dash), configured=str(zsh), environ={"SHELL": "/bin/sh"})
    assert (choice.path, choice.name, choice.kind, choice.source) == (str(dash), "dash", "posix", "explicit")
    configured = detect_shell(None, configured=str(zsh), environ={"SHELL": "/bin/sh"})
    assert (configured.path, configured.source) == (str(zsh), "config")


def test_login_shell_is_used_when_posix(tmp_path: Path) -> None:
    ksh = fake_shell(tmp_path, "ksh")
    choice = detect_shell(environ={"SHELL": str(ksh)})
    assert (choice.path, choice.source) == (str(ksh), "$SHELL")


@pytest.mark.parametrize("name", ["fish", "nu", "tcsh"])
def test_refused_shells_fall_back(tmp_path: Path, name: str) -> None:
    refused = fake_shell(tmp_path, name)
    from_env = detect_shell(environ={"SHELL": str(refused)})
    assert from_env.name in ("bash", "sh") and from_env.source == "fallback"
    assert name in from_env.note
    from_config = detect_shell(configured=str(refused), environ={})
    assert from_config.name in ("bash", "sh") and "not a supported shell" in from_config.note


def test_fallback_is_bash(tmp_path: Path) -> None:
    choice = detect_shell(environ={})
    assert choice.path == (BASH or SH) and choice.source == "fallback"


def test_missing_requested_shell_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ShellNotFound, match="explicit"):
        detect_shell(str(tmp_path / "bash"))
    with pytest.raises(ShellNotFound, match="config"):
        detect_shell(configured=str(tmp_path / "zsh"))
    # A missing path is missing whatever its name: not "unsupported" with a silent fallback.
    with pytest.raises(ShellNotFound, match="config"):
        detect_shell(configured="/no/such", environ={})


def test_argv_passes_the_command_as_one_string() -> None:
    command = "echo 'a b' && echo \"$HOME\"\nls"
    assert ShellChoice("/bin/bash", "bash", "posix", "x").argv(command) == ["/bin/bash", "-c", "--", command]
    pwsh = ShellChoice("/usr/bin/pwsh", "pwsh", "powershell", "x")
    assert pwsh.argv(command) == [
        "/usr/bin/pwsh",
        "-NoLogo",
        "-NoProfile",
        "-NonInteractive",
        "-Command",
        command,
    ]
    assert pwsh.grammar == "powershell"


def test_powershell_by_name_is_accepted(tmp_path: Path) -> None:
    pwsh = fake_shell(tmp_path, "pwsh")
    choice = detect_shell(configured=str(pwsh), environ={})
    assert choice.kind == "powershell" and choice.grammar == "powershell"
