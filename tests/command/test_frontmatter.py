"""The YAML-free fast path of frontmatter reading agrees with YAML wherever it answers."""

from __future__ import annotations

import pytest
import yaml

from shellpilot.command.frontmatter import _fast, parse_markdown

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
    strict = yaml.safe_load(raw) or {}
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
