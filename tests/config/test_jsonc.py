"""JSONC parsing: comments anywhere, trailing commas, and errors placed where an editor shows them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shellpilot.config import load_config, parse_jsonc
from shellpilot.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, // c\n}', {"a": 1}),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ('{"a": 1 /* c */, "b": "// kept", "c": "/* kept */"}', {"a": 1, "b": "// kept", "c": "/* kept */"}),
        ('\ufeff{"a": 1}\n// a last comment', {"a": 1}),
    ],
)
def test_comments_and_trailing_commas(text: str, expected: object) -> None:
    assert parse_jsonc(text) == expected


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        # the error after a comment: the column counts the comment, as an editor does
        ('{/* a long comment here */ "a": 1 "b": 2}', 1, 35),
        ('{\n  "a": 1, // note\n  "b": ,\n}', 3, 8),
        ('{\n  // one\n  /* two\n  lines */ "a": 1 x\n}', 4, 19),
    ],
)
def test_error_line_and_column_are_those_of_the_original_text(text: str, line: int, column: int) -> None:
    with pytest.raises(ConfigError) as info:
        parse_jsonc(text, path="cfg.jsonc")
    assert info.value.line == line
    assert f"(column {column})" in str(info.value)
    assert str(info.value).startswith(f"cfg.jsonc:{line}: invalid JSON: ")
    assert "U+" not in str(info.value) and "b'" not in str(info.value)


def test_deep_nesting_is_a_config_error_not_a_recursion_error() -> None:
    text = "[" * 5000 + "]" * 5000
    with pytest.raises(ConfigError, match="nested deeper than 64 levels") as info:
        parse_jsonc(text, path="deep.json")
    assert info.value.line == 1


def test_invalid_utf8_names_line_and_column(project: Path) -> None:
    (project / "shellpilot.jsonc").write_bytes(b'{\n  "model": "a/\xff"\n}')
    with pytest.raises(ConfigError) as info:
        load_config(project)
    assert info.value.line == 2
    assert info.value.path == str(project / "shellpilot.jsonc")
    assert "not valid UTF-8 (byte 0xff at column 15)" in str(info.value)
    assert "save it as UTF-8" in str(info.value)


def _shell(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", "shell", "--dir", str(project), "true"],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("content", "line", "says"),
    [
        (b'{"model":"\xff"}', 1, "not valid UTF-8"),
        (b"[" * 5000 + b"]" * 5000, 1, "nested deeper than"),
        (b'{\n  "model": "a/b", // the model\n  "shell" "bash"\n}', 3, "expected colon"),
    ],
    ids=["invalid-utf8", "5000-deep", "bad-syntax-after-comment"],
)
def test_cli_exits_2_naming_file_line_and_fix(project: Path, content: bytes, line: int, says: str) -> None:
    path = project / "shellpilot.jsonc"
    path.write_bytes(content)
    done = _shell(project)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{path}:{line}: " in done.stderr and says in done.stderr


@pytest.mark.parametrize("text", ["", "  \n", "// nothing yet\n", "/* later */"])
def test_an_empty_config_file_says_what_an_empty_config_is(tmp_path: Path, text: str) -> None:
    config = tmp_path / "shellpilot.json"
    config.write_text(text)
    expected = r"the file is empty \(or only comments\); an empty config is `\{\}`"
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path)
    config.write_text(text + "{}")
    load_config(tmp_path)
