"""``shellpilot shell`` parsed by click alone: the same parameters as the typer declaration, and
every word it does not take cleanly left to the typer app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shellpilot.cli.app import _load
from shellpilot.cli.fast_shell import _parsed, run_fast, shell_command


def _shape(param: Any) -> tuple[Any, ...]:
    kind = type(param).__name__.replace("Typer", "").replace("_", "")
    flag = bool(getattr(param, "is_flag", False))
    return (kind, param.name, sorted(param.opts), sorted(param.secondary_opts), flag, param.nargs)


def test_click_declares_what_typer_declares() -> None:
    typer_params = [p for p in _load("shell").params if p.name != "help"]
    assert [_shape(p) for p in shell_command().params] == [_shape(p) for p in typer_params]
    assert [p.required for p in shell_command().params] == [p.required for p in typer_params]


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
def test_clean_words_are_parsed_as_typer_converts_them(words: list[str], expected: dict[str, Any]) -> None:
    params = _parsed(words)
    assert params is not None
    assert {k: params[k] for k in expected} == expected


@pytest.mark.parametrize(
    "words",
    [
        [],
        ["--help"],
        ["true", "--help"],
        ["--bogus", "true"],
        ["a", "b"],
        ["--timeout", "x", "true"],
        ["--timeout", "5.0", "true"],
        ["--timeout", "+5", "true"],
        ["--session"],
    ],
)
def test_anything_else_is_left_to_the_typer_app(words: list[str]) -> None:
    assert run_fast(words) is None
