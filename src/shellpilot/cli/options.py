"""Command-line options shared by several sub-commands, so they read and behave the same.

Owns: the typer option declarations (flag names, help). Must not touch: what the options do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
