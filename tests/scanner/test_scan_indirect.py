"""Indirect execution: aliases, `hash -p`, functions, git aliases, text piped into a shell,
`source`, and command names that are not literal. Each form must be scanned (the real
command is a pattern) or make the scan unknown; most rows are checked against bash first.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


# (command, a pattern the scan must hold; "" = it must be unknown)
INDIRECT = [
    ("shopt -s expand_aliases\nalias del=rm\ndel victim", "rm victim"),
    ("shopt -s expand_aliases\nalias del='rm -f'\ndel victim", "rm -f victim"),
    ("f() { rm victim; }; f", "rm victim"),
    ("function f { rm victim; }\nf", "rm victim"),
    ("echo 'r''m victim' | sh", "rm victim"),
    ("echo rm victim | bash", "rm victim"),
    ("printf '%s\\n' 'rm victim' | bash", "rm victim"),
    ("printf 'rm victim\\n' | sh -s", "rm victim"),
    ("bash <<< 'rm victim'", "rm victim"),
    ("source /dev/stdin <<< 'rm victim'", "rm victim"),
    ("eval 'r''m victim'", "rm victim"),
    ("cat x.sh | sh", ""),
    ("sh < x.sh", ""),
    ("source x.sh", ""),
    (". ./x.sh", ""),
    (". <(echo rm victim)", ""),
    # a shell's script operand that names its standard input, or another pipe
    ("bash /dev/stdin <<< 'rm victim'", "rm victim"),
    ("bash /dev/fd/0 <<< 'rm victim'", "rm victim"),
    ("echo 'rm victim' | bash -", "rm victim"),
    ("sh -e - <<< 'rm victim'", "rm victim"),
    ("bash -- ../../../../../../dev/stdin <<< 'rm victim'", "rm victim"),
    ("bash <(echo rm victim)", ""),
    ("cat x.sh | bash /dev/stdin", ""),
    ("bash 0<x.sh -c 'rm victim'", "rm victim"),
]


@needs_bash
@pytest.mark.parametrize(("command", "pattern"), INDIRECT, ids=[c[0][:40] for c in INDIRECT])
def test_indirect_execution_is_scanned_or_unknown(
    tmp_path: Path, runs_rm: Callable[..., None], command: str, pattern: str
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "x.sh").write_text("rm victim\n")
    runs_rm(command, project)
    result = scan(command, cwd=project, project_dir=project)
    if pattern:
        assert pattern in result.patterns, (result.patterns, result.reasons)
        assert "rm *" in result.always
    else:
        assert result.unknown and "*" in result.writes


@needs_bash
def test_hash_p_names_another_program(tmp_path: Path, runs_rm: Callable[..., None]) -> None:
    project = tmp_path / "p"
    project.mkdir()
    command = f"hash -p {tmp_path}/bin/rm del; del victim"
    runs_rm(command, project)
    result = scan(command, cwd=project, project_dir=project)
    assert "rm victim" in result.patterns and "del victim" in result.patterns


def test_a_function_is_scanned_from_the_cwd_it_is_called_in(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    project = tmp_path / "p"
    project.mkdir()
    result = scan(f"f() {{ cat id_rsa; }}; cd {home}/.ssh; f", cwd=project, project_dir=project)
    assert str(home / ".ssh") in result.dirs
    moved = scan("go() { cd /etc; }; go; cat passwd", cwd=project, project_dir=project)
    assert "/etc" in moved.dirs


def test_recursion_and_self_aliases_end(tmp_path: Path) -> None:
    assert list(scan("f() { f; }; f", cwd=tmp_path, project_dir=tmp_path).patterns) == ["f"]
    aliased = scan("alias ls='ls -la'; ls", cwd=tmp_path, project_dir=tmp_path)
    assert "ls -la" in aliased.patterns


@pytest.mark.parametrize(
    ("command", "guess"),
    [
        ("/bin/r? victim", "rm victim"),
        ("/usr/bin/r[m] victim", "rm victim"),
        ("${X:-rm} victim", "rm victim"),
        ("rm${IFS}victim", "rm victim"),
        ("${X-rm} victim", "rm victim"),
        ("${X:+}rm victim", "rm victim"),
        ("x; r{m,} victim", "rm r victim"),
        ("$(echo rm) victim", ""),
    ],
)
def test_a_command_name_that_is_not_literal_is_unknown(tmp_path: Path, command: str, guess: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert result.unknown, result.patterns
    assert "*" in result.writes
    if guess:
        assert guess in result.patterns  # so a deny rule `rm *` still sees it


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    project = tmp_path / "repo"
    project.mkdir()

    def git(*args: str, cwd: Path = project) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    git("init", "-q")
    (project / "sub").mkdir()
    git("init", "-q", cwd=project / "sub")
    git("config", "core.fsmonitor", "touch FSMONITOR_RAN", cwd=project / "sub")
    return project


@pytest.mark.parametrize(
    "command",
    [
        "cd sub && git status",
        "cd sub; git status",
        "(cd sub && git diff)",
        "pushd sub && git status",
        "git -C sub log",
    ],
)
def test_git_in_a_repository_whose_config_runs_programs_is_unknown(repo: Path, command: str) -> None:
    result = scan(command, cwd=repo, project_dir=repo)
    assert result.unknown and any("fsmonitor" in r for r in result.reasons), result.reasons


def test_git_at_the_root_is_plain_until_a_submodule_runs_programs(repo: Path) -> None:
    assert not scan("git status", cwd=repo, project_dir=repo).unknown  # sub is no submodule
    (repo / ".gitmodules").write_text('[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n')
    result = scan("git status", cwd=repo, project_dir=repo)
    assert result.unknown and any("sub" in r for r in result.reasons)


def test_git_aliases_are_scanned(repo: Path) -> None:
    found = scan("git -c alias.x='!rm victim' x", cwd=repo, project_dir=repo)
    assert "rm victim" in found.patterns and not found.unknown
    later = scan("git config alias.y '!rm victim' && git y", cwd=repo, project_dir=repo)
    assert "rm victim" in later.patterns
    assert str(repo / ".git" / "config") in later.writes
    subprocess.run(["git", "config", "alias.z", "!rm zz"], cwd=repo, check=True)
    assert "rm zz" in scan("git z", cwd=repo, project_dir=repo).patterns
    assert scan("git nosuchthing", cwd=repo, project_dir=repo).unknown  # a git-nosuchthing program
    piped = scan("git -c core.pager='rm q' log", cwd=repo, project_dir=repo)
    assert "rm q" in piped.patterns


def test_git_subcommands_that_rewrite_the_work_tree_write_it(repo: Path, tmp_path: Path) -> None:
    for command in ("git reset --hard HEAD", "git checkout main", "git stash", "git clean -fd"):
        assert str(repo / "*") in scan(command, cwd=repo, project_dir=repo).writes, command
    assert not scan("git clean -n", cwd=repo, project_dir=repo).writes
    assert list(scan("git mv a b", cwd=repo, project_dir=repo).writes) == [str(repo / "a"), str(repo / "b")]
    home = tmp_path / "home"
    globally = scan("git config --global user.name x", cwd=repo, project_dir=repo)
    assert any(w.endswith("/.gitconfig") for w in globally.writes) and globally.dirs
    assert str(home) not in repo.parents


def test_a_function_call_passes_its_arguments(tmp_path: Path) -> None:
    result = scan('zz() { timeout "$@"; }; zz -s KILL 5 chown root f', cwd=tmp_path, project_dir=tmp_path)
    assert "chown root f" in result.patterns
    made = scan('zz() { mktemp "$@"; }; zz /tmp/x.XXXX', cwd=tmp_path, project_dir=tmp_path)
    assert "/tmp/x.*" in made.writes


def test_a_wrapper_over_any_words_is_unknown(tmp_path: Path) -> None:
    assert scan('timeout "$@"', cwd=tmp_path, project_dir=tmp_path).unknown
    assert not scan('timeout "$T" rm x', cwd=tmp_path, project_dir=tmp_path).unknown


def test_double_negation_is_no_command(tmp_path: Path) -> None:
    result = scan("! ! cd /etc && ls", cwd=tmp_path, project_dir=tmp_path)
    assert list(result.patterns) == ["ls"] and "/etc" in result.dirs


@needs_bash
def test_sh_reads_ansi_quotes_and_braces_as_text(tmp_path: Path) -> None:
    if shutil.which("dash") is None:
        pytest.skip("needs dash")
    subprocess.run(["dash", "-c", "touch {a,b}"], cwd=tmp_path, check=True)
    assert (tmp_path / "{a,b}").exists()  # dash did not expand the braces
    for command in ("sh -c 'touch {a,b}'", "sh <<'E'\ntouch $'\\x41'\nE", "dash -c 'rm {x,y}'"):
        assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command
    assert not scan("bash -c 'touch {a,b}'", cwd=tmp_path, project_dir=tmp_path).unknown
    assert scan("touch {a,b}", cwd=tmp_path, project_dir=tmp_path, shell="/bin/dash").unknown


# (command, bash needs a file of this name in the project first, or "")
FILLED = [
    ("echo 'rm victim' | xargs -I{} sh -c {}", ""),
    ("echo 'rm victim' | xargs -i sh -c {}", ""),
    ("echo 'rm victim' | xargs -I% sh -c %", ""),
    ("echo 'rm victim' | xargs --replace=Q sh -c Q", ""),
    ("echo victim | xargs -I{} sh -c 'echo; rm {}'", ""),
    ("find rm -exec {} victim \\;", "rm"),
    ("find . -name '*victim*' -exec sh -c 'echo {}' \\;", "$(rm victim)"),
]


@needs_bash
@pytest.mark.parametrize(("command", "planted"), FILLED, ids=[c[0][:40] for c in FILLED])
def test_text_read_or_found_put_into_a_program_or_command_text_is_unknown(
    tmp_path: Path, runs_rm: Callable[..., None], command: str, planted: str
) -> None:
    """xargs -I, parallel and find -exec fill a command's words with what they read or
    find: in the program's name, or in text a shell runs, that is a command nobody wrote
    (a file named `$(rm victim)` runs rm)."""
    project = tmp_path / "p"
    project.mkdir()
    if planted:
        (project / planted).write_text("")
    runs_rm(command, project)
    assert scan(command, cwd=project, project_dir=project).unknown


def test_filled_words_of_a_plain_program_stay_known(tmp_path: Path) -> None:
    for command in ("echo x | xargs -I{} echo {}", "find . -name '*.py' -exec grep -l x {} +"):
        assert not scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command


WRITTEN_THEN_RUN = [
    "echo 'rm victim' > s; bash s",
    "echo 'rm victim' > s; sh ./s",
    "echo 'rm victim' | tee s >/dev/null; env bash s",
    "printf '#!/bin/sh\\nrm victim\\n' > s; chmod +x s; ./s",
    "mkdir d; printf '#!/bin/sh\\nrm victim\\n' > d/a; chmod +x d/a; run-parts d",
    "printf 'import os\\nos.system(\"rm victim\")\\n' > p.py; python3 p.py",
    "printf 'a:\\n\\trm victim\\n' > Makefile; make -s",
]


@needs_bash
@pytest.mark.parametrize("command", WRITTEN_THEN_RUN)
def test_a_file_the_line_writes_and_then_runs_is_unknown(
    tmp_path: Path, runs_rm: Callable[..., None], command: str
) -> None:
    """What the written file holds was only data to the scan: what runs cannot be judged."""
    project = tmp_path / "p"
    project.mkdir()
    program = command.split("; ")[-1].split()[0]
    if shutil.which(program) is None and "/" not in program:
        pytest.skip(f"needs {program}")
    runs_rm(command, project)
    assert scan(command, cwd=project, project_dir=project).unknown


@pytest.mark.parametrize(
    "command",
    [
        "echo x > f && git add f && git commit -m m",
        "make > build.log 2>&1",
        "bash build.sh",
        "echo x > out.txt; ls",
        "printf x > .husky/pre-commit; git commit -m m",
    ],
)
def test_writes_a_runner_does_not_run_stay_known(tmp_path: Path, command: str) -> None:
    known = "husky" not in command
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown is not known


INLINE_CODE = [
    "python3 -c 'import os; os.system(\"rm victim\")'",
    'python3 -c \'__import__("o"+"s").system("rm victim")\'',
    "perl -e 'system(\"rm victim\")'",
    "perl -e '`rm victim`'",
    "python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['rm', 'victim'])\nEOF",
    "echo 'import os; os.system(\"rm victim\")' | python3",
]


@needs_bash
@pytest.mark.parametrize("command", INLINE_CODE, ids=[c[:40] for c in INLINE_CODE])
def test_inline_code_that_may_start_a_program_is_unknown(
    tmp_path: Path, runs_rm: Callable[..., None], command: str
) -> None:
    program = command.split()[0] if not command.startswith("echo") else "python3"
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    runs_rm(command, tmp_path)
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c 'import json, sys; print(json.load(sys.stdin)[\"v\"])'",
        "python3 -c 'import os; print(os.path.exists(\"x\"))'",
        "perl -pe 's/a/b/' f",
        "ruby -e 'puts 1'",
        "node -e 'console.log(1)'",
        "python3 script.py",
        "echo 'print(1)' | python3",
    ],
)
def test_inline_code_that_starts_nothing_stays_known(tmp_path: Path, command: str) -> None:
    assert not scan(command, cwd=tmp_path, project_dir=tmp_path).unknown


@pytest.mark.parametrize(
    "command",
    [
        "make --eval=$'a:\\n\\trm victim' a",
        "make -E $'a:\\n\\trm victim' a",
        "make -f /dev/stdin <<< $'a:\\n\\trm victim'",
        "make -f - <<< $'a:\\n\\trm victim'",
        "zip z.zip -T -TT='rm victim' f",
    ],
)
def test_recipes_and_commands_written_inline_are_unknown(tmp_path: Path, command: str) -> None:
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown


@needs_bash
def test_make_really_runs_an_inline_recipe(tmp_path: Path, runs_rm: Callable[..., None]) -> None:
    if shutil.which("make") is None:
        pytest.skip("needs make")
    command = "make -s -f /dev/stdin <<< $'a:\\n\\trm victim'"
    runs_rm(command, tmp_path)
    assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown
