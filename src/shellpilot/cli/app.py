"""The ``shellpilot`` command line: the typer app and its sub-command registration.

Owns: the top-level app, ``--version``, error display and exit codes. Sub-commands live
in their own modules (shell_cmd, session_cmd, command_cmd, run_cmd), each exporting
``register(app)``. Heavy SDKs are imported inside command functions, never here.
"""

from __future__ import annotations

import sys

import typer

from shellpilot import __version__
from shellpilot.cli.help import PlainGroup
from shellpilot.errors import ShellpilotError

app = typer.Typer(
    name="shellpilot",
    help="The hands of a coding agent: run shell and slash commands as auditable, "
    "cancellable, approvable actions recorded in persistent sessions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=PlainGroup,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"shellpilot {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """shellpilot: run shell and slash commands for a coding agent."""


def _register() -> None:
    from shellpilot.cli import command_cmd, doctor_cmd, run_cmd, sandbox_cmd, session_cmd, shell_cmd

    for module in (shell_cmd, session_cmd, command_cmd, run_cmd, sandbox_cmd, doctor_cmd):
        module.register(app)


_register()


def main() -> None:
    """Console-script entry: run the app; show ShellpilotError as a message + exit code.

    Standalone mode lets click render usage errors and apply ``typer.Exit`` codes; our
    own errors propagate out of it (pretty exceptions are off) and are printed here.
    """
    try:
        app()
    except ShellpilotError as exc:
        from shellpilot.cli.render import print_error

        print_error(exc)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
