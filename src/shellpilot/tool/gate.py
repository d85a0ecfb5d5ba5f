"""The shell gate: what one command line must be allowed before it runs, asked in order.

Owns: scan -> ``ShellPlan`` (outside dirs, writes, patterns, the one read-only judgement)
-> the asks ``external_directory``, ``edit``, ``bash`` -> ``GateVerdict``. Must not touch:
rule evaluation (the ``Ask`` decides), running processes (``tool.shell.run_gated`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from shellpilot.permission.request import Ask, AskRequest

Caller = Literal["model", "block", "user"]
"""Who wants the command run: the model's ``bash`` tool, a command template's shell block,
or the user's own direct shell (``shellpilot shell``), which is never asked about."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _dir_glob(directory: str) -> str:
    return directory if directory.endswith("*") else directory.rstrip("/") + "/*"


def edit_patterns(writes: list[str], project_dir: Path) -> list[str]:
    """The ``edit`` patterns for a scan's ``writes``: relative to the project when inside
    it (``.`` for the project itself), absolute when outside, ``*`` kept (unknown place)."""
    project = str(project_dir)
    prefix = project.rstrip("/") + "/"
    out: dict[str, None] = {}
    for path in writes:
        if path == project:
            out["."] = None
        elif path.startswith(prefix):
            out[path[len(prefix) :]] = None
        else:
            out[path] = None
    return list(out)


def outside_globs(cwd: Path, dirs: list[str], project_dir: Path, output_dir: Path | None) -> list[str]:
    """``dir/*`` globs needing an ``external_directory`` ask: ``cwd`` when outside the
    project, then the scanner's dirs, each once; the tool-output folder never needs one."""
    if not dirs and cwd == project_dir:
        return []
    project = project_dir.resolve()
    output = output_dir.resolve() if output_dir is not None else None
    seen: set[Path] = set()
    found: list[str] = []
    candidates = [str(cwd)] if not _inside(cwd.resolve(), project) else []
    for directory in [*candidates, *dirs]:
        bare = Path(directory[:-2] if directory.endswith("/*") else directory).resolve()
        if (output is not None and _inside(bare, output)) or bare in seen:
            continue
        seen.add(bare)
        found.append(_dir_glob(directory))
    return found


@dataclass(frozen=True)
class ShellPlan:
    """What one command line needs before it may run (pure data, built by ``plan_command``).

    ``outside``: ``dir/*`` globs of directories outside the project it touches (asked as
    ``external_directory``); ``writes``: files it writes (``edit``; relative to the project
    inside it); ``patterns``/``always``: the ``bash`` patterns and what an "always" answer
    grants (the whole text added to both when the scan is ``unknown``); ``read_only``: the
    patterns judged read-only (``permission.readonly.is_read_only`` on each scanned
    command's argv and text: the one place that judgement is made); ``unknown`` and
    ``reasons``: the scanner could not see everything the line does, and why.
    """

    command: str
    cwd: Path
    project_dir: Path
    shell: str
    outside: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    always: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    unknown: bool = False
    reasons: tuple[str, ...] = ()

    @property
    def judged_read_only(self) -> bool:
        """True when the whole line only reads: scanned, writing nothing, and every
        ``bash`` pattern judged read-only (the default policy runs it without a prompt)."""
        return (
            not self.unknown
            and not self.writes
            and bool(self.patterns)
            and all(p in self.read_only for p in self.patterns)
        )

    def asks(self, metadata: Mapping[str, Any] | None = None) -> tuple[AskRequest, ...]:
        """The asks, in the order they are made: ``external_directory`` for ``outside``,
        then ``edit`` for ``writes``, then ``bash`` for ``patterns`` (with ``read_only`` and,
        when ``unknown``, the whole text as ``unanalysed``); an empty list is not asked.
        ``metadata`` (``command``, ``description``...) goes into each, plus ``unknown``
        and, for ``bash``, the scanner's ``reasons``."""
        meta = {"command": self.command, **(metadata or {}), "unknown": self.unknown}
        out: list[AskRequest] = []
        if self.outside:
            out.append(AskRequest("external_directory", self.outside, self.outside, meta))
        if self.writes:
            out.append(AskRequest("edit", self.writes, self.writes, meta))
        if self.patterns:
            out.append(
                AskRequest(
                    "bash",
                    self.patterns,
                    self.always,
                    {**meta, "reasons": list(self.reasons)},
                    read_only=self.read_only,
                    unanalysed=[self.command] if self.unknown else [],
                )
            )
        return tuple(out)

    def record(self) -> dict[str, Any]:
        """The scan as stored in a tool part's ``metadata["scan"]`` (the audit trail)."""
        return {
            "patterns": list(self.patterns),
            "always": list(self.always),
            "dirs": list(self.outside),
            "writes": list(self.writes),
            "read_only": list(self.read_only),
            "unknown": self.unknown,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class GateVerdict:
    """A command line the gate let through: its ``plan``, who asked for it (``caller``),
    the ``agent`` it runs for (None for the user's own shell) and the asks ``asked``, in
    order, each of which was allowed (none for ``caller == "user"``).

    ``read_only``: allowed as a read-only line (``ShellPlan.judged_read_only``): the
    default policy let it pass without a prompt. Attach per-command run choices (such as
    a sandbox profile) here: ``tool.shell.run_gated`` runs every verdict.
    """

    plan: ShellPlan
    caller: Caller
    agent: str | None = None
    asked: tuple[AskRequest, ...] = ()

    @property
    def read_only(self) -> bool:
        """Every ``bash`` pattern judged read-only and nothing written (see ``ShellPlan``)."""
        return self.plan.judged_read_only


def plan_command(
    command: str,
    *,
    cwd: Path,
    project_dir: Path,
    shell: str = "bash",
    output_dir: Path | None = None,
) -> ShellPlan:
    """Scan ``command`` as ``shell`` runs it in ``cwd`` for the project at ``project_dir``
    and build its plan (see ``ShellPlan``); ``output_dir`` is shellpilot's tool-output
    folder: its files count as readable and it never needs an ``external_directory`` ask.
    Never raises for a bad command: a line the scanner cannot read is ``unknown``.
    """
    from shellpilot.permission.readonly import is_read_only
    from shellpilot.scanner.scan import scan

    found = scan(command, cwd=cwd, project_dir=project_dir, shell=shell)
    patterns, always = list(found.patterns), list(found.always)
    read_only: list[str] = []
    if found.unknown:
        patterns += [command] if command not in patterns else []
        always += [command] if command not in always else []
    else:
        readable = (output_dir,) if output_dir is not None else ()
        read_only = [
            c.text
            for c in found.commands
            if is_read_only(list(c.argv), cwd=cwd, project_dir=project_dir, text=c.text, readable=readable)
        ]
    return ShellPlan(
        command=command,
        cwd=cwd,
        project_dir=project_dir,
        shell=shell,
        outside=tuple(outside_globs(cwd, list(found.dirs), project_dir, output_dir)),
        writes=tuple(edit_patterns(list(found.writes), project_dir)),
        patterns=tuple(dict.fromkeys(patterns)),
        always=tuple(dict.fromkeys(always)),
        read_only=tuple(dict.fromkeys(read_only)),
        unknown=bool(found.unknown),
        reasons=tuple(found.reasons),
    )


async def admit(
    plan: ShellPlan,
    *,
    caller: Caller,
    ask: Ask | None = None,
    agent: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> GateVerdict:
    """Make ``plan``'s asks in order through ``ask`` and return the verdict; the user's own
    command (``caller == "user"``) asks nothing (the plan is only recorded).

    Raises PermissionDenied, PermissionRejected or PermissionCorrected from ``ask`` (the
    first refused ask stops the rest); ValueError when a model or block caller gives no
    ``ask``.
    """
    if caller == "user":
        return GateVerdict(plan, caller, agent)
    if ask is None:
        raise ValueError(f"the gate needs an ask for a {caller} command")
    asked = plan.asks(metadata)
    for request in asked:
        await ask(request)
    return GateVerdict(plan, caller, agent, asked)


async def gate(
    command: str,
    *,
    cwd: Path,
    project_dir: Path,
    caller: Caller,
    ask: Ask | None = None,
    agent: str | None = None,
    shell: str = "bash",
    output_dir: Path | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> GateVerdict:
    """THE gate every shell command passes: ``admit(plan_command(...), ...)``.

    The model's ``bash`` tool, command shell blocks and the user's direct shell all call
    it (or its two halves); see ``plan_command`` and ``admit`` for the arguments and errors.
    """
    plan = plan_command(command, cwd=cwd, project_dir=project_dir, shell=shell, output_dir=output_dir)
    return await admit(plan, caller=caller, ask=ask, agent=agent, metadata=metadata)


__all__ = [
    "Caller",
    "GateVerdict",
    "ShellPlan",
    "admit",
    "edit_patterns",
    "gate",
    "outside_globs",
    "plan_command",
]
