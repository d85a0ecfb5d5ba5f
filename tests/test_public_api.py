"""The package face: sorted __all__, every name resolves, light imports, CLI basics."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import shellpilot
from shellpilot import errors

HEAVY = ["openai", "anthropic", "mcp", "tree_sitter", "tree_sitter_bash", "httpx", "httpx2", "jsonschema"]
"""Never loaded by ``import shellpilot``, ``--version`` or ``--help``."""
NOT_FOR_VERSION = ["asyncio", "pydantic", "typer", "click", "rich", "sqlite3", "shellpilot.bus"]
"""Machinery ``--version`` does not need, so neither it nor ``import shellpilot`` loads it."""


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert shellpilot.__all__ == sorted(shellpilot.__all__)
    for name in shellpilot.__all__:
        assert getattr(shellpilot, name) is not None, name
    assert set(shellpilot.__all__) <= set(dir(shellpilot))


def test_the_embedders_names_are_public() -> None:
    wanted = {
        "AgentLoop",
        "CommandRegistry",
        "PermissionService",
        "ScriptedModelServer",
        "SessionService",
        "SessionStore",
        "ShellTool",
        "run",
        "scan",
    }
    assert wanted <= set(shellpilot.__all__)
    assert set(errors.__all__) <= set(shellpilot.__all__)
    assert shellpilot.SessionBusy is errors.SessionBusy
    from shellpilot.scanner.scan import scan

    assert shellpilot.scan is scan


@pytest.mark.parametrize(
    ("package", "name", "loads", "not_loaded"),
    [
        ("shellpilot.permission", "AskRequest", "request", ["service", "readonly", "defaults"]),
        ("shellpilot.command", "split_arguments", "arguments", ["registry", "sources", "template"]),
    ],
)
def test_a_lazy_package_face_resolves_every_name_and_loads_only_what_is_used(
    package: str, name: str, loads: str, not_loaded: list[str]
) -> None:
    module = importlib.import_module(package)
    assert len(module.__all__) == len(set(module.__all__))
    for public in module.__all__:
        assert getattr(module, public) is not None, public
    assert set(module.__all__) <= set(dir(module))
    loaded = _modules_after(f"from {package} import {name}")
    assert f"{package}.{loads}" in loaded
    assert not [m for m in not_loaded if f"{package}.{m}" in loaded]
    assert "yaml" not in loaded


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = shellpilot.no_such_name  # type: ignore[attr-defined]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_shellpilot_loads_nothing_heavy_and_no_machinery() -> None:
    loaded = _modules_after("import shellpilot")
    assert [m for m in loaded if m.startswith("shellpilot")] == ["shellpilot"]
    assert not [m for m in [*HEAVY, *NOT_FOR_VERSION] if m in loaded]


def test_version_loads_no_machinery() -> None:
    code = (
        "import io, sys\nsys.argv=['shellpilot','--version']\nsys.stdout=io.StringIO()\n"
        "from shellpilot.cli import main\nmain()\nsys.stdout=sys.__stdout__"
    )
    loaded = _modules_after(code)
    assert not [m for m in [*HEAVY, *NOT_FOR_VERSION] if m in loaded]


def test_cli_help_pulls_no_heavy_modules() -> None:
    code = (
        "import sys\nsys.argv=['shellpilot','--help']\nfrom shellpilot.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass"
    )
    loaded = _modules_after(code)
    assert not [m for m in HEAVY if m in loaded]


def test_a_sub_command_loads_only_its_own_module() -> None:
    code = (
        "import sys\nsys.argv=['shellpilot','shell','--help']\nfrom shellpilot.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass"
    )
    loaded = _modules_after(code)
    assert "shellpilot.cli.shell_cmd" in loaded
    assert not {"shellpilot.cli.run_cmd", "shellpilot.cli.session_cmd", "shellpilot.cli.command_cmd"} & loaded


def test_version_and_help_via_console_script() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "shellpilot", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"shellpilot {shellpilot.__version__}"
    helped = subprocess.run([sys.executable, "-m", "shellpilot", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0
    for name in ("shell", "run", "session", "command"):
        assert name in helped.stdout
