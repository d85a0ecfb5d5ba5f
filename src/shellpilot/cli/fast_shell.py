"""``shellpilot shell ...`` parsed by click alone, so the most frequent call never imports typer.

Owns: a click declaration of the shell sub-command's parameters and running it when click parses
the words cleanly. Everything else (``--help``, a usage error, a value this parse is stricter
about) is left to the typer app (shell_cmd.py), which parses the same words again and answers as
always. Must not touch: what the command does (user_shell.py); a test keeps the two declarations equal.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import click

_INTEGER = re.compile(r"-?[0-9]+")
"""A ``--timeout`` value read here; others (``+5``, ``5.0``, `` 5``) go to typer's own coercion."""


def shell_command() -> click.Command:
    """The shell sub-command's parameters for click: names, flags and arity as shell_cmd.py
    declares them for typer (no help texts: help is typer's to show)."""
    import click

    return click.Command(
        "shell",
        params=[
            click.Argument(["command"], required=True),
            click.Option(["--session", "-s", "session"]),
            click.Option(["--continue", "-c", "cont"], is_flag=True),
            click.Option(["--dir", "-d", "directory"]),
            click.Option(["--timeout", "timeout"]),
            click.Option(["--data-dir", "data_dir"]),
            click.Option(["--trust", "trust"], is_flag=True),
        ],
        add_help_option=False,
    )


def _parsed(args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters of ``shellpilot shell ARGS``, converted as typer converts them; None when
    click refuses the words or a value is one typer should judge."""
    import click

    if "--help" in args:
        return None
    try:
        with shell_command().make_context("shellpilot shell", list(args)) as ctx:
            params = dict(ctx.params)
    except click.ClickException:
        return None
    timeout = params["timeout"]
    if timeout is not None:
        if not _INTEGER.fullmatch(timeout):
            return None
        params["timeout"] = int(timeout)
    for name in ("directory", "data_dir"):
        if params[name] is not None:
            params[name] = Path(params[name])  # as typer makes a Path of it (``./a/`` -> ``a``)
    return params


def run_fast(args: Sequence[str]) -> int | None:
    """Run ``shellpilot shell ARGS`` and return its exit status, or None without doing anything
    when the typer app must handle the words (see module doc).

    Failures end as under the typer app: a ``ShellpilotError`` is printed as ``error: ...``
    with its exit code; Ctrl-C outside the command's own handling is 130; a closed stdout is 1.
    """
    params = _parsed(args)
    if params is None:
        return None
    import errno

    from shellpilot.cli.user_shell import run_shell
    from shellpilot.errors import ShellpilotError

    directory, data_dir = params["directory"], params["data_dir"]
    try:
        return run_shell(
            params["command"],
            session_id=params["session"],
            cont=params["cont"],
            directory=str(directory) if directory else None,
            timeout=params["timeout"],
            data_dir=str(data_dir) if data_dir else None,
            trust=params["trust"],
        )
    except ShellpilotError as exc:
        from shellpilot.cli.render import print_error

        print_error(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except EOFError:
        sys.stderr.write("\nAborted.\n")
        return 1
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        from shellpilot.cli.user_shell import silence_stdout

        silence_stdout()  # the reader left: nothing more to say, and exit quietly
        return 1


__all__ = ["run_fast", "shell_command"]
