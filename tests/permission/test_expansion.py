"""What the shell would still expand or redirect in a read-only candidate's text."""

from __future__ import annotations

import pytest

from shellpilot.permission.expansion import assigned_in, plain_expansions, without_null_redirects


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ls 2>/dev/null", "ls"),
        ("ls 2> /dev/null -la", "ls   -la"),
        ("ls >/dev/null 2>&1", "ls"),
        ("ls &>/dev/null </dev/null", "ls"),
        ("ls 2>&- 1>&2", "ls"),
        ("ls 12>/dev/null", "ls"),
        ("echo a2>/dev/null", "echo a2"),  # `a2` is a word: the redirect is stdout's
        ("echo '2>/dev/null' \"a > b\" \\>", "echo '2>/dev/null' \"a > b\" \\>"),
        ('ls 2>"/dev/null"', "ls"),
        ("echo x > f", None),
        ("cat < f", None),
        ("cat <<< x", None),
        ("cat <<EOF", None),
        ("cat <> f", None),
        ("ls 2>&1 >out", None),
        ("echo 'open", None),
    ],
)
def test_null_redirects_are_cut_and_others_refused(text: str, expected: str | None) -> None:
    assert without_null_redirects(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("echo $HOME", [("HOME", False)]),
        ('echo "$X ${Y}" $?', [("X", True), ("Y", True), ("?", False)]),
        ("echo '$x' \\$y", []),
        ("echo $(id)", None),
        ("echo `id`", None),
        ("echo ${X:-a}", None),
        ("echo $1", None),
        ("echo $@", None),
        ("echo $((1+2))", None),
    ],
)
def test_only_plain_parameter_expansions(text: str, expected: list[tuple[str, bool]] | None) -> None:
    assert plain_expansions(text) == expected


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("X", "X=/o; echo $X", True),
        ("X", "read X; echo $X", True),
        ("X", "for X in a; do echo $X; done", True),
        ("X", "echo $X ${X}", False),
        ("X", "echo $XY X_1", False),
        ("?", "echo $?", False),
    ],
)
def test_a_line_may_set_a_variable(name: str, line: str, expected: bool) -> None:
    assert assigned_in(name, line) is expected
