"""The shell gate: what one command line must be allowed before it runs, asked in order.

Owns: scan -> ``ShellPlan`` (outside dirs, writes, patterns, the one read-only judgement)
-> the asks ``external_directory``, ``edit``, ``bash`` -> ``GateVerdict`` with the sandbox
the verdict earns, and the ``sandbox`` asks that widen it. Must not touch: rule evaluation
(the ``Ask`` decides), running processes (``tool.shell.run_gated`` does).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from shellpilot.errors import UsageError
from shellpilot.permission.request import Ask, AskRequest, denies_all

Caller = Literal["model", "block", "user"]
"""Who wants the command run: the model's ``bash`` tool, a command template's shell block,
or the user's own direct shell (``shellpilot shell``), which is never asked about."""
SandboxKind = Literal["off", "read-only", "workspace-write"]
"""The sandbox a verdict earns (config ``sandbox.mode`` may still override it)."""
NETWORK = "network"
"""The ``sandbox`` ask's pattern for turning the network on."""
UNSANDBOXED = "unsandboxed"
"""The ``sandbox`` ask's pattern for running without any sandbox (never granted "always")."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


def _resolved(path: Path) -> Path:
    """`path` with symlinks resolved, or as it is when a link cannot be read (`/proc/1/root`)."""
    try:
        return path.resolve()
    except OSError:
        return path


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
        bare = _resolved(Path(directory[:-2] if directory.endswith("/*") else directory))
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
    default policy let it pass without a prompt. ``sandbox``: the profile the verdict
    earns: ``off`` for the user's own shell; ``read-only`` for a line judged read-only and
    for every line of an agent whose rules deny ``edit`` outright (``agent_read_only``,
    e.g. ``plan``); ``workspace-write`` for every other model or block command.
    ``grants``: what ``escalate`` got allowed on top (absolute paths made writable, or
    ``network``). ``tool.shell.run_gated`` runs every verdict with its profile.
    """

    plan: ShellPlan
    caller: Caller
    agent: str | None = None
    asked: tuple[AskRequest, ...] = ()
    sandbox: SandboxKind = "off"
    agent_read_only: bool = False
    grants: tuple[str, ...] = ()

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
        # A text is read-only when every command with it is, in every cwd it runs in
        # (`cd sub && git status`: git runs in sub, whose repository counts).
        judged: dict[str, bool] = {}
        for c in found.commands:
            judged[c.text] = (
                judged.get(c.text, True)
                and bool(c.cwds)
                and all(
                    is_read_only(
                        list(c.argv),
                        cwd=Path(d),
                        project_dir=project_dir,
                        text=c.text,
                        readable=readable,
                        line=command,
                    )
                    for d in c.cwds
                )
            )
        read_only = [text for text, ok in judged.items() if ok]
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
    agent_read_only = denies_all(ask, "edit")
    kind: SandboxKind = "read-only" if plan.judged_read_only or agent_read_only else "workspace-write"
    return GateVerdict(plan, caller, agent, asked, kind, agent_read_only)


def escalation_targets(requested: Sequence[str], cwd: Path) -> list[str]:
    """What a ``sandbox_allow`` list asks for: ``network`` and ``unsandboxed`` as is; each path made absolute
    (``~`` expanded, relative to ``cwd``, symlinks resolved) and, when it does not exist, replaced by its
    nearest existing parent (a bind mount needs an existing source), so the ask names
    exactly what would become writable. Raises UsageError for an empty entry."""
    from shellpilot.process.denial import grantable

    out: dict[str, None] = {}
    for entry in requested:
        text = entry.strip()
        if not text:
            raise UsageError('sandbox_allow entries must be paths or "network"; got an empty one.')
        if text.lower() in (NETWORK, UNSANDBOXED):
            out[text.lower()] = None
            continue
        path = Path(os.path.expanduser(text))
        # Resolved: a link in the project (which the command may re-point) must be asked
        # and granted as the folder it reaches, or the user would see a harmless name.
        path = Path(os.path.realpath(path if path.is_absolute() else cwd / path))
        out[str(grantable(path))] = None
    return list(out)


async def escalate(
    verdict: GateVerdict,
    requested: Sequence[str],
    *,
    ask: Ask,
    metadata: Mapping[str, Any] | None = None,
) -> GateVerdict:
    """Ask for a wider sandbox than ``verdict`` earned: for the paths of ``requested``
    (see ``escalation_targets``) first ``edit`` (so an agent that may not edit, or a deny
    rule on the path, refuses at once; ``unsandboxed`` asks ``edit`` for ``*``), then one
    ``sandbox`` ask with the paths, ``network`` and/or ``unsandboxed`` (an "always" answer
    grants each path and what lies below it, or the network, for the project; running
    unsandboxed is only ever granted once). Returns the verdict with ``grants``; an
    unsandboxed verdict is returned as is.

    Raises PermissionDenied / PermissionRejected / PermissionCorrected from ``ask``,
    UsageError for an empty entry.
    """
    targets = escalation_targets(requested, verdict.plan.cwd)
    if not targets or verdict.sandbox == "off":
        return verdict
    meta = {"command": verdict.plan.command, **(metadata or {})}
    paths = [t for t in targets if t not in (NETWORK, UNSANDBOXED)]
    edits = [*paths, *(["*"] if UNSANDBOXED in targets else [])]
    if edits:
        await ask(AskRequest("edit", edits, paths, meta))
    always = [
        a for t in targets if t != UNSANDBOXED for a in ((t,) if t == NETWORK else (t, t.rstrip("/") + "/*"))
    ]
    await ask(AskRequest("sandbox", targets, always, {**meta, "sandbox": verdict.sandbox}))
    return replace(verdict, grants=tuple(dict.fromkeys([*verdict.grants, *targets])))


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
    "NETWORK",
    "UNSANDBOXED",
    "Caller",
    "GateVerdict",
    "SandboxKind",
    "ShellPlan",
    "admit",
    "edit_patterns",
    "escalate",
    "escalation_targets",
    "gate",
    "outside_globs",
    "plan_command",
]
