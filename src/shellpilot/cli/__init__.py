"""shellpilot.cli: the command line, and its console-script entry.

Owns: ``main``, which answers ``shellpilot --version`` before anything else is imported,
runs ``shellpilot shell ...``, ``run ...`` and ``command list`` through click alone when it can
(cli/fast_path.py), and otherwise runs the typer app (cli/app.py).
Must not touch: what sub-commands do.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry. ``--version`` alone is answered from the package's version
    string without building the CLI; ``shell``, ``run`` and ``command list`` words that click parses cleanly
    run without typer; everything else goes to ``cli.app.main``."""
    args = sys.argv[1:]
    if args == ["--version"]:
        from shellpilot import __version__

        sys.stdout.write(f"shellpilot {__version__}\n")
        return
    if args[:1] in (["shell"], ["run"], ["command"]) and not _completing():
        from shellpilot.cli.fast_path import run_fast

        name, rest = (" ".join(args[:2]), args[2:]) if args[0] == "command" else (args[0], args[1:])
        code = run_fast(name, rest)
        if code is not None:
            sys.exit(code)
    from shellpilot.cli.app import main as run_app

    run_app()


def _completing() -> bool:
    """True when a shell's tab completion runs us (click's ``_PROG_COMPLETE`` variable is set):
    the words are to be completed by the full app, not run."""
    import os

    return any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ)
