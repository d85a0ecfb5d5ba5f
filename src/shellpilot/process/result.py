"""What one command run comes back with: how it ended, its output for the model, its counts.

Owns: `RunOutcome` and `ShellResult` (with the tool-part metadata every caller records).
Must not touch: running anything (runner.py fills it).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class RunOutcome(enum.Enum):
    """How the race ended: the shell exited, the timeout fired, or the user aborted."""

    EXITED = "exited"
    TIMED_OUT = "timed_out"
    ABORTED = "aborted"


@dataclass(frozen=True)
class ShellResult:
    """The result of one command.

    ``exit_code`` is None when the shell did not exit on its own (killed by a signal,
    timeout, abort); ``signal`` is the signal number that ended it when known. ``output``
    is the model-facing text (truncated, cleaned, notes in ``<shell_metadata>``);
    ``output_path`` the byte-exact full output when ``truncated``; ``total_bytes`` raw
    bytes; ``duration_ms`` wall time; ``background_pids`` processes of the command's
    group still running after it returned; ``preview`` the last live preview text;
    ``pid`` the shell's pid (= its process group and session id; None if never started);
    ``spill_capped`` True when ``output_path`` stopped at ``tool_output.max_spill_bytes``
    and so lacks the last part of the output. ``sandbox`` names the profile the command ran
    under (None: unsandboxed); ``sandbox_request`` what to ask for when the sandbox made it
    fail (paths or ``network``; empty otherwise).
    """

    exit_code: int | None
    signal: int | None
    timed_out: bool
    aborted: bool
    output: str
    truncated: bool
    output_path: str | None
    total_bytes: int
    duration_ms: int
    background_pids: list[int]
    shell: str
    outcome: RunOutcome = RunOutcome.EXITED
    total_lines: int = 0
    preview: str = ""
    notes: list[str] = field(default_factory=list)
    pid: int | None = None
    spill_capped: bool = False
    sandbox: str | None = None
    sandbox_request: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        """True only for a shell that exited on its own with status 0."""
        return self.outcome is RunOutcome.EXITED and self.exit_code == 0

    def part_metadata(self, scan: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The metadata of the tool part that recorded this command (every caller: the bash
        tool, shell blocks, the user's shell): ``output`` (the last preview, else the
        model-facing output), ``exit``, ``signal``, ``truncated``, ``output_path``,
        ``spill_capped``, ``timed_out``, ``aborted``, ``total_bytes``, ``duration_ms`` (ms),
        ``background_pids``, ``shell``, ``sandbox`` (the profile, None: none) with
        ``sandbox_request`` (what to ask for after a sandbox denial) and ``scan`` (what the
        gate saw, when given)."""
        metadata: dict[str, Any] = {
            "output": self.preview or self.output,
            "exit": self.exit_code,
            "signal": self.signal,
            "truncated": self.truncated,
            "output_path": self.output_path,
            "spill_capped": self.spill_capped,
            "timed_out": self.timed_out,
            "aborted": self.aborted,
            "total_bytes": self.total_bytes,
            "duration_ms": self.duration_ms,
            "background_pids": list(self.background_pids),
            "shell": self.shell,
            "sandbox": self.sandbox,
            "sandbox_request": list(self.sandbox_request),
        }
        if scan is not None:
            metadata["scan"] = dict(scan)
        return metadata


__all__ = ["RunOutcome", "ShellResult"]
