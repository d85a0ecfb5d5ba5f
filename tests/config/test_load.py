"""Config files: JSONC, precedence, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.config import load_config, parse_jsonc
from shellpilot.errors import ConfigError


def test_jsonc_comments_and_trailing_commas() -> None:
    text = '{\n // a comment\n "a": "x // not a comment", /* block\n */ "b": [1, 2,],\n}'
    assert parse_jsonc(text) == {"a": "x // not a comment", "b": [1, 2]}


def test_defaults_without_files(project: Path) -> None:
    cfg = load_config(project).config
    assert cfg.shell.timeout_ms == 120_000
    assert cfg.tool_output.max_lines == 2000
    assert cfg.tool_output.max_bytes == 51_200
    assert cfg.max_steps == 50


def test_project_overrides_user_deeply(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "shellpilot.json").write_text(
        '{"permission": {"bash": {"*": "ask", "git *": "allow"}}, "shell": "/bin/sh"}'
    )
    (project / "shellpilot.jsonc").write_text(
        '{"permission": {"bash": {"rm *": "deny"}}, "shell": {"timeout_ms": 5}}'
    )
    loaded = load_config(project, config_dir=user)
    # permission rules are the exception: the project's are kept apart, to only tighten
    assert loaded.config.permission == {"bash": {"*": "ask", "git *": "allow"}}
    assert loaded.config.project_rules.permission == ({"bash": {"rm *": "deny"}},)
    # a later object merges into the earlier string form's fields
    assert loaded.config.shell.timeout_ms == 5
    assert [p.name for p in loaded.sources] == ["shellpilot.json", "shellpilot.jsonc"]


def test_bad_json_names_file_and_line(project: Path) -> None:
    (project / "shellpilot.json").write_text('{\n  "model": "a/b",\n  "shell" "bash"\n}')
    with pytest.raises(ConfigError) as info:
        load_config(project)
    assert info.value.line == 3
    assert str(project / "shellpilot.json") in str(info.value)


def test_invalid_value_names_the_key(project: Path) -> None:
    (project / "shellpilot.json").write_text('{"shell": {"timeout_ms": -1}}')
    with pytest.raises(ConfigError, match=r"shell\.timeout_ms"):
        load_config(project)


def test_unknown_key_is_an_error(project: Path) -> None:
    (project / "shellpilot.json").write_text('{"permisions": {}}')
    with pytest.raises(ConfigError, match="permisions"):
        load_config(project)


def test_invalid_value_names_file_and_line(project: Path) -> None:
    (project / "shellpilot.json").write_text('{\n  "model": "a/b",\n  "shell": {\n    "tmeout": 5\n  }\n}')
    with pytest.raises(ConfigError) as info:
        load_config(project)
    assert info.value.line == 4
    assert f"{project / 'shellpilot.json'}:4: shell.tmeout" in str(info.value)


def test_wrong_type_in_permission_names_the_line(project: Path) -> None:
    (project / "shellpilot.json").write_text('{\n  "permission": {\n    "bash": {"rm *": "never"}\n  }\n}')
    with pytest.raises(ConfigError) as info:
        load_config(project)
    assert info.value.line == 3
    assert "permission.bash" in str(info.value)
