"""What bash's own machinery runs: the `time` keyword, lookups after `command`/`exec`,
`source` behind a builtin, aliases that may or may not be expanded, names made by brace
expansion, and the shapes tree-sitter-bash misreads. Each row first runs in bash with a
fake `rm` that records it ran; the scan must then name `rm victim` or be unknown.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def ran_rm(tmp_path: Path, runs_rm: Callable[..., None], command: str) -> tuple[Path, str]:
    """(the project, the command with `{bin}` filled in) after bash ran it (`runs_rm`:
    fails unless that `rm` really ran)."""
    project = tmp_path / "p"
    project.mkdir()
    command = command.replace("{bin}", str(tmp_path / "bin"))
    runs_rm(command, project)
    return project, command


# (command, a pattern the scan must hold; "" = it must be unknown)
ROWS = [
    # `time` is a keyword: the command after it is a whole simple command of this shell
    ("hash -p {bin}/rm del; time del victim", "rm victim"),
    ("hash -p {bin}/rm del; ti\\\nme -p -- del victim", "rm victim"),
    ("time -p source /dev/stdin <<< 'rm victim'", "rm victim"),
    ("time time -p source /dev/stdin <<< 'r\\\nm victim'", "rm victim"),
    ('cd /; time -p pushd "$OLDPWD" >/dev/null && rm victim', "rm victim"),
    # `command` and `exec` still use the hash table; `command source` is the builtin
    ("hash -p {bin}/rm del; command del victim", "rm victim"),
    ("hash -p {bin}/rm del; >/dev/null command d\\\nel victim", "rm victim > /dev/null"),
    ("hash -p {bin}/rm del; exec del victim", "rm victim"),
    ("command source /dev/stdin <<< 'rm victim'", "rm victim"),
    ("\\command \\source /dev/stdin <<< 'rm victim'", "rm victim"),
    ("printf 'rm victim\\n' > s.sh; command . ./s.sh", ""),
    ("time . <(echo 'rm victim')", ""),
    # an alias is not expanded on its own line, in its own compound command, or without
    # expand_aliases: the name then runs as what else it is
    ("alias del=true; hash -p {bin}/rm del; del victim", "rm victim"),
    ("hash -p {bin}/rm del; { shopt -s expand_aliases\nalias del=true\ndel victim\n}", "rm victim"),
    ("shopt -s expand_aliases\nalias del=del\nhash -p {bin}/rm del; del victim", "rm victim"),
    ("shopt -s expand_aliases\nalias zz=-p\ntime zz source /dev/stdin <<< 'rm victim'", ""),
    # a compound command is read whole: the alias it redefines keeps its older text in it
    ("shopt -s expand_aliases\nalias zz=rm\n{ alias zz=true\nzz victim\n}", "rm victim"),
    ("shopt -s expand_aliases\nalias zz=rm\n{ unalias zz\nzz victim\n}", "rm victim"),
    # bash's own variables for aliases, the hash table and the xtrace prompt, prompt
    # expansion and namerefs that may reach them
    ("shopt -s expand_aliases; BASH_ALIASES[zz]=rm\nzz victim", ""),
    ("BASH_CMDS[zz]={bin}/rm; zz victim", ""),
    ("declare -n r=BASH_CMDS; r[zz]={bin}/rm; zz victim", ""),
    ("PS4='$(rm victim)'; set -x; true", ""),
    ("x='$(rm victim)'; echo \"${x@P}\"", ""),
    # ... also when a builtin assigns them or a default does, or a backslash-newline
    # splits the name
    ("read PS4 <<< '$(rm victim)'; set -x; true", ""),
    ("printf -v PS4 %s '$(rm victim)'; set -x; true", ""),
    ("for PS4 in '$(rm victim)'; do set -x; true; done", ""),
    (": ${PS4:='$(rm victim)'}; unset PS4; : ${PS4:='$(rm victim)'}; set -x; true", ""),
    ("P\\\nS4='$(rm victim)'; set -x; true", ""),
    # bash evaluates a value named in arithmetic as an expression, and a subscript in it
    # may run a command: a value the text does not show must not reach arithmetic
    ("echo 'a[$(rm victim)]' > V; [[ $(cat V) -gt 1 ]]", ""),
    ("read n <<< 'a[$(rm victim)]'; echo $((n + 1))", ""),
    ("x='a[$(rm victim)]'; (( x ))", ""),
    ("x='a[$(rm victim)]'; echo ${arr[x]}", ""),
    ("x='a[$(rm victim)]'; s=abc; echo ${s:x}", ""),
    ("x='a[$(rm victim)]'; declare -i y=x", ""),
    ("x='a[$(rm victim)]'; let y=x", ""),
    ("for x in 'a[$(rm victim)]'; do echo $[x]; done", ""),
    ("x='a[$(rm victim)]'; $'let' y=x", ""),
    # tree-sitter hangs the words after a redirect's target on the redirect
    ("x='a[$(rm victim)]'; let 2>&1 y=x", ""),
    # ... and reads `2>&1 let 2>&1 </dev/null y=x` as redirects only, `let` among their words
    ("x=$(printf 'a[\\044(rm victim)]'); 2>/dev/null 2>&1 let\t2>&1 </dev/null y=x", ""),
    ("x=$(printf 'a[\\044(rm victim)]'); 2>&1 declare\t2>&1 -i y=x", ""),
    ("x='a[$(rm victim)]'; time -p let y=x", ""),
    # tree-sitter reads `((` after `!` or `time` as two subshells
    ("x='a[$(rm victim)]'; ! (( x ))", ""),
    ("x='a[$(rm victim)]'; time (( x ))", ""),
    ("f() { local -i 2>/dev/null y=$1; }; f 'a[$(rm victim)]'", ""),
    ("x='a[$(rm victim)]'; builtin let y=x", ""),
    ("x='a[$(rm victim)]'; \"declare\" -i y=x", ""),
    # bash removes double quotes in arithmetic: a quoted name is still the variable
    ("x=$(printf 'a[\\044(rm victim)]'); (( \"x\" ))", ""),
    ("x=$(printf 'a[\\044(rm victim)]'); echo $(( \"x\" + 1 ))", ""),
    ("x=$(printf 'a[\\044(rm victim)]'); [[ \"x\" -eq 1 ]]", ""),
    ("x=$(printf 'a[\\044(rm victim)]'); a=(1); echo ${a[\"x\"]}", ""),
    # a login or interactive shell first runs startup files the text does not show
    ("printf '{bin}/rm victim\\n' > .profile; HOME=. bash -l -c true", ""),
    ("printf '{bin}/rm victim\\n' > .bashrc; HOME=. bash -i -c true", ""),
    ("printf '{bin}/rm victim\\n' > e.sh; ENV=./e.sh sh -i -c true", ""),
    ("printf '{bin}/rm victim\\n' > .profile; HOME=. exec -l bash -c true", ""),
    ("printf '{bin}/rm victim\\n' > .profile; HOME=. exec -a -sh sh -c true", ""),
    # eval, trap and `source /dev/stdin` read new text: a name being expanded around them
    # (an alias, a `hash -p` name) is looked up again inside it
    ("shopt -s expand_aliases\nalias zz=eval\nzz 'alias zz={bin}/rm\nzz victim'", "rm victim"),
    # a `hash -p` on a branch that may not run leaves either program
    ("hash -p {bin}/rm zz; cd /no-such-dir && hash -p /bin/true zz; zz victim", "rm victim"),
    # a function comes before the hash table; one that calls itself is not followed
    ("zz() { rm victim; }; hash -p /bin/true zz; zz", "rm victim"),
    # ... unless the definition sits on a branch that did not run
    ("cd /no-such-dir && zz() { true; }; hash -p {bin}/rm zz; zz victim", "rm victim"),
    ("zz() { [ -e stop ] && return; touch stop; cd /; zz; }; cd {bin}/..; zz; rm victim", ""),
    # a name made by brace expansion, before or behind a wrapper
    ("{rm,} victim", ""),
    ("2>/dev/null {timeout,}\t\\5 rm victim", ""),
    # tree-sitter-bash joins `\name` at a line start to the line before, and reads a
    # reserved word after `!` as a command name: both are unknown
    ("shopt -s expand_aliases\n\\rm victim", ""),
    ("{ bash <<'EOF'\n\\rm victim\nEOF\n} | cat", ""),
    ("! if rm victim; then :; fi", ""),
]


@pytest.mark.parametrize(("command", "pattern"), ROWS, ids=[r[0][:50] for r in ROWS])
def test_what_bash_runs_is_scanned_or_unknown(
    tmp_path: Path, runs_rm: Callable[..., None], command: str, pattern: str
) -> None:
    project, command = ran_rm(tmp_path, runs_rm, command)
    result = scan(command, cwd=project, project_dir=project)
    if pattern:
        assert pattern in result.patterns, (result.patterns, result.reasons)
    else:
        assert result.unknown and "*" in result.writes, result.patterns


def test_a_wrapper_chain_before_a_joining_wrapper_is_named(tmp_path: Path) -> None:
    found = scan('time -p taskset -c "0" parallel rm ::: victim', cwd=tmp_path, project_dir=tmp_path)
    assert {"taskset", "parallel"} <= {w for c in found.commands for w in c.wrappers}
    assert "rm victim" in found.patterns


def test_alias_defined_through_an_external_wrapper_defines_nothing(tmp_path: Path) -> None:
    # `flock f alias zz=trap` runs a program named alias; `zz` stays flock, which creates
    # its lock file `echo bye` in the project
    command = "shopt -s expand_aliases\nalias zz=flock\nzz l alias zz=trap\nzz 'echo bye' EXIT"
    found = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "echo bye") in found.writes


def test_a_function_called_without_arguments_has_no_words_for_its_parameters(tmp_path: Path) -> None:
    found = scan('zz() { mktemp "$@"; }; zz', cwd=tmp_path, project_dir=tmp_path)
    assert "mktemp" in found.patterns and "/tmp" in found.dirs


def test_a_cd_that_may_fail_keeps_the_directory_it_left(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    after_semicolon = scan("cd missing; rm -rf victim", cwd=project, project_dir=project)
    assert {str(project / "missing/victim"), str(project / "victim")} <= set(after_semicolon.writes)
    after_and = scan("cd missing && rm -rf victim", cwd=project, project_dir=project)
    assert list(after_and.writes) == [str(project / "missing/victim")]
    # a group's status is its last command's: `{ cd missing; true; } && rm` may run here
    group = scan("{ cd missing; true; } && rm -rf victim", cwd=project, project_dir=project)
    assert str(project / "victim") in group.writes
    negated = scan("! cd missing && rm -rf victim", cwd=project, project_dir=project)
    assert str(project / "victim") in negated.writes
    (project / "there").mkdir()
    existing = scan("cd there; rm -rf victim", cwd=project, project_dir=project)
    assert list(existing.writes) == [str(project / "there/victim")]


def test_tilde_forms_for_the_cwd_and_the_last_one(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    here = scan("cd src && touch ~+/made", cwd=project, project_dir=project)
    assert list(here.writes) == [str(project / "src/made")]
    last = scan("cd /tmp; cd src; rm -rf ~-/x", cwd=project, project_dir=project)
    assert last.unknown and "*" in last.writes


def test_where_cd_and_tilde_go_may_be_moved_by_an_assignment(tmp_path: Path) -> None:
    for command in (
        "CDPATH=/elsewhere; cd dir && rm -f x",
        "HOME=/elsewhere; rm -rf ~/x",
        "export HOME=/e; rm $HOME/x",
    ):
        assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command
    # without `~` or $HOME after it, HOME= moves nothing the scan reads
    assert not scan("HOME=/tmp/h npm ci", cwd=tmp_path, project_dir=tmp_path).unknown


def test_a_program_by_path_is_no_builtin(tmp_path: Path) -> None:
    # `/usr/bin/command cd d` (or a `hash -p` name for it) runs a program: this shell's cwd
    # stays, so the bare redirect on the next line writes here
    project = tmp_path / "p"
    (project / "d").mkdir(parents=True)
    for command in ("/usr/bin/command cd d\n> out", "hash -p /usr/bin/command zz; zz cd d\n> out"):
        found = scan(command, cwd=project, project_dir=project)
        assert str(project / "out") in found.writes, (command, found.writes)


@pytest.mark.parametrize(
    ("command", "pattern"),
    [
        ("setpriv --reuid 0 rm victim", "rm victim"),
        ("capsh -- -c 'rm victim'", ""),
        ("../../../../../../../../usr/bin/rm victim", "rm victim"),
    ],
)
def test_more_ways_to_reach_a_program(tmp_path: Path, command: str, pattern: str) -> None:
    found = scan(command, cwd=tmp_path, project_dir=tmp_path)
    if pattern:
        assert pattern in found.patterns and str(tmp_path / "victim") in found.writes, found.patterns
    else:
        assert found.unknown


def test_git_runs_an_alias_and_a_program_setting_through_sh(tmp_path: Path) -> None:
    # outside any repository (no config makes the scan unknown): the shell git starts counts
    for command in ("git -c alias.x='!rm victim' x", "git -c core.sshCommand='rm victim' fetch ssh://h/r"):
        found = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert any(c.argv[:2] == ("sh", "-c") for c in found.commands), found.patterns
        assert "rm victim" in found.patterns


def test_a_redirected_list_before_a_pipe_keeps_its_cwd_for_the_next_stage(tmp_path: Path) -> None:
    # tree-sitter reads `cd src && echo hi 2>/dev/null | tee n` as `(cd src && echo ..) | tee`;
    # bash runs `cd src && (echo .. | tee n)`, so tee writes src/n
    (tmp_path / "src").mkdir()
    found = scan("cd src && echo hi 2>/dev/null | tee -a n.txt", cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "src" / "n.txt") in found.writes


def test_sh_has_no_pushd(tmp_path: Path) -> None:
    # in sh, `pushd sub` is a command not found: the cwd stays
    (tmp_path / "sub").mkdir()
    found = scan("sh -c 'pushd sub; rm victim'", cwd=tmp_path, project_dir=tmp_path)
    assert str(tmp_path / "victim") in found.writes


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh")
def test_sh_reads_ampersand_greater_as_background_then_redirect(tmp_path: Path) -> None:
    # dash runs `cd &` in the background and `>/dev/null sub` as a command: the touch
    # lands here, where bash would put it in sub
    (tmp_path / "sub").mkdir()
    script = "cd &>/dev/null sub; touch made"
    subprocess.run(["sh", "-c", script], cwd=tmp_path, capture_output=True, timeout=10, check=False)
    if not (tmp_path / "made").exists():
        pytest.skip("this sh reads &> as bash does")
    found = scan(f"sh -c '{script}'", cwd=tmp_path, project_dir=tmp_path)
    assert found.unknown and "*" in found.writes


def test_time_after_leading_redirects_is_the_program(tmp_path: Path) -> None:
    # tree-sitter hangs `time cd ~` on the second leading redirect; bash runs /usr/bin/time
    found = scan("</dev/null <\\/dev/null time cd ~ && ls", cwd=tmp_path, project_dir=tmp_path)
    assert any("time" in c.wrappers for c in found.commands), found.patterns
    # the keyword times `>/dev/null time -p true`: after that redirect, time is the program
    strace = shutil.which("strace")
    if strace is not None:
        traced = subprocess.run(
            [strace, "-f", "-e", "trace=execve", "bash", "-c", "time >/dev/null time -p true"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        assert "bin/time" in traced.stderr, "bash must really run /usr/bin/time"
    for command in ("time >/dev/null time -p true", "time &>/dev/null time -p true"):
        found = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert any("time" in c.wrappers for c in found.commands), (command, found.patterns)


def test_an_environment_style_assignment_is_a_command_of_its_own(tmp_path: Path) -> None:
    # `PATH=/x/bin; ls` runs /x/bin/ls: the assignment needs a permission like a command
    for command, pattern in (
        ("PATH=/x/bin; ls", "PATH=/x/bin"),
        ("A=1 LD_PRELOAD=/x.so; ls", "LD_PRELOAD=/x.so"),
        ("for PATH in /x/bin; do ls; done", "PATH="),
    ):
        found = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert pattern in found.patterns and "ls" in found.patterns, (command, found.patterns)
    # a shell-local (lower-case) name stays out of it
    assert scan("x=1; ls", cwd=tmp_path, project_dir=tmp_path).patterns == ("ls",)


def test_arithmetic_on_numbers_the_text_gives_stays_known(tmp_path: Path) -> None:
    for command in (
        "for ((i = 0; i < 3; i++)); do echo $i; done",
        "n=3; head -n $((n + 1)) f",
        "[[ $# -gt 1 ]] || [[ ${#x} -eq 0 ]]",
        "for i in 1 2 3; do echo $((i * 2)); done",
        "echo ${x:-default} ${a[0]} ${a[@]}",
    ):
        assert not scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command


def test_files_the_shell_writes_for_history_and_ulimit(tmp_path: Path) -> None:
    # bash itself writes the history list to the file named (or to $HISTFILE)
    subprocess.run(["bash", "-c", "history -w out.txt"], cwd=tmp_path, timeout=10, check=False)
    assert (tmp_path / "out.txt").exists(), "bash must really write the file"
    named = scan("history -w out.txt", cwd=tmp_path, project_dir=tmp_path)
    assert list(named.writes) == [str(tmp_path / "out.txt")]
    for command in ("HISTFILE=h; history -w", "ulimit -c unlimited; ./crash", "ulimit -Sc 100"):
        found = scan(command, cwd=tmp_path, project_dir=tmp_path)
        assert found.unknown and "*" in found.writes, command
    assert not scan("history; ulimit -c 0; ulimit -n 1024", cwd=tmp_path, project_dir=tmp_path).unknown
