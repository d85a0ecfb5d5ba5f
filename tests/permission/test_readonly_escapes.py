"""Shapes an adversary found running with no prompt: each row first runs in real bash and
must really reach outside the read-only set (a project program runs, an outside folder is
listed, a file behind a link is read); the default policy must then ask.

- ``printf`` whose first word is an expansion may be ``printf -v NAME``;
- variables bash sets from the line's other commands (``$_``, ``BASH_REMATCH``) are not
  the user's values: unquoted, they are split and globbed;
- a glob beside an expansion (``/etc/*$X``) is still listed;
- a quoted ``[`` is no glob: ``cat 'h[1].txt'`` reads that file, maybe a link out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.oracle.prompts import Gate
from shellpilot.scanner.scan import scan

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """(project, outside): the project holds a program `tools/ls` that leaves a mark,
    a link `h[1].txt` to an outside file and a link `app/[x]` to the outside folder."""
    project = tmp_path / "proj"
    outside = tmp_path / "outside"
    (project / "tools").mkdir(parents=True)
    (project / "app").mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("TOPSECRET\n")
    fake = project / "tools" / "ls"
    fake.write_text(f"#!/bin/sh\necho ran > {tmp_path / 'mark'}\n")
    fake.chmod(0o755)
    (project / "h[1].txt").symlink_to(outside / "secret.txt")
    (project / "app" / "[x]").symlink_to(outside)
    return project, outside


def _bash(project: Path, command: str) -> str:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
        env={**os.environ, "PATH": "/usr/bin:/bin"},
    )
    return done.stdout


@pytest.mark.parametrize(
    "command",
    [
        "true -v; printf $_ PATH tools; ls",
        'true -v; printf "$_" PATH tools; ls',
        "[[ -vPATH =~ .* ]]; printf $BASH_REMATCH tools; ls",
    ],
)
def test_printf_made_into_an_assignment_asks(places: tuple[Path, Path], command: str, tmp_path: Path) -> None:
    project, _ = places
    _bash(project, command)
    assert (tmp_path / "mark").exists(), "bash must really run the project's tools/ls"
    gate = Gate(project, tmp_path / "data")
    assert gate.asks(gate.plan(command)) != []


@pytest.mark.parametrize(
    "command",
    [
        "echo {O}/*$NOPE",
        "true '{O}/*'; echo $_",
        "[[ {O}/* =~ .* ]] && echo $BASH_REMATCH",
        "cat 'h[1].txt'",
        "ls 'app/[x]/'",
        "head 'app/[x]/secret.txt'",
    ],
)
def test_reads_outside_through_expansions_and_bracket_names_ask(
    places: tuple[Path, Path], command: str, tmp_path: Path
) -> None:
    project, outside = places
    command = command.replace("{O}", str(outside))
    printed = _bash(project, command)
    assert "secret.txt" in printed or "TOPSECRET" in printed, "bash must really reach outside"
    gate = Gate(project, tmp_path / "data")
    assert gate.asks(gate.plan(command)) != []


def test_plain_printers_and_globs_inside_stay_silent(places: tuple[Path, Path], tmp_path: Path) -> None:
    project, _ = places
    (project / "notes.md").write_text("x\n")
    gate = Gate(project, tmp_path / "data")
    for command in (
        "echo $HOME",
        'echo "$_"',
        'printf "%s\\n" "$HOME"',
        "cat notes*",
        "ls tools/*",
        "echo $PWD",
        "cd tools; echo $PWD",
    ):
        assert gate.asks(gate.plan(command)) == [], command
    # a cd that may land on a name with a glob character leaves one in $PWD
    assert gate.asks(gate.plan("cd 'a*'; echo $PWD")) != []


@pytest.mark.parametrize(
    "command",
    [
        "HISTFILE={O}/hist; set -o history\nls >/dev/null\ntrue",
        "HISTFILE={O}/hist; set -eo histo$'\\x72'y\ntrue",
        "HISTFILE={O}/hist; shopt -os history\ntrue",
    ],
)
def test_turning_history_on_asks(places: tuple[Path, Path], command: str, tmp_path: Path) -> None:
    # With history on, bash keeps the lines it reads next and writes them to $HISTFILE on exit.
    project, outside = places
    command = command.replace("{O}", str(outside))
    _bash(project, command)
    assert (outside / "hist").exists(), "bash must really write the history file"
    gate = Gate(project, tmp_path / "data")
    plan = gate.plan(command)
    assert plan.unknown and gate.asks(plan) != []
    for plain in ("set -euo pipefail\nls >/dev/null", "set +o history\ntrue", "shopt -o history"):
        assert not gate.plan(plain).unknown, plain


@pytest.mark.parametrize(
    "command",
    [
        "read $'\\x48'OME <<< {O}; touch ~/made",
        "read 'HO'ME <<< {O}; touch ~/made",
        "read -ra'HO'ME <<< {O}; touch ~/made",
        "X=HO; read ${X}ME <<< {O}; touch ~/made",
        "read ${X:-HOME} <<< {O}; touch ~/made",
        "X=HO; mapfile -t ${X}ME <<< {O}; touch ~/made",
        "printf -vHOME {O}; touch ~/made",
        "printf -v 'HO'ME {O}; touch ~/made",
        'export "HO"ME={O}; touch ~/made',
        "X=HO; declare ${X}ME={O}; touch ~/made",
        "builtin read H\\OME <<< {O}; touch ~/made",
    ],
)
def test_a_builtin_assigning_home_under_another_spelling_asks(
    places: tuple[Path, Path], command: str, tmp_path: Path
) -> None:
    # bash removes the quotes of a name operand before it assigns it, and a name made at
    # run time may be any: each of these sets HOME, so `~/made` lands outside
    project, outside = places
    command = command.replace("{O}", str(outside))
    _bash(project, command)
    assert (outside / "made").exists(), "bash must really write outside through ~"
    gate = Gate(project, tmp_path / "data")
    plan = gate.plan(command)
    assert plan.unknown and gate.asks(plan) != [], command
    for plain in ("read -r line <<< x; echo $line", 'printf -v out "%s" x', 'export PATH="$PWD/bin:$PATH"'):
        assert not gate.plan(plain).unknown, plain


@pytest.mark.parametrize(
    ("command", "lands"),
    [
        ("enable -n cd; cd sub; > made", "made"),  # cd is then a program: this shell stays
        ("shopt -s cdable_vars; X={O}; cd X; > made", "{O}/made"),
        ("shopt -s xpg_echo; echo 'true\\ntouch {O}/made' | sh", "{O}/made"),
        ("bash -O xpg_echo -c \"echo 'true\\ntouch {O}/made' | sh\"", "{O}/made"),
        ("cd -P lnk/..; > made", "{O}/made"),
        ("set -P; cd lnk/..; > made", "{O}/made"),
        ("cd lnk/../other; > made", "{O}/other/made"),  # no ./other: bash goes physically
    ],
)
def test_shell_state_that_moves_a_later_write_is_seen(tmp_path: Path, command: str, lands: str) -> None:
    # builtins and options change what later commands do: the write lands where bash
    # really puts it, which the scan covers (or it does not claim to know)
    project, outside = tmp_path / "proj", tmp_path / "outside"
    (project / "sub").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    (outside / "other").mkdir()
    (project / "lnk").symlink_to(outside / "dir")
    command = command.replace("{O}", str(outside))
    where = Path(lands.replace("{O}", str(outside)))
    where = where if where.is_absolute() else project / where
    _bash(project, command)
    assert where.exists(), f"bash must really write {where}"
    result = scan(command, cwd=project, project_dir=project)
    assert result.unknown or str(where) in result.writes, (command, result.writes)
    gate = Gate(project, tmp_path / "data")
    assert gate.asks(gate.plan(command)) != [], command
    for plain in ("set -euo pipefail; shopt -s globstar; ls", "cd sub/..; ls", "enable; ls"):
        assert not gate.plan(plain).unknown, plain


@pytest.mark.parametrize(
    "command",
    [
        "compgen -C 'touch {O}/made' x",
        "env 'BASH_FUNC_ls%%=() { touch {O}/made; }' bash -c ls",
        "printf 'touch {O}/made' > rc; env 'BASH_'ENV=rc bash -c true",
        "ln -s {O} l2; echo x > l2/made",
        "cd sub && ln -s .. ../up && echo x > ../up/outside/made",
        "cd {O} && mkdir d && ln -s {O} d/l2 && echo x > d/l2/made",  # a link made outside (campaign)
    ],
)
def test_what_runs_or_leads_out_behind_a_child_or_a_new_link_is_seen(tmp_path: Path, command: str) -> None:
    # judged before it runs (the link it makes is not there yet), then run in bash
    project, outside = tmp_path / "proj", tmp_path / "outside"
    (project / "sub").mkdir(parents=True)
    outside.mkdir()
    command = command.replace("{O}", str(outside))
    result = scan(command, cwd=project, project_dir=project)
    gate = Gate(project, tmp_path / "data")
    asks = gate.asks(gate.plan(command))
    _bash(project, command)
    assert (outside / "made").exists(), "bash must really write outside"
    assert result.unknown or str(outside / "made") in result.writes, (command, result.writes)
    assert result.unknown or "external_directory" in asks, command


@pytest.mark.parametrize(
    "command",
    [
        'nice eval "ls() {{ true; }}" 2>/dev/null; ls {O}',
        # an alias for a wrapper: expanded it is `nice eval`; not expanded, `zz` is a
        # program the scanner does not know, running `eval` in its child (campaign)
        "shopt -s expand_aliases\nalias zz=nice\nzz eval &>/dev/null \"ls() {{ true; }}\"; $'ls' {O}",
    ],
)
def test_a_function_a_wrapped_eval_defines_hides_no_program(tmp_path: Path, command: str) -> None:
    # `nice eval` runs a program named eval in a child (here: none): no function is
    # defined in this shell, so `ls` is the real one and lists the outside folder
    project, outside = tmp_path / "proj", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    command = command.replace("{O}", str(outside)).replace("{{", "{").replace("}}", "}")
    assert "secret.txt" in _bash(project, command), "bash must really run ls"
    result = scan(command, cwd=project, project_dir=project)
    assert str(outside) in result.dirs, result.dirs


def test_a_glob_that_ignores_case_asks(tmp_path: Path) -> None:
    # after `shopt -s nocaseglob`, `rm VICTIM*` removes `victim`, which the pattern as
    # written does not name
    project = tmp_path / "proj"
    project.mkdir()
    (project / "victim").write_text("x")
    command = "shopt -s nocaseglob; rm -f VICTIM*"
    result = scan(command, cwd=project, project_dir=project)
    _bash(project, command)
    assert not (project / "victim").exists(), "bash must really remove victim"
    assert result.unknown, result.writes


@pytest.mark.parametrize(
    ("command", "made", "needs"),
    [
        ("set +B; touch {a,b}", "{a,b}", "bash"),  # brace expansion off: one literal name
        ('bash +B -c "touch {a,b}"', "{a,b}", "bash"),
        ("shopt -s nullglob; ln -s {O}/secret.txt nomatch*", "secret.txt", "bash"),  # the glob vanishes
        ("touch ./-opwn; sort *", "pwn", "sort"),  # a file name read as `-o pwn`
        (
            "echo 'touch made' > s.sh; touch ./--checkpoint=1 './--checkpoint-action=exec=sh s.sh';"
            " tar cf a.tar *",
            "made",
            "tar",
        ),
        ("sqlite3 :memory: '.shell touch made'", "made", "sqlite3"),
        ("sqlite3 :memory: <<< 'vacuum into \"made\";'", "made", "sqlite3"),
        ("sqlite3 :memory: \"attach 'made' as a; create table a.t(x);\"", "made", "sqlite3"),
        ("ssh -E made -p 9 -o BatchMode=yes -o ConnectTimeout=2 127.0.0.1 true", "made", "ssh"),
    ],
)
def test_what_an_option_or_a_file_name_changes_is_unknown(
    tmp_path: Path, command: str, made: str, needs: str
) -> None:
    # bash options that change expansion, names a glob puts among a program's options,
    # and SQL shells' dot-commands: the text does not show what runs or what is written
    if shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed")
    project, outside = tmp_path / "proj", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (project / "victim").write_text("x")
    command = command.replace("{O}", str(outside))
    for plain in ("set -euo pipefail; ls *", "sqlite3 db.sqlite 'select 1'"):
        assert not scan(plain, cwd=project, project_dir=project).unknown, plain
    result = scan(command, cwd=project, project_dir=project)
    _bash(project, command)
    assert (project / made).exists() or (project / made).is_symlink(), f"bash must really make {made}"
    assert result.unknown, (command, result.writes)


def test_a_name_that_reads_as_an_option_makes_a_later_glob_unknown(tmp_path: Path) -> None:
    # a file already named like an option (a cloned repository may hold one) is found too
    (tmp_path / "-opwn").write_text("x")
    for command in ("sort *", "cat [-a]*"):
        assert scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command
    for command in ("sort ./*", "sort -- *", "sort src/*", "cat *.md"):
        assert not scan(command, cwd=tmp_path, project_dir=tmp_path).unknown, command


def test_a_link_made_in_a_folder_reached_through_a_link_is_followed(tmp_path: Path) -> None:
    # found by the campaign: with inner -> src, `cd inner && ln -s OUT l` makes src/l,
    # which the next path meets only after inner is followed on disk
    project, outside = tmp_path / "proj", tmp_path / "outside"
    (project / "src").mkdir(parents=True)
    (project / "inner").symlink_to(project / "src")
    outside.mkdir()
    command = f"(cd inner && 'ln' -s {outside} lnk2; ech$'\\x6f' x > lnk2/made\n)"
    result = scan(command, cwd=project, project_dir=project)
    _bash(project, command)
    assert (outside / "made").exists(), "bash must really write outside"
    assert str(outside / "made") in result.writes, result.writes
    assert str(outside) in result.dirs, result.dirs
