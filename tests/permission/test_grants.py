"""Grants file: per-project path, atomic write, union of two writers."""

from __future__ import annotations

import json
from pathlib import Path

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
