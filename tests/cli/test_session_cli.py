"""``shellpilot session list|show|export|delete`` in-process (typer's CliRunner) against a real store."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from shellpilot.cli.app import app


@dataclass(frozen=True)
class Done:
    """How one CLI call ended: exit status, stdout and stderr (text and bytes)."""

    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def _sp(*args: str, cwd: Path) -> Done:
    """``shellpilot ARGS`` run in this process from ``cwd``."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return Done(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small git repository with two commits and a file with spaces in its name."""
    path = tmp_path / "repo"
    path.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@localhost",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@localhost",
    }
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    for i, name in enumerate(["a.txt", "b with spaces.txt"]):
        (path / name).write_text(f"{i}\n")
        subprocess.run(["git", "add", "."], cwd=path, env=env, check=True)
        subprocess.run(["git", "commit", "-qm", f"commit {i}"], cwd=path, env=env, check=True)
    return path


def _session_ids(data: Path | None = None) -> list[str]:
    db = sqlite3.connect((data or Path(os.environ["SHELLPILOT_DATA_DIR"])) / "shellpilot.db")
    try:
        return [row[0] for row in db.execute("SELECT id FROM session ORDER BY id")]
    finally:
        db.close()


def test_list_show_export_delete(repo: Path, tmp_path: Path) -> None:
    assert _sp("shell", "git log --oneline", cwd=repo).returncode == 0
    assert _sp("shell", "--continue", 'cat "b with spaces.txt"; exit 4', cwd=repo).returncode == 4
    assert _sp("shell", "echo other", cwd=repo).returncode == 0
    first, second = _session_ids()

    listed = _sp("session", "list", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert first in listed.stdout and second in listed.stdout
    row = next(line for line in listed.stdout.splitlines() if first in line)
    assert " 4 " in row + " "  # message count of the continued session
    # a pipe gets plain columns: a header line, then one line per session, no box drawing
    assert listed.stdout.splitlines()[0].split() == ["id", "title", "updated", "messages", "subtasks"]
    assert not any(ch in listed.stdout for ch in "│┃━─┏└")
    assert listed.stdout.index(second) < listed.stdout.index(first)  # latest activity first
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "No sessions" in _sp("session", "list", "--dir", str(elsewhere), cwd=repo).stdout
    assert first in _sp("session", "list", "--all", cwd=elsewhere).stdout

    shown = _sp("session", "show", first, cwd=repo)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert "$ git log --oneline" in text and "commit 1" in text and "commit 0" in text
    assert "The following tool was executed by the user" in text
    assert '$ cat "b with spaces.txt"; exit 4' in text and "[exit 4]" in text

    exported = _sp("session", "export", first, cwd=repo)
    assert exported.returncode == 0
    doc: dict[str, Any] = json.loads(exported.stdout)
    assert doc["session"]["id"] == first
    assert [m["info"]["role"] for m in doc["messages"]] == ["user", "assistant", "user", "assistant"]
    tool = doc["messages"][3]["parts"][0]
    assert tool["state"]["metadata"]["exit"] == 4 and tool["state"]["output"].startswith("1\n")

    deleted = _sp("session", "delete", first, cwd=repo)
    assert deleted.returncode == 0 and first in deleted.stdout
    assert _session_ids() == [second]
    gone = _sp("session", "show", first, cwd=repo)
    assert gone.returncode == 5 and "Session not found" in gone.stderr
    assert _sp("session", "export", first, cwd=repo).returncode == 5
    assert _sp("session", "delete", first, cwd=repo).returncode == 5


def test_bad_directory_and_corrupt_store_are_clear_errors(repo: Path, tmp_path: Path) -> None:
    missing = _sp("session", "list", "--dir", str(tmp_path / "nope"), cwd=repo)
    assert missing.returncode == 2 and "Not a directory" in missing.stderr
    data = tmp_path / "bad-data"
    data.mkdir()
    (data / "shellpilot.db").write_bytes(b"garbage" * 1000)
    broken = _sp("session", "list", "--data-dir", str(data), cwd=repo)
    assert broken.returncode == 6 and "shellpilot.db" in broken.stderr


def test_titles_and_text_with_rich_markup_are_shown_literally(repo: Path) -> None:
    from shellpilot.paths import store_path
    from shellpilot.session.models import Session
    from shellpilot.storage.store import SessionStore

    command = 'echo "[bold]x[/bold] [/]"'
    assert _sp("shell", command, cwd=repo).returncode == 0
    (parent,) = _session_ids()
    store = SessionStore(store_path(Path(os.environ["SHELLPILOT_DATA_DIR"])))
    try:
        child = Session(
            project_dir=str(repo.resolve()),
            title="review changes [commit|branch|pr], [red]then[/red] summarise",
            parent_id=parent,
        )
        store.put_session(child)
    finally:
        store.close()
    for args in (("session", "list"), ("session", "list", "--all")):
        listed = _sp(*args, cwd=repo)
        assert listed.returncode == 0, listed.stderr
        assert "[bold]x[/bold] [/]" in listed.stdout
    everything = _sp("session", "list", "--all", cwd=repo).stdout  # the child is listed with --all
    assert "review changes [commit|branch|pr], [red]then[/red] summarise" in everything
    shown = _sp("session", "show", parent, cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("[bold]x[/bold] [/]") >= 2  # the title, the command and its output
    assert f"$ {command}" in shown.stdout
    assert _sp("session", "show", child.id, cwd=repo).stdout.startswith("review changes [commit|branch|pr]")


def test_show_and_list_never_print_a_stored_escape_raw(repo: Path) -> None:
    assert _sp("shell", "echo stored", cwd=repo).returncode == 0
    (sid,) = _session_ids()
    db = sqlite3.connect(Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db")
    try:
        (pid, raw) = db.execute("SELECT id, body FROM part WHERE type = 'tool'").fetchone()
        body = json.loads(raw)
        body["state"]["input"]["command"] = "echo \x1b[8mhidden\x1b[0m"
        body["state"]["output"] = "a\x1b[2Kb \x1b]0;title\x07c \x1b[31mred\x1b[0m\rend\x07\n"
        db.execute("UPDATE part SET body = ? WHERE id = ?", (json.dumps(body), pid))
        db.execute("UPDATE session SET title = ? WHERE id = ?", ("t\x1b]0;owned\x07itle", sid))
        db.commit()
    finally:
        db.close()
    shown = _sp("session", "show", sid, cwd=repo)
    assert shown.returncode == 0, shown.stderr
    raw_out = shown.stdout_bytes
    assert b"\x1b" not in raw_out and b"\x07" not in raw_out and b"\r" not in raw_out
    text = shown.stdout
    assert "$ echo ␛[8mhidden␛[0m" in text  # a command's escapes stay visible
    assert "ab c red␍end␇" in text  # stored output: sequences removed, other controls shown
    listed = _sp("session", "list", cwd=repo)
    assert b"\x1b" not in listed.stdout_bytes and "title" in listed.stdout


def test_list_shows_top_level_sessions_with_a_subtask_count_and_all_shows_children(repo: Path) -> None:
    from shellpilot.paths import store_path
    from shellpilot.session.models import Session
    from shellpilot.storage.store import SessionStore

    assert _sp("shell", "echo parent", cwd=repo).returncode == 0
    (parent,) = _session_ids()
    store = SessionStore(store_path(Path(os.environ["SHELLPILOT_DATA_DIR"])))
    try:
        children = [
            Session(project_dir=str(repo.resolve()), title=f"child-task-{n}", parent_id=parent)
            for n in (1, 2)
        ]
        for child in children:
            store.put_session(child)
    finally:
        store.close()
    listed = _sp("session", "list", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert "subtasks" in listed.stdout
    assert "child-task" not in listed.stdout and children[0].id not in listed.stdout
    row = next(line for line in listed.stdout.splitlines() if parent in line)
    cells = re.split(r"\s{2,}", row.strip())  # (a pipe: columns apart by two spaces or more)
    assert cells[0] == parent and cells[-2:] == ["2", "2"]  # 2 messages, 2 subtask sessions
    everything = _sp("session", "list", "--all", cwd=repo)
    assert everything.returncode == 0, everything.stderr
    for child in children:
        line = next(line for line in everything.stdout.splitlines() if child.id in line)
        assert parent in line  # the parent column names where a child came from


def test_reading_commands_work_on_a_read_only_data_dir_and_writing_ones_say_what_to_do(
    repo: Path, tmp_path: Path, make_read_only: Any
) -> None:
    data = tmp_path / "ro-data"
    assert _sp("shell", "--data-dir", str(data), "echo kept-output", cwd=repo).returncode == 0
    (sid,) = _session_ids(data)
    assert not list(data.glob("*-wal")) and not list(data.glob("*-shm"))  # closed cleanly
    make_read_only(data)
    listed = _sp("session", "list", "--data-dir", str(data), cwd=repo)
    assert listed.returncode == 0, listed.stderr
    assert sid in listed.stdout
    shown = _sp("session", "show", "--data-dir", str(data), sid, cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert "kept-output" in shown.stdout
    exported = _sp("session", "export", "--data-dir", str(data), sid, cwd=repo)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["session"]["id"] == sid
    refused = _sp("shell", "--data-dir", str(data), "echo new", cwd=repo)
    assert refused.returncode == 6 and "Traceback" not in refused.stderr
    assert "read-only" in refused.stderr and str(data) in refused.stderr
    assert "--data-dir" in refused.stderr and "SHELLPILOT_DATA_DIR" in refused.stderr
    assert "new" not in refused.stdout  # nothing ran
    empty = tmp_path / "ro-empty"
    empty.mkdir()
    make_read_only(empty)
    nothing = _sp("session", "list", "--data-dir", str(empty), cwd=repo)
    assert nothing.returncode == 0 and "No sessions" in nothing.stdout
