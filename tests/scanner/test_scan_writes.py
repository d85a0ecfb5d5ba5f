"""`Scan.writes`: the files a command line writes, for the shell tool's edit ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "proj"
    (project / "dir").mkdir(parents=True)
    (project / "sub").mkdir()
    return project


# (command, written paths: `{P}` the project, `{H}` home, `*` an unknown place)
WRITES: list[tuple[str, list[str]]] = [
    ("echo hi > plan.txt", ["{P}/plan.txt"]),
    ("echo hi >> a 2> b &> c >| d &>> e", ["{P}/a", "{P}/b", "{P}/c", "{P}/d", "{P}/e"]),
    ("echo x >&f", ["{P}/f"]),
    ("echo x 2>&1 >&2 >/dev/null 2>/dev/stderr", []),
    ("cat < in.txt", []),
    ("cat <<EOF > f.txt\nx\nEOF", ["{P}/f.txt"]),
    ("ls | tee -a out.log /tmp/x", ["{P}/out.log", "/tmp/x"]),
    ("rm -rf build *.o", ["{P}/build", "{P}/*.o"]),
    ("rmdir -p a/b", ["{P}/a/b"]),
    ("mv a b", ["{P}/a", "{P}/b"]),
    ("mv a b dir", ["{P}/a", "{P}/b", "{P}/dir/a", "{P}/dir/b"]),
    ("cp -r src dir", ["{P}/dir/src"]),
    ("cp a b", ["{P}/b"]),
    ("cp a new/", ["{P}/new/a"]),
    ("cp -t dir a b", ["{P}/dir/a", "{P}/dir/b"]),
    ("cp -T a dir", ["{P}/dir"]),
    ("install -m 755 a /usr/local/bin/a", ["/usr/local/bin/a"]),
    ("install -d x y", ["{P}/x", "{P}/y"]),
    ("touch -r ref new", ["{P}/new"]),
    ("mkdir -p a/b", ["{P}/a/b"]),
    ("chmod -x f", ["{P}/f"]),
    ("chmod -R 755 d", ["{P}/d"]),
    ("chmod --reference=r f", ["{P}/f"]),
    ("chown u:g f", ["{P}/f"]),
    ("chgrp -R staff d", ["{P}/d"]),
    ("ln -s tgt", ["{P}/tgt"]),
    ("ln -s /etc/hosts link", ["{P}/link"]),
    ("truncate -s 0 f", ["{P}/f"]),
    ("dd if=a of=b bs=1M", ["{P}/b"]),
    ("sed -i 's/a/b/' f g", ["{P}/f", "{P}/g"]),
    ("sed -i.bak -e x f", ["{P}/f", "{P}/f.bak"]),
    ("sed -ni p f", ["{P}/f"]),
    ("sed 's/a/b/' f > g", ["{P}/g"]),
    ("sudo rm /etc/passwd", ["/etc/passwd"]),
    ("cd sub && touch ../x", ["{P}/x"]),
    ("rm ~/x", ["{H}/x"]),
    ("echo $(touch made) > ./out/../o", ["{P}/made", "{P}/o"]),
    ("rm $X", ["*"]),
    ("echo > $Y", ["*"]),
    ("ls | xargs rm", ["*"]),
    ("find . -name '*.o' -exec rm {} \\;", ["*"]),
    # reads and tools outside the writer table write nothing the scanner claims
    ("cat a b | grep x | sort -u", []),
    ("git add . && git commit -m x", []),
    ("sed 's/a/b/' f", []),
    # less obvious writers (the plan agent's read-only shell must see them)
    ("echo hi 1<>file", ["{P}/file", "*"]),  # (tree-sitter cannot parse `1<>`: unknown, so `*` too)
    ("cp README{,.bak}", ["{P}/README.bak"]),
    ("sed -n 'w out' README", ["{P}/out"]),
    ("sed -n '/x/w out.txt' README", ["{P}/out.txt"]),
    ("sed 's/a/b/gw changed' f", ["{P}/changed"]),
    ("sed -e p -e '$W last' f", ["{P}/last"]),
    ("sed '1e touch x' f", ["*"]),
    ("sed -i.bak -e 's/a/b/w log' f", ["{P}/log", "{P}/f", "{P}/f.bak"]),
    ("find . -fprint out", ["{P}/out"]),
    ("find src -name x -fprintf list '%p' -fls ls.txt", ["{P}/list", "{P}/ls.txt"]),
    ("find build -delete", ["{P}/build/*"]),
    ("sort -o out in", ["{P}/out"]),
    ("sort --output=sorted in", ["{P}/sorted"]),
    ("uniq in out", ["{P}/out"]),
    ("uniq in", []),
    ("split -l 10 big part", ["{P}/part*"]),
    ("split big", ["{P}/x*"]),
    ("csplit -f piece f 3", ["{P}/piece*"]),
    ("tar -cf out.tar dir", ["{P}/out.tar"]),
    ("tar czf out.tgz dir", ["{P}/out.tgz"]),
    ("tar -xf a.tar -C sub", ["{P}/sub/*"]),
    ("tar -tf a.tar", []),
    ("gzip -k f", ["{P}/f*"]),
    ("gzip -c f", []),
    ("iconv -f a -t b -o out in", ["{P}/out"]),
    ("mkfifo p q", ["{P}/p", "{P}/q"]),
    ("git init dir", ["{P}/dir/.git"]),
    ("git init", ["{P}/.git"]),
    ("git clone url copy", ["{P}/copy"]),
    ("git status", []),
]


@pytest.mark.parametrize(("command", "expected"), WRITES, ids=[w[0][:40] for w in WRITES])
def test_writes(proj: Path, command: str, expected: list[str]) -> None:
    home = str(proj.parent / "home")
    result = scan(command, cwd=proj, project_dir=proj)
    assert list(result.writes) == [e.replace("{P}", str(proj)).replace("{H}", home) for e in expected]


def test_cd_then_write_follows_the_simulated_cwd(proj: Path) -> None:
    outside = proj.parent / "elsewhere"
    result = scan(f"cd {outside} && rm x", cwd=proj, project_dir=proj)
    assert list(result.writes) == [f"{outside}/x"]
    assert list(result.dirs) == [str(outside)]
    unknown = scan('cd "$X" && rm x', cwd=proj, project_dir=proj)
    assert list(unknown.writes) == ["*"] and unknown.unknown


def test_read_write_redirect_is_unknown_and_a_write(proj: Path) -> None:
    result = scan("echo hi 1<>file", cwd=proj, project_dir=proj)
    assert result.unknown
    assert list(result.writes) == [str(proj / "file"), "*"]  # (unknown: it may write anywhere)


def test_written_places_outside_are_dirs(proj: Path) -> None:
    outside = proj.parent / "elsewhere"
    for command in (f"sort -o {outside}/o in", f"sed -n 'w {outside}/o' f", f"iconv -o {outside}/o in"):
        result = scan(command, cwd=proj, project_dir=proj)
        assert list(result.dirs) == [str(outside)], command


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("script -q -c true log.txt", "log.txt"),
        ("script -q -c true", "typescript"),
        ("/usr/bin/time -o t.txt true", "t.txt"),
        ("strace -o trace.txt true", "trace.txt"),
        ("ltrace -otr.txt true", "tr.txt"),
    ],
)
def test_files_a_wrapper_or_recorder_writes(proj: Path, command: str, written: str) -> None:
    assert str(proj / written) in scan(command, cwd=proj, project_dir=proj).writes
