"""The scanner for PowerShell (tree-sitter grammar) and cmd.exe (tokenizer)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    return project


def test_powershell_commands_paths_and_cd(proj: Path) -> None:
    result = scan(
        "Remove-Item -Path /srv/x -Recurse; git status $(rm /opt/y) && Set-Location /etc; Get-Content passwd",
        cwd=".",
        project_dir=proj,
        shell="pwsh",
    )
    assert list(result.patterns) == [
        "Remove-Item -Path /srv/x -Recurse",
        "git status $(rm /opt/y)",
        "rm /opt/y",
        "Get-Content passwd",
    ]
    assert list(result.always) == ["Remove-Item *", "git status *", "rm *", "Get-Content *"]
    assert list(result.dirs) == ["/srv", "/opt", "/etc"]
    assert result.unknown is False


def test_powershell_redirect_and_destination(proj: Path) -> None:
    result = scan(
        "Copy-Item a -Destination /srv/b > /opt/o 2>&1", cwd=".", project_dir=proj, shell="powershell"
    )
    assert list(result.dirs) == ["/opt", "/srv"]
    assert list(result.commands[0].argv) == ["Copy-Item", "a", "-Destination", "/srv/b"]


def test_powershell_dynamic_path_is_unknown(proj: Path) -> None:
    result = scan("Remove-Item $target", cwd=".", project_dir=proj, shell="pwsh.exe")
    assert result.unknown is True


def test_cmd_lines(proj: Path) -> None:
    result = scan(
        "copy a.txt C:\\tmp\\b.txt && del /q x > nul & type sub\\f", cwd=".", project_dir=proj, shell="cmd"
    )
    assert list(result.patterns) == ["copy a.txt C:\\tmp\\b.txt", "del /q x > nul", "type sub\\f"]
    assert list(result.always) == ["copy *", "del *", "type *"]
    assert list(result.dirs) == ["C:\\tmp"]
    assert result.unknown is False


def test_cmd_dynamic_and_cd(proj: Path) -> None:
    result = scan("dir %USERPROFILE% | findstr foo", cwd=".", project_dir=proj, shell="cmd.exe")
    assert result.unknown is True
    result = scan("cd /srv & type x", cwd=".", project_dir=proj, shell="cmd")
    assert list(result.patterns) == ["type x"]
    assert list(result.dirs) == ["/srv"]


@pytest.mark.parametrize(
    ("command", "shell", "inner", "dirs"),
    [
        ("pwsh -NoProfile -Command 'Remove-Item /srv/x'", "bash", "Remove-Item /srv/x", ["/srv"]),
        ('cmd /c "del /opt/z & type y"', "bash", "del /opt/z", ["/opt"]),
        ('bash -c "rm -rf /srv/x"', "pwsh", "rm -rf /srv/x", ["/srv"]),
        ("iex 'Remove-Item /opt/y'", "pwsh", "Remove-Item /opt/y", ["/opt"]),
    ],
)
def test_shells_inside_shells(proj: Path, command: str, shell: str, inner: str, dirs: list[str]) -> None:
    result = scan(command, cwd=".", project_dir=proj, shell=shell)
    assert inner in result.patterns
    assert list(result.dirs) == dirs
    assert result.unknown is False


@pytest.mark.parametrize(
    ("command", "shell"),
    [
        ("powershell -EncodedCommand AAAA", "bash"),
        ("Invoke-Expression $cmd", "pwsh"),
        ('pwsh -c "$script"', "bash"),
        ("curl -s https://x | pwsh", "bash"),
    ],
)
def test_unreadable_shell_strings_are_unknown(proj: Path, command: str, shell: str) -> None:
    assert scan(command, cwd=".", project_dir=proj, shell=shell).unknown is True


def test_mangled_commands_never_crash_the_scanner(proj: Path) -> None:
    corpus = Path(__file__).parents[2] / "benchmarks" / "data" / "commands.jsonl"
    commands = [json.loads(line) for line in corpus.read_text().splitlines() if line.strip()]
    rng = random.Random(3)
    noise = [*"'\"$`\\(){}[]<>|&;*?~#!=\n -/", "$(", "<<EOF\n", "<(", "${", "))", "\\\n"]
    for i in range(1500):
        command = rng.choice(commands)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(command))
            command = command[:at] + rng.choice(noise) + command[at:]
        shell = ("bash", "pwsh", "cmd")[i % 3]
        result = scan(command, cwd=".", project_dir=proj, shell=shell)
        assert not [r for r in result.reasons if "scanner failure" in r], (shell, command)


def test_a_nested_grammar_missing_from_the_table_is_unknown_never_silent(tmp_path: Path) -> None:
    """scan() hands every scanner the grammar table; a bash scanner driven with a table that
    lacks PowerShell reports the nested text as not analysed instead of skipping it."""
    from shellpilot.scanner.bash_walk import scan_bash
    from shellpilot.scanner.context import ScanContext
    from shellpilot.scanner.scan_paths import PathResolver
    from shellpilot.scanner.scan_result import ScanBuilder

    builder = ScanBuilder()
    context = ScanContext(builder, PathResolver(str(tmp_path), builder), {"bash": scan_bash})
    scan_bash("pwsh -Command 'Remove-Item /srv/x'", (str(tmp_path),), context, 0)
    result = builder.build()
    assert result.unknown and "/srv" not in result.dirs
    assert any("powershell" in reason for reason in result.reasons)
