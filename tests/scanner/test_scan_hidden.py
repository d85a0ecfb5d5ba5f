"""Substitutions bash runs where tree-sitter shows none: the scan must never stay silent.

Each form is run by a real bash first (the inner `touch` must create its file), then
scanned: the inner command is a pattern, or the scan is unknown.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.bash_openers import live_openers
from shellpilot.scanner.scan import scan

# (command run by bash, file its hidden substitution creates)
HIDDEN = [
    ("echo $(( '$(touch Q12)' ))", "Q12"),
    ("echo \"${x:-'$(touch Q13)'}\"", "Q13"),
    ("echo $[ '$(touch Q14)' ]", "Q14"),
    ("cat <<EOF\nhi `touch Q10`\nEOF", "Q10"),
    ("cat <<-EOF\n\thi `touch Q11` and more\n\tEOF", "Q11"),
    ("let 'a[$(touch Q15)]'", "Q15"),
    ("[[ 'a[$(touch Q16)]' -eq 1 ]]", "Q16"),
    ("(( x = '$(touch Q17)' ))", "Q17"),
    ("echo $(( '`touch Q19`' ))", "Q19"),
    ("a['$(touch Q20)']=1", "Q20"),
    ("arr=( ['$(touch Q21)']=1 )", "Q21"),
    ("printf -v 'a[$(touch Q22)]' x", "Q22"),
    ("echo ${a['$(touch Q23)']}", "Q23"),
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("command", "made"), HIDDEN)
def test_hidden_substitution_is_asked(command: str, made: str, tmp_path: Path) -> None:
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10, check=False)
    assert (tmp_path / made).exists(), "bash must really run the substitution for the test to mean anything"
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert f"touch {made}" in result.patterns or result.unknown
    # here the hidden net does both: the inner command is scanned and the whole text asked
    assert f"touch {made}" in result.patterns
    assert result.unknown
    assert "touch *" in result.always


# (command, its substitutions are dead: bash prints the text, runs nothing)
PROTECTED = [
    "echo '$(touch P1)'",
    "echo hi # $(touch P2) `touch P3`",
    "cat <<'EOF'\n`touch P4` $(touch P5)\nEOF",
    "cat <<\\EOF\n`touch P6`\nEOF",
    "echo $'\\'$(touch P7)'",
    "grep -e '<(' -e '`' README",
]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("command", PROTECTED)
def test_protected_text_stays_quiet(command: str, tmp_path: Path) -> None:
    (tmp_path / "README").write_text("x\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=10, check=False)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("P")]
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert not result.unknown, result.reasons
    assert not any(p.startswith("touch") for p in result.patterns)


@pytest.mark.parametrize(
    ("text", "bodies"),
    [
        ("echo $((1+2)) $(ls) `pwd` <(x) >(y)", ["ls", "pwd", "x", "y"]),
        ("x=$(echo $(echo 'a)'))", ["echo $(echo 'a)')", "echo 'a)'"]),
        ("echo `echo \\`x\\``", ["echo \\`x\\`", None]),
        ("echo \"a <(b)\" '$(c)'", []),
        ("cat <<EOF\n'$(a)'\nEOF\n'$(b)'", ["a"]),
        ("echo ${x:-$(a)} $[1+$(b)]", ["a", "b"]),
        ("echo $(", [None]),
        ("cat <<< hi\necho <(a)", ["a"]),
        ("cat <<-'X' <<Y\n\t$(a)\n\tX\n$(b) `c`\nY\n$(d)", ["b", "c", "d"]),
    ],
)
def test_live_openers(text: str, bodies: list[str | None]) -> None:
    found = [text[o.body : o.end] if o.end >= 0 else None for o in live_openers(text)]
    assert found == bodies


def test_unset_of_a_quoted_subscript_is_asked(tmp_path: Path) -> None:
    # older bash (and `shopt -u assoc_expand_once` setups) run it: asked either way
    result = scan("unset 'a[$(touch Q24)]'", cwd=tmp_path, project_dir=tmp_path)
    assert result.unknown
    assert "touch Q24" in result.patterns


def test_parsed_substitution_in_quotes_is_scanned(tmp_path: Path) -> None:
    result = scan("echo \"'$(touch Q18)'\"", cwd=tmp_path, project_dir=tmp_path)
    assert "touch Q18" in result.patterns


def test_hidden_net_does_not_fire_on_plain_commands(tmp_path: Path) -> None:
    for command in (
        "echo $((1 + 2))",
        'echo "it\'s $(date)"',
        'a=`pwd`; echo `ls` "`id`"',
        "diff <(ls) <(ls -a)",
    ):
        result = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert not result.unknown, (command, result.reasons)


@pytest.mark.parametrize(
    ("command", "argv", "dirs"),
    [
        ("cat {/tmp/outside/key.txt,README}", ["cat", "/tmp/outside/key.txt", "README"], ["/tmp/outside"]),
        ("cp README{,.bak}", ["cp", "README", "README.bak"], []),
        ("cat /tmp/x{1..3}", ["cat", "/tmp/x1", "/tmp/x2", "/tmp/x3"], ["/tmp"]),
        ("cat x{a,b}{01..02}", ["cat", "xa01", "xa02", "xb01", "xb02"], []),
        ("cat a{b,{c,d}e}f", ["cat", "abf", "acef", "adef"], []),
        ("find . -exec cat {} \\;", ["find", ".", "-exec", "cat", "{}", ";"], []),
        ("awk '{print $1, $2}' f", ["awk", "{print $1, $2}", "f"], []),
    ],
)
def test_brace_expansion_reaches_paths(
    command: str, argv: list[str], dirs: list[str], tmp_path: Path
) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert not result.unknown, result.reasons
    assert list(result.commands[0].argv) == argv
    assert list(result.dirs) == dirs


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo {1..100}", "over 64 words"),
        ("cat {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}", "over 64 words"),
        ('cat "/tmp"{/outside/key,x}', "brace expansion in a quoted word"),
    ],
)
def test_brace_expansion_too_big_or_quoted_is_unknown(command: str, reason: str, tmp_path: Path) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert result.unknown
    assert any(reason in r for r in result.reasons), result.reasons


@pytest.mark.parametrize("command", ["cat .?/secret", "cat ./.*/x", "ls .[.]/x", "cat sub/.?/.?/etc/passwd"])
def test_glob_that_may_match_dotdot_is_unknown(command: str, tmp_path: Path) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert result.unknown
    assert any("may match '..'" in r for r in result.reasons), result.reasons


@pytest.mark.parametrize("command", ["cat *.py", "rm x.?", "ls src/*/a[bc].txt"])
def test_glob_that_cannot_climb_stays_known(command: str, tmp_path: Path) -> None:
    assert not scan(command, cwd=tmp_path, project_dir=tmp_path).unknown
