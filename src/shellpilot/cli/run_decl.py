"""``shellpilot run [MESSAGE...]`` declared for the typer app: its options, help text and usage errors.

Owns: the sub-command's typer declaration. Must not touch: what it does (run_cmd.py); the
same parameters are declared for click in fast_path.py, and a test keeps the two equal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from shellpilot.cli.options import PASS_THROUGH, DataDirOption, DirOption, PassThroughCommand, TrustOption


def register(app: typer.Typer) -> None:
    """Add ``shellpilot run`` to the top-level app."""

    @app.command("run", cls=PassThroughCommand, context_settings=PASS_THROUGH)
    def run(
        message: Annotated[
            list[str] | None,
            typer.Argument(help='The message or "/command args" (else stdin).'),
        ] = None,
        command: Annotated[
            str | None,
            typer.Option(
                "--command", metavar="NAME", help="Run this slash command; MESSAGE is its arguments."
            ),
        ] = None,
        model: Annotated[
            str | None, typer.Option("--model", "-m", metavar="PROVIDER/MODEL", help="The model to use.")
        ] = None,
        agent: Annotated[
            str | None, typer.Option("--agent", metavar="NAME", help="Agent: build, plan or your own.")
        ] = None,
        session: Annotated[
            str | None, typer.Option("--session", "-s", metavar="ID", help="Continue this session.")
        ] = None,
        cont: Annotated[
            bool, typer.Option("--continue", "-c", help="Continue the latest session here.")
        ] = False,
        output_format: Annotated[
            str, typer.Option("--format", metavar="text|json", help="json: one JSON event per line.")
        ] = "text",
        schema: Annotated[
            str | None,
            typer.Option(
                "--schema", metavar="SCHEMA", help="Structured output: a JSON schema (inline or a file)."
            ),
        ] = None,
        yes: Annotated[
            bool, typer.Option("--yes", "-y", help="Without a terminal, allow everything that asks.")
        ] = False,
        allow: Annotated[
            list[str] | None,
            typer.Option(
                "--allow",
                metavar="PATTERN",
                help="Without a terminal, allow asks matching PATTERN (repeatable).",
            ),
        ] = None,
        file: Annotated[
            list[Path] | None,
            typer.Option("--file", "-f", metavar="PATH", help="Attach a file or folder (repeatable)."),
        ] = None,
        directory: DirOption = None,
        data_dir: DataDirOption = None,
        trust: TrustOption = False,
    ) -> None:
        """Send a message (or run a /command) to the agent and stream its work.

        The model works with the shell tool in the project; each command that needs
        approval is asked on the terminal (without one: rejected unless --yes/--allow).
        Words after /NAME are the command's, including ones that start with - (put --
        before them to pass one of these options on). -m wins over a command's own model.

        Exit status: 0 when the turn succeeded, 130 after Ctrl-C (143 after SIGTERM),
        2 for a usage or config error, 3 for provider errors, 4 when a permission was
        rejected, 5 when the session is missing or busy, 6 when the store cannot be
        written, 1 otherwise.
        """
        from shellpilot.cli.run_cmd import run_words

        sys.exit(
            run_words(
                message=message,
                command=command,
                model=model,
                agent=agent,
                session=session,
                cont=cont,
                output_format=output_format,
                schema=schema,
                yes=yes,
                allow=allow,
                file=file,
                directory=directory,
                data_dir=data_dir,
                trust=trust,
            )
        )
