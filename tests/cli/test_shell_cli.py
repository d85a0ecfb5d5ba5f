"""``shellpilot shell`` on a real git repository, the SQLite store read afterwards: a real subprocess
where the CLI's own process is the point (exit status, live output, signals), else in-process."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from shellpilot.cli.app import app
from shellpilot.process.process_group import group_members

LARGE_BYTES = 20 * 1024 * 1024


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@localhost",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@localhost",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository: three commits, a file with spaces in its name, a 20 MB file."""
    path = tmp_path_factory.mktemp("repo")
    _git(path, "init", "-q")
    (path / "README.md").write_text("# demo\n")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "first commit")
    (path / "notes with spaces.txt").write_text("spaced out\n")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "add a spaced file")
    line = b"0123456789abcdef" * 7 + b"\n"  # 113 bytes
    with (path / "large.txt").open("wb") as fh:
        for i in range(LARGE_BYTES // len(line) + 1):
            fh.write(b"%08d " % i + line)
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "add a large file")
    return path


def _sp(*args: str, cwd: Path, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shellpilot", *args], cwd=cwd, capture_output=True, text=True, timeout=60, **kw
    )


@dataclass(frozen=True)
class Done:
    """How an in-process CLI call ended: exit status, stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def _cli(*args: str, cwd: Path) -> Done:
    """``shellpilot ARGS`` in this process from ``cwd`` (typer's CliRunner), for what is not
    about the CLI's own process (session choice, warnings, usage errors)."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return Done(result.exit_code, result.stdout, result.stderr)


def _popen(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shellpilot", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    """The store the CLI writes (this test's SHELLPILOT_DATA_DIR), read as plain SQLite."""
    path = Path(os.environ["SHELLPILOT_DATA_DIR"]) / "shellpilot.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    yield conn
    conn.close()


def _tool_parts(db: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = db.execute("SELECT body FROM part WHERE type='tool' ORDER BY id").fetchall()
    return [json.loads(r[0]) for r in rows]


def _wait_for(predicate: Any, what: str, seconds: float = 15) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_runs_in_the_repo_and_records_the_part(repo: Path, db: sqlite3.Connection) -> None:
    out = _sp("shell", "git log --oneline -5; ls; cat \"notes with spaces.txt\"; echo '$HOME'", cwd=repo)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "add a large file" in lines[0]
    assert "first commit" in lines[2]
    assert "notes with spaces.txt" in lines and "spaced out" in lines
    assert lines[-1] == "$HOME"  # the command is passed unchanged: no second expansion
    (part,) = _tool_parts(db)
    state = part["state"]
    assert part["tool"] == "bash" and state["status"] == "completed"
    assert state["metadata"]["exit"] == 0
    assert "spaced out" in state["output"]
    texts = db.execute("SELECT body FROM part WHERE type='text'").fetchall()
    assert json.loads(texts[0][0])["synthetic"] is True
    (project,) = db.execute("SELECT project_dir FROM session").fetchone()
    assert project == str(repo.resolve())


@pytest.mark.parametrize(("command", "code"), [("exit 7", 7), ("false", 1), ("kill -9 $$", 137)])
def test_exit_status_is_the_commands(repo: Path, command: str, code: int, db: sqlite3.Connection) -> None:
    out = _sp("shell", command, cwd=repo)
    assert out.returncode == code
    (part,) = _tool_parts(db)
    assert part["state"]["status"] == "completed"  # a failing command is still a completed part


def test_output_is_live(repo: Path) -> None:
    proc = _popen("shell", "echo first; sleep 1; echo second", cwd=repo)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "first\n"
        assert proc.poll() is None  # the first line arrived while the command still ran
        rest, _ = proc.communicate(timeout=30)
        assert rest == "second\n"
        assert proc.returncode == 0
    finally:
        proc.kill()
        proc.wait()


def test_continue_session_and_unknown_session(repo: Path, db: sqlite3.Connection, tmp_path: Path) -> None:
    assert _cli("shell", "echo one", cwd=repo).returncode == 0
    assert _cli("shell", "--continue", "echo two", cwd=repo).returncode == 0
    sessions = db.execute("SELECT id FROM session").fetchall()
    assert len(sessions) == 1
    (sid,) = sessions[0]
    assert db.execute("SELECT count(*) FROM message WHERE session_id=?", (sid,)).fetchone()[0] == 4
    assert _cli("shell", "echo three", cwd=repo).returncode == 0  # no flag: a new session
    assert _cli("shell", "--session", sid, "echo four", cwd=repo).returncode == 0
    assert db.execute("SELECT count(*) FROM session").fetchone()[0] == 2
    assert db.execute("SELECT count(*) FROM message WHERE session_id=?", (sid,)).fetchone()[0] == 6
    missing = _cli("shell", "--session", "ses_nope", "true", cwd=repo)
    assert missing.returncode == 5 and "Session not found" in missing.stderr
    # --data-dir beats the environment
    other = tmp_path / "other-data"
    assert _cli("shell", "--data-dir", str(other), "true", cwd=repo).returncode == 0
    assert (other / "shellpilot.db").is_file()


def test_twenty_megabytes_keep_a_truncated_view_and_the_full_file(repo: Path, db: sqlite3.Connection) -> None:
    out = _sp("shell", "cat large.txt", cwd=repo)
    assert out.returncode == 0
    assert out.stdout.endswith((repo / "large.txt").read_text()[-500:])  # the tail reached the terminal
    (part,) = _tool_parts(db)
    state = part["state"]
    assert state["metadata"]["truncated"] is True
    full = Path(state["metadata"]["output_path"])
    assert full.stat().st_size == (repo / "large.txt").stat().st_size
    assert full.read_bytes() == (repo / "large.txt").read_bytes()
    assert str(full) in state["output"]
    assert len(state["output"]) < 100_000
    assert len(db.execute("SELECT body FROM part WHERE type='tool'").fetchone()[0]) < 200_000


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_ctrl_c_cancels_cleanly_and_records_the_part(repo: Path, db: sqlite3.Connection) -> None:
    proc = _popen("shell", "echo $$; sleep 30", cwd=repo)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert "cancelling" in err
    assert "shellpilot: command aborted by the user" in err
    _wait_for(lambda: not _pid_alive(child), "the command's shell to die")
    (part,) = _tool_parts(db)
    state = part["state"]
    assert state["status"] == "completed" and state["metadata"]["aborted"] is True
    assert "aborted by the user" in state["output"] and str(child) in state["output"]


def test_sigterm_says_terminated_by_sigterm_and_exits_143(repo: Path, db: sqlite3.Connection) -> None:
    proc = _popen("shell", "echo $$; sleep 30", cwd=repo)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 143
    assert "shellpilot: command terminated by SIGTERM" in err
    assert "aborted by the user" not in err
    _wait_for(lambda: not _pid_alive(child), "the command's shell to die")
    (part,) = _tool_parts(db)
    state = part["state"]
    assert state["status"] == "completed" and state["metadata"]["aborted"] is True
    assert state["metadata"]["abort_reason"] == "terminated by SIGTERM"
    assert "The command was terminated by SIGTERM." in state["output"]
    assert "aborted by the user" not in state["output"]


def test_kill_9_then_restart_shows_the_part_interrupted(repo: Path, db: sqlite3.Connection) -> None:
    proc = _popen("shell", "echo $$; echo before-crash; sleep 30", cwd=repo)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    try:

        def captured() -> bool:
            parts = _tool_parts(db)
            return bool(parts) and "before-crash" in parts[0]["state"].get("metadata", {}).get("output", "")

        _wait_for(captured, "the live preview to reach the store")
        assert _tool_parts(db)[0]["state"]["metadata"]["process"]["pgid"] == child  # recorded at spawn
        proc.kill()
        proc.wait(10)
        assert group_members(child)  # the command outlives the CLI: it has its own process group
        (sid,) = db.execute("SELECT id FROM session").fetchone()
        shown = _sp("session", "show", sid, cwd=repo)  # the next start recovers the store
        assert not group_members(child)  # ...and stopped the orphaned `sleep 30` with its shell
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child, signal.SIGKILL)
    assert shown.returncode == 0, shown.stderr
    assert "interrupted" in shown.stdout and "before-crash" in shown.stdout
    (part,) = _tool_parts(db)
    assert part["state"]["status"] == "error" and part["state"]["error"] == "interrupted"
    assert "before-crash" in part["state"]["metadata"]["output"]
    assert part["state"]["metadata"]["interrupted"]["killed"] is True
    # The session is usable again: the dead process's lease is gone.
    assert _sp("shell", "--session", sid, "true", cwd=repo).returncode == 0


def test_second_shell_in_a_busy_session_is_refused(repo: Path, db: sqlite3.Connection) -> None:
    proc = _popen("shell", "echo go; sleep 30", cwd=repo)
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline() == "go\n"
        (sid,) = db.execute("SELECT id FROM session").fetchone()
        busy = _sp("shell", "--session", sid, "echo never", cwd=repo)
        assert busy.returncode == 5
        assert "busy" in busy.stderr
        deleted = _sp("session", "delete", sid, cwd=repo)
        assert deleted.returncode == 5
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    assert "never" not in json.dumps(_tool_parts(db))


def test_reader_leaving_early_does_not_stop_the_recording(repo: Path, db: sqlite3.Connection) -> None:
    proc = _popen("shell", "seq 1 200000; exit 4", cwd=repo)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == "1\n"
    proc.stdout.close()  # like `| head -1`
    assert proc.wait(30) == 4
    assert "Traceback" not in proc.stderr.read()
    (part,) = _tool_parts(db)
    assert part["state"]["metadata"]["exit"] == 4
    assert part["state"]["metadata"]["truncated"] is True


def test_timeout_flag_kills_the_command(repo: Path, db: sqlite3.Connection) -> None:
    out = _sp("shell", "--timeout", "300", "echo started; sleep 20", cwd=repo)
    assert out.returncode == 128 + signal.SIGTERM  # killed by the timeout's SIGTERM
    assert out.stdout == "started\n"
    assert "shellpilot: command timed out after 300 ms and was killed" in out.stderr  # piped stderr too
    (part,) = _tool_parts(db)
    assert part["state"]["metadata"]["timed_out"] is True
    assert part["state"]["metadata"]["timeout_ms"] == 300
    both = _sp("shell", "--continue", "--session", "ses_x", "true", cwd=repo)
    assert both.returncode == 2 and "either" in both.stderr
    bad = _sp("shell", "--timeout", "0", "true", cwd=repo)
    assert bad.returncode == 2 and "Invalid timeout" in bad.stderr
    assert db.execute("SELECT count(*) FROM session").fetchone()[0] == 1  # none made for bad input


@pytest.mark.parametrize(("command", "code"), [("true", 0), ("exit 4", 4), ("sleep 20", 143)])
def test_a_silent_command_leaves_stdout_empty(
    repo: Path, db: sqlite3.Connection, command: str, code: int
) -> None:
    args = ("--timeout", "300") if command.startswith("sleep") else ()
    out = _sp("shell", *args, command, cwd=repo)
    assert out.returncode == code
    assert out.stdout == ""  # the model's "(no output)" and notes are not the command's bytes
    (part,) = _tool_parts(db)
    assert "(no output)" in part["state"]["output"]  # ...but the recorded part keeps them for the model


def test_shell_true_imports_no_heavy_sdk(repo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "shellpilot", "shell", "true"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    heavy = {"openai", "anthropic", "mcp", "httpx", "jsonschema", "rich"}
    assert "shellpilot.process.runner" in imported  # the parse sees real imports
    assert not heavy & imported


def test_passthrough_is_byte_exact(repo: Path, tmp_path: Path) -> None:
    blob = os.urandom(2000).replace(b"\n", b"x") + b"no newline at the end"
    (tmp_path / "blob.bin").write_bytes(blob)
    out = subprocess.run(
        [sys.executable, "-m", "shellpilot", "shell", f"cat {tmp_path / 'blob.bin'}"],
        cwd=repo,
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == blob  # no newline added after output that lacks one


def test_session_with_another_projects_dir_is_a_usage_error(
    repo: Path, db: sqlite3.Connection, tmp_path: Path
) -> None:
    assert _cli("shell", "true", cwd=repo).returncode == 0
    (sid,) = db.execute("SELECT id FROM session").fetchone()
    other = tmp_path / "other"
    other.mkdir()
    refused = _cli("shell", "--session", sid, "--dir", str(other), "echo never", cwd=repo)
    assert refused.returncode == 2
    assert str(repo.resolve()) in refused.stderr and str(other.resolve()) in refused.stderr
    assert "never" not in json.dumps(_tool_parts(db))
    same = _cli("shell", "--session", sid, "--dir", str(repo), "pwd", cwd=other)
    assert same.returncode == 0 and same.stdout == f"{repo.resolve()}\n"


@pytest.mark.parametrize("configured", ["fish-path", "python3"])
def test_a_refused_configured_shell_is_named_in_a_warning(
    tmp_path: Path, configured: str, db: sqlite3.Connection
) -> None:
    if configured == "fish-path":  # an installed but unsupported shell (a missing one is an error)
        fish = tmp_path / "bin" / "fish"
        fish.parent.mkdir()
        fish.write_text("#!/bin/sh\nexit 0\n")
        fish.chmod(0o755)
        configured = str(fish)
    project = tmp_path / "proj"
    project.mkdir()
    (project / "shellpilot.json").write_text(json.dumps({"shell": {"path": configured}}))
    out = _cli("shell", "echo ran", cwd=project)
    assert out.returncode == 0 and out.stdout == "ran\n"
    (warning,) = [line for line in out.stderr.splitlines() if "warning" in line]
    used = _tool_parts(db)[0]["state"]["metadata"]["shell"]
    assert configured in warning and used in warning
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "warning" not in _cli("shell", "true", cwd=plain).stderr


def test_a_command_that_is_not_utf8_is_refused_before_anything(tmp_path: Path) -> None:
    # argv bytes that are not UTF-8 reach Python as surrogates; a session records text.
    out = subprocess.run(
        [sys.executable, "-m", "shellpilot", "shell", b"touch ran \xff"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "not valid UTF-8 (byte 0xff" in out.stderr
    assert not (tmp_path / "ran").exists()
    assert "Traceback" not in out.stderr


def _seq(n: int) -> str:
    return "".join(f"{i}\n" for i in range(1, n + 1))


def test_a_full_disk_is_one_clear_error_and_the_part_is_saved_failed_with_the_reason(
    repo: Path, small_tmpfs: Any
) -> None:
    data = small_tmpfs("1m") / "data"
    done = _sp("shell", "--data-dir", str(data), "seq 1 700000", cwd=repo)  # ~4.8 MB of output
    assert done.stdout == _seq(700000)  # the output still reached the terminal, whole
    assert done.returncode == 0, done.stderr  # the command's own status
    assert "Traceback" not in done.stderr and "Exception in callback" not in done.stderr
    [error] = [line for line in done.stderr.splitlines() if "error" in line]
    assert f"the disk holding {data} is full" in error and "Free at least" in error
    assert "--data-dir" in error
    with contextlib.closing(sqlite3.connect(data / "shellpilot.db")) as db:
        (part,) = _tool_parts(db)
        (finished,) = [
            json.loads(r[0]) for r in db.execute("SELECT body FROM message WHERE role='assistant'")
        ]
    state = part["state"]
    assert state["status"] == "error" and "disk holding" in state["error"]
    assert state["metadata"]["exit"] == 0 and state["metadata"]["total_bytes"] == len(_seq(700000))
    assert finished["error"]["name"] == "StorageFull" and finished["completed_ms"] is not None


def test_ctrl_c_on_a_full_disk_still_exits_130(repo: Path, small_tmpfs: Any) -> None:
    data = small_tmpfs("1m") / "data"
    proc = _popen("shell", "--data-dir", str(data), "seq 1 700000; echo filled-up; sleep 30", cwd=repo)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line == "filled-up\n":
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception in callback" not in err
    assert "aborted by the user" in err and "is full" in err
