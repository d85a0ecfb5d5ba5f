"""shellpilot.cli: the command line, and its console-script entry.

Owns: ``main``, which answers ``shellpilot --version`` before anything else is imported
and otherwise runs the typer app (cli/app.py). Must not touch: what sub-commands do.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry. ``--version`` alone is answered from the package's version
    string without building the CLI; everything else goes to ``cli.app.main``."""
    if sys.argv[1:] == ["--version"]:
        from shellpilot import __version__

        sys.stdout.write(f"shellpilot {__version__}\n")
        return
    from shellpilot.cli.app import main as run_app

    run_app()
