"""Output flags of common tools are writes, and host mounts are dirs (option_table.SHAPES)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shellpilot.scanner.scan import scan

# (command, a write it must report ({H} = home), the outside dir it must report)
OUTPUTS = [
    ("curl -o /tmp/x http://a", "/tmp/x", "/tmp"),
    ("curl --output=/tmp/x http://a", "/tmp/x", "/tmp"),
    ("curl -sSLo /tmp/y http://a", "/tmp/y", "/tmp"),
    ("curl --output-dir /opt/d -O http://a/b", "/opt/d/*", "/opt"),
    ("curl -D /tmp/h -c /tmp/jar http://a", "/tmp/jar", "/tmp"),
    ("wget -O /tmp/w http://a", "/tmp/w", "/tmp"),
    ("wget -P /srv/dl http://a", "/srv/dl/*", "/srv"),
    ("gcc -o /abs/prog a.c", "/abs/prog", "/abs"),
    ("cc -c a.c -o/abs/a.o", "/abs/a.o", "/abs"),
    ("clang++ -O2 a.cc -o /abs/b", "/abs/b", "/abs"),
    ("go build -o /bin/x ./cmd", "/bin/x", "/bin"),
    ("go test -c -o /tmp/t.test ./pkg", "/tmp/t.test", "/tmp"),
    ("pip download -d /tmp/d x", "/tmp/d/*", "/tmp"),
    ("pip install --target=/opt/t x", "/opt/t/*", "/opt"),
    ("python -m pip install -t /opt/t x", "/opt/t/*", "/opt"),
    ("python3 -m venv {H}/v", "{H}/v/*", "{H}"),
    ("virtualenv /opt/venv", "/opt/venv/*", "/opt"),
    ("uv venv /opt/uv", "/opt/uv/*", "/opt"),
    ("7z x -o/opt a.7z", "/opt/*", "/opt"),
    ("7z a /tmp/a.7z src", "/tmp/a.7z", "/tmp"),
    ("git archive -o /tmp/a.tar HEAD", "/tmp/a.tar", "/tmp"),
    ("git archive --output=/tmp/b.tar HEAD", "/tmp/b.tar", "/tmp"),
    ("git format-patch -o /tmp/p HEAD~1", "/tmp/p/*", "/tmp"),
    ("git diff --output=/tmp/d.txt", "/tmp/d.txt", "/tmp"),
    ("git -C . log --output=/tmp/l.txt", "/tmp/l.txt", "/tmp"),
    ("git worktree add /tmp/wt", "/tmp/wt/*", "/tmp"),
    ("git bundle create /tmp/b.bundle HEAD", "/tmp/b.bundle", "/tmp"),
    ("ssh-keygen -f {H}/.ssh/x -N ''", "{H}/.ssh/x", "{H}/.ssh"),
    ("ssh-keygen -t ed25519 -f {H}/.ssh/y", "{H}/.ssh/y.pub", "{H}/.ssh"),
    ("openssl req -new -out /etc/x.csr -keyout /etc/k", "/etc/x.csr", "/etc"),
    ("openssl genrsa -out /etc/key.pem 2048", "/etc/key.pem", "/etc"),
    ("sqlite3 /tmp/db 'select 1'", "/tmp/db", "/tmp"),
    ("perl -pi -e 's/a/b/' /etc/hosts", "/etc/hosts", "/etc"),
    ("perl -i.bak -pe 's/a/b/' /etc/hosts", "/etc/hosts", "/etc"),
    ("sed -i.bak s/a/b/ /etc/hosts", "/etc/hosts", "/etc"),
    ("sort -o /tmp/sorted x", "/tmp/sorted", "/tmp"),
    ("tree -o /tmp/tree.txt", "/tmp/tree.txt", "/tmp"),
    ("unzip a.zip -d /opt/u", "/opt/u/*", "/opt"),
    ("docker save -o /tmp/img.tar alpine", "/tmp/img.tar", "/tmp"),
    ("pandoc -o /tmp/out.pdf in.md", "/tmp/out.pdf", "/tmp"),
    ("rsync -a src/ /backup-x/", "/backup-x/src", "/backup-x"),
    ("prettier --write /srv/web", "/srv/web/*", "/srv"),
    ("black /srv/py", "/srv/py/*", "/srv"),
    ("eslint --fix /srv/js", "/srv/js/*", "/srv"),
]


@pytest.mark.parametrize(("command", "write", "outside"), OUTPUTS, ids=[c[0] for c in OUTPUTS])
def test_output_flags_are_writes(tmp_path: Path, command: str, write: str, outside: str) -> None:
    # every outside place is a fresh dir under tmp_path: `/tmp/x` -> `<tmp>/o/tmp/x`
    home = str(tmp_path / "home")
    base = tmp_path / "o"
    for top in ("tmp", "opt", "abs", "bin", "etc", "srv", "backup-x"):
        (base / top).mkdir(parents=True)

    def place(text: str) -> str:
        text = text.replace("{H}", home)
        return re.sub(
            r"(?:(?<=-o)|(?<![\w.]))/(tmp|opt|abs|bin|etc|srv|backup-x)\b",
            lambda m: f"{base}/{m.group(1)}",
            text,
        )

    project = tmp_path / "proj"
    project.mkdir()
    result = scan(place(command), cwd=project, project_dir=project)
    assert place(write) in result.writes, result.writes
    assert place(outside) in result.dirs, result.dirs


@pytest.mark.parametrize(
    "command",
    [
        "curl http://a",
        "curl -o - http://a",
        "gcc -E a.c",
        "black --check src",
        "prettier --check src",
        "eslint src",
        "ssh-keygen -l -f key.pub",
        "git diff HEAD~1",
        "sqlite3 -version",
        "perl -e 'print 1'",
    ],
)
def test_tools_without_output_flags_write_nothing(tmp_path: Path, command: str) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert not [w for w in result.writes if not w.startswith(str(tmp_path))], result.writes


def test_compilers_write_their_default_outputs_in_the_cwd(tmp_path: Path) -> None:
    assert list(scan("gcc a.c", cwd=tmp_path, project_dir=tmp_path).writes) == [str(tmp_path / "a.out")]
    assert list(scan("gcc -c a.c", cwd=tmp_path, project_dir=tmp_path).writes) == [str(tmp_path / "*")]
    assert list(scan("wget http://a/b", cwd=tmp_path, project_dir=tmp_path).writes) == [str(tmp_path / "*")]


@pytest.mark.parametrize(
    ("command", "dirs", "writes"),
    [
        ("docker run -v /:/host alpine", ["/"], ["/*"]),
        ("docker run --rm -v /etc:/e:ro alpine cat /e/passwd", ["/etc"], []),
        (
            "podman run --volume=/srv-missing/data:/d alpine",
            ["/srv-missing", "/srv-missing/data"],
            ["/srv-missing/data/*"],
        ),
        ("docker run --mount type=bind,source=/etc/x,target=/x alpine", ["/etc", "/etc/x"], ["/etc/x/*"]),
        ("docker run --mount type=bind,src=/etc/y,dst=/y,readonly alpine", ["/etc"], []),
        ("docker container run -v /var/run:/r alpine", ["/var/run"], ["/var/run/*"]),
        ("docker run -v named:/data alpine", [], []),
        ("docker cp c:/etc/passwd /tmp/pw", ["/tmp"], ["/tmp/pw"]),
    ],
)
def test_host_mounts_count_as_dirs(tmp_path: Path, command: str, dirs: list[str], writes: list[str]) -> None:
    result = scan(command, cwd=tmp_path, project_dir=tmp_path)
    assert list(result.dirs) == dirs
    assert [w for w in result.writes if w in writes] == writes
    assert all(not w.startswith("/") or w.startswith(str(tmp_path)) or w in writes for w in result.writes)


def test_a_relative_mount_inside_the_project_is_a_write_there(tmp_path: Path) -> None:
    result = scan('docker run -v "$PWD":/app -w /app node npm test', cwd=tmp_path, project_dir=tmp_path)
    assert not result.dirs and str(tmp_path / "*") in result.writes
