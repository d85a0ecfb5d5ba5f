"""Frontmatter reading: the YAML-free fast path agrees with the YAML reading wherever it
answers, and the YAML reading is the one the JavaScript parsers of other agents make."""

from __future__ import annotations

import pytest

from shellpilot.command.frontmatter import _fast, _load, parse_markdown

SAMPLES = [
    "description: Plain words here\nagent: build",
    "subtask: true\nother: False\nthird: YES\nfourth: off",
    "description: 'single quoted: colon'\nmodel: \"openai/gpt-4o\"",
    "url: http://example.com/x\nratio: a:b",
    "empty:\nnothing: null\ntilde: ~",
    "# a comment\n\ndescription: after blank",
    "description: tRue\nname: Null-ish",
    "dup: one\ndup: two",
    "description: with trailing spaces   ",
    "list: [a, b]",
    "n: 12",
    "f: .5",
    "neg: -3",
    "nested:\n  a: b",
    "description: x # comment",
    "description: it's fine",
]


@pytest.mark.parametrize("raw", SAMPLES)
def test_fast_path_matches_yaml(raw: str) -> None:
    fast = _fast(raw)
    strict = _load(raw) or {}
    if fast is not None:
        data, bad = fast
        assert bad is None
        assert data == strict


def test_fast_path_reports_the_unquoted_colon_line() -> None:
    assert _fast("agent: build\ndescription: Deploy: now\nend: x:") == (
        {"agent": "build", "description": "Deploy: now", "end": "x:"},
        3,
    )


def test_parse_markdown_uses_the_fast_path_with_the_same_warning() -> None:
    parsed = parse_markdown("---\nagent: plan\ndescription: Ship: it\n---\nbody", "f.md")
    assert parsed.data == {"agent": "plan", "description": "Ship: it"} and parsed.body == "body"
    assert [str(w) for w in parsed.warnings] == [
        "f.md:3: frontmatter is not valid YAML (mapping values are not allowed here); values quoted"
    ]
    quiet = parse_markdown("---\ndescription: Ship: it\n---\nbody", "f.md", warn_sanitised=False)
    assert quiet.warnings == []


def test_yaml_1_2_scalars_as_claude_code_and_opencode_read_them() -> None:
    """Bun.YAML (Claude Code) and js-yaml (OpenCode's gray-matter) read YAML 1.2: only
    true/false are booleans; PyYAML's YAML 1.1 would make ``No`` False and ``1:30`` 5400."""
    text = (
        "---\ndescription: No\nargument-hint: 1:30\nuser-invocable: off\nmodel: 2024-06-01\n"
        "subtask: true\nversion: 010\ncount: 12\n---\nbody"
    )
    assert parse_markdown(text, "f.md").data == {
        "description": "No",
        "argument-hint": "1:30",
        "user-invocable": "off",
        "model": "2024-06-01",
        "subtask": True,
        "version": "010",
        "count": 12,
    }
    nested = parse_markdown("---\ntools:\n  - yes\n  - on\nflag: [true, no]\n---\nx", "f.md")
    assert nested.data == {"tools": ["yes", "on"], "flag": [True, "no"]}


@pytest.mark.parametrize("opener", ["--- ", "---\t", "---  \r"])
def test_an_opening_line_with_trailing_blanks_opens_frontmatter(opener: str) -> None:
    """gray-matter (OpenCode) reads blanks after ``---`` as part of the opening line."""
    parsed = parse_markdown(f"{opener}\ndescription: Ship it\n---\nBody $1", "f.md")
    assert parsed.data == {"description": "Ship it"} and parsed.body == "Body $1"


def test_tab_indented_list_is_read_with_a_warning() -> None:
    """A tab before a list item is not YAML; gray-matter still reads the list."""
    parsed = parse_markdown("---\nallowed-tools:\n\t- Bash(git:*)\n\t- Read\ndescription: d\n---\nb", "f.md")
    assert parsed.data == {"allowed-tools": ["Bash(git:*)", "Read"], "description": "d"}
    (warning,) = parsed.warnings
    assert (warning.path, warning.line) == ("f.md", 3)
    assert warning.message.endswith("; tab indentation read as spaces (indent with spaces)")
