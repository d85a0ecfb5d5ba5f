"""``--help`` reads like a person wrote it: value names (COMMAND, --timeout MS), no type tags."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from shellpilot.cli.app import app

COMMANDS = [
    [],
    ["shell"],
    ["run"],
    ["session"],
    ["session", "list"],
    ["session", "show"],
    ["session", "export"],
    ["session", "delete"],
    ["command"],
    ["command", "list"],
    ["command", "show"],
    ["command", "render"],
    ["sandbox"],
    ["doctor"],
]
GROUPS = [[], ["session"], ["command"]]
MARKER = re.compile(r"<[a-zA-Z_\[\]|, ]+>|\{[a-zA-Z_]+\}")


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "shellpilot")
def test_help_has_no_type_markers(words: list[str]) -> None:
    done = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "120"})
    assert done.exit_code == 0, done.output
    assert "Usage:" in done.output
    assert MARKER.findall(done.output) == []


def test_values_are_named_and_flags_are_bare() -> None:
    shell = CliRunner().invoke(app, ["shell", "--help"], env={"COLUMNS": "120"}).output
    assert re.search(r"Usage: .* shell \[OPTIONS\] COMMAND\s*$", shell, re.MULTILINE)
    assert re.search(r"--timeout\s+MS\s+Kill the command", shell)
    sandbox = CliRunner().invoke(app, ["sandbox", "--help"], env={"COLUMNS": "120"}).output
    assert re.search(r"--timeout\s+MS\s+Kill the command", sandbox)
    assert re.search(r"--allow\s+PATH\s+Also make this path writable", sandbox)
    assert re.search(r"--continue\s+-c\s+Record in the latest session", shell)
    run = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "120"}).output
    assert "[OPTIONS] [MESSAGE...]" in run
    assert re.search(r"--allow\s+PATTERN", run) and re.search(r"--model\s+-m\s+PROVIDER/MODEL", run)


@pytest.mark.parametrize("words", GROUPS, ids=lambda w: " ".join(w) or "shellpilot")
def test_a_group_lists_each_command_on_one_row(words: list[str]) -> None:
    # Wide enough that nothing wraps: a row whose name cell is empty is a docstring's hard
    # line break leaking into the listing ("the shell" / "that will be used").
    out = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "400"}).output
    panel = out.split("Commands", 1)[1].split("\u2570", 1)[0].splitlines()[1:]
    assert panel
    for row in panel:
        assert re.match(r"\u2502 \S", row), row
