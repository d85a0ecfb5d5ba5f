"""The scanner over the bash grammar: patterns, always, outside dirs, unknown."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shellpilot.scanner.scan import Scan, scan


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    (project / "sub" / "deep").mkdir(parents=True)
    (project / "README.md").write_text("hi\n")
    (tmp_path / "out").mkdir()
    return project


def run(proj: Path, command: str, cwd: str = ".") -> Scan:
    return scan(command, cwd=cwd, project_dir=proj)


def fill(proj: Path, values: list[str]) -> list[str]:
    home = str(proj.parent / "home")
    out = str(proj.parent / "out")
    return [
        v.replace("{P}", str(proj)).replace("{H}", home).replace("{T}", str(proj.parent)).replace("{O}", out)
        for v in values
    ]


# (command, patterns, always, dirs) for commands that scan fully (unknown False)
TABLE: list[tuple[str, list[str], list[str], list[str]]] = [
    ("ls -la", ["ls -la"], ["ls *"], []),
    ("git checkout -b x", ["git checkout -b x"], ["git checkout *"], []),
    ("npm run dev", ["npm run dev"], ["npm run dev *"], []),
    ("FOO=1 npm test", ["FOO=1 npm test", "npm test"], ["npm test *", "FOO=1 npm test *"], []),
    ("echo test > output.txt", ["echo test > output.txt"], ["echo *"], []),
    (
        "git status $(touch {O}/x)",
        ["touch {O}/x", "git status $(touch {O}/x)"],
        ["touch *", "git status *"],
        ["{O}"],
    ),
    ("true && rm f", ["true", "rm f"], ["true *", "rm *"], []),
    (
        "false || rm f; ls & wc -l README.md",
        ["false", "rm f", "ls", "wc -l README.md"],
        ["false *", "rm *", "ls *", "wc *"],
        [],
    ),
    ("echo x > {O}/out", ["echo x > {O}/out"], ["echo *"], ["{O}"]),
    ("echo x >> /etc/hosts 2>&1", ["echo x >> /etc/hosts 2>&1"], ["echo *"], ["/etc"]),
    ("cat < /etc/passwd", ["cat < /etc/passwd"], ["cat *"], ["/etc"]),
    ("make &> /var/log/x.log", ["make &> /var/log/x.log"], ["make *"], ["/var/log"]),
    ("echo x >| /opt/f 2> /dev/null", ["echo x >| /opt/f 2> /dev/null"], ["echo *"], ["/opt"]),
    ("echo x > /dev/stderr 1>&2", ["echo x > /dev/stderr 1>&2"], ["echo *"], []),
    ("find . -exec rm {} \\;", ["find . -exec rm {} ';'", "rm {}"], ["find *", "rm *"], []),
    (
        "find /etc -name '*.conf' -execdir cat {} +",
        ["find /etc -name '*.conf' -execdir cat {} +", "cat {}"],
        ["find *", "cat *"],
        ["/etc"],
    ),
    ("bash -c 'rm -rf {O}/x'", ["bash -c 'rm -rf {O}/x'", "rm -rf {O}/x"], ["bash -c *", "rm *"], ["{O}"]),
    (
        'sh -c "echo a | tee /opt/b"',
        ["sh -c 'echo a | tee /opt/b'", "echo a", "tee /opt/b"],
        ["sh -c *", "echo *", "tee *"],
        ["/opt"],
    ),
    ('eval "rm x"', ["eval 'rm x'", "rm x"], ["eval *", "rm *"], []),
    ("/usr/bin/rm x", ["/usr/bin/rm x", "rm x"], ["rm *"], []),
    ("\\rm -f x", ["rm -f x"], ["rm *"], []),
    ("sudo rm x", ["sudo rm x", "rm x"], ["rm *", "sudo rm *"], []),
    ("timeout 5 rm x", ["timeout 5 rm x", "rm x"], ["rm *", "timeout 5 rm *"], []),
    (
        "sudo -u bob env A=1 nice -n 5 /bin/rm -r /srv/x",
        ["sudo -u bob env A=1 nice -n 5 /bin/rm -r /srv/x", "rm -r /srv/x"],
        ["rm *", "sudo -u bob env A=1 nice -n 5 rm *"],
        ["/srv"],
    ),
    (
        "nohup python -m http.server &",
        ["nohup python -m http.server", "python -m http.server"],
        ["python -m http.server *", "nohup python -m http.server *"],
        [],
    ),
    (
        "stdbuf -oL tail -f /var/log/syslog",
        ["stdbuf -oL tail -f /var/log/syslog", "tail -f /var/log/syslog"],
        ["tail *", "stdbuf -oL tail *"],
        ["/var/log"],
    ),
    ("time make test", ["time make test", "make test"], ["make test *", "time make test *"], []),
    ("command ls", ["command ls", "ls"], ["ls *", "command ls *"], []),
    ("exec git log", ["exec git log", "git log"], ["git log *", "exec git log *"], []),
    ("cd /etc && cat passwd", ["cat passwd"], ["cat *"], ["/etc"]),
    ("cd sub && cat ../README.md", ["cat ../README.md"], ["cat *"], []),
    ("cd sub/deep && cat ../../../x", ["cat ../../../x"], ["cat *"], ["{T}"]),
    ("pushd /srv && popd && rm x", ["rm x"], ["rm *"], ["/srv"]),
    ("(cd /srv && ls) && rm x", ["ls", "rm x"], ["ls *", "rm *"], ["/srv"]),
    ("cat ~/.ssh/id_rsa", ["cat ~/.ssh/id_rsa"], ["cat *"], ["{H}/.ssh"]),
    ("cat $HOME/x", ["cat $HOME/x"], ["cat *"], ["{H}"]),
    ('cat "${HOME}/.bashrc"', ['cat "${HOME}/.bashrc"'], ["cat *"], ["{H}"]),
    ("cat $PWD/README.md", ["cat $PWD/README.md"], ["cat *"], []),
    ("rm -rf {O}/build/*", ["rm -rf {O}/build/*"], ["rm *"], ["{O}/build"]),
    ("cp a.txt {O}", ["cp a.txt {O}"], ["cp *"], ["{O}"]),
    ("mv -t /srv/out a b", ["mv -t /srv/out a b"], ["mv *"], ["/srv", "/srv/out"]),
    ("chmod +x /usr/local/bin/tool", ["chmod +x /usr/local/bin/tool"], ["chmod *"], ["/usr/local/bin"]),
    ("grep -r secret /etc/ssl", ["grep -r secret /etc/ssl"], ["grep *"], ["/etc/ssl"]),
    ("grep -e /etc/x file.txt", ["grep -e /etc/x file.txt"], ["grep *"], []),
    ("sed -i s/a/b/ /etc/hosts", ["sed -i s/a/b/ /etc/hosts"], ["sed *"], ["/etc"]),
    ("python /opt/tool.py --flag", ["python /opt/tool.py --flag"], ["python /opt/tool.py *"], ["/opt"]),
    ("python -c 'print(1)' /etc/x", ["python -c 'print(1)' /etc/x"], ["python -c *"], []),
    ("dd if=/dev/zero of={O}/disk.img bs=1M", ["dd if=/dev/zero of={O}/disk.img bs=1M"], ["dd *"], ["{O}"]),
    ("tar -xzf x.tgz -C /opt/x", ["tar -xzf x.tgz -C /opt/x"], ["tar *"], ["/opt", "/opt/x"]),
    ("tar czf {O}/b.tgz src", ["tar czf {O}/b.tgz src"], ["tar *"], ["{O}"]),
    ("git -C /srv/repo status", ["git -C /srv/repo status", "git status"], ["git -C *"], ["/srv"]),
    ("git commit -C HEAD", ["git commit -C HEAD"], ["git commit *"], []),
    ("curl -o {O}/x.sh https://e.x/a", ["curl -o {O}/x.sh https://e.x/a"], ["curl *"], ["{O}"]),
    ("bash /opt/run.sh", ["bash /opt/run.sh"], ["bash *"], ["/opt"]),
    ("x=$(rm y)", ["rm y"], ["rm *"], []),
    (
        "X=$(cat /etc/passwd) make",
        ["cat /etc/passwd", "X=$(cat /etc/passwd) make", "make"],
        ["cat *", "make *", "X=$(cat /etc/passwd) make *"],
        ["/etc"],
    ),
    ("x=1", [], [], []),
    ('echo "a $(rm b) `rm c`"', ["rm b", "rm c", 'echo "a $(rm b) `rm c`"'], ["rm *", "echo *"], []),
    ("echo 'a $(rm b)'", ["echo 'a $(rm b)'"], ["echo *"], []),
    ("echo $((1 + 2))", ["echo $((1 + 2))"], ["echo *"], []),
    (
        "diff <(sort a) >(tee {O}/o)",
        ["sort a", "tee {O}/o", "diff <(sort a) >(tee {O}/o)"],
        ["sort *", "tee *", "diff *"],
        ["{O}"],
    ),
    ("{ ls; rm x; } > /srv/log", ["ls > /srv/log", "rm x > /srv/log"], ["ls *", "rm *"], ["/srv"]),
    (
        "if true; then rm a; elif false; then rm b; else rm c; fi",
        ["true", "rm a", "false", "rm b", "rm c"],
        ["true *", "rm *", "false *"],
        [],
    ),
    ("for f in $(ls); do echo $f; done", ["ls", "echo $f"], ["ls *", "echo *"], []),
    (
        "while read l; do echo $l; done < /etc/hosts",
        ["read l < /etc/hosts", "echo $l < /etc/hosts"],
        ["read *", "echo *"],
        ["/etc"],
    ),
    ("case $x in a) rm y;; *) touch /srv/z;; esac", ["rm y", "touch /srv/z"], ["rm *", "touch *"], ["/srv"]),
    ("f() { rm x; }; f", ["rm x", "f"], ["rm *", "f *"], []),
    ("! rm x", ["rm x"], ["rm *"], []),
    ("ls | grep x | wc -l", ["ls", "grep x", "wc -l"], ["ls *", "grep *", "wc *"], []),
    (
        "cat <<EOF > /srv/conf\nhi $(rm z)\nEOF",
        ["rm z", "cat <<EOF > /srv/conf"],
        ["rm *", "cat *"],
        ["/srv"],
    ),
    ("cat <<'EOF'\n$(rm z)\nEOF", ["cat <<'EOF'"], ["cat *"], []),
    (
        "cat <<EOF | grep x && rm /srv/y\na\nEOF",
        ["grep x", "rm /srv/y", "cat <<EOF"],
        ["grep *", "rm *", "cat *"],
        ["/srv"],
    ),
    ('cat <<< "$(rm q)"', ["rm q", 'cat <<< "$(rm q)"'], ["rm *", "cat *"], []),
    ("export A=1 && constructor x", ["export A=1", "constructor x"], ["export *", "constructor x *"], []),
    ("rm 'my file' a\\ b \"c d\"", ["rm 'my file' 'a b' 'c d'"], ["rm *"], []),
    ("[ -f x ] && rm x", ["rm x"], ["rm *"], []),
    ("trap 'rm -f /srv/x' EXIT", ["trap 'rm -f /srv/x' EXIT", "rm -f /srv/x"], ["trap *", "rm *"], ["/srv"]),
    ("su - bob -c 'rm /srv/x'", ["su - bob -c 'rm /srv/x'", "rm /srv/x"], ["su *", "rm *"], ["/srv"]),
    ("cat ~root/.bashrc", ["cat ~root/.bashrc"], ["cat *"], ["/root"]),
    (
        "echo hi > >(tee /srv/log)",
        ["tee /srv/log", "echo hi > >(tee /srv/log)"],
        ["tee *", "echo *"],
        ["/srv"],
    ),
    ("exec > /srv/log 2>&1", ["exec > /srv/log 2>&1"], ["exec *"], ["/srv"]),
    ("read -r x < /srv/file", ["read -r x < /srv/file"], ["read *"], ["/srv"]),
    ("watch -n 2 'ls /srv'", ["watch -n 2 'ls /srv'", "ls /srv"], ["watch *", "ls *"], ["/srv"]),
    ("env -C /srv ls", ["env -C /srv ls", "ls"], ["ls *", "env -C /srv ls *"], ["/srv"]),
    ("time (npm ci && rm -r /srv/x)", ["npm ci", "rm -r /srv/x"], ["npm ci *", "rm *"], ["/srv"]),
    (
        "bash <<'S'\nset -e\nrm -rf /srv/x\nS",
        ["bash <<'S'", "set -e", "rm -rf /srv/x"],
        ["bash *", "set *", "rm *"],
        ["/srv"],
    ),
    ("sh <<< 'rm /opt/y'", ["sh <<< 'rm /opt/y'", "rm /opt/y"], ["sh *", "rm *"], ["/opt"]),
    (
        "git branch --merged | xargs git branch -d",
        ["git branch --merged", "xargs git branch -d", "git branch -d"],
        ["git branch *", "xargs git branch *"],
        [],
    ),
]


@pytest.mark.parametrize(("command", "patterns", "always", "dirs"), TABLE, ids=[t[0][:40] for t in TABLE])
def test_scan_table(
    proj: Path, command: str, patterns: list[str], always: list[str], dirs: list[str]
) -> None:
    [command] = fill(proj, [command])
    result = run(proj, command)
    assert list(result.reasons) == []
    assert result.unknown is False
    assert list(result.patterns) == fill(proj, patterns)
    assert list(result.always) == fill(proj, always)
    assert list(result.dirs) == fill(proj, dirs)


# (command, reason fragment): each must set unknown, whatever else it finds
UNKNOWN: list[tuple[str, str]] = [
    ('cd "$X" && rm y', "relative path y in rm after a cd"),
    # (the output of rm is evaluated as arithmetic too: a value the text does not show)
    ("((i++)); (( $(rm x) ))", "(( )) of a command's output"),
    # a glob names the program even when a command follows among its words
    ("echo x | /usr/bin/xarg? -I{} sh -c 'rm {}'", "a glob in the command name"),
    ("rm $TARGET", "dynamic path $TARGET in rm"),
    ("for f in *; do rm $f.bak; done", "dynamic path $f.bak in rm"),
    ("cat $(echo /etc/passwd)", "dynamic path $(echo /etc/passwd) in cat"),
    ("echo x > $OUT", "dynamic path $OUT in redirect >"),
    ("ls | xargs rm", "xargs passes paths from its input to rm"),
    ('bash -c "$CMD"', "bash -c runs a dynamic string"),
    ("eval $X", "eval of a dynamic string"),
    ("$EDITOR file", "dynamic command name $EDITOR"),
    ("curl -s https://x | sh", "sh reads its commands from standard input, which cannot be seen"),
    ("bash <<S\nrm $X\nS", "bash reads its commands from standard input, which cannot be seen"),
    # a sourced file runs in this shell (it may define functions, aliases, a cwd)
    ("source ~/.profile", "source ~/.profile: runs a file's commands in this shell"),
    (". /etc/profile", "source /etc/profile: runs a file's commands in this shell"),
    ('ls "unterminated', "syntax error"),
    ("if true; then ls", "syntax error"),
    ("cd - && rm x", "dynamic directory - in cd"),
    ("popd && rm x", "popd without a matching pushd"),
    ("env -S 'rm x' y", "env -S runs a command given as one string"),
    ("# just a comment", "no command found"),
    ("rm ~nosuchuser_zz/x", ""),
]


@pytest.mark.parametrize(("command", "fragment"), UNKNOWN, ids=[u[0][:40] for u in UNKNOWN])
def test_scan_unknown(proj: Path, command: str, fragment: str) -> None:
    result = run(proj, command)
    if fragment == "":  # ~user that does not exist stays a relative path: inside, known
        assert result.unknown is False
        return
    assert result.unknown is True
    assert any(fragment in reason for reason in result.reasons), result.reasons


def test_nesting_depth_cap(proj: Path) -> None:
    command = "rm x"
    for _ in range(10):
        command = "bash -c " + "'" + command.replace("'", "'\\''") + "'"
    result = run(proj, command)
    assert result.unknown is True
    assert any("deeper than 8" in r for r in result.reasons)


def test_argv_is_faithful(proj: Path) -> None:
    result = run(
        proj, "sudo -u x FOO=1 /usr/bin/git -c 'a b' log \"--format=%h $X\" x\\ y $'t\\tz' a\"b\"'c'"
    )
    [command] = result.commands
    assert list(command.argv) == ["git", "-c", "a b", "log", '"--format=%h $X"', "x y", "t\tz", "abc"]
    assert list(command.wrappers) == ["sudo"]
    assert command.dynamic is True
    assert command.always == "git -c *"


def test_cwd_outside_project_is_a_dir(proj: Path) -> None:
    result = scan("ls", cwd="/srv", project_dir=proj)
    assert list(result.dirs) == ["/srv"]


def test_non_ascii_text(proj: Path) -> None:
    result = run(proj, "echo 'héllo wörld' > /tmp/ü.txt && rm ./ä")
    assert list(result.patterns) == ["echo 'héllo wörld' > /tmp/ü.txt", "rm ./ä"]
    assert list(result.commands[0].argv) == ["echo", "héllo wörld"]
    assert list(result.dirs) == ["/tmp"]


def test_empty_command_is_not_unknown(proj: Path) -> None:
    result = run(proj, "   ")
    assert result.unknown is False
    assert list(result.patterns) == []


def test_unknown_shell_is_scanned_as_bash_but_marked(proj: Path) -> None:
    result = scan("rm x", cwd=".", project_dir=proj, shell="fish")
    assert list(result.patterns) == ["rm x"]
    assert result.unknown is True


def test_branching_cd_keeps_every_possible_cwd(proj: Path) -> None:
    result = run(proj, "if true; then cd /srv; fi; rm x")
    assert list(result.dirs) == ["/srv"]
    result = run(proj, "if true; then cd sub; fi; rm ../x")
    assert list(result.dirs) == [str(proj.parent)]


# Every place the bash grammar can put a substitution: its commands run, so they are scanned.
HIDDEN = [
    "echo 16#$(rm /etc/x)",
    "echo 16#`rm /etc/x`",
    "echo é 16#$(rm /etc/x)",
    "16#$(rm /etc/x)",
    "echo 16#$(echo 16#$(rm /etc/x))",
    "if true; then echo 16#$(rm /etc/x); fi",
    "f() { echo 16#$(rm /etc/x); }",
    "echo $(( $(rm /etc/x) + 1 ))",
    "echo $(( 16#$(rm /etc/x) ))",
    "(( $(rm /etc/x) ))",
    "echo $[ $(rm /etc/x) ]",
    "a[$(rm /etc/x)]=1",
    "echo ${a[$(rm /etc/x)]}",
    "unset a[$(rm /etc/x)]",
    "echo ${x:-$(rm /etc/x)}",
    'echo "${x:-$(rm /etc/x)}"',
    "[[ -f $(rm /etc/x) ]]",
    "[[ x == 16#$(rm /etc/x) ]]",
    "while [[ $(rm /etc/x) ]]; do :; done",
    "case $(rm /etc/x) in a) ;; esac",
    "case y in $(rm /etc/x)) echo;; esac",
    "case y in 16#$(rm /etc/x)) echo;; esac",
    "cat <<EOF\n$(rm /etc/x)\nEOF",
    "cat <<EOF > out.txt\n${y:-$(rm /etc/x)}\nEOF",
    "cat <<< 16#$(rm /etc/x)",
    "echo hi > $(rm /etc/x)",
    "echo hi > 16#$(rm /etc/x)",
    "x=$(rm /etc/x)",
    "x=16#$(rm /etc/x) true",
    "declare x=$(rm /etc/x)",
    "declare x=<(rm /etc/x)",
    "local x=16#$(rm /etc/x)",
    "export x=`rm /etc/x`",
    "readonly x=>(rm /etc/x)",
    "for f in $(rm /etc/x); do :; done",
    "for f in 16#$(rm /etc/x); do :; done",
    "for ((i=$(rm /etc/x); i<3; i++)); do :; done",
    "select f in $(rm /etc/x); do :; done",
    "cat <(rm /etc/x)",
    "tee >(rm /etc/x)",
    "echo a{b,$(rm /etc/x)}",
]


@pytest.mark.parametrize("command", HIDDEN, ids=[h[:40] for h in HIDDEN])
def test_substitutions_are_scanned_wherever_they_hide(proj: Path, command: str) -> None:
    result = run(proj, command)
    assert "rm /etc/x" in result.patterns or result.unknown, (result.patterns, result.reasons)
    assert "/etc" in result.dirs or result.unknown, (result.dirs, result.reasons)


def test_sweep_scans_a_substitution_the_walk_missed(proj: Path) -> None:
    # The safety net on its own: a scanner that never walked the tree still finds the
    # `rm`, with an unknown cwd (so its relative path is unknown too).
    from shellpilot.scanner.bash_command import BashShell
    from shellpilot.scanner.bash_walk import BashWalker
    from shellpilot.scanner.context import ScanContext
    from shellpilot.scanner.parse import parse, substitutions
    from shellpilot.scanner.scan import GRAMMARS
    from shellpilot.scanner.scan_paths import PathResolver
    from shellpilot.scanner.scan_result import ScanBuilder

    source = "echo 16#$(rm /etc/x $(rm y))"
    root = parse(source.encode(), "bash").root_node
    assert [n.text for n in substitutions(root)] == [b"$(rm /etc/x $(rm y))", b"$(rm y)"]
    builder = ScanBuilder()
    resolver = PathResolver(str(proj), builder)
    BashWalker(source, ScanContext(builder, resolver, GRAMMARS), 0, BashShell()).sweep(root)
    result = builder.build()
    assert sorted(result.patterns) == ["rm /etc/x $(rm y)", "rm y"]
    assert list(result.dirs) == ["/etc"]
    assert result.unknown is True
    assert any("found late (inside number)" in r for r in result.reasons), result.reasons
    assert any("relative path y" in r for r in result.reasons), result.reasons


def test_is_dir_agrees_with_os_path_isdir(tmp_path: Path) -> None:
    # scan_paths.is_dir replaces os.path.isdir for speed: same answers, symlinks followed.
    from shellpilot.scanner.scan_paths import is_dir

    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    (tmp_path / "to_d").symlink_to(tmp_path / "d")
    (tmp_path / "to_f").symlink_to(tmp_path / "f")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    for name in ("d", "f", "to_d", "to_f", "dangling", "missing", "f/x", "d/.."):
        path = str(tmp_path / name)
        assert is_dir(path) == os.path.isdir(path), name
    assert is_dir("/") and not is_dir("/no\0such")


def test_long_and_chains_are_scanned_whole_without_recursion(proj: Path) -> None:
    # `a && b && c` nests to the left in the grammar; the walk loops over the chain.
    result = run(proj, " && ".join(["true"] * 5000) + " && rm /etc/x")
    assert not result.unknown
    assert len(result.commands) == 5001 and list(result.dirs) == ["/etc"]


@pytest.mark.parametrize(
    "command",
    [
        "echo " + "$(" * 100 + "rm /etc/x" + ")" * 100,
        "( " * 100 + "rm /etc/x" + " )" * 100,
        "{ " * 100 + "rm /etc/x; " + "}; " * 100,
        "if true; then " * 100 + "rm /etc/x; " + "fi; " * 100,
    ],
)
def test_nesting_past_the_limit_is_unknown_not_a_crash(proj: Path, command: str) -> None:
    from shellpilot.scanner.scan import MAX_NESTING

    result = run(proj, command)
    assert result.unknown
    assert f"statements nested deeper than {MAX_NESTING} levels" in result.reasons


def test_nesting_within_the_limit_is_scanned(proj: Path) -> None:
    result = run(proj, "echo " + "$(" * 30 + "rm /etc/x" + ")" * 30)
    assert "/etc" in result.dirs and "rm /etc/x" in result.patterns


@pytest.mark.parametrize(
    "kwargs",
    [
        {"command": b"ls"},
        {"command": None},
        {"shell": None},
        {"cwd": b"/tmp"},
        {"project_dir": b"/tmp"},
        {"cwd": None},
    ],
)
def test_arguments_of_the_wrong_type_raise_type_error(proj: Path, kwargs: dict[str, object]) -> None:
    # Both builds (compiled and .py) must fail the same way, not return a Scan.
    args: dict[str, object] = {"command": "ls", "cwd": proj, "project_dir": proj, "shell": "bash"}
    args.update(kwargs)
    with pytest.raises(TypeError):
        scan(**args)  # type: ignore[arg-type]


def _nested_junk(seed: int) -> str:
    """60 random openers around `rm /etc/x`: substitutions, quotes, eval and bash -c."""
    import random

    opens = [("$(", ")"), ("`", "`"), ('"$(', ')"'), ("<(", ")"), ("${x:-", "}"), ("$((", "))")]
    opens += [("bash -c '", "'"), ('eval "', '"'), ("cat <<E\n", "\nE\n")]
    rnd = random.Random(seed)
    pairs = [rnd.choice(opens) for _ in range(60)]
    return "".join(o for o, _ in pairs) + "rm /etc/x" + "".join(c for _, c in reversed(pairs))


@pytest.mark.parametrize("seed", range(12))
def test_nested_text_is_rescanned_a_bounded_number_of_times(proj: Path, seed: int) -> None:
    # Each hidden substitution's body used to be re-scanned once per enclosing level as
    # well: a 643-character line took 14,000 nested scans (seconds). Now only the
    # outermost hidden body is scanned; inner ones are found inside it.
    from shellpilot.scanner.bash_walk import scan_bash
    from shellpilot.scanner.context import ScanContext
    from shellpilot.scanner.scan import GRAMMARS
    from shellpilot.scanner.scan_paths import PathResolver
    from shellpilot.scanner.scan_result import ScanBuilder

    line = _nested_junk(seed)
    builder = ScanBuilder()
    builder.rescan_budget = 10**9
    scan_bash(line, (str(proj),), ScanContext(builder, PathResolver(str(proj), builder), GRAMMARS), 0)
    assert 10**9 - builder.rescan_budget <= 16 * len(line)


def test_rescan_budget_stops_nested_scans_and_says_why() -> None:
    from shellpilot.scanner.scan_result import ScanBuilder

    builder = ScanBuilder()
    builder.rescan_budget = 10
    assert builder.rescan("echo hi") and not builder.rescan("echo hi")
    assert not builder.rescan("x")  # spent for good
    assert list(builder.build().reasons) == ["too much nested command text to analyse"]


def test_a_command_too_costly_to_parse_is_unknown(proj: Path) -> None:
    # tree-sitter-bash needs ~1 GB for this 60 KB line; the probe child gives up instead.
    result = run(proj, "cat | " * 10000 + "rm -rf /")
    assert result.unknown and list(result.reasons) == ["a 60,008-byte command too costly to parse"]


def test_a_long_but_plain_command_is_still_scanned(proj: Path) -> None:
    result = run(proj, "cat > notes.txt <<EOF\n" + "print(1)\n" * 5000 + "EOF\nrm /etc/x")
    assert not result.unknown or "too costly" not in " ".join(result.reasons)
    assert "/etc" in result.dirs and "rm /etc/x" in result.patterns


@pytest.mark.parametrize("planted", ["resource.py", "tree_sitter.py", "importlib.py"])
def test_the_parse_probe_runs_no_module_of_the_project(
    proj: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    """The probe child for a long command starts before anyone is asked: a module the
    project ships under the name of one the probe imports must not run, from the working
    dir nor from an empty ``PYTHONPATH`` entry (which Python reads as the working dir)."""
    marker = proj / "ran"
    (proj / planted).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(proj)
    monkeypatch.setenv("PYTHONPATH", os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = run(proj, "cat > notes.txt <<EOF\n" + "print(1)\n" * 5000 + "EOF\nrm /etc/x")
    assert not marker.exists()
    assert "rm /etc/x" in result.patterns  # the probe itself still worked
