"""The sed script reader against GNU sed itself: `sed --debug` prints the program sed
compiled, and the reader must find the same commands, with the same `e` (runs) and the
same `r`/`R`/`w`/`W`/`s///w` files, for scripts built to split a regex at a delimiter
inside a bracket expression, in a replacement, in `y`, in labels and in text.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.permission.readonly import is_read_only
from shellpilot.scanner.scan import scan
from shellpilot.scanner.sedscript import SedCommand, is_safe_script, read_script

Parsed = list[tuple[str, bool, str | None]]


def _has_debug() -> bool:
    if not shutil.which("sed"):
        return False
    argv = ["sed", "--debug", "-n", "p"]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    return done.returncode == 0 and "SED PROGRAM:" in done.stdout


needs_debug = pytest.mark.skipif(not _has_debug(), reason="needs GNU sed 4.6+ (--debug)")

_ADDRESS = r"(?:\[ADDR-NULL\]|\d+~\d+|\d+|\+\d+|~\d+|\$|/(?:\\.|[^\\/])*/[IM]*)"
_HEAD = re.compile(rf"(?:{_ADDRESS}(?:,{_ADDRESS})?)?(!)?( ?)")
_S_TAIL = re.compile(r"(?P<repl>[^/]*)/(?P<flags>[im]*g?(?P<e>e?)p?\d*)(?:w(?P<file>.*))?")


def sed_parse(script: str, cwd: Path, *, extended: bool = False) -> Parsed | None:
    """The commands GNU sed compiled from `script` (run with no input in `cwd`, where its
    `w` files are made): (letter, runs, file) each, from `--debug`; None if sed rejects it.

    Replacements in the table hold no `/` or newline, so the printed form reads back."""
    argv = ["sed", "--debug", "-n", *(["-E"] if extended else []), "-e", script]
    done = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        return None
    lines = done.stdout.split("SED PROGRAM:\n", 1)[1].split("\n")
    out: Parsed = []
    index = 0
    while index < len(lines):
        line = lines[index].lstrip(" ")
        index += 1
        if not line:
            continue
        if line.startswith("INPUT:"):
            break
        head = _HEAD.match(line)
        assert head, line
        body = line[head.end() :]
        letter, rest = body[0], body[1:]
        runs, file = letter == "e", None
        if letter in "aice" and rest not in ("", "\\", " "):  # text: up to an empty line
            while lines[index] != "":
                index += 1
            index += 1
        if letter in "wW":
            file = rest
        elif letter in "rR":
            file = rest[1:]
        elif letter == "s":
            regex = re.match(r"/(?:\\.|[^\\/])*/", rest)
            assert regex, line
            tail = _S_TAIL.fullmatch(rest[regex.end() :])
            assert tail, line
            runs, file = bool(tail["e"]), tail["file"]
        out.append((letter, runs, file))
    return out


def reader_parse(script: str) -> Parsed | None:
    read = read_script(script)
    return [(c.letter, c.runs, c.file) for c in read.commands] if read.understood else None


# Scripts sed compiles; the files they name are relative (made in a temp dir).
COMPILED = [
    # a delimiter inside a bracket expression of a regex is a plain character
    "s/.*[/]*/ touch PWN;#/e",
    "/[/a]*/e touch PWN",
    "s/[/]/g;#/w OUT",
    "\\%[%a]*%w zz",
    "s|a[|]|x|e",
    "s/[]/]/x/;w o1",
    "s/[^]/]/x/e",
    "s/[^]/;]/x/;e",
    "s/[[:space:]/]/x/w o2",
    "s/[[.-.]/]/x/;e",
    "s/[[=a=]/]/x/w o3",
    "s/[[:alpha:][:digit:]/]/x/e",
    "s/[[/]/x/e",
    "s/[\\/]/x/;p",  # in brackets a backslash is a plain character
    "s/x[\\n/]y/z/e",
    "s/a\\/[/]/x/e",
    "s]a[]]]x]e",  # `]` as the delimiter
    "s[a[b[e",  # `[` as the delimiter ends the regex first
    "/x[/]/,/y[/]/{p;w o4\n}",
    "0,/[/]/w o5",
    "\\,a[,]b,R rf",
    "/[/]/I,+2!e echo x",
    "/a/M,~3 r rf2",
    # the replacement and y are no regexes: a bracket protects nothing there
    "s/a/[/;#/w x",
    "s/a/[/e",
    "s|a|b\\|c|e",
    "y/[/]/;e",
    "y/a[/b]/;w o6",
    "y/a\\/b/xyz/",
    # the flags of s
    "s/a/b/gI2pe",
    "s/a/b/mMiI",
    "s/a/b/ g p w o7",
    "s/a/b/ew o8",
    "s/a/b/we",
    "s/a/b/w o9;p",
    "s/a/b/3",
    "s/a/b/\r\np",
    "1{s/a/b/}",
    "s/a/b/#c\ne",
    # labels end at a blank, `;`, `}` or `#`
    ":x w o10",
    ":x;bx e echo P",
    ":a;N;$!ba;s/\\n/ /g",
    ":a#c\np",
    "bx;:x",
    "1{b\n}",
    # text runs to the end of the line, and on past a backslash-newline
    "a foo;e x",
    "a\\\nfoo;w o11",
    "a foo\\\ne echo P",
    "i\\",
    "c\\text;w x",
    "1a hello}",
    "e",
    "e;p",
    "1e echo hi",
    "$e echo a\\\nw o12",
    # blocks, plain commands, numbers, comments
    "1{p;w o13\n}",
    "/x/{s/[}]/y/;e echo\n}",
    "{p};p",
    "p#c",
    "q5",
    "q 5",
    "l 40",
    "l;w o14",
    "Q",
    "v",
    "v 4.2;w o15",
    "r rf;p",
    "w o16 # not a comment",
    "#n\np",
    "  \t;;p",
    "1 ! p",
    "$!N;P;D",
    "1~2w o17",
    "$W o18",
    "=;F;z;x;h;H;g;G;d;D;n;N;P",
]

# Scripts sed rejects: the reader must not call them understood.
REJECTED = [
    "s/[[:alpha:/]/x/;p",  # `[:` is closed only by `:]`
    "s/[[:]/]/x/;p",
    "s/[\\]/]/x/",  # regex `[\]`, replacement `]`, flags `x/`
    "s/[a/",
    "/[/",
    "s/[/]/",
    "s/a/[/]/e",
    "s/[\n/]/x/",
    "s\na\nb\n",
    "s/a/b/0",
    "s/a/b/gg",
    "s/a/b/pp",
    "s/a/b/x",
    "s/a/b",
    "y/abc/xy",
    "{p}w o19",
    "pw o20",
    "p\r",
    "1!!p",
    "1}",
    "1#x",
    "1,2q",
    "+1p",
    "w",
    "r",
    ": ",
    "1",
    "k",
]


@needs_debug
@pytest.mark.parametrize("extended", [False, True], ids=["BRE", "ERE"])
@pytest.mark.parametrize("script", COMPILED)
def test_reader_finds_what_sed_compiled(script: str, extended: bool, tmp_path: Path) -> None:
    expected = sed_parse(script, tmp_path, extended=extended)
    assert expected is not None, f"sed rejects {script!r}: the row is wrong"
    assert reader_parse(script) == expected


@needs_debug
@pytest.mark.parametrize("script", REJECTED)
def test_reader_rejects_what_sed_rejects(script: str, tmp_path: Path) -> None:
    assert sed_parse(script, tmp_path) is None, f"sed compiles {script!r}: the row is wrong"
    assert reader_parse(script) is None
    assert not is_safe_script(script) and not is_safe_script(script, files_ok=True)


def test_commands_before_an_error_are_kept() -> None:
    """sed opens `w` files while it compiles: a later error does not undo them."""
    read = read_script("w early\ns/[[:alpha:/]/x/")
    assert read.commands == (SedCommand("w", file="early"),)
    assert not read.understood and "unterminated" in read.error


def test_a_delimiter_of_more_than_one_byte_is_not_read() -> None:
    """sed takes one byte as the delimiter (in UTF-8 it refuses `§`; in the C locale it
    would split the character): the reader does not guess."""
    assert not read_script("s§a§b§").understood
    assert not is_safe_script("s§a§b§", files_ok=True)
    assert read_script("s/§[§/]/x/").understood  # (other characters are plain)


def test_files_ok_accepts_files_but_never_running() -> None:
    assert is_safe_script("s/[/]/x/w out", files_ok=True)
    assert not is_safe_script("s/[/]/x/w out")
    assert not is_safe_script("s/[/]/x/;e", files_ok=True)


@needs_debug
def test_sed_really_creates_the_w_file_before_a_later_error(tmp_path: Path) -> None:
    assert sed_parse("w early\ns/[[:alpha:/]/x/", tmp_path) is None
    assert (tmp_path / "early").exists()


# --- end to end: real sed runs or writes; the judgement and the scan see it ----------

ATTACKS = [
    ("sed 's/.*[/]*/ touch PWN;#/e' README", "PWN"),
    ("sed -n '/[/a]*/e touch PWN' README", "PWN"),
    ("sed 's/[/]/g;#/w OUT' README", "OUT"),
    ("sed -n '\\%[%a]*%w {O}/zz' README", "{O}/zz"),
    ("sed -E 's/[]/]*/ touch PWN;#/e' README", "PWN"),
    ("sed -n ':x w OUT' README", "OUT"),
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "README").write_text("one\n")
    (tmp_path / "outside").mkdir()
    return project


@pytest.mark.parametrize(("command", "made"), ATTACKS)
def test_sed_really_runs_or_writes_and_is_not_read_only(command: str, made: str, tree: Path) -> None:
    if not shutil.which("sed"):
        pytest.skip("sed is not installed")
    outside = str(tree.parent / "outside")
    command = command.replace("{O}", outside)
    made_path = tree / made.replace("{O}", outside)
    subprocess.run(["bash", "-c", command], cwd=tree, capture_output=True, timeout=30)
    assert made_path.exists(), "the row must really run or write in GNU sed"
    made_path.unlink()
    assert not is_read_only(shlex.split(command), cwd=tree, project_dir=tree, text=command)
    assert not is_read_only(shlex.split(command), cwd=tree, project_dir=tree)
    result = scan(command, cwd=tree, project_dir=tree)
    if made == "PWN":
        assert result.unknown
    else:
        assert str(made_path) in result.writes
    assert not made_path.exists()  # (judging never ran it)


@pytest.mark.parametrize(
    "command",
    [
        "sed -n 's/[/]/x/p' README",
        "sed -n '/[/]/p' README",
        "sed 's/a/[/' README",
        "sed -n '/x/{p;q}' README",
    ],
)
def test_brackets_alone_stay_read_only(command: str, tree: Path) -> None:
    assert is_read_only(shlex.split(command), cwd=tree, project_dir=tree, text=command)
    result = scan(command, cwd=tree, project_dir=tree)
    assert not result.unknown and list(result.writes) == []
