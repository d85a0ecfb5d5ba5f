"""Grants file: per-project path, atomic write, union of two writers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shellpilot.errors import ConfigError
from shellpilot.permission.grants import GrantStore, grants_path, read_grants
from shellpilot.permission.rules import Rule


def test_path_is_per_project(tmp_path: Path) -> None:
    a = grants_path(tmp_path / "data", tmp_path / "a")
    b = grants_path(tmp_path / "data", tmp_path / "b")
    assert a != b and a.parent == tmp_path / "data" / "grants"
    assert not a.parent.exists()  # nothing is created until a grant is written


def test_two_stores_on_one_file_keep_both_grants(tmp_path: Path) -> None:
    path = tmp_path / "g" / "p.json"
    first, second = GrantStore(path, tmp_path), GrantStore(path, tmp_path)
    assert first.add("bash", ["git push *", "git push *"]) == [Rule("bash", "git push *", "allow", "grant")]
    second.add("external_directory", ["/tmp/*"])
    assert read_grants(path) == [
        Rule("bash", "git push *", "allow", "grant"),
        Rule("external_directory", "/tmp/*", "allow", "grant"),
    ]
    assert first.add("bash", ["git push *"]) == []  # already there: no write needed
    body = json.loads(path.read_text())
    assert body["version"] == 1 and body["project"] == str(tmp_path)
    assert [p.name for p in path.parent.iterdir()] == ["p.json"]  # no temp files left


@pytest.mark.parametrize(
    ("content", "line", "says"),
    [
        (b'{"version": 1, "grants": [\n{"permission": "bash", "pattern": "\xff"}]}', 2, "not valid UTF-8"),
        (b'{"version": 1,\n "grants": [}', 2, "not valid JSON"),
        (b"[" * 5000 + b"]" * 5000, None, "nested too deeply"),
        (b'{"grants": "all"}', None, "must be"),
    ],
    ids=["invalid-utf8", "bad-json", "5000-deep", "wrong-shape"],
)
def test_a_broken_file_is_set_aside_with_a_warning_never_emptied(
    tmp_path: Path, content: bytes, line: int | None, says: str
) -> None:
    path = tmp_path / "grants" / "p.json"
    path.parent.mkdir()
    path.write_bytes(content)
    store = GrantStore(path, tmp_path)
    assert store.rules() == []
    [warning] = store.warnings
    [aside] = [p for p in path.parent.iterdir() if p.name.startswith("p.json.broken-")]
    assert aside.read_bytes() == content  # kept byte for byte
    assert not path.exists()
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert warning.startswith(where) and says in warning and str(aside) in warning
    assert "fix that file and move it back, or delete it" in warning
    # a new "always" answer writes a fresh file; the broken copy stays as it was
    store.add("bash", ["git push *"])
    assert read_grants(path) == [Rule("bash", "git push *", "allow", "grant")]
    assert aside.read_bytes() == content


def test_read_grants_names_file_and_line_of_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_bytes(b'{"version": 1,\n"grants": ["\xfe"]}')
    with pytest.raises(ConfigError) as info:
        read_grants(path)
    assert info.value.path == str(path) and info.value.line == 2
