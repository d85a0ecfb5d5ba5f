"""The ``bash`` tool: a model's shell command, joined parse -> scan -> ask -> run.

Owns: parameters, description rendering, workdir resolution and the order of the asks.
Must not touch: how commands are scanned, judged or run (scanner/scan, permission, process/runner).
"""

from __future__ import annotations

import inspect
import platform
import re
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from shellpilot.config.model import Config
from shellpilot.errors import WorkdirNotFound
from shellpilot.ids import ascending
from shellpilot.paths import tool_output_dir
from shellpilot.process.detect import ShellChoice, detect_shell
from shellpilot.process.output import OutputLimits
from shellpilot.process.process_group import process_record
from shellpilot.process.runner import resolve_timeout, run
from shellpilot.tool.base import ToolContext, ToolResult

EnvHook = Callable[[str, str, Path], Mapping[str, str] | Awaitable[Mapping[str, str]]]
"""``shell.env`` hook: ``(session_id, call_id, cwd) -> extra variables`` (sync or async)."""


class ShellParams(BaseModel):
    """Arguments of one ``bash`` call."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        None,
        description="Optional timeout in milliseconds (a positive number; the default applies when omitted)",
        json_schema_extra={"exclusiveMinimum": 0},
    )
    workdir: str | None = Field(
        None,
        description=(
            "The working directory to run the command in, absolute or relative to the project. "
            "Defaults to the project directory. Use this instead of 'cd' commands."
        ),
    )
    description: str = Field(
        description=(
            "Clear, concise description of what this command does in 5-10 words, e.g. "
            "'Lists files in current directory', 'Shows working tree status'"
        )
    )


def _human_ms(ms: int) -> str:
    if ms % 60_000 == 0:
        minutes = ms // 60_000
        return f"{minutes} minute" + ("" if minutes == 1 else "s")
    return f"{ms / 1000:g} seconds"


def _platform_label() -> str:
    system = platform.system()
    return {"Darwin": "macOS", "": "an unknown OS"}.get(system, system)


def _shell_label(choice: ShellChoice) -> str:
    if choice.name == "pwsh":
        return "PowerShell 7 (pwsh)"
    if choice.name == "powershell":
        return "Windows PowerShell 5.1"
    return f"{choice.name} ({choice.path})"


def _chain_hint(choice: ShellChoice) -> str:
    if choice.name == "powershell":
        return "`cmd1; if ($?) { cmd2 }` (Windows PowerShell 5.1 has no `&&`)"
    if choice.kind == "powershell":
        return "`cmd1 && cmd2`"
    return "`cmd1 && cmd2` (use `;` only when a failure of the first does not matter)"


def render_description(config: Config, choice: ShellChoice, output_dir: Path) -> str:
    """The tool description for this shell, platform and config (package data ``prompts/bash.txt``)."""
    template = resources.files("shellpilot").joinpath("prompts/bash.txt").read_text(encoding="utf-8")
    shell = config.shell
    values = {
        "shell_label": _shell_label(choice),
        "platform": _platform_label(),
        "timeout_ms": str(shell.timeout_ms),
        "timeout_human": _human_ms(shell.timeout_ms),
        "max_timeout_ms": str(shell.max_timeout_ms),
        "max_timeout_human": _human_ms(shell.max_timeout_ms),
        "max_lines": str(config.tool_output.max_lines),
        "max_bytes": str(config.tool_output.max_bytes),
        "tool_output_dir": str(output_dir),
        "chain_hint": _chain_hint(choice),
    }
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], template).strip()


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


class ShellTool:
    """The ``bash`` tool (parse, scan, ask, run).

    ``ShellTool(config, data_dir, env_hook=None)``: the shell is chosen once from config
    (raises ShellNotFound if the configured one is missing); spill files go to
    ``<data_dir>/tool-output``; ``env_hook`` adds variables per call.
    """

    id: ClassVar[str] = "bash"
    parameters: ClassVar[type[BaseModel]] = ShellParams

    def __init__(self, config: Config, data_dir: Path, env_hook: EnvHook | None = None) -> None:
        self.config = config
        self.shell = detect_shell(configured=config.shell.path)
        self.output_dir = tool_output_dir(data_dir)
        self.limits = OutputLimits.from_config(config.tool_output)
        self.env_hook = env_hook
        self._description: str | None = None

    def description(self) -> str:
        """The model-facing description, rendered for the actual shell, platform and limits."""
        if self._description is None:
            self._description = render_description(self.config, self.shell, self.output_dir)
        return self._description

    def workdir(self, workdir: str | None, project_dir: Path) -> Path:
        """``workdir`` resolved against the project (``~`` expanded); WorkdirNotFound if missing."""
        if not workdir:
            return project_dir
        path = Path(workdir).expanduser()
        resolved = (path if path.is_absolute() else project_dir / path).resolve()
        if not resolved.is_dir():
            raise WorkdirNotFound(str(resolved))
        return resolved

    def outside_globs(self, workdir: Path, dirs: list[str], project_dir: Path) -> list[str]:
        """``dir/*`` globs needing an ``external_directory`` ask: the workdir when outside the
        project, then the scanner's dirs; the tool-output folder never needs one."""
        if not dirs and workdir == project_dir:
            return []
        project = project_dir.resolve()
        output = self.output_dir.resolve()
        seen: set[Path] = set()
        found: list[str] = []
        candidates = [str(workdir)] if not _inside(workdir.resolve(), project) else []
        for directory in [*candidates, *dirs]:
            bare = Path(directory[:-2] if directory.endswith("/*") else directory).resolve()
            if _inside(bare, output) or bare in seen:
                continue
            seen.add(bare)
            found.append(_dir_glob(directory))
        return found

    async def _env(self, ctx: ToolContext, cwd: Path) -> Mapping[str, str] | None:
        if self.env_hook is None:
            return None
        extra = self.env_hook(ctx.session_id, ctx.call_id, cwd)
        if inspect.isawaitable(extra):
            extra = await extra
        return extra

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Run one call: validate the timeout, resolve workdir, scan, ask
        ``external_directory``, then ``edit`` for the paths the command writes
        (``edit_patterns``; patterns and always alike), then ``bash`` (the whole command
        too when the scan is ``unknown``), run with ``ctx.abort``, stream previews into
        ``ctx.metadata`` (``"output"``) and, right after the spawn, the shell's
        ``process_record`` (``"process"``: ``{"pid", "pgid", "start"}``) so that recovery
        after a crash stops the command (``storage.orphan.stop_orphan``).

        Raises InvalidTimeout, WorkdirNotFound, PermissionDenied/Rejected/Corrected (from
        ``ctx.ask``) before anything runs.
        """
        from shellpilot.permission.readonly import is_read_only
        from shellpilot.scanner.scan import scan

        call: ShellParams = params
        timeout_ms = resolve_timeout(call.timeout, self.config.shell)
        project = ctx.project_dir
        cwd = self.workdir(call.workdir, project)
        found = scan(call.command, cwd=cwd, project_dir=project, shell=self.shell.name)
        meta = {"command": call.command, "description": call.description, "workdir": str(cwd)}
        outside = self.outside_globs(cwd, list(found.dirs), project)
        if outside:
            await ctx.ask("external_directory", outside, outside, meta)
        writes = edit_patterns(found.writes, project)
        if writes:
            await ctx.ask("edit", writes, writes, meta)
        patterns, always = list(found.patterns), list(found.always)
        read_only: list[str] = []
        if found.unknown:
            patterns += [call.command] if call.command not in patterns else []
            always += [call.command] if call.command not in always else []
        else:
            read_only = [
                c.text
                for c in found.commands
                if is_read_only(
                    list(c.argv), cwd=cwd, project_dir=project, text=c.text, readable=(self.output_dir,)
                )
            ]
        if patterns:
            unanalysed = [call.command] if found.unknown else []
            reasons = {**meta, "reasons": list(found.reasons)}
            await ctx.ask("bash", patterns, always, reasons, read_only, unanalysed=unanalysed)

        def on_output(preview: str) -> None:
            ctx.metadata(call.description, {"output": preview, "description": call.description})

        def on_spawn(pid: int) -> None:
            # Crash recovery: a store opened after this process died kills the recorded group.
            record = process_record(pid)
            if record is not None:
                ctx.metadata(None, {"process": record})

        result = await run(
            call.command,
            cwd=cwd,
            shell=self.shell,
            env=await self._env(ctx, cwd),
            timeout_ms=timeout_ms,
            abort=ctx.abort,
            on_output=on_output,
            limits=self.limits,
            output_dir=self.output_dir,
            call_id=f"{ascending('tool')}_{ctx.call_id}",
            config=self.config,
            on_spawn=on_spawn,
        )
        return ToolResult(
            title=call.description,
            output=result.output,
            metadata={
                "output": result.preview or result.output,
                "exit": result.exit_code,
                "signal": result.signal,
                "description": call.description,
                "truncated": result.truncated,
                "output_path": result.output_path,
                "spill_capped": result.spill_capped,
                "timed_out": result.timed_out,
                "aborted": result.aborted,
                "duration_ms": result.duration_ms,
                "background_pids": result.background_pids,
                "scan": {"patterns": patterns, "dirs": outside, "writes": writes, "unknown": found.unknown},
            },
        )
