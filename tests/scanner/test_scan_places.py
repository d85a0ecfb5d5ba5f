"""Where paths really point: symlinks, writes outside the project, missing top-level dirs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """(project, outside): the project holds `docs -> outside`, `lnk -> outside`,
    `inner -> src` (a link that stays inside) and `file -> outside/secret`."""
    project = tmp_path / "proj"
    outside = tmp_path / "outside"
    (project / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "id_rsa").write_text("key\n")
    (outside / "secret").write_text("s\n")
    (project / "docs").symlink_to(outside)
    (project / "lnk").symlink_to(outside)
    (project / "inner").symlink_to(project / "src")
    (project / "file").symlink_to(outside / "secret")
    return project, outside


@pytest.mark.parametrize(
    "command",
    [
        "cat docs/id_rsa",
        "cat lnk/*",
        "ls docs/",
        "cd lnk",
        "cd lnk && cat id_rsa",
        "cat src/../lnk/id_rsa",
        "head -n 1 file",
    ],
)
def test_a_read_through_a_symlink_is_judged_where_it_lands(places: tuple[Path, Path], command: str) -> None:
    project, outside = places
    result = scan(command, cwd=project, project_dir=project)
    assert str(outside) in result.dirs, (result.dirs, result.reasons)


@pytest.mark.parametrize(
    ("command", "landing"),
    [
        ("echo x > lnk/x", "x"),
        ("cp src lnk/", "src"),
        ("touch docs/new", "new"),
        ("echo x > file", "secret"),
        ("cd lnk && touch made", "made"),
        ("sed -i s/a/b/ file", "secret"),
    ],
)
def test_a_write_through_a_symlink_is_a_write_where_it_lands(
    places: tuple[Path, Path], command: str, landing: str
) -> None:
    project, outside = places
    result = scan(command, cwd=project, project_dir=project)
    assert str(outside) in result.dirs
    assert str(outside / landing) in result.writes, result.writes


def test_bash_really_writes_through_the_link(places: tuple[Path, Path], tmp_path: Path) -> None:
    project, outside = places
    subprocess.run(["bash", "-c", "echo x > lnk/made"], cwd=project, check=True)
    assert (outside / "made").read_text() == "x\n"


def test_links_that_stay_inside_are_inside(places: tuple[Path, Path]) -> None:
    project, _ = places
    for command in ("cat inner/x", "echo x > inner/y", "cd inner && ls", "cat src/a"):
        result = scan(command, cwd=project, project_dir=project)
        assert not result.dirs, (command, result.dirs)


def test_a_project_reached_through_a_symlink_is_still_inside(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    (real / "src" / "inner").symlink_to(real / "src")
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    result = scan("cat src/inner/x", cwd=alias, project_dir=alias)
    assert not result.dirs


def test_a_symlink_loop_is_not_an_error(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "a").symlink_to(project / "b")
    (project / "b").symlink_to(project / "a")
    result = scan("cat a/x; echo > b/y", cwd=project, project_dir=project)
    assert "cat a/x" in result.patterns  # scanned, whatever the loop resolves to


@pytest.mark.parametrize(
    ("command", "dirs"),
    [
        ("git init /outside-r/r", ["/outside-r", "/outside-r/r"]),
        ("shred -u /outside-f/f", ["/outside-f"]),
        ("touch /nowhere-x/new", ["/nowhere-x"]),
        ("tar -xf a.tar -C /opt-x/y", ["/opt-x", "/opt-x/y"]),
        ("cp a /dest-x/", ["/dest-x"]),
    ],
)
def test_every_write_outside_adds_its_directory(tmp_path: Path, command: str, dirs: list[str]) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert list(result.dirs) == dirs
    assert all(any(w.startswith(d) for d in dirs) for w in result.writes), result.writes


@pytest.mark.parametrize(
    ("command", "dirs"),
    [
        ("ls /backup-missing/", ["/backup-missing"]),
        ("rm -rf /backup-missing", ["/backup-missing"]),
        ("cat /backup-missing/x", ["/backup-missing"]),
        ("ls /", ["/"]),
        ("ls /etc", ["/etc"]),
    ],
)
def test_a_missing_top_level_directory_never_becomes_root(
    tmp_path: Path, command: str, dirs: list[str]
) -> None:
    assert not os.path.exists("/backup-missing")
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert list(result.dirs) == dirs


def test_an_unreadable_proc_path_is_asked_never_raised(tmp_path: Path) -> None:
    result = scan("cat /proc/1/root/etc/hostname", cwd=tmp_path, project_dir=tmp_path)
    assert list(result.dirs) == ["/proc/1/root/etc"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_cd_into_a_symlink_then_relative_paths_land_outside(places: tuple[Path, Path]) -> None:
    project, outside = places
    done = subprocess.run(["bash", "-c", "cd lnk && cat id_rsa"], cwd=project, capture_output=True, text=True)
    assert done.stdout == "key\n"
    result = scan("cd lnk && cat id_rsa", cwd=project, project_dir=project)
    assert str(outside) in result.dirs
    [cat] = [c for c in result.commands if c.argv[0] == "cat"]
    assert cat.cwds == (str(project / "lnk"),)


@pytest.mark.parametrize(
    "command",
    [
        "rev {O}/secret",
        "fold -w 10 {O}/secret",
        "column -t {O}/secret",
        "cksum {O}/secret",
        "shuf -n 1 {O}/secret",
        "zcat {O}/secret",
        "namei {O}/secret",
        "dd if={O}/secret of=copy",
        "rev docs/secret",  # through the link docs -> outside
        "some-unknown-reader {O}/secret",  # a program the scanner does not know
        "./tools/reader --input={O}/secret",
        # programs the scanner knows by name but has no option shape for: the same rule
        "java -jar {O}/secret",
        "terraform -chdir={O} plan",
        "make -C {O}",
        # a file a client uploads: `@FILE`, `key=@FILE`; an API client's own file words
        "mytool --data @{O}/secret",
        "gh api -F file=@{O}/secret /gists",
        "gh gist create {O}/secret",
        "etcdctl snapshot restore {O}/secret",
    ],
)
def test_readers_of_outside_files_name_their_directory(places: tuple[Path, Path], command: str) -> None:
    project, outside = places
    found = scan(command.replace("{O}", str(outside)), cwd=project, project_dir=project)
    assert str(outside) in found.dirs, found.dirs


@pytest.mark.parametrize(
    "command",
    ["[ -e {O}/secret ] && echo y", "[[ -f {O}/secret ]]", "[ ! -r {O}/secret ]", "[[ {O}/secret -nt x ]]"],
)
def test_a_file_test_outside_names_its_directory(places: tuple[Path, Path], command: str) -> None:
    # bash stats the file: whether ~/.ssh/id_rsa exists is something outside the project
    project, outside = places
    found = scan(command.replace("{O}", str(outside)), cwd=project, project_dir=project)
    assert str(outside) in found.dirs, found.dirs
    for inside in ('[ -f "$x" ]', "[[ -d src ]]", "[[ -n $x ]]"):
        assert scan(inside, cwd=project, project_dir=project).dirs == (), inside


def test_an_unknown_program_s_words_that_are_no_places_stay_out_of_dirs(places: tuple[Path, Path]) -> None:
    project, _ = places
    for command in ("mytool /", "mytool https://example.com/x", "ssh host cat /etc/passwd", "mytool a/b"):
        assert scan(command, cwd=project, project_dir=project).dirs == (), command
    # slash words that name an API route or a place in a container or on another host
    for command in ("gh api /repos/o/r/pulls", "glab api /projects", "kubectl exec p -- ls /var"):
        assert scan(command, cwd=project, project_dir=project).dirs == (), command


@pytest.mark.parametrize(
    "command",
    [
        "echo {O}/*",
        "printf '%s\\n' {O}/*",
        "echo */",  # bash stats what `*/` matches: docs -> outside
        "echo */x",
        "some-tool -d */",
        "for f in {O}/*; do :; done",
        "for d in */; do :; done",
        "x=({O}/*); echo ${{#x[@]}}",
        # builtins list their glob words too: a function's call, declarations, `[ ]`, cd
        'zz() {{ echo "$@"; }}; zz */',
        "export */",
        "unset */",
        "f() {{ local */; }}; f",
        "[ -e */ ]",
        "[ -$'\\x65' */x ]",  # tree-sitter reads this `[ ]` as an expression: `$'..' * /x`
        "cd */",
    ],
)
def test_a_glob_the_shell_lists_names_where_its_matches_are(places: tuple[Path, Path], command: str) -> None:
    project, outside = places
    found = scan(
        command.replace("{O}", str(outside)).replace("{{", "{").replace("}}", "}"),
        cwd=project,
        project_dir=project,
    )
    assert str(outside) in found.dirs, found.dirs
    assert scan("echo src/*", cwd=project, project_dir=project).dirs == ()


@pytest.mark.parametrize(
    "command",
    [
        "wc --files0-from={O}/secret",
        "du --files0-from={O}/secret",
        "du -X {O}/secret .",
        "date -f {O}/secret",
        "date -r {O}/secret",
        "sed -n '1r {O}/secret' notes.txt",
        "sed -e '1R {O}/secret' notes.txt",
    ],
)
def test_files_read_through_options_and_scripts_name_their_directory(
    places: tuple[Path, Path], command: str
) -> None:
    project, outside = places
    found = scan(command.replace("{O}", str(outside)), cwd=project, project_dir=project)
    assert str(outside) in found.dirs, found.dirs
