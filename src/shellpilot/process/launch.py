"""Starting a command: directly, or inside bubblewrap with its profile, and what follows.

Owns: choosing the mechanism for a profile (or refusing when a required one cannot run),
handing the seccomp filter to bwrap through a pipe, and the notes after a sandboxed run.
Must not touch: the race, the kill path or output (runner.py), permissions.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from shellpilot.errors import SandboxUnavailable
from shellpilot.process.bwrap import find_mechanism, warn_unavailable
from shellpilot.process.child import spawn
from shellpilot.process.denial import denial_note, find_denial
from shellpilot.process.gitlinks import set_aside_planted, snapshot
from shellpilot.process.sandbox import SandboxProfile, Wrapped, restore_links, set_aside, wrap


def sandboxed(profile: SandboxProfile | None, argv: list[str], cwd: Path) -> Wrapped | None:
    """The bwrap wrapping of ``argv`` for ``profile``; None without a profile or when no
    sandbox can run here (warned once per process; SandboxUnavailable if it is required)."""
    if profile is None:
        return None
    mechanism = find_mechanism()
    if not mechanism.works or mechanism.path is None:
        if profile.required:
            raise SandboxUnavailable(mechanism.reason, mechanism.fix)
        warn_unavailable(mechanism)
        return None
    wrapped = wrap(profile, argv, cwd=cwd, bwrap=mechanism.path)
    if profile.writable:
        wrapped.checkouts = snapshot(Path(os.path.realpath(cwd)))
    return wrapped


def launch(
    wrapped: Wrapped | None, argv: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """Spawn ``argv`` directly, or its sandboxed form with the seccomp filter handed over
    through a pipe whose read end only the child keeps."""
    if wrapped is None:
        return spawn(argv, cwd=cwd, env=env)
    env = {**env, **wrapped.env}
    if wrapped.seccomp is None:
        return spawn(wrapped.argv, cwd=cwd, env=env)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, wrapped.seccomp)  # a few hundred bytes: far below a pipe's buffer
        os.close(write_end)
        write_end = -1
        wrapped.bind_fd(read_end)
        return spawn(wrapped.argv, cwd=cwd, env=env, pass_fds=(read_end,))
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def sandbox_notes(
    profile: SandboxProfile,
    wrapped: Wrapped,
    text: str,
    cwd: Path,
    failed: bool,
) -> tuple[list[str], tuple[str, ...]]:
    """Notes after a sandboxed run: protected paths and submodule git dirs it created (set
    aside) and, when the
    command ``failed`` (exited non-zero), what the sandbox blocked; plus what to ask for to
    let it through (``Denial.request``)."""
    notes = [*set_aside(wrapped.missing), *restore_links(wrapped.links)]
    if wrapped.checkouts is not None:
        notes += set_aside_planted(wrapped.checkouts)
    if not failed:
        return notes, ()
    denial = find_denial(profile, text, cwd)
    if denial is None:
        return notes, ()
    return [*notes, denial_note(profile, denial)], denial.request
