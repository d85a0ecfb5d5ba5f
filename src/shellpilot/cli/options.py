"""Command-line options shared by several sub-commands, so they read and behave the same.

Owns: the typer option declarations (flag names, help) and the pass-through parsing of
slash-command arguments. Must not touch: what the options do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from shellpilot.cli.help import PlainCommand

DirOption = Annotated[
    Path | None,
    typer.Option("--dir", "-d", metavar="DIR", help="Project directory (default: the current directory)."),
]
DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        metavar="DIR",
        help="Where sessions are stored (default: $SHELLPILOT_DATA_DIR or the platform's).",
    ),
]
TrustOption = Annotated[
    bool,
    typer.Option(
        "--trust", help="Trust this project's own config files (MCP servers, shell path/env, allow rules)."
    ),
]


PASS_THROUGH: dict[str, Any] = {"ignore_unknown_options": True}
"""Context settings of a sub-command whose trailing words belong to a slash command: an
option shellpilot does not know (``--flag``, ``-x``, ``-5``) is passed on as a word."""

DASH_DASH_HINT = (
    "Options of shellpilot are read anywhere on the line; to pass one to the slash command "
    "itself, put -- before the command's arguments (shellpilot command render NAME -- --yes, "
    "shellpilot run /NAME -- --yes)."
)


_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""Click's ``UsageError`` as typer raises it (typer may bundle its own click)."""


class PassThroughCommand(PlainCommand):
    """A plainly helped command whose usage errors end with ``DASH_DASH_HINT``: when one of our own
    options is misused after a slash command's name, the way out is ``--``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Click's parsing; a usage error gets the hint appended to its message."""
        try:
            return list(super().parse_args(ctx, args))
        except _USAGE_ERROR as exc:
            exc.message = f"{getattr(exc, 'message', '')}\n{DASH_DASH_HINT}"  # type: ignore[attr-defined]
            raise
