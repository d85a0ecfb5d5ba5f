"""``shellpilot shell ...``, ``shellpilot run ...`` and ``shellpilot command list`` parsed by click
alone, so the calls people make most never import typer (whose import costs more than the rest
of a shell call's start-up).

Owns: click declarations of those two sub-commands' parameters and running one when click parses
the words cleanly. Everything else (``--help``, a usage error, a value this parse is stricter
about) is left to the typer app (shell_cmd.py, run_decl.py), which parses the same words again and
answers as always. Must not touch: what the commands do (user_shell.py, run_cmd.py); a test keeps
each click declaration equal to its typer one.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import click

_INTEGER = re.compile(r"-?[0-9]+")
"""An integer value read here; others (``+5``, ``5.0``, `` 5``) go to typer's own coercion."""


def shell_command() -> click.Command:
    """``shell``'s parameters for click: names, flags and arity as shell_cmd.py declares them
    (no help texts: help is typer's to show)."""
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


def run_command() -> click.Command:
    """``run``'s parameters for click, as run_decl.py declares them: words after a slash
    command's name are its own, so an unknown option is passed on as a word."""
    import click

    return click.Command(
        "run",
        params=[
            click.Argument(["message"], nargs=-1, required=False),
            click.Option(["--command", "command"]),
            click.Option(["--model", "-m", "model"]),
            click.Option(["--agent", "agent"]),
            click.Option(["--session", "-s", "session"]),
            click.Option(["--continue", "-c", "cont"], is_flag=True),
            click.Option(["--format", "output_format"], default="text"),
            click.Option(["--schema", "schema"]),
            click.Option(["--yes", "-y", "yes"], is_flag=True),
            click.Option(["--allow", "allow"], multiple=True),
            click.Option(["--file", "-f", "file"], multiple=True),
            click.Option(["--dir", "-d", "directory"]),
            click.Option(["--data-dir", "data_dir"]),
            click.Option(["--trust", "trust"], is_flag=True),
        ],
        context_settings={"ignore_unknown_options": True},
        add_help_option=False,
    )


def command_list_command() -> click.Command:
    """``command list``'s parameters for click, as command_cmd.py declares them."""
    import click

    return click.Command(
        "list",
        params=[
            click.Option(["--json", "as_json"], is_flag=True),
            click.Option(["--dir", "-d", "directory"]),
            click.Option(["--trust", "trust"], is_flag=True),
        ],
        add_help_option=False,
    )


def _as_typer_gives(params: dict[str, Any]) -> dict[str, Any] | None:
    """Values converted as typer converts them (paths to ``Path``, ``--timeout`` to int); None
    when a value is one only typer should judge."""
    timeout = params.get("timeout")
    if timeout is not None:
        if not _INTEGER.fullmatch(timeout):
            return None
        params["timeout"] = int(timeout)
    for name in ("directory", "data_dir"):
        if params.get(name) is not None:
            params[name] = Path(params[name])  # ``./a/`` -> ``a``, as typer's Path coercion gives
    if "file" in params:
        params["file"] = [Path(value) for value in params["file"]]
    return params


def parsed(name: str, args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters of ``shellpilot NAME ARGS`` (``shell``, ``run``, ``command list``), named
    and converted as typer gives them; None when click refuses the words or typer should
    judge them."""
    import click

    if "--help" in args:
        return None
    try:
        with _COMMANDS[name]().make_context(f"shellpilot {name}", list(args)) as ctx:
            params = dict(ctx.params)
    except click.ClickException:
        return None
    return _as_typer_gives(params)


def _shell(params: dict[str, Any]) -> int:
    from shellpilot.cli.user_shell import run_shell

    directory, data_dir = params["directory"], params["data_dir"]
    return run_shell(
        params["command"],
        session_id=params["session"],
        cont=params["cont"],
        directory=str(directory) if directory else None,
        timeout=params["timeout"],
        data_dir=str(data_dir) if data_dir else None,
        trust=params["trust"],
    )


def _run(params: dict[str, Any]) -> int:
    from shellpilot.cli.run_cmd import run_words

    return run_words(**params)


def _command_list(params: dict[str, Any]) -> int:
    from shellpilot.cli.command_listing import print_listing

    print_listing(**params)
    return 0


_COMMANDS: dict[str, Callable[[], click.Command]] = {
    "shell": shell_command,
    "run": run_command,
    "command list": command_list_command,
}
_WORK: dict[str, Callable[[dict[str, Any]], int]] = {
    "shell": _shell,
    "run": _run,
    "command list": _command_list,
}


def run_fast(name: str, args: Sequence[str]) -> int | None:
    """Run ``shellpilot NAME ARGS`` and return its exit status, or None without doing anything
    when NAME has no click declaration or the typer app must handle the words (see module doc).

    Failures end as under the typer app: a ``ShellpilotError`` is printed as ``error: ...``
    with its exit code; Ctrl-C outside the command's own handling is 130; end of input is
    ``Aborted.`` and 1; a closed stdout is a quiet 1.
    """
    if name not in _COMMANDS:
        return None
    params = parsed(name, args)
    if params is None:
        return None
    import errno

    from shellpilot.errors import ShellpilotError

    try:
        return _WORK[name](params)
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


__all__ = ["command_list_command", "parsed", "run_command", "run_fast", "shell_command"]
