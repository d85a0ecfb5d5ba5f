"""The ``shellpilot`` command line: the typer app and where each sub-command lives.

Owns: the top-level app, ``--version``, error display and exit codes, and ``SUBCOMMANDS``:
each sub-command's module (``register(app)``) loads only when it runs or help lists it.
Must not touch: what a sub-command does; heavy SDKs are imported inside command functions.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

import typer

from shellpilot import __version__
from shellpilot.cli.help import PlainGroup
from shellpilot.errors import ShellpilotError

SUBCOMMANDS: dict[str, str] = {
    "shell": "shellpilot.cli.shell_cmd",
    "run": "shellpilot.cli.run_decl",
    "sandbox": "shellpilot.cli.sandbox_cmd",
    "doctor": "shellpilot.cli.doctor_cmd",
    "session": "shellpilot.cli.session_cmd",
    "command": "shellpilot.cli.command_cmd",
}
"""Sub-command name -> the module whose ``register(app)`` adds it (help lists them in this order)."""


# Commands and contexts are typed Any: typer's click is either click or a copy typer ships.


def _load(name: str) -> Any:
    """Build sub-command ``name`` from its module (imported now, not at start-up)."""
    holder = typer.Typer()
    import_module(SUBCOMMANDS[name]).register(holder)
    return typer.main.get_group(holder).commands[name]


class LazyGroup(PlainGroup):
    """The top-level group: a sub-command's module is imported the first time it is looked up,
    and a ShellpilotError ends the run as its message and exit code (also under CliRunner).
    Help reads plainly (``PlainGroup``)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except ShellpilotError as exc:
            from shellpilot.cli.render import print_error

            print_error(exc)
            sys.exit(exc.exit_code)

    def list_commands(self, ctx: Any) -> list[str]:
        return [*SUBCOMMANDS, *(n for n in super().list_commands(ctx) if n not in SUBCOMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in SUBCOMMANDS and cmd_name not in self.commands:
            self.add_command(_load(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="shellpilot",
    cls=LazyGroup,
    help="The hands of a coding agent: run shell and slash commands as auditable, "
    "cancellable, approvable actions recorded in persistent sessions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
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


def main() -> None:
    """Run the app: click renders usage errors and applies exit codes, ``LazyGroup.main``
    shows our own errors, and Ctrl-C outside a sub-command's own handling exits 130."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
