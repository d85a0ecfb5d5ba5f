"""``shellpilot shell``, ``run`` and ``command list`` parsed by click alone: the same parameters
as their typer declarations, and every word it does not take cleanly left to the typer app."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from shellpilot.cli.app import _load
from shellpilot.cli.fast_path import command_list_command, parsed, run_command, run_fast, shell_command


def _shape(param: Any) -> tuple[Any, ...]:
    kind = "argument" if param.param_type_name == "argument" else "option"
    flag = bool(getattr(param, "is_flag", False))
    multiple = bool(getattr(param, "multiple", False))
    return (kind, param.name, sorted(param.opts), sorted(param.secondary_opts), flag, multiple, param.nargs)


@pytest.mark.parametrize(
    ("name", "declared"),
    [("shell", shell_command), ("run", run_command), ("command list", command_list_command)],
)
def test_click_declares_what_typer_declares(name: str, declared: Any) -> None:
    group, _, sub = name.partition(" ")
    typer_command = _load(group).commands[sub] if sub else _load(group)
    typer_params = [p for p in typer_command.params if p.name != "help"]
    ours = declared()
    assert [_shape(p) for p in ours.params] == [_shape(p) for p in typer_params]
    assert [p.required for p in ours.params] == [p.required for p in typer_params]
    assert ours.ignore_unknown_options == typer_command.ignore_unknown_options


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["true"], {"command": "true", "cont": False, "trust": False, "timeout": None, "directory": None}),
        (
            ["-c", "--timeout", "250", "--dir", "./a/", "ls -l", "--trust"],
            {"command": "ls -l", "cont": True, "trust": True, "timeout": 250, "directory": Path("a")},
        ),
        (["-s", "ses_1", "--", "-x"], {"command": "-x", "session": "ses_1"}),
        (["--timeout=-3", "x"], {"timeout": -3}),
    ],
)
def test_clean_shell_words_are_parsed_as_typer_converts_them(
    words: list[str], expected: dict[str, Any]
) -> None:
    params = parsed("shell", words)
    assert params is not None
    assert {k: params[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["hi"], {"message": ("hi",), "output_format": "text", "allow": (), "file": [], "yes": False}),
        (
            ["/review", "--since", "-5", "-y", "--allow", "git *", "-f", "./notes/", "--format", "json"],
            {
                "message": ("/review", "--since", "-5"),
                "yes": True,
                "allow": ("git *",),
                "file": [Path("notes")],
                "output_format": "json",
            },
        ),
        (["-m", "p/m", "--", "/x", "--yes"], {"message": ("/x", "--yes"), "model": "p/m", "yes": False}),
    ],
)
def test_clean_run_words_are_parsed_as_typer_converts_them(
    words: list[str], expected: dict[str, Any]
) -> None:
    params = parsed("run", words)
    assert params is not None
    assert {k: params[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("shell", []),
        ("shell", ["--help"]),
        ("shell", ["true", "--help"]),
        ("shell", ["--bogus", "true"]),
        ("shell", ["a", "b"]),
        ("shell", ["--timeout", "x", "true"]),
        ("shell", ["--timeout", "5.0", "true"]),
        ("shell", ["--timeout", "+5", "true"]),
        ("shell", ["--session"]),
        ("run", ["--help"]),
        ("run", ["hi", "--model"]),
        ("session", ["list"]),
        ("command list", ["--help"]),
        ("command list", ["--bogus"]),
        ("command show", ["x"]),
    ],
)
def test_anything_else_is_left_to_the_typer_app(name: str, words: list[str]) -> None:
    assert run_fast(name, words) is None


def test_usage_errors_are_the_typer_apps(tmp_path: Path) -> None:
    # The words click refuses run the full app: its usage error (with the -- hint for run).
    done = subprocess.run(
        [sys.executable, "-m", "shellpilot", "run", "hi", "--model"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Option '--model' requires an argument" in done.stderr
    assert "put -- before the command's arguments" in done.stderr


def test_tab_completion_is_never_run_as_a_command(tmp_path: Path) -> None:
    # Click's completion protocol (``_SHELLPILOT_COMPLETE`` set by a completion script): the
    # full app answers it, the words are never run.
    script = tmp_path / "shellpilot"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom shellpilot.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    marker = tmp_path / "ran"
    env = {**os.environ, "_SHELLPILOT_COMPLETE": "bash_complete", "COMP_WORDS": "shellpilot shell"}
    done = subprocess.run(
        [str(script), "shell", f"touch {marker}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "COMP_CWORD": "2"},
        timeout=60,
    )
    assert not marker.exists(), done.stderr


def test_command_list_prints_the_same_through_either_path(tmp_path: Path) -> None:
    # The fast path (``shellpilot command list``) and the typer app (``--dir`` given after a
    # word click refuses is not possible, so the app is driven directly) print the same listing.
    from typer.testing import CliRunner

    from shellpilot.cli.app import app

    folder = tmp_path / ".shellpilot" / "command"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("---\ndescription: review a change\n---\nReview $ARGUMENTS\n")
    env = {**os.environ, "SHELLPILOT_DATA_DIR": str(tmp_path / "data")}
    for flags in ([], ["--json"]):
        fast = subprocess.run(
            [sys.executable, "-m", "shellpilot", "command", "list", *flags],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
        assert fast.returncode == 0, fast.stderr
        assert "review" in fast.stdout
        full = CliRunner().invoke(app, ["command", "list", "--dir", str(tmp_path), *flags], env=env)
        assert full.exit_code == 0, full.output
        assert full.stdout == fast.stdout
