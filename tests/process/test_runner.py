"""The process runner with real child processes: exit codes, streams, kill paths, limits."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from shellpilot.config import Config
from shellpilot.config.model import ToolOutputConfig
from shellpilot.errors import InvalidTimeout, ShellNotFound, ShellpilotError, WorkdirNotFound
from shellpilot.process.output import OutputLimits
from shellpilot.process.process_group import group_members
from shellpilot.process.result import RunOutcome, ShellResult
from shellpilot.process.runner import run, spill_name
from shellpilot.process.text import CUT_PREFIX, PREVIEW_CHARS

FAST = Config.model_validate({"shell": {"kill_grace_ms": 200, "drain_ms": 300}})


def alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie (checked in /proc)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def pids_in(output: str) -> list[int]:
    return [int(word) for word in output.split() if word.isdigit()]


async def go(command: str, cwd: Path, **kw: object) -> ShellResult:
    kw.setdefault("config", FAST)
    kw.setdefault("output_dir", cwd / "spill")
    return await run(command, cwd=cwd, **kw)  # type: ignore[arg-type]


async def test_exit_codes(tmp_path: Path) -> None:
    ok = await go("true", tmp_path)
    assert (ok.exit_code, ok.signal, ok.outcome, ok.success) == (0, None, RunOutcome.EXITED, True)
    assert ok.output == "(no output)"
    failed = await go("echo nope; exit 42", tmp_path)
    assert failed.exit_code == 42 and not failed.success
    assert "nope" in failed.output and "Exit code: 42" in failed.output


async def test_killed_by_signal_is_never_success(tmp_path: Path) -> None:
    result = await go("kill -9 $$", tmp_path)
    assert result.exit_code is None
    assert result.signal == signal.SIGKILL
    assert not result.success
    assert "SIGKILL" in result.output


async def test_stdout_and_stderr_keep_their_order(tmp_path: Path) -> None:
    result = await go("echo 1; echo 2 >&2; echo 3; echo 4 >&2", tmp_path)
    assert result.output.split() == ["1", "2", "3", "4"]


async def test_stdin_is_closed(tmp_path: Path) -> None:
    result = await go('cat; read x; echo "read=$?"', tmp_path, timeout_ms=5_000)
    assert result.exit_code == 0 and not result.timed_out
    assert result.output.strip() == "read=1"


async def test_command_is_passed_verbatim(tmp_path: Path) -> None:
    result = await go("echo '$HOME' \"a  b\"; printf '%s\\n' 'x\ny'", tmp_path)
    assert result.output.splitlines() == ["$HOME a  b", "x", "y"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "sh", "dash", "ksh"])
async def test_a_command_starting_with_a_dash_is_a_command(tmp_path: Path, shell: str) -> None:
    # `<shell> -c "-n"` would read `-n` as the shell's own option; `-c --` runs it.
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("-n", "-x", "--version"):
        script = bin_dir / name
        script.write_text('#!/bin/sh\necho "ran $(basename -- "$0") $*"\n')
        script.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command, expected in (("-n", "ran -n"), ("-x a", "ran -x a"), ("--version", "ran --version")):
        result = await go(command, tmp_path, shell=shell, env=env)
        assert (result.exit_code, result.output.strip()) == (0, expected), (shell, command)
    plain = await go('echo "$0:$#"', tmp_path, shell=shell)
    assert plain.output.strip() == f"{result.shell}:0"


async def test_noninteractive_env_and_overrides(tmp_path: Path) -> None:
    config = Config.model_validate({"shell": {"env": {"TERM": "xterm-test"}}})
    result = await go(
        'echo "$PAGER $GIT_PAGER $GIT_EDITOR $EDITOR $VISUAL $GIT_TERMINAL_PROMPT $TERM $NO_COLOR $EXTRA"',
        tmp_path,
        config=config,
        env={"EXTRA": "hook"},
    )
    assert result.output.strip() == "cat cat true true true 0 xterm-test 1 hook"


async def test_variables_that_run_or_move_things_out_of_sight_are_not_passed_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each would make bash do what the command text does not show
    (tmp_path / "rc.sh").write_text("echo sourced > sourced.txt\n")
    (tmp_path / "elsewhere" / "sub").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    monkeypatch.setenv("BASH_ENV", str(tmp_path / "rc.sh"))
    monkeypatch.setenv("CDPATH", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("BASHOPTS", "expand_aliases")
    monkeypatch.setenv("SHELLOPTS", "xtrace")
    monkeypatch.setenv("PS4", "$(echo traced > traced.txt)")
    monkeypatch.setenv("BASH_FUNC_ls%%", "() { echo function-ls; }")
    result = await go("bash -c 'cd sub && pwd; ls -d .; shopt -q expand_aliases || echo off'", tmp_path)
    assert result.output.splitlines()[:3] == [str(tmp_path / "sub"), ".", "off"]
    assert not (tmp_path / "sourced.txt").exists() and not (tmp_path / "traced.txt").exists()
    # the user's own shell.env is kept: it is configured, not inherited by accident
    config = Config.model_validate({"shell": {"env": {"CDPATH": str(tmp_path / "elsewhere")}}})
    result = await go("cd sub && pwd", tmp_path, config=config)
    assert result.output.splitlines()[-1] == str(tmp_path / "elsewhere" / "sub")


def _repo_with_commits(path: Path, count: int) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    stream = []
    for i in range(count):
        message = f"commit number {i}\n".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer T <t@example.com> {1_700_000_000 + i} +0000\n".encode())
        stream.append(b"data %d\n%s" % (len(message), message))
        stream.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(stream), check=True)
    subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=path, check=True)


async def test_git_log_does_not_wait_on_a_pager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    _repo_with_commits(repo, 400)
    # A pager that would hang if our environment did not replace it; -p forces paging.
    monkeypatch.setenv("GIT_PAGER", "sleep 30; cat")
    monkeypatch.setenv("PAGER", "sleep 30; cat")
    result = await go("git -p log --oneline", repo, timeout_ms=10_000)
    assert not result.timed_out
    assert result.exit_code == 0
    assert result.total_lines == 400
    assert "commit number 399" in result.output


async def test_timeout_kills_a_command_that_ignores_sigterm(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await run(
        "echo $$; sh -c 'trap \"\" TERM; echo $$; sleep 60'",
        cwd=tmp_path,
        timeout_ms=500,
        output_dir=tmp_path,
    )  # the default 3 s grace: this test is about it
    assert time.monotonic() - started < 5
    assert result.timed_out and result.exit_code is None and not result.success
    assert "500 ms timeout" in result.output
    assert "retry with a larger timeout" in result.output
    assert result.pid is not None
    assert group_members(result.pid) == []
    for pid in pids_in(result.output.split("<shell_metadata>")[0]):
        assert not alive(pid)


async def test_timeout_kills_background_children_of_the_group(tmp_path: Path) -> None:
    # 1 s, not less: `echo $!` must be out before the timer fires, even on a loaded machine.
    result = await go("sleep 300 & echo $!; sleep 300", tmp_path, timeout_ms=1000)
    assert result.timed_out
    background = pids_in(result.output.split("<shell_metadata>")[0])
    assert len(background) == 1
    assert not alive(background[0])
    assert result.pid is not None and group_members(result.pid) == []


async def test_abort_mid_run_returns_partial_output(tmp_path: Path) -> None:
    abort = asyncio.Event()
    seen: list[str] = []

    def on_output(preview: str) -> None:
        seen.append(preview)
        if "started" in preview:
            abort.set()

    result = await go("echo started; sleep 30; echo never", tmp_path, abort=abort, on_output=on_output)
    assert result.aborted and not result.timed_out and result.exit_code is None
    assert result.output.startswith("started")
    assert "never" not in result.output
    assert "aborted by the user" in result.output
    assert result.pid is not None and group_members(result.pid) == []


async def test_abort_before_start_runs_nothing(tmp_path: Path) -> None:
    abort = asyncio.Event()
    abort.set()
    result = await go("touch ran", tmp_path, abort=abort)
    assert result.aborted and result.pid is None
    assert not (tmp_path / "ran").exists()


async def test_an_abort_event_of_another_loop_is_an_error_not_an_abort(tmp_path: Path) -> None:
    abort = asyncio.Event()

    async def wait_once() -> None:  # binds the event to that thread's loop
        waiter = asyncio.ensure_future(abort.wait())
        await asyncio.sleep(0)
        waiter.cancel()

    await asyncio.to_thread(asyncio.run, wait_once())
    with pytest.raises(RuntimeError, match="different event loop"):
        await go("echo $$ > pid; sleep 30", tmp_path, abort=abort)
    pid_file = tmp_path / "pid"
    if pid_file.exists() and pid_file.read_text().strip():  # the shell got that far: it was killed
        pid = int(pid_file.read_text())
        assert not alive(pid) and group_members(pid) == []


async def test_cancelling_the_call_kills_the_group(tmp_path: Path) -> None:
    pids: list[int] = []
    got = asyncio.Event()

    def on_output(preview: str) -> None:
        pids.extend(pids_in(preview))
        got.set()

    task = asyncio.create_task(go("echo $$; sleep 300", tmp_path, on_output=on_output))
    await asyncio.wait_for(got.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pids and not alive(pids[0])
    assert group_members(pids[0]) == []


async def test_background_child_does_not_hold_the_call(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await run("sleep 30 & echo ok", cwd=tmp_path, output_dir=tmp_path)  # default drain
    try:
        assert time.monotonic() - started < 2
        assert result.exit_code == 0 and result.output.startswith("ok")
        assert len(result.background_pids) == 1
        assert alive(result.background_pids[0])
    finally:
        for pid in result.background_pids:
            os.kill(pid, signal.SIGKILL)


async def test_invalid_timeouts_raise_before_anything_runs(tmp_path: Path) -> None:
    for bad in (-1, 0, 600_001):
        with pytest.raises(InvalidTimeout):
            await go("touch ran", tmp_path, timeout_ms=bad)
    with pytest.raises(ValueError, match="Invalid timeout value: -5"):
        await go("touch ran", tmp_path, timeout_ms=-5)
    assert not (tmp_path / "ran").exists()
    assert (await go("true", tmp_path, timeout_ms=600_000)).exit_code == 0


async def test_spawn_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(WorkdirNotFound, match="missing"):
        await run("true", cwd=tmp_path / "missing")
    with pytest.raises(ShellNotFound):
        await run("true", cwd=tmp_path, shell=str(tmp_path / "bin" / "bash"))
    broken = tmp_path / "sh"
    broken.write_bytes(b"\x7fELF not really")
    broken.chmod(0o755)
    with pytest.raises(ShellpilotError, match="Could not start"):
        await run("true", cwd=tmp_path, shell=str(broken))


async def test_output_at_the_limits(tmp_path: Path) -> None:
    line = "a" * 99
    exact = await go(f"yes {line} | head -n 512", tmp_path)  # 512 * 100 = 51,200 bytes
    assert exact.total_bytes == 51_200
    assert not exact.truncated and exact.output_path is None
    assert not (tmp_path / "spill").exists()
    over = await go(f"yes {line} | head -n 512; printf b", tmp_path, call_id="tool_over")
    assert over.total_bytes == 51_201 and over.truncated
    assert over.output_path == str(tmp_path / "spill" / "tool_over")
    assert Path(over.output_path).read_bytes() == (line + "\n").encode() * 512 + b"b"
    lines_exact = await go("seq 2000", tmp_path)
    assert not lines_exact.truncated
    lines_over = await go("seq 2001", tmp_path)
    assert lines_over.truncated and "1 of 2001 lines" in lines_over.output


async def test_five_thousand_lines(tmp_path: Path) -> None:
    result = await go("seq 1 5000", tmp_path)
    expected = "".join(f"{i}\n" for i in range(1, 5001)).encode()
    assert result.truncated and result.total_lines == 5000 and result.total_bytes == len(expected)
    shown = result.output.splitlines()
    assert shown[:400] == [str(i) for i in range(1, 401)]
    assert shown[-1600:] == [str(i) for i in range(3401, 5001)]
    omitted = len(expected) - len(b"".join(f"{i}\n".encode() for i in [*range(1, 401), *range(3401, 5001)]))
    assert f"3000 of 5000 lines ({omitted} of {len(expected)} bytes) omitted" in result.output
    assert result.output_path is not None and result.output_path in result.output
    assert Path(result.output_path).read_bytes() == expected


async def test_spill_cap_from_config_keeps_counts_and_end(tmp_path: Path) -> None:
    config = FAST.model_copy(update={"tool_output": ToolOutputConfig(max_spill_bytes=10_240)})
    result = await go("seq 1 20000", tmp_path, config=config)
    expected = "".join(f"{i}\n" for i in range(1, 20001)).encode()
    assert result.spill_capped and result.total_bytes == len(expected) and result.total_lines == 20000
    assert result.output_path is not None
    assert Path(result.output_path).read_bytes() == expected[:10_240]
    assert "full output file capped at 10240 bytes" in result.output
    assert result.output.rstrip().endswith("19999\n20000")


async def test_one_huge_line_still_shows_its_end(tmp_path: Path) -> None:
    result = await go("head -c 256000 /dev/zero | tr '\\0' x; echo END_MARKER", tmp_path)
    assert result.truncated
    assert result.output.split("<shell_metadata>")[0].rstrip().endswith("END_MARKER")
    assert "chars clipped]" in result.output
    assert len(result.output) < 10_000
    assert result.output_path is not None
    data = Path(result.output_path).read_bytes()
    assert data == b"x" * 256_000 + b"END_MARKER\n"


async def test_invalid_utf8_and_nul_bytes(tmp_path: Path) -> None:
    invalid = await go("printf 'ok \\377\\376 bad\\n'", tmp_path)
    assert "ok \ufffd\ufffd bad" in invalid.output
    assert "invalid UTF-8" in invalid.output
    binary = await go("printf 'a\\000b\\n'", tmp_path)
    assert "binary" in binary.output and "\x00" not in binary.output


async def test_ansi_colour_and_progress_bars(tmp_path: Path) -> None:
    result = await go(
        "printf '\\033[1;31mred\\033[0m\\n'; printf 'get 10%%\\rget 50%%\\rget 100%%\\n'", tmp_path
    )
    assert result.output.splitlines() == ["red", "get 100%"]


async def test_live_preview_is_throttled_with_a_final_call(tmp_path: Path) -> None:
    calls: list[str] = []
    started = time.monotonic()
    result = await go(
        "for i in $(seq 1 40); do echo line$i; sleep 0.02; done", tmp_path, on_output=calls.append
    )
    elapsed = time.monotonic() - started
    assert calls and calls[-1].rstrip().endswith("line40")
    assert len(calls) <= elapsed * 10 + 3
    assert result.preview == calls[-1]


async def test_a_cut_preview_starts_with_the_marker_and_a_whole_line(tmp_path: Path) -> None:
    calls: list[str] = []
    result = await go("seq 1 200000", tmp_path, on_output=calls.append)
    assert result.exit_code == 0 and calls[-1] == result.preview
    cut = [preview for preview in calls if preview.startswith(CUT_PREFIX)]
    assert result.preview in cut  # 1.3 MB of output: the final window is cut
    for preview in calls:
        body = preview.removeprefix(CUT_PREFIX)
        assert len(body) <= PREVIEW_CHARS
        lines = body.split("\n")
        if preview in cut:  # the first line is whole: the next one follows it in sequence
            assert int(lines[1]) == int(lines[0]) + 1, preview[:40]
        else:
            assert lines[0] == "1", preview[:40]
    assert result.preview.endswith("\n199999\n200000\n")


async def test_memory_stays_bounded_and_spill_is_exact(tmp_path: Path) -> None:
    size = 20 * 1024 * 1024
    result = await go(f"yes 0123456789abcdef | head -c {size}", tmp_path, limits=OutputLimits(100, 4096))
    assert result.total_bytes == size and result.truncated
    assert result.output_path is not None
    expected = hashlib.sha256(b"".join([b"0123456789abcdef\n"] * (size // 17 + 1))[:size]).hexdigest()
    assert hashlib.sha256(Path(result.output_path).read_bytes()).hexdigest() == expected
    assert len(result.output) < 8_000


async def test_on_data_gets_every_raw_byte(tmp_path: Path) -> None:
    chunks: list[bytes] = []
    result = await go("printf '\\033[31mred\\033[0m\\n'; seq 1 20000", tmp_path, on_data=chunks.append)
    expected = b"\x1b[31mred\x1b[0m\n" + "".join(f"{i}\n" for i in range(1, 20001)).encode()
    assert b"".join(chunks) == expected
    assert result.total_bytes == len(expected)


async def test_thread_exit_watch_end_to_end(tmp_path: Path) -> None:
    done = await go("echo hi; exit 7", tmp_path, exit_watch="thread")
    assert done.exit_code == 7 and done.output.startswith("hi")
    timed = await go("sleep 30", tmp_path, exit_watch="thread", timeout_ms=200)
    assert timed.timed_out and timed.pid is not None and group_members(timed.pid) == []


async def test_call_ids_cannot_escape_the_output_folder(tmp_path: Path) -> None:
    result = await go("seq 1 3000", tmp_path, call_id="../../escape/x")
    assert result.output_path is not None
    assert Path(result.output_path).parent == tmp_path / "spill"
    assert spill_name(".hidden") == "_.hidden" and spill_name(None).startswith("tool_")


async def test_a_failing_live_callback_does_not_lose_output(tmp_path: Path) -> None:
    def broken(_: object) -> None:
        raise RuntimeError("viewer crashed")

    result = await go("seq 1 100", tmp_path, on_output=broken, on_data=broken)
    assert result.exit_code == 0 and result.total_lines == 100
    assert result.output.split() == [str(i) for i in range(1, 101)]


async def test_on_spawn_reports_the_shell_pid_while_it_runs(tmp_path: Path) -> None:
    seen: list[tuple[int, bool]] = []
    result = await go("echo $$; sleep 0.5", tmp_path, on_spawn=lambda pid: seen.append((pid, alive(pid))))
    assert len(seen) == 1
    pid, was_alive = seen[0]
    assert was_alive and pid == result.pid == pids_in(result.output)[0]


async def test_a_failing_on_spawn_does_not_stop_the_command(tmp_path: Path) -> None:
    def boom(pid: int) -> None:
        raise RuntimeError("recorder broke")

    result = await go("echo still-ran", tmp_path, on_spawn=boom)
    assert result.exit_code == 0 and "still-ran" in result.output
