"""The anchored glob: table cases, agreement with a regex reference, long inputs."""

from __future__ import annotations

import random
import re

import pytest

from shellpilot.permission.wildcard import has_wildcard, literal_count, match


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("ls", "ls", True),
        ("ls", "l", False),
        ("ls -la", "ls *", True),
        ("ls", "ls *", True),  # trailing " *" also matches the bare command
        ("lsof", "ls *", False),
        ("lsof", "ls*", True),
        ("ls ", "ls *", True),
        ("git status", "git *", True),
        ("git status --short", "git status *", True),
        ("git", "git status *", False),
        ("gitk", "git *", False),
        ("rm -rf /", "rm *", True),
        ("rm -rf /", "rm -rf *", True),
        ("rm -r /", "rm -rf *", False),
        ("echo a\nb", "echo *", True),  # star crosses newlines
        ("cat /a/b/c", "cat /a/*", True),  # and slashes
        ("abc", "a?c", True),
        ("ac", "a?c", False),
        ("a\nc", "a?c", True),
        ("abc", "???", True),
        ("abcd", "???", False),
        ("", "*", True),
        ("", "", True),
        ("x", "", False),
        ("", "?", False),
        ("a.b", "a.b", True),
        ("axb", "a.b", False),  # regex characters are literal
        ("a+b(c)[d]{e}|^$", "a+b(c)[d]{e}|^$", True),
        ("C:\\x", "C:/x", False),  # backslashes are literal, not folded into "/"
        ("Git status", "git *", False),  # case-sensitive
        ("aaa", "a*a*a", True),
        ("aa", "a*a*a", False),
        ("abab", "*ab", True),
        ("abcabd", "*ab?", True),
        ("xyz", "x*y*z", True),
        ("xzy", "x*y*z", False),
        ("npm run dev", "npm run dev *", True),
        ("npm run dev2", "npm run dev *", False),
        ("/home/u/.ssh/id", "/home/u/*", True),
    ],
)
def test_match_table(text: str, pattern: str, expected: bool) -> None:
    assert match(text, pattern) is expected


def _reference(text: str, pattern: str) -> bool:
    body = "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in pattern)
    if pattern.endswith(" *"):
        body = body[: -len(re.escape(" ") + ".*")] + "(?: .*)?"
    return re.fullmatch(body, text, flags=re.DOTALL) is not None


def test_agrees_with_a_regex_reference_on_random_cases() -> None:
    rng = random.Random(29921)
    alphabet = "ab ?*\n"
    for _ in range(5000):
        text = "".join(rng.choice("ab \n") for _ in range(rng.randint(0, 8)))
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        assert match(text, pattern) == _reference(text, pattern), (text, pattern)


def test_pathological_pattern_on_a_long_text_finishes() -> None:
    # A backtracking matcher never returns here; the benchmark prints the timings.
    text = "ab" * 50_000
    assert match(text, "*a*b*a*b*c") is False
    assert match(text + "c", "*a*b*a*b*c") is True
    assert match("a" * 100_000, "*a?a?a?b") is False


@pytest.mark.parametrize(
    ("pattern", "count"),
    [("*", 0), ("ls *", 2), ("ls", 2), ("git status *", 10), ("rm -rf *", 6), ("a?c", 2), ("mcp_*", 4)],
)
def test_literal_count(pattern: str, count: int) -> None:
    assert literal_count(pattern) == count


def test_has_wildcard() -> None:
    assert has_wildcard("a*") and has_wildcard("?") and not has_wildcard("git status")
