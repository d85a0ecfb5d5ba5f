"""The package face: sorted __all__, light imports, CLI basics."""

from __future__ import annotations

import json
import subprocess
import sys

import shellpilot

HEAVY = ["openai", "anthropic", "mcp", "tree_sitter", "tree_sitter_bash", "httpx", "httpx2", "jsonschema"]


def test_all_is_sorted_and_resolvable() -> None:
    assert shellpilot.__all__ == sorted(shellpilot.__all__)
    for name in shellpilot.__all__:
        assert hasattr(shellpilot, name), name


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_shellpilot_pulls_no_heavy_modules() -> None:
    loaded = _modules_after("import shellpilot")
    assert not [m for m in HEAVY if m in loaded]


def test_cli_help_pulls_no_heavy_modules() -> None:
    code = (
        "import sys\nsys.argv=['shellpilot','--help']\nfrom shellpilot.cli.app import app\n"
        "try:\n    app()\nexcept SystemExit:\n    pass"
    )
    loaded = _modules_after(code)
    assert not [m for m in HEAVY if m in loaded]


def test_version_and_help_via_console_script() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "shellpilot", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"shellpilot {shellpilot.__version__}"
    helped = subprocess.run([sys.executable, "-m", "shellpilot", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0
    assert "shell" in helped.stdout
