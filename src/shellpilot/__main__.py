"""``python -m shellpilot`` runs the CLI."""

from shellpilot.cli import main

main()
