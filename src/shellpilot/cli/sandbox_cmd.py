"""``shellpilot sandbox -- CMD...``: run one command in the sandbox the bash tool would use.

Owns: the sandbox sub-command (profile choice from flags and config, live echo, notes on
stderr, exit status). Must not touch: sessions or permissions (nothing is asked or stored);
nothing heavy is imported at module level.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from shellpilot.cli.options import DirOption, TrustOption

if TYPE_CHECKING:
    from shellpilot.config.model import Config
    from shellpilot.process.result import ShellResult
    from shellpilot.process.sandbox import SandboxProfile


CLI_HINT = "rerun with --allow PATH or --network for {request}"
"""How a person widens the sandbox of ``shellpilot sandbox``, named in a denial note."""


def command_text(words: list[str]) -> str:
    """The command line to run: one argument is taken as shell text (``"echo hi > f"``);
    several are quoted back into one line (``touch 'a b'``), as typed after ``--``."""
    return words[0] if len(words) == 1 else shlex.join(words)


def build_profile(
    config: Config,
    project: Path,
    output_dir: Path,
    *,
    mode: str | None,
    network: bool | None,
    allow: list[str],
) -> SandboxProfile:
    """The profile for the flags: ``mode`` (default: config ``sandbox.mode`` when it names a
    profile, else ``workspace-write``), ``network`` (default: config for workspace-write,
    off for read-only), ``allow`` (more writable paths, as a granted escalation). Always
    ``required``: this command exists to show the sandbox, so it never runs without one."""
    from shellpilot.process.sandbox import read_only_profile, widened, workspace_profile

    settings = config.sandbox.model_copy(update={"required": True})
    named = settings.mode if settings.mode in ("read-only", "workspace-write") else "workspace-write"
    if (mode or named) == "read-only":
        profile = read_only_profile(project, readable=(output_dir,), required=True, hint=CLI_HINT)
    else:
        if network is not None:
            settings = settings.model_copy(update={"network": network})
        profile = workspace_profile(
            project, output_dir=output_dir, tmp_dir=None, settings=settings, hint=CLI_HINT
        )
    paths = [Path(p).expanduser().resolve() for p in allow]
    return widened(profile, paths, network=bool(network) and not profile.network)


def exit_status(result: ShellResult) -> int:
    """The command's exit code, 128 + signal when killed by one, 124 after a timeout."""
    if result.timed_out:
        return 124
    if result.exit_code is not None:
        return result.exit_code
    return 128 + (result.signal or 1)


def run_sandboxed(
    words: list[str],
    *,
    directory: str | None,
    mode: str | None,
    network: bool | None,
    allow: list[str],
    timeout: int | None,
    trust: bool,
) -> int:
    """Run ``words`` in the project (``directory``) under the sandbox; returns the exit status.

    Raises UsageError for an empty command, SandboxUnavailable when bwrap cannot run here.
    """
    import asyncio

    from shellpilot.cli.context import project_dir_of
    from shellpilot.cli.echo import LiveEcho
    from shellpilot.config import load_config
    from shellpilot.errors import UsageError
    from shellpilot.paths import data_dir, tool_output_dir
    from shellpilot.process.runner import run

    command = command_text(words)
    if not command.strip():
        raise UsageError("Give the command after --, e.g. shellpilot sandbox -- touch x")
    project = project_dir_of(directory)
    config = load_config(project, trust=trust).config
    output_dir = tool_output_dir(data_dir(), project)
    profile = build_profile(config, project, output_dir, mode=mode, network=network, allow=allow)
    echo = LiveEcho(sys.stdout, getattr(sys.stdout, "buffer", None))
    result = asyncio.run(
        run(
            command,
            cwd=project,
            timeout_ms=timeout,
            no_timeout=timeout is None,
            on_data=echo.data,
            output_dir=output_dir,
            config=config,
            sandbox=profile,
        )
    )
    if not echo.ends_with_newline:
        sys.stdout.write("\n")
        sys.stdout.flush()
    for note in result.notes:
        if note.startswith("Exit code:"):
            continue
        if result.timed_out and note.startswith("shellpilot terminated"):
            note = f"command timed out after {timeout} ms and was killed"  # as `shellpilot shell` says it
        sys.stderr.write(f"shellpilot: {note}\n")
    sys.stderr.flush()
    return exit_status(result)


def register(app: typer.Typer) -> None:
    """Add ``shellpilot sandbox`` to the top-level app."""

    @app.command("sandbox", context_settings={"allow_interspersed_args": False})
    def sandbox(
        command: Annotated[list[str], typer.Argument(help="The command, after --.", show_default=False)],
        mode: Annotated[
            str | None,
            typer.Option(
                "--mode",
                help="read-only or workspace-write (default: config sandbox.mode, else workspace-write).",
            ),
        ] = None,
        network: Annotated[
            bool | None,
            typer.Option(
                "--network/--no-network", help="Allow the network (default: config sandbox.network)."
            ),
        ] = None,
        allow: Annotated[
            list[str] | None,
            typer.Option(
                "--allow", metavar="PATH", help="Also make this path writable (repeatable), as if granted."
            ),
        ] = None,
        timeout: Annotated[
            int | None,
            typer.Option("--timeout", metavar="MS", help="Kill the command after MS milliseconds."),
        ] = None,
        directory: DirOption = None,
        trust: TrustOption = False,
    ) -> None:
        """Run a command inside the sandbox, exactly as the bash tool would (for debugging).

        Nothing is asked or recorded. Output streams as it comes; what the sandbox blocked
        is said on stderr. Exits with the command's status (124 after --timeout). Refuses
        to run when no sandbox works here, naming the reason and the fix.
        """
        from shellpilot.errors import UsageError

        if mode is not None and mode not in ("read-only", "workspace-write"):
            raise UsageError(f"--mode must be read-only or workspace-write, not {mode!r}.")
        code = run_sandboxed(
            command,
            directory=str(directory) if directory else None,
            mode=mode,
            network=network,
            allow=allow or [],
            timeout=timeout,
            trust=trust,
        )
        sys.exit(code)
