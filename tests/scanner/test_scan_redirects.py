"""Redirects belong to the command bash gives them to, and patterns are words as bash reads them.

Each table row is checked against the real bash where the effect can be seen (the file a
redirect writes, the argv a command gets), then against the scan.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / "README").write_text("readme\n")
    (project / "f").write_text("x\n")
    return project


# (command, the pattern that must carry the redirect, the file written)
COMPOUND = [
    ("echo x | cat > src/a.py", "cat > src/a.py", "src/a.py"),
    ("ls && cat README > src/a.py", "cat README > src/a.py", "src/a.py"),
    ("cat f | grep x >> .git/hooks/pre-commit", "grep x >> .git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("true || false; ls | cat 2>&1 > out", "cat 2>&1 > out", "out"),
    ("! cat f > out", "cat f > out", "out"),
    ("{ cat f; } > out", "cat f > out", "out"),
    ("(cat f) > out", "cat f > out", "out"),
    ("for i in 1; do cat f; done > out", "cat f > out", "out"),
    ("while false; do :; done; if true; then cat f; fi > out", "cat f > out", "out"),
    ("case x in x) cat f;; esac > out", "cat f > out", "out"),
    ("cd src && cat ../f > out", "cat ../f > out", "src/out"),
]


@needs_bash
@pytest.mark.parametrize(("command", "pattern", "made"), COMPOUND)
def test_a_redirect_belongs_to_the_command_it_applies_to(
    proj: Path, tmp_path: Path, command: str, pattern: str, made: str
) -> None:
    ran = tmp_path / "ran"
    shutil.copytree(proj, ran)
    subprocess.run(["bash", "-c", command], cwd=ran, capture_output=True, timeout=10, check=False)
    assert (ran / made).exists(), "bash must write the file for the row to mean anything"
    result = scan(command, cwd=proj, project_dir=proj)
    assert not result.unknown, result.reasons
    assert pattern in result.patterns
    assert str(proj / made) in result.writes
    # the redirect is in the pattern, so the command is never the plain read-only text
    assert all(
        ">" in text for text in (c.text for c in result.commands) if text.startswith(pattern.split()[0])
    )


def test_every_command_of_a_redirected_group_carries_the_redirect(proj: Path) -> None:
    result = scan("{ ls; cat f; } > out", cwd=proj, project_dir=proj)
    assert list(result.patterns) == ["ls > out", "cat f > out"]
    # a substitution's output is captured, not redirected
    inner = scan("{ echo $(cat f); } > out", cwd=proj, project_dir=proj)
    assert "cat f" in inner.patterns and "echo $(cat f) > out" in inner.patterns


@pytest.mark.parametrize(
    ("command", "pattern", "written"),
    [
        ("> f", "> f", "f"),
        (">> f", ">> f", "f"),
        ("{ > f; }", "> f", "f"),
        ("( >> f )", ">> f", "f"),
        ("X=1 > f", "X=1 > f", "f"),
        ("{ cd src; } > f", "> f", "f"),
        ("cd src > f", "cd src > f", "f"),
    ],
)
def test_a_bare_redirect_is_a_command_that_writes(
    proj: Path, command: str, pattern: str, written: str
) -> None:
    result = scan(command, cwd=proj, project_dir=proj)
    # (tree-sitter cannot parse `X=1 > f`: a syntax error makes it unknown as well)
    assert not result.unknown or command.startswith("X="), result.reasons
    assert pattern in result.patterns
    assert str(proj / written) in result.writes


def test_a_bare_read_redirect_asks_nothing_of_its_own(proj: Path) -> None:
    result = scan("< README", cwd=proj, project_dir=proj)
    assert not result.patterns and not result.writes and not result.unknown


# (command, argv bash runs, outside dir that must be reported)
OPERANDS = [
    ("rm -rf 2>/dev/null /outside", ["rm", "-rf", "/outside"], "/outside"),
    ("rm 2>/dev/null -rf src", ["rm", "-rf", "src"], None),
    ("cat 2>/dev/null ~/.ssh/id_rsa", ["cat", "~/.ssh/id_rsa"], None),
    ("echo a > f b c", ["echo", "a", "b", "c"], None),
    ("echo a >f b >g c", ["echo", "a", "b", "c"], None),
    ("cat <<< x README", ["cat", "README"], None),
    ("> f rm x", ["rm", "x"], None),
    # tree-sitter reads the `0` of `0<` as a word before the redirect; bash, as its fd
    ("cat 0<f README", ["cat", "README"], None),
    ("cat 0<<< x README", ["cat", "README"], None),
    ("echo 0 <f", ["echo", "0"], None),
    ("echo 10<f 0", ["echo", "0"], None),
    # tree-sitter leaves a lone `-` before an fd redirect out of its tree; bash passes it
    ("rm - 2>/dev/null", ["rm", "-"], None),
    ("git checkout - 2>/dev/null", ["git", "checkout", "-"], None),
    ("echo a - 1>f", ["echo", "a", "-"], None),
    ("python3 - <<'EOF'\nprint(1)\nEOF", ["python3", "-"], None),
    # and a word that ends in a backslash-newline before an fd redirect
    ("rm -rf\\\n 2>&1 /outside", ["rm", "-rf", "/outside"], "/outside"),
    (
        "curl -s -o\\\n 1>&2 /outside/x file:///etc/hostname",
        ["curl", "-s", "-o", "/outside/x", "file:///etc/hostname"],
        "/outside/x",
    ),
]


def test_cd_dash_before_a_redirect_is_cd_to_oldpwd(proj: Path) -> None:
    # `cd - 2>/dev/null` went to $HOME in the scan (the `-` was lost): bash goes to $OLDPWD,
    # or stays where it was when OLDPWD is unset, which the text does not say
    for command in ("cd - 2>/dev/null; ls", "true && cd - 2>&1; ls", "bash <<'E'\ncd - 2>/dev/null\n>x\nE"):
        assert scan(command, cwd=proj, project_dir=proj).unknown, command


@pytest.mark.parametrize(("command", "argv", "outside"), OPERANDS)
def test_redirects_among_operands_hide_no_operand(
    proj: Path, command: str, argv: list[str], outside: str | None
) -> None:
    result = scan(command, cwd=proj, project_dir=proj)
    [found] = result.commands
    assert list(found.argv) == argv
    assert " ".join(argv) in found.text
    if outside is not None:
        assert outside in result.dirs or "/" not in result.dirs
        assert outside in result.writes


def test_redirected_operands_reach_deny_rules_and_writes(proj: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = scan("rm -rf 2>/dev/null /outside", cwd=proj, project_dir=proj)
    assert list(result.patterns) == ["rm -rf /outside 2> /dev/null"]  # matches `rm -rf *`
    assert list(result.dirs) == ["/outside"]
    ssh = scan(f"cat 2>/dev/null {home}/.ssh/id_rsa", cwd=proj, project_dir=proj)
    assert str(home / ".ssh") in ssh.dirs
    src = scan("rm 2>/dev/null -rf src", cwd=proj, project_dir=proj)
    assert list(src.writes) == [str(proj / "src")]


@needs_bash
@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("r\\\nm victim", ["rm", "victim"]),
        ("rm\tvictim", ["rm", "victim"]),
        ("'r''m' victim", ["rm", "victim"]),
        ('"rm" "vic"tim', ["rm", "victim"]),
        ("$'\\x72m' victim", ["rm", "victim"]),
        ("$'r\\155' victim", ["rm", "victim"]),
        ("\\r\\m victim", ["rm", "victim"]),
        ("rm 'a b' c\\ d", ["rm", "a b", "c d"]),
        ("rm \\\n  -f \\\n  x", ["rm", "-f", "x"]),
        ('rm "a\\\nb"', ["rm", "ab"]),
    ],
)
def test_words_are_normalised_as_bash_reads_them(
    tmp_path: Path, proj: Path, command: str, argv: list[str]
) -> None:
    # bash runs a fake `rm` from PATH that records the argv it was given
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "rm"
    fake.write_text('#!/bin/sh\nprintf \'%s\\0\' "$@" > "$OUT"\n')
    fake.chmod(0o755)
    out = tmp_path / "argv"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "OUT": str(out)}
    subprocess.run(["bash", "-c", command], cwd=proj, env=env, capture_output=True, timeout=10, check=False)
    assert out.read_text().split("\0")[:-1] == argv[1:], "bash must run rm with this argv"
    result = scan(command, cwd=proj, project_dir=proj)
    assert not result.unknown, result.reasons
    [found] = result.commands
    assert list(found.argv) == argv
    assert shlex.split(found.text) == argv
    assert found.always == "rm *"
    assert list(result.patterns) == [found.text]


@pytest.mark.parametrize(
    "command",
    ["bash 0<f -c 'rm x'", "dash 0<f -c 'rm x'", "script 0<f -qc 'rm x' /dev/null", "sh 0<<< y -c 'rm x'"],
)
def test_a_shell_after_a_stdin_redirect_still_runs_its_c_text(proj: Path, command: str) -> None:
    # the `0` was taken as the shell's script operand, so `-c` was never read
    result = scan(command, cwd=proj, project_dir=proj)
    assert any(list(c.argv) == ["rm", "x"] for c in result.commands) or result.unknown
