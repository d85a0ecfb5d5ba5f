"""``shellpilot shell "CMD"`` declared for the typer app: its options, help text and usage errors.

Owns: the sub-command's typer declaration. Must not touch: what it does (user_shell.py); the
same parameters are declared for click in fast_path.py, and a test keeps the two equal.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from shellpilot.cli.options import DataDirOption, DirOption, TrustOption


def register(app: typer.Typer) -> None:
    """Add ``shellpilot shell`` to the top-level app."""

    @app.command("shell")
    def shell(
        command: Annotated[str, typer.Argument(help="The shell command to run, as one argument.")],
        session: Annotated[
            str | None,
            typer.Option(
                "--session", "-s", metavar="ID", help="Record in this session (runs in its project dir)."
            ),
        ] = None,
        cont: Annotated[
            bool, typer.Option("--continue", "-c", help="Record in the latest session here.")
        ] = False,
        directory: DirOption = None,
        timeout: Annotated[
            int | None,
            typer.Option("--timeout", metavar="MS", help="Kill the command after MS milliseconds."),
        ] = None,
        data_dir: DataDirOption = None,
        trust: TrustOption = False,
    ) -> None:
        """Run a shell command in the project, stream its output, record it in a session.

        Exits with the command's exit code (128 + signal when killed, 130 after Ctrl-C).
        No permission is asked: you typed the command. No timeout unless --timeout or
        config shell.user_timeout_ms sets one.
        """
        from shellpilot.cli.user_shell import run_shell

        code = run_shell(
            command,
            session_id=session,
            cont=cont,
            directory=str(directory) if directory else None,
            timeout=timeout,
            data_dir=str(data_dir) if data_dir else None,
            trust=trust,
        )
        sys.exit(code)
