"""The ``bash`` tool and ``run_gated``: the one place a command joins gate -> run.

Owns: parameters, description rendering, workdir resolution, running what the gate allowed.
Must not touch: how commands are scanned, asked or judged (tool/gate.py) or run (process/runner).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import platform
import re
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shellpilot.config.model import Config
from shellpilot.errors import WorkdirNotFound
from shellpilot.ids import ascending
from shellpilot.paths import data_dir, sandbox_tmp_dir, tool_output_dir
from shellpilot.permission.wildcard import has_wildcard
from shellpilot.process.detect import ShellChoice, detect_shell
from shellpilot.process.output import OutputLimits
from shellpilot.process.process_group import ProcessRecord
from shellpilot.process.result import ShellResult
from shellpilot.process.runner import check_command, resolve_timeout, run
from shellpilot.tool.base import ToolContext, ToolResult
from shellpilot.tool.gate import NETWORK, UNSANDBOXED, GateVerdict, escalate, gate

if TYPE_CHECKING:
    from shellpilot.process.sandbox import SandboxProfile

EnvHook = Callable[[str, str, Path], Mapping[str, str] | Awaitable[Mapping[str, str]]]
"""``shell.env`` hook: ``(session_id, call_id, cwd) -> extra variables`` (sync or async)."""


class ShellParams(BaseModel):
    """Arguments of one ``bash`` call."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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
    sandbox_allow: list[str] | None = Field(
        None,
        description=(
            'Only after the sandbox blocked this command: the paths it must write, "network", or '
            '"unsandboxed" (no sandbox at all, e.g. for a server that must outlive the call), as the '
            "sandbox note suggested. The user is asked to approve them."
        ),
    )

    @field_validator("timeout", mode="before")
    @classmethod
    def _not_a_flag(cls, value: Any) -> Any:
        # pydantic would take true as 1 ms (and kill the command at once).
        if isinstance(value, bool):
            raise ValueError("timeout is a number of milliseconds, not true or false")
        return value


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


def _sandbox_text(config: Config) -> str:
    """The description's sandbox section (package data ``prompts/bash_sandbox.txt``); empty
    when config ``sandbox.mode`` is ``off``."""
    if config.sandbox.mode == "off":
        return ""
    text = resources.files("shellpilot").joinpath("prompts/bash_sandbox.txt").read_text(encoding="utf-8")
    network = "" if config.sandbox.network else ", with no network"
    return text.replace("{{network}}", network).strip() + "\n\n"


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
        "sandbox": _sandbox_text(config),
    }
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], template).strip()


ESCALATION_HINT = 'call bash again with the same command and "sandbox_allow": {request} (the user is asked)'
"""How a model asks for more, named in a sandbox denial note (``{request}``: a JSON list)."""


def sandbox_profile(
    verdict: GateVerdict,
    config: Config,
    *,
    output_dir: Path,
    tmp_dir: Path | None = None,
    hint: str = "",
) -> SandboxProfile | None:
    """The sandbox ``verdict`` runs in under config ``sandbox`` (None: unsandboxed).

    ``mode`` ``auto`` takes the verdict's own choice (``GateVerdict.sandbox``); ``read-only``
    and ``workspace-write`` apply to every model and block command, except that an agent
    that may not edit always stays read-only; ``off`` (or the user's own shell) runs none.
    Read-only keeps the project and ``output_dir`` visible; workspace-write makes them
    writable. Both mount ``tmp_dir`` (the session's temp dir, None: a fresh one) at ``/tmp``.
    What the gate asked about stays possible: the outside directories it asked
    ``external_directory`` for stay visible, and the outside files it asked ``edit`` for
    (workspace-write) become writable (the file, or its nearest existing parent).
    ``verdict.grants`` widen the result (paths writable, ``network``; ``unsandboxed``: none).
    """
    from shellpilot.process.denial import grantable
    from shellpilot.process.sandbox import TMP, read_only_profile, widened, workspace_profile

    settings = config.sandbox
    kind = verdict.sandbox
    if kind == "off" or settings.mode == "off" or UNSANDBOXED in verdict.grants:
        return None
    if settings.mode == "read-only" or verdict.agent_read_only:
        kind = "read-only"
    elif settings.mode == "workspace-write":
        kind = "workspace-write"
    plan = verdict.plan
    project = plan.project_dir
    outside = [Path(glob[:-2] if glob.endswith("/*") else glob) for glob in plan.outside]
    paths = [Path(g) for g in verdict.grants if g != NETWORK]
    if kind == "read-only":
        readable = (output_dir, *outside)
        profile = read_only_profile(
            project, readable=readable, tmp_dir=tmp_dir, required=settings.required, hint=hint
        )
    else:
        profile = workspace_profile(
            project, output_dir=output_dir, tmp_dir=tmp_dir, settings=settings, readable=outside, hint=hint
        )
        written = [grantable(Path(w)) for w in plan.writes if os.path.isabs(w) and not has_wildcard(w)]
        # /tmp inside the sandbox is its own (the session's), never the host's.
        paths = [*(p for p in written if p != TMP), *paths]
    network = NETWORK in verdict.grants
    return widened(profile, paths, network=network) if paths or network else profile


async def run_gated(
    verdict: GateVerdict,
    *,
    shell: ShellChoice | None = None,
    env: Mapping[str, str] | None = None,
    timeout_ms: int | None = None,
    no_timeout: bool = False,
    abort: asyncio.Event | None = None,
    on_output: Callable[[str], None] | None = None,
    on_data: Callable[[bytes], None] | None = None,
    on_spawn: Callable[[int], None] | None = None,
    limits: OutputLimits | None = None,
    output_dir: Path | None = None,
    call_id: str | None = None,
    config: Config | None = None,
    sandbox_tmp: Path | None = None,
    sandbox_hint: str = "",
) -> ShellResult:
    """Run a command the gate let through (``tool.gate.gate``), in its plan's cwd, inside
    the sandbox its verdict earned (``sandbox_profile``; ``sandbox_tmp``: the session's temp
    dir; ``sandbox_hint``: how the caller may ask for more): the one join of gate -> run
    that the bash tool, shell blocks and the user's shell share.

    The options are ``process.runner.run``'s (``shell`` None: the configured or detected
    shell); raises what it raises (InvalidTimeout, SandboxUnavailable, WorkdirNotFound,
    ShellNotFound, ToolError).
    """
    cfg = config if config is not None else Config()
    folder = output_dir if output_dir is not None else tool_output_dir(data_dir())
    profile = sandbox_profile(verdict, cfg, output_dir=folder, tmp_dir=sandbox_tmp, hint=sandbox_hint)
    return await run(
        verdict.plan.command,
        cwd=verdict.plan.cwd,
        shell=shell,
        env=env,
        timeout_ms=timeout_ms,
        no_timeout=no_timeout,
        abort=abort,
        on_output=on_output,
        on_data=on_data,
        on_spawn=on_spawn,
        limits=limits,
        output_dir=output_dir,
        call_id=call_id,
        config=config,
        sandbox=profile,
    )


class ShellTool:
    """The ``bash`` tool (parse, scan, ask, run).

    ``ShellTool(config, data_dir, env_hook=None, project_dir=None)``: the shell is chosen
    once from config (raises ShellNotFound if the configured one is missing); spill files
    go to the project's tool-output folder (``paths.tool_output_dir``); ``env_hook`` adds
    variables per call.
    """

    id: ClassVar[str] = "bash"
    parameters: ClassVar[type[BaseModel]] = ShellParams

    def __init__(
        self,
        config: Config,
        data_dir: Path,
        env_hook: EnvHook | None = None,
        *,
        project_dir: Path | None = None,
    ) -> None:
        self.config = config
        self.data_dir = data_dir
        self.shell = detect_shell(configured=config.shell.path)
        self.output_dir = tool_output_dir(data_dir, project_dir)
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

    async def _env(self, ctx: ToolContext, cwd: Path) -> Mapping[str, str] | None:
        if self.env_hook is None:
            return None
        extra = self.env_hook(ctx.session_id, ctx.call_id, cwd)
        if inspect.isawaitable(extra):
            extra = await extra
        return extra

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Run one call: validate the timeout, resolve workdir, pass the gate
        (``tool.gate.gate``: ``external_directory``, then ``edit`` for the files the command
        writes, then ``bash``, the whole command too when the scan is ``unknown``), run with
        ``ctx.abort`` (``run_gated``), stream previews into ``ctx.metadata`` (``"output"``)
        and, right after the spawn, the shell's process record (``"process"``) so that
        recovery after a crash stops the command.

        Raises InvalidCommand, InvalidTimeout, WorkdirNotFound, PermissionDenied/Rejected/
        Corrected (from ``ctx.ask``) before anything runs.
        """
        call: ShellParams = params
        check_command(call.command)  # before the gate: nobody is asked about what cannot run
        timeout_ms = resolve_timeout(call.timeout, self.config.shell)
        cwd = self.workdir(call.workdir, ctx.project_dir)
        meta = {"description": call.description, "workdir": str(cwd)}
        verdict = await gate(
            call.command,
            cwd=cwd,
            project_dir=ctx.project_dir,
            caller="model",
            ask=ctx.ask,
            agent=ctx.agent,
            shell=self.shell.name,
            output_dir=self.output_dir,
            metadata=meta,
        )
        if call.sandbox_allow:
            verdict = await escalate(verdict, call.sandbox_allow, ask=ctx.ask, metadata=meta)

        def on_output(preview: str) -> None:
            ctx.metadata(call.description, {"output": preview, "description": call.description})

        def on_spawn(pid: int) -> None:
            # Crash recovery: start-up recovery after this process died kills the recorded group.
            record = ProcessRecord.of(pid)
            if record is not None:
                ctx.metadata(None, {"process": record.to_dict()})

        result = await run_gated(
            verdict,
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
            sandbox_tmp=sandbox_tmp_dir(self.data_dir, ctx.session_id),
            sandbox_hint=ESCALATION_HINT,
        )
        metadata = result.part_metadata(verdict.plan.record())
        return ToolResult(
            title=call.description,
            output=result.output,
            metadata={**metadata, "description": call.description},
        )
